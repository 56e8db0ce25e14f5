/**
 * Deploys the core contracts (ignition/modules/Core.ts) on a JSON-RPC Hardhat network and exports
 * `deployments/<chainId>/`:
 *
 *   CORE_PARAMETERS=core.json npx hardhat run --network <http network> scripts/deploy-core.ts
 *
 * `CORE_PARAMETERS` (optional) is a JSON file of the Core module's parameters, e.g.
 * `{ "relayer": "0x…", "failureThreshold": 10 }` (names and defaults in docs/contracts.md).
 * Ignition journals the deployment under ignition/deployments/, so a re-run resumes instead of
 * redeploying.
 */
import { readFile } from "node:fs/promises";
import { network } from "hardhat";
import { DEVNET_CHAIN_IDS } from "../relayer/devnet/chains.ts";
import { assertProvingKeysFit } from "../relayer/proofs/index.ts";
import { CORE_CONTRACTS, deployCore } from "./export-deployments.ts";

async function main(): Promise<void> {
  const parametersFile = process.env.CORE_PARAMETERS;
  const parameters = parametersFile
    ? (JSON.parse(await readFile(parametersFile, "utf8")) as Record<string, unknown>)
    : {};
  const connection = await network.getOrCreate();
  if (connection.networkConfig.type === "edr-simulated") {
    // An in-process chain disappears with this process: its deployment file would point at nothing.
    throw new Error(
      `network "${connection.networkName}" runs in process; pass --network <a JSON-RPC (http) network>`,
    );
  }
  try {
    // The attestor's verifier comes from circuits/: refuse the insecure development keys on any
    // real network before deploying anything there.
    const chainId = Number((await connection.ethers.provider.getNetwork()).chainId);
    await assertProvingKeysFit([chainId], DEVNET_CHAIN_IDS);
    const deployment = await deployCore(connection, { parameters });
    for (const name of CORE_CONTRACTS) {
      const contract = deployment.contracts[name]!;
      console.log(
        `${deployment.network} (${deployment.chainId}) ${name} ${contract.address} block ${contract.blockNumber}`,
      );
    }
  } finally {
    await connection.close();
  }
}

main().catch((err: unknown) => {
  console.error((err as Error).message);
  process.exitCode = 1;
});
