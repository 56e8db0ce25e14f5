import { BrowserProvider } from "ethers";
import { network } from "hardhat";
import type { Deployment } from "../deployments/index.ts";
import { hardhatArtifactByName, hasHardhatArtifact } from "./artifacts.ts";
import { DEVNET_CHAINS } from "./chains.ts";
import { coreContractNames, deployCoreWithIgnition } from "./core.ts";
import { deployDevnet } from "./deploy.ts";
import { DevnetEip1193 } from "./eip1193.ts";
import { inProcessFaults, type ChainFaults } from "./faults.ts";
import { DEVNET_CHAIN_NAMES, type DevnetChainName } from "./plan.ts";

/** How often in-process providers poll (`tx.wait()`, events): the chain is local, so poll fast. */
export const IN_PROCESS_POLLING_MS = 10;

/** One in-process devnet chain (EDR through `network.create`), deployed and ready. */
export interface InProcessChain {
  name: DevnetChainName;
  chainId: number;
  /** The EIP-1193 provider with the devnet's base fee pinning and outage switch. */
  eip1193: DevnetEip1193;
  /** An ethers provider over `eip1193`, polling every `IN_PROCESS_POLLING_MS`. */
  provider: BrowserProvider;
  deployment: Deployment;
  abis: Record<string, unknown[]>;
  faults: ChainFaults;
  close(): Promise<void>;
}

/** An ethers provider over an EIP-1193 provider, with a fixed network and short polling. */
export function ethersProviderFor(eip1193: DevnetEip1193, chainId: number): BrowserProvider {
  return new BrowserProvider(eip1193, chainId, {
    staticNetwork: true,
    pollingInterval: IN_PROCESS_POLLING_MS,
    cacheTimeout: -1,
  });
}

/** Starts one chain in process (fresh EDR network) and deploys the devnet on it. */
export async function startInProcessChain(name: DevnetChainName): Promise<InProcessChain> {
  const { chainId, initialBaseFeePerGas } = DEVNET_CHAINS[name];
  const connection = await network.create(name);
  const eip1193 = new DevnetEip1193(name, connection.provider, initialBaseFeePerGas);
  const provider = ethersProviderFor(eip1193, chainId);
  try {
    const { deployment, abis } = await deployDevnet(provider, name, {
      deployCore: () => deployCoreWithIgnition(connection),
    });
    // Ignition's transactions bypass the pinning wrapper: mine one block at the chain's level so the
    // latest block (what fee estimates read) carries it.
    await eip1193.request({ method: "evm_mine", params: [] });
    return {
      name,
      chainId,
      eip1193,
      provider,
      deployment,
      abis,
      faults: inProcessFaults(eip1193, initialBaseFeePerGas),
      async close() {
        provider.destroy();
        await connection.close();
      },
    };
  } catch (err) {
    provider.destroy();
    await connection.close();
    throw err;
  }
}

/**
 * Compiles the contracts when their artifacts are missing (a fresh clone running `npm start`):
 * the devnet deploys from Hardhat's artifacts.
 */
async function ensureArtifacts(): Promise<void> {
  const present = await Promise.all([
    hasHardhatArtifact("contracts/devnet/LockMintBridge.sol", "LockMintBridge"),
    ...(await coreContractNames()).map((name) =>
      hardhatArtifactByName(name).then(
        () => true,
        () => false,
      ),
    ),
  ]);
  if (present.every(Boolean)) return;
  const hre = (await import("hardhat")).default;
  await hre.tasks.getTask("build").run({ quiet: true });
}

/** Starts and deploys the devnet chains in process, concurrently. */
export async function startEmbeddedDevnet(
  names: readonly DevnetChainName[] = DEVNET_CHAIN_NAMES,
): Promise<InProcessChain[]> {
  await ensureArtifacts();
  const settled = await Promise.allSettled(names.map((name) => startInProcessChain(name)));
  const failed = settled.find((s) => s.status === "rejected");
  if (failed) {
    await Promise.all(settled.map((s) => (s.status === "fulfilled" ? s.value.close() : undefined)));
    throw (failed as PromiseRejectedResult).reason;
  }
  return settled.map((s) => (s as PromiseFulfilledResult<InProcessChain>).value);
}
