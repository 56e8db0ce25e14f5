import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { environmentVariable } from "../config/index.ts";
import { VeriflowError } from "../errors/index.ts";
import {
  Contract,
  Interface,
  JsonRpcProvider,
  Wallet,
  type AbstractProvider,
  type ContractRunner,
  type InterfaceAbi,
  type Signer,
} from "ethers";
import {
  DEVNET_OPERATOR,
  PROJECT_ROOT,
  DEVNET_CHAINS,
  RPC_UNAVAILABLE_CODE,
  jsonRpcFaults,
  type ChainFaults,
  DEVNET_CHAIN_NAMES,
  type DevnetChainName,
  loadEmbeddedDevnet,
} from "../devnet/index.ts";
import { chainsConfigSchema, chainsFileSchema, type ChainsConfig } from "./config.ts";
import { readDeployment, type Deployment } from "../deployments/index.ts";
import {
  DEVNET_RELIABILITY,
  NETWORK_RELIABILITY,
  reliabilityWith,
  type ChainReliability,
} from "./reliability.ts";

export {
  chainsConfigSchema,
  chainsFileSchema,
  type ChainsConfig,
  type ChainsFile,
} from "./config.ts";
export type { ChainFaults } from "../devnet/index.ts";
export {
  chainReliabilitySchema,
  DEVNET_RELIABILITY,
  NETWORK_RELIABILITY,
  type ChainReliability,
} from "./reliability.ts";

/** One chain the relayer works on. */
export interface ChainHandle {
  name: string;
  chainId: number;
  /** ethers provider (in process: polls every 10 ms, so `tx.wait()` returns at once). */
  provider: AbstractProvider;
  /** Addresses, tokens, exchanges, pools, bridges (`extra.bridges`) of this chain. */
  deployment: Deployment;
  /**
   * An ethers Contract for a deployed contract (`deployment.contracts` key, e.g. "UniswapRouter",
   * "LockMintBridge") or a token symbol ("USDC"), connected to `runner` (default: the provider).
   */
  contract(name: string, runner?: ContractRunner | null): Contract;
  /** An ABI from the deployment's ABI set (e.g. "UniswapV2Pair", "TestToken"). */
  abi(name: string): InterfaceAbi;
  /** The relayer's operator key on this chain (devnet: Hardhat account #1). */
  operator: Signer;
  /** True for the local devnet chains (embedded and rpc modes). */
  devnet: boolean;
  /** Fault injection (devnet chains only). */
  faults?: ChainFaults;
  /** In-process chains only: see RoutingChain.stateVersion (relayer/routing/chain.ts). */
  stateVersion?(): number | null;
  /** Confirmation depth, stuck timeout, fee bump and cap of this chain's transactions. */
  reliability: ChainReliability;
  /** Devnet chains only: see RoutingChain.produceBlock. */
  produceBlock?(): Promise<void>;
}

export interface ChainSet {
  list(): ChainHandle[];
  /** The chain named `name`; throws when unknown. */
  byName(name: string): ChainHandle;
  /** The chain with `chainId`; throws when unknown. */
  byId(chainId: number): ChainHandle;
  /** Whether a chain of that name is configured. */
  has(name: string): boolean;
  close(): Promise<void>;
}

