import { JsonRpcProvider, toQuantity } from "ethers";
import { network } from "hardhat";
import { readDeployment, type Deployment } from "../deployments/index.ts";
import { DEVNET_CHAINS } from "./chains.ts";
import { deployCoreWithIgnition } from "./core.ts";
import { deployDevnet, type DevnetDeployResult } from "./deploy.ts";
import type { DevnetChainName } from "./plan.ts";

/** An ethers provider for a devnet JSON-RPC node: no batching stalls, short polling. */
export function devnetRpcProvider(url: string, chainId: number): JsonRpcProvider {
  return new JsonRpcProvider(url, chainId, {
    staticNetwork: true,
    batchMaxCount: 1,
    pollingInterval: 50,
    cacheTimeout: -1,
  });
}

/**
 * Deploys the devnet on a chain served over JSON-RPC (same code as in process); the core contracts
 * go through Hardhat Ignition on the `<name>Rpc` http network pointed at `url`. Idempotent: when the
 * chain already holds the deployment recorded under `deploymentsRoot`, nothing is sent.
 */
export async function deployDevnetOverRpc(
  name: DevnetChainName,
  url: string,
  deploymentsRoot: string,
  log?: (line: string) => void,
): Promise<DevnetDeployResult> {
  const { chainId, initialBaseFeePerGas } = DEVNET_CHAINS[name];
  const provider = devnetRpcProvider(url, chainId);
  let existing: Deployment | undefined;
  try {
    existing = await readDeployment(deploymentsRoot, chainId);
  } catch {
    existing = undefined; // nothing recorded yet: a fresh chain is required
  }
  try {
    const result = await deployDevnet(provider, name, {
      existing,
      log,
      deployCore: async () => {
        const connection = await network.create({ network: `${name}Rpc`, override: { url } });
        try {
          return await deployCoreWithIgnition(connection);
        } finally {
          await connection.close();
        }
      },
    });
    if (!result.alreadyDeployed) {
      // Deployment blocks lowered the base fee (EIP-1559 on quiet blocks): put the chain back at its level.
      await provider.send("hardhat_setNextBlockBaseFeePerGas", [toQuantity(initialBaseFeePerGas)]);
      await provider.send("evm_mine", []);
    }
    return result;
  } finally {
    provider.destroy();
  }
}
