/**
 * Exports the core contracts' deployment to `deployments/<chainId>/` (schema and writer:
 * `relayer/deployments/index.ts`), merging with what the file already holds (the devnet adds its
 * tokens, exchanges, pools and contracts to the same file).
 *
 * As a library:
 *   - `exportCoreDeployment({ provider, network, addresses })`: addresses of an existing deployment.
 *   - `deployCore(connection, { parameters })`: deploys `ignition/modules/Core.ts` on a Hardhat
 *     network connection (in process or JSON-RPC) and exports it.
 *
 * From the command line, for a deployment made with `hardhat ignition deploy` over JSON-RPC:
 *   npx node scripts/export-deployments.ts --rpc http://127.0.0.1:8545 --network ethereum \
 *     [--ignition-dir ignition/deployments/chain-31337] [--out deployments]
 */
import { access, readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { JsonRpcProvider, getAddress } from "ethers";
import type { Provider } from "ethers";
import type { NetworkConnection } from "hardhat/types/network";
import { deploymentSchema, readDeployment, writeDeployment } from "../relayer/deployments/index.ts";
import type { DeployedContract, Deployment } from "../relayer/deployments/index.ts";
import CoreModule from "../ignition/modules/Core.ts";

export const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const DEFAULT_DEPLOYMENTS_DIR = path.join(PROJECT_ROOT, "deployments");

/** The core contracts, by the key they get in `deployment.contracts` (also their ABI file name). */
export const CORE_CONTRACTS = [
  "ProofRegistry",
  "CircuitBreakerGateway",
  "RevShareReceipt",
] as const;
export type CoreContractName = (typeof CORE_CONTRACTS)[number];

/** Ignition future ids of the Core module, as in `deployed_addresses.json`. */
const IGNITION_IDS: Record<CoreContractName, string> = {
  ProofRegistry: "Core#ProofRegistry",
  CircuitBreakerGateway: "Core#CircuitBreakerGateway",
  RevShareReceipt: "Core#RevShareReceipt",
};

export interface ExportCoreOptions {
  provider: Provider;
  /** Chain name recorded in the file when it does not exist yet (e.g. "ethereum"). */
  network: string;
  addresses: Record<CoreContractName, string>;
  /** Defaults to `<project>/deployments`. */
  root?: string;
  /** Defaults to `<project>/artifacts`. */
  artifactsDir?: string;
}

/** Writes (merges) the core contracts into `deployments/<chainId>/` and returns the written deployment. */
export async function exportCoreDeployment(options: ExportCoreOptions): Promise<Deployment> {
  const root = options.root ?? DEFAULT_DEPLOYMENTS_DIR;
  const artifactsDir = options.artifactsDir ?? path.join(PROJECT_ROOT, "artifacts");
  const chainId = Number((await options.provider.getNetwork()).chainId);

  const contracts: Record<string, DeployedContract> = {};
  const abis: Record<string, readonly unknown[]> = {};
  for (const name of CORE_CONTRACTS) {
    const address = getAddress(options.addresses[name]);
    const creation = await findCreation(options.provider, address);
    contracts[name] = { address, ...creation, abi: name };
    abis[name] = await readAbi(artifactsDir, name);
  }

  const existing = await readExisting(root, chainId);
  const merged = deploymentSchema.parse({
    ...(existing ?? { network: options.network }),
    chainId,
    contracts: { ...existing?.contracts, ...contracts },
    deploymentBlock: 0,
  });
  merged.deploymentBlock = Math.min(...Object.values(merged.contracts).map((c) => c.blockNumber));
  await writeDeployment(root, merged, abis);
  return merged;
}

export interface DeployCoreOptions {
  /** Ignition parameters of the `Core` module (see docs/contracts.md), e.g. `{ relayer: "0x…" }`. */
  parameters?: Record<string, unknown>;
  /** Chain name for the deployment file; defaults to the connection's network name. */
  network?: string;
  root?: string;
  artifactsDir?: string;
}

/** Deploys the Core module on a Hardhat network connection and exports it. */
export async function deployCore(
  connection: NetworkConnection,
  options: DeployCoreOptions = {},
): Promise<Deployment> {
  const deployed = await connection.ignition.deploy(CoreModule, {
    parameters: { Core: (options.parameters ?? {}) as Record<string, never> },
  });
  const addresses = {} as Record<CoreContractName, string>;
  addresses.ProofRegistry = await deployed.proofRegistry.getAddress();
  addresses.CircuitBreakerGateway = await deployed.circuitBreakerGateway.getAddress();
  addresses.RevShareReceipt = await deployed.revShareReceipt.getAddress();
  return exportCoreDeployment({
    provider: connection.ethers.provider,
    network: options.network ?? connection.networkName,
    addresses,
    root: options.root,
    artifactsDir: options.artifactsDir,
  });
}

/**
 * Block and transaction that created `address`. Every core contract emits `RoleGranted` from its
 * constructor, so its first log is in the creation transaction; the code check guards that
 * assumption, and a binary search over `eth_getCode` covers contracts without constructor logs.
 */
export async function findCreation(
  provider: Provider,
  address: string,
): Promise<{ blockNumber: number; transactionHash?: string }> {
  const latest = await provider.getBlockNumber();
  if ((await provider.getCode(address, latest)) === "0x") {
    throw new Error(`no contract at ${address} on this chain`);
  }
  const [first] = await provider.getLogs({ address, fromBlock: 0, toBlock: latest });
  if (
    first &&
    (first.blockNumber === 0 || (await provider.getCode(address, first.blockNumber - 1)) === "0x")
  ) {
    return { blockNumber: first.blockNumber, transactionHash: first.transactionHash };
  }
  let low = 0;
  let high = latest;
  while (low < high) {
    const mid = Math.floor((low + high) / 2);
    if ((await provider.getCode(address, mid)) === "0x") low = mid + 1;
    else high = mid;
  }
  return { blockNumber: low };
}

async function readAbi(artifactsDir: string, name: CoreContractName): Promise<unknown[]> {
  const file = path.join(artifactsDir, "contracts", `${name}.sol`, `${name}.json`);
  try {
    return (JSON.parse(await readFile(file, "utf8")) as { abi: unknown[] }).abi;
  } catch (err) {
    throw new Error(`missing artifact ${file}: run \`npx hardhat build\` first`, { cause: err });
  }
}

async function readExisting(root: string, chainId: number): Promise<Deployment | undefined> {
  try {
    await access(path.join(root, String(chainId), "deployment.json"));
  } catch {
    return undefined;
  }
  return readDeployment(root, chainId);
}

/** Addresses of a `hardhat ignition deploy` of the Core module (`deployed_addresses.json`). */
export async function readIgnitionAddresses(
  ignitionDir: string,
): Promise<Record<CoreContractName, string>> {
  const file = path.join(ignitionDir, "deployed_addresses.json");
  const deployed = JSON.parse(await readFile(file, "utf8")) as Record<string, string>;
  const addresses = {} as Record<CoreContractName, string>;
  for (const name of CORE_CONTRACTS) {
    const address = deployed[IGNITION_IDS[name]];
    if (!address) throw new Error(`${file} has no ${IGNITION_IDS[name]}`);
    addresses[name] = address;
  }
  return addresses;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      rpc: { type: "string" },
      network: { type: "string" },
      "ignition-dir": { type: "string" },
      out: { type: "string", default: DEFAULT_DEPLOYMENTS_DIR },
    },
  });
  if (!values.rpc || !values.network) {
    throw new Error(
      "usage: export-deployments.ts --rpc <url> --network <name> [--ignition-dir <dir>] [--out <dir>]",
    );
  }
  const provider = new JsonRpcProvider(values.rpc, undefined, { staticNetwork: true });
  try {
    const chainId = Number((await provider.getNetwork()).chainId);
    const ignitionDir =
      values["ignition-dir"] ??
      path.join(PROJECT_ROOT, "ignition", "deployments", `chain-${chainId}`);
    const deployment = await exportCoreDeployment({
      provider,
      network: values.network,
      addresses: await readIgnitionAddresses(ignitionDir),
      root: values.out,
    });
    for (const name of CORE_CONTRACTS) {
      const c = deployment.contracts[name]!;
      console.log(`${deployment.network} (${chainId}) ${name} ${c.address} block ${c.blockNumber}`);
    }
  } finally {
    provider.destroy();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  main().catch((err: unknown) => {
    console.error((err as Error).message);
    process.exitCode = 1;
  });
}