/** Opens the relayer's chains (see `ChainsConfig`); the default is the embedded devnet. */
export async function openChains(config: unknown = { mode: "embedded" }): Promise<ChainSet> {
  const parsed = chainsConfigSchema.safeParse(config);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join(".") || "chains"}: ${i.message}`);
    throw new Error(`invalid chains configuration: ${issues.join("; ")}`);
  }
  const cfg: ChainsConfig = parsed.data;
  switch (cfg.mode) {
    case "embedded":
      return openEmbedded(cfg.chains ?? DEVNET_CHAIN_NAMES, cfg.reliability);
    case "rpc":
      return openDevnetRpc(cfg);
    case "file":
      return openChainsFile(cfg.file);
  }
}

/**
 * Whether an error means the chain's RPC is unreachable (down node, refused connection, injected
 * outage): the spec's 503 congestion, answered with `fallback_chains`.
 */
export function isChainUnavailable(err: unknown): boolean {
  return chainUnavailableReason(err) !== null;
}

/** The message of the error (or of the error it wraps) that says the RPC is unreachable; null if none. */
export function chainUnavailableReason(err: unknown): string | null {
  for (let e: unknown = err, depth = 0; e && depth < 5; depth++) {
    // A domain error is its layer's decision, even when its text quotes a transport failure: no
    // sanctions source answering is ORACLE_UNAVAILABLE, not an outage to wait out.
    if (e instanceof VeriflowError) return null;
    const candidate = e as {
      code?: unknown;
      message?: unknown;
      error?: unknown;
      cause?: unknown;
      info?: { error?: unknown };
    };
    const message = typeof candidate.message === "string" ? candidate.message : "";
    if (
      candidate.code === RPC_UNAVAILABLE_CODE ||
      /ECONNREFUSED|ECONNRESET|RPC unavailable|socket hang up|fetch failed/.test(message)
    )
      return message || `RPC unavailable (code ${String(candidate.code)})`;
    // ethers reports a failed `eth_call` as CALL_EXCEPTION ("missing revert data") with the
    // transport's error under `info.error`.
    e = candidate.error ?? candidate.cause ?? candidate.info?.error;
  }
  return null;
}

function makeHandle(args: {
  name: string;
  chainId: number;
  provider: AbstractProvider;
  deployment: Deployment;
  abis: Record<string, unknown[]>;
  operatorKey: string;
  devnet: boolean;
  faults?: ChainFaults;
  stateVersion?: () => number | null;
  reliability: ChainReliability;
}): ChainHandle {
  const { name, deployment, abis, provider } = args;
  const abi = (abiName: string): InterfaceAbi => {
    const found = abis[abiName];
    if (!found) throw new Error(`chain ${name}: no ABI ${abiName} in its deployment`);
    return found as InterfaceAbi;
  };
  // Parsing an ABI into an ethers Interface is by far the costliest part of building a Contract
  // (every fragment and parameter becomes an object); build each once per chain and reuse it.
  const interfaces = new Map<unknown, Interface>();
  const interfaceOf = (source: unknown): Interface => {
    let iface = interfaces.get(source);
    if (!iface) {
      iface = Interface.from(source as InterfaceAbi);
      interfaces.set(source, iface);
    }
    return iface;
  };
  return {
    name,
    chainId: args.chainId,
    provider,
    deployment,
    devnet: args.devnet,
    faults: args.faults,
    ...(args.stateVersion ? { stateVersion: args.stateVersion } : {}),
    reliability: args.reliability,
    // A devnet mines only when asked (automine): a wait for depth asks for the next block, as a
    // real network would produce it anyway.
    ...(args.devnet
      ? {
          produceBlock: async () => {
            await (
              args.provider as AbstractProvider & {
                send(method: string, params: unknown[]): Promise<unknown>;
              }
            ).send("evm_mine", []);
          },
        }
      : {}),
    operator: new Wallet(args.operatorKey, provider),
    abi,
    contract(contractName, runner) {
      const entry = deployment.contracts[contractName];
      if (entry)
        return new Contract(entry.address, interfaceOf(abi(entry.abi)), runner ?? provider);
      const token = deployment.tokens[contractName];
      if (token) {
        const tokenAbi = abis.TestToken ?? abis.IERC20 ?? abis.ERC20;
        if (!tokenAbi) throw new Error(`chain ${name}: no ERC-20 ABI in its deployment`);
        return new Contract(token.address, interfaceOf(tokenAbi), runner ?? provider);
      }
      throw new Error(
        `chain ${name}: no contract or token named ${contractName} in its deployment`,
      );
    },
  };
}

function chainSet(handles: ChainHandle[], close: () => Promise<void>): ChainSet {
  const byName = new Map(handles.map((h) => [h.name, h]));
  const byId = new Map(handles.map((h) => [h.chainId, h]));
  let closed = false;
  return {
    list: () => [...handles],
    has: (name) => byName.has(name),
    byName(name) {
      const handle = byName.get(name);
      if (!handle)
        throw new Error(`unknown chain ${name}; configured: ${[...byName.keys()].join(", ")}`);
      return handle;
    },
    byId(chainId) {
      const handle = byId.get(chainId);
      if (!handle)
        throw new Error(`unknown chainId ${chainId}; configured: ${[...byId.keys()].join(", ")}`);
      return handle;
    },
    async close() {
      if (closed) return;
      closed = true;
      await close();
    },
  };
}

type DevnetReliability = Partial<Record<DevnetChainName, Partial<ChainReliability>>> | undefined;

async function openEmbedded(
  names: readonly DevnetChainName[],
  reliability: DevnetReliability,
): Promise<ChainSet> {
  const { startEmbeddedDevnet } = await loadEmbeddedDevnet();
  const chains = await startEmbeddedDevnet(names);
  const handles = chains.map((c) =>
    makeHandle({
      name: c.name,
      chainId: c.chainId,
      provider: c.provider,
      deployment: c.deployment,
      abis: c.abis,
      operatorKey: DEVNET_OPERATOR.privateKey,
      devnet: true,
      faults: c.faults,
      stateVersion: () => c.eip1193.stateVersion(),
      reliability: reliabilityWith(DEVNET_RELIABILITY, reliability?.[c.name]),
    }),
  );
  return chainSet(handles, async () => {
    await Promise.all(chains.map((c) => c.close()));
  });
}

/** Reads every ABI file of a deployment directory. */
export async function readAbis(root: string, chainId: number): Promise<Record<string, unknown[]>> {
  const dir = path.join(root, String(chainId), "abi");
  const files = (await readdir(dir)).filter((f) => f.endsWith(".json"));
  const entries = await Promise.all(
    files.map(
      async (f) => [f.slice(0, -5), JSON.parse(await readFile(path.join(dir, f), "utf8"))] as const,
    ),
  );
  return Object.fromEntries(entries);
}

function jsonRpcProvider(url: string, chainId: number, pollingInterval: number): JsonRpcProvider {
  return new JsonRpcProvider(url, chainId, {
    staticNetwork: true,
    pollingInterval,
    batchMaxCount: 1,
    cacheTimeout: -1,
  });
}

async function checkChainId(provider: JsonRpcProvider, name: string, url: string, chainId: number) {
  let reported: bigint;
  try {
    reported = BigInt((await provider.send("eth_chainId", [])) as string);
  } catch (err) {
    throw new Error(`cannot reach chain ${name} at ${url}: ${(err as Error).message}`, {
      cause: err,
    });
  }
  if (reported !== BigInt(chainId)) {
    throw new Error(`chain ${name} at ${url} reports chainId ${reported}, expected ${chainId}`);
  }
}

/** Fails unless every contract of the deployment has code on the chain (wrong RPC, reset node, ...). */
async function checkDeployed(
  provider: JsonRpcProvider,
  name: string,
  url: string,
  deployment: Deployment,
) {
  const entries = Object.entries(deployment.contracts);
  const codes = await Promise.all(entries.map(([, c]) => provider.getCode(c.address)));
  const missing = entries.filter((_, i) => codes[i] === "0x").map(([key]) => key);
  if (missing.length > 0) {
    throw new Error(
      `chain ${name} at ${url} does not hold its recorded deployment (no code for ${missing.join(", ")})` +
        (deployment.extra.devnet ? ": start the devnet with `npm run devnet`" : ""),
    );
  }
}

export function defaultDevnetRpcUrl(name: DevnetChainName): string {
  return `http://127.0.0.1:${DEVNET_CHAINS[name].defaultPort}`;
}

