import { access, rm } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { NetworkConnection } from "hardhat/types/network";
import { DEVNET_OPERATOR } from "./accounts.ts";
import { PROJECT_ROOT } from "./artifacts.ts";

/** A contract deployed by another team's Ignition module, as recorded in the devnet deployment. */
export interface CoreContract {
  /** Key in `deployment.contracts` and name of its ABI file (the contract name, e.g. "ProofRegistry"). */
  name: string;
  address: string;
}

/**
 * The Ignition modules of the core contracts, deployed on every devnet chain after the devnet's own
 * contracts (so their arrival never moves the devnet's addresses), in this order. A module whose file
 * is not there yet is skipped. Roles go to the relayer operator (Hardhat account #1); the deployer
 * (account #0) stays admin.
 */
export const CORE_MODULES: readonly {
  id: string;
  file: string;
  parameters: Record<string, unknown>;
}[] = [
  {
    id: "Core",
    file: "ignition/modules/Core.ts",
    parameters: { relayer: DEVNET_OPERATOR.address },
  },
  {
    id: "ExecutionAttestor",
    file: "ignition/modules/ExecutionAttestor.ts",
    parameters: { relayer: DEVNET_OPERATOR.address },
  },
];

async function exists(file: string): Promise<boolean> {
  try {
    await access(file);
    return true;
  } catch {
    return false;
  }
}

/** The core modules present in this checkout. */
export async function availableCoreModules() {
  const present = await Promise.all(
    CORE_MODULES.map((m) => exists(path.join(PROJECT_ROOT, m.file))),
  );
  return CORE_MODULES.filter((_, i) => present[i]);
}

/**
 * Deploys the available core modules through Hardhat Ignition on `connection` (in process or an http
 * network), from account #0, and returns what they created. Ignition keeps no journal for these
 * runs, so each fresh chain gets the same transactions and addresses.
 */
export async function deployCoreWithIgnition(
  connection: NetworkConnection,
): Promise<CoreContract[]> {
  const deployed: CoreContract[] = [];
  for (const module of await availableCoreModules()) {
    const imported = (await import(pathToFileURL(path.join(PROJECT_ROOT, module.file)).href)) as {
      default: Parameters<NetworkConnection["ignition"]["deploy"]>[0];
    };
    // Over http Ignition journals to ignition/deployments/<id>; the devnet tracks its own deployment
    // (idempotency is decided from the chain), so a throwaway id keeps a later fresh chain deployable.
    const deploymentId = `devnet-${module.id}-${process.pid}-${Date.now()}`;
    let result: Record<string, { getAddress(): Promise<string> }>;
    try {
      result = (await connection.ignition.deploy(imported.default, {
        parameters: { [module.id]: module.parameters as never },
        deploymentId,
        displayUi: false,
      })) as Record<string, { getAddress(): Promise<string> }>;
    } finally {
      await rm(path.join(PROJECT_ROOT, "ignition", "deployments", deploymentId), {
        recursive: true,
        force: true,
      });
    }
    for (const [futureName, contract] of Object.entries(result)) {
      // Recorded under the contract's name (its ABI file name), not the module's result name.
      const future = imported.default.results[futureName] as { contractName?: string } | undefined;
      const name = future?.contractName ?? futureName[0]!.toUpperCase() + futureName.slice(1);
      deployed.push({ name, address: await contract.getAddress() });
    }
  }
  return deployed;
}

/** Names of the contracts the available core modules deploy (to check their artifacts exist). */
export async function coreContractNames(): Promise<string[]> {
  const names: string[] = [];
  for (const module of await availableCoreModules()) {
    const imported = (await import(pathToFileURL(path.join(PROJECT_ROOT, module.file)).href)) as {
      default: { futures: Set<{ contractName?: string }> };
    };
    for (const future of imported.default.futures) {
      if (future.contractName) names.push(future.contractName);
    }
  }
  return names;
}