async function openDevnetRpc(cfg: Extract<ChainsConfig, { mode: "rpc" }>): Promise<ChainSet> {
  const root = path.resolve(cfg.deploymentsDir ?? path.join(PROJECT_ROOT, "deployments"));
  const providers: JsonRpcProvider[] = [];
  try {
    const handles = await Promise.all(
      DEVNET_CHAIN_NAMES.map(async (name) => {
        const { chainId, initialBaseFeePerGas } = DEVNET_CHAINS[name];
        const url = cfg.rpcUrls?.[name] ?? defaultDevnetRpcUrl(name);
        const provider = jsonRpcProvider(url, chainId, 50);
        providers.push(provider);
        await checkChainId(provider, name, url, chainId);
        const [deployment, abis] = await Promise.all([
          readDeployment(root, chainId),
          readAbis(root, chainId),
        ]);
        await checkDeployed(provider, name, url, deployment);
        const eip1193 = {
          request: (a: { method: string; params?: unknown }) =>
            provider.send(a.method, (a.params as unknown[]) ?? []),
        };
        return makeHandle({
          name,
          chainId,
          provider,
          deployment,
          abis,
          operatorKey: cfg.operatorPrivateKey ?? DEVNET_OPERATOR.privateKey,
          devnet: true,
          faults: jsonRpcFaults(eip1193, initialBaseFeePerGas, undefined),
          reliability: reliabilityWith(DEVNET_RELIABILITY, cfg.reliability?.[name]),
        });
      }),
    );
    return chainSet(handles, async () => providers.forEach((p) => p.destroy()));
  } catch (err) {
    providers.forEach((p) => p.destroy());
    throw err;
  }
}

async function loadOperatorKey(
  ref: { env: string } | { keystore: string; passwordEnv: string },
  baseDir: string,
) {
  if ("env" in ref) {
    const key = environmentVariable(ref.env);
    if (!key) throw new Error(`operator key environment variable ${ref.env} is not set`);
    return new Wallet(key).privateKey;
  }
  const password = environmentVariable(ref.passwordEnv);
  if (password === undefined)
    throw new Error(`keystore password variable ${ref.passwordEnv} is not set`);
  const json = await readFile(path.resolve(baseDir, ref.keystore), "utf8");
  return (await Wallet.fromEncryptedJson(json, password)).privateKey;
}

async function openChainsFile(file: string): Promise<ChainSet> {
  const baseDir = path.dirname(path.resolve(file));
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(file, "utf8"));
  } catch (err) {
    throw new Error(`cannot read chains file ${file}: ${(err as Error).message}`, { cause: err });
  }
  const parsed = chainsFileSchema.safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    throw new Error(`invalid chains file ${file}: ${issues.join("; ")}`);
  }
  const providers: JsonRpcProvider[] = [];
  try {
    const handles = await Promise.all(
      parsed.data.chains.map(async (c) => {
        const provider = jsonRpcProvider(c.rpcUrl, c.chainId, c.pollingIntervalMs);
        providers.push(provider);
        const root = path.resolve(baseDir, c.deploymentsDir);
        await checkChainId(provider, c.name, c.rpcUrl, c.chainId);
        const [operatorKey, deployment, abis] = await Promise.all([
          loadOperatorKey(c.operatorKey, baseDir),
          readDeployment(root, c.chainId),
          readAbis(root, c.chainId),
        ]);
        await checkDeployed(provider, c.name, c.rpcUrl, deployment);
        return makeHandle({
          name: c.name,
          chainId: c.chainId,
          provider,
          deployment,
          abis,
          operatorKey,
          devnet: false,
          reliability: reliabilityWith(NETWORK_RELIABILITY, c.reliability),
        });
      }),
    );
    return chainSet(handles, async () => providers.forEach((p) => p.destroy()));
  } catch (err) {
    providers.forEach((p) => p.destroy());
    throw err;
  }
}

export { lockMintInfo, signRelease } from "./lockmint.ts";
