import { createRequire } from "node:module";
import {
  Contract,
  ErrorFragment,
  formatUnits,
  getAddress,
  Interface,
  toQuantity,
  ZeroAddress,
  type InterfaceAbi,
  type Provider,
} from "ethers";
import { ApiError } from "../http/index.ts";
import { ERC20_ABI, ROUTER_ABI, nativeSymbol, type RoutingChain } from "../routing/index.ts";
import { assessMev } from "./mev.ts";
import { decodeRevert, revertDataOf, type DecodedRevert } from "./revert.ts";
import type { BalanceChange, SimulateRequest, SimulateResult, SimulateTx } from "./schema.ts";

/**
 * Dry-run of one transaction; nothing is ever broadcast.
 *
 * Two modes, chosen per chain by what its node supports (probed once):
 * - `trace` (the devnet's EDR, and nodes with the debug namespace: geth, erigon, reth):
 *   `debug_traceCall` with the `callTracer` and `withLog` at `latest` executes the transaction on
 *   the current state without touching it and gives the exact gas (equal to the receipt's when it
 *   is then sent: tested), every call frame with its value, and every log. Nothing is mined, so it
 *   can run concurrently with real transactions. The revert data comes from `eth_call`.
 * - `call` (nodes without it): `eth_call` for success, return data and the revert reason, and
 *   `eth_estimateGas` for gas (an upper bound of what it would use). Logs are not available from a
 *   call, so balance changes are derived from a decoded Uniswap-V2 router swap's return value.
 */

const NATIVE = "native";

/** A chain the simulator can use: the routing module's chain with a raw JSON-RPC `send`. */
export type SimulationChain = RoutingChain & {
  readonly provider: Provider & { send(method: string, params: unknown[]): Promise<unknown> };
};

/** Narrows a chain (a `ChainHandle`) to one whose provider speaks raw JSON-RPC, which simulation needs. */
export function simulationChain<T extends RoutingChain>(chain: T): T & SimulationChain {
  const provider = chain.provider as Provider & { send?: unknown };
  if (typeof provider.send !== "function") {
    throw new ApiError(
      501,
      "SIMULATION_UNSUPPORTED",
      `chain ${chain.name}: its provider offers no raw JSON-RPC access, which simulation needs`,
    );
  }
  return chain as T & SimulationChain;
}

export interface SimulateOptions {
  /** Force a mode (tests compare both); by default trace where supported. */
  mode?: "trace" | "call";
  now?: () => Date;
}

interface Execution {
  mode: "trace" | "call";
  blockNumber: number;
  success: boolean;
  revert: DecodedRevert | null;
  gasUsed: bigint | null;
  returnData: string;
  changes: Map<string, Map<string, bigint>>;
  source: SimulateResult["balance_changes_source"];
  warnings: string[];
}

export async function simulateTransaction(
  chain: SimulationChain,
  request: Pick<SimulateRequest, "tx_data" | "block_count">,
  options: SimulateOptions = {},
): Promise<SimulateResult> {
  const tx = request.tx_data;
  const mode = options.mode ?? ((await supportsTrace(chain)) ? "trace" : "call");
  const execution = mode === "trace" ? await runTraced(chain, tx) : await runAsCall(chain, tx);
  const mev = await assessMev(chain, tx, {
    blockCount: request.block_count,
    blockNumber: execution.blockNumber,
    success: execution.success,
  });
  return {
    chain_id: chain.chainId,
    chain: chain.name,
    mode,
    block_number: execution.blockNumber,
    success: execution.success,
    revert: execution.revert,
    gas_used: execution.gasUsed === null ? null : Number(execution.gasUsed),
    return_data: execution.returnData,
    balance_changes: await describeChanges(chain, tx, execution.changes),
    balance_changes_source: execution.source,
    mev,
    warnings: execution.warnings,
    simulated_at: (options.now?.() ?? new Date()).toISOString(),
  };
}

// ---------------------------------------------------------------------------------------------
// Modes

const traceSupport = new WeakMap<object, Promise<boolean>>();

/** Whether the chain's node answers `debug_traceCall` with the `callTracer` (asked once per provider). */
export function supportsTrace(chain: SimulationChain): Promise<boolean> {
  let known = traceSupport.get(chain.provider);
  if (!known) {
    const probe = { from: ZeroAddress, to: ZeroAddress, data: "0x" };
    known = chain.provider
      .send("debug_traceCall", [probe, "latest", { tracer: "callTracer" }])
      .then(
        (frame) => typeof (frame as CallFrame | null)?.gasUsed === "string",
        () => false,
      );
    traceSupport.set(chain.provider, known);
  }
  return known;
}

function rpcTx(tx: SimulateTx, gas?: bigint): Record<string, string> {
  const out: Record<string, string> = { from: tx.from, to: tx.to, data: tx.data };
  if (tx.value !== undefined) out.value = toQuantity(tx.value);
  const limit = gas ?? tx.gas;
  if (limit !== undefined) out.gas = toQuantity(limit);
  return out;
}

/** eth_call at `latest`: the return data, or the decoded revert. Other RPC failures propagate. */
async function call(
  chain: SimulationChain,
  tx: SimulateTx,
  block = "latest",
): Promise<{ ok: true; data: string } | { ok: false; revert: DecodedRevert }> {
  try {
    return {
      ok: true,
      data: (await chain.provider.send("eth_call", [rpcTx(tx), block])) as string,
    };
  } catch (err) {
    const data = revertDataOf(err);
    if (data === undefined && !/revert/i.test(String((err as Error).message))) throw err;
    return { ok: false, revert: decodeRevert(data ?? "0x", errorsOf(chain)) };
  }
}

async function runAsCall(chain: SimulationChain, tx: SimulateTx): Promise<Execution> {
  const blockNumber = Number(BigInt((await chain.provider.send("eth_blockNumber", [])) as string));
  const result = await call(chain, tx);
  if (!result.ok) {
    return {
      mode: "call",
      blockNumber,
      success: false,
      revert: result.revert,
      gasUsed: null,
      returnData: "0x",
      changes: new Map(),
      source: "unavailable",
      warnings: [],
    };
  }
  const gas = BigInt((await chain.provider.send("eth_estimateGas", [rpcTx(tx)])) as string);
  const changes = routerSwapChanges(chain, tx, result.data);
  return {
    mode: "call",
    blockNumber,
    success: true,
    revert: null,
    gasUsed: gas,
    returnData: result.data,
    changes: changes ?? new Map(),
    source: changes ? "router-return" : "unavailable",
    warnings: ["gas_used is eth_estimateGas: an upper bound of the gas the transaction would use"],
  };
}

/** The callTracer's frame (geth's format, which EDR follows). */
interface CallFrame {
  type: string;
  from: string;
  to?: string;
  value?: string;
  gasUsed: string;
  output?: string;
  error?: string;
  logs?: RpcLog[];
  calls?: CallFrame[];
}

async function runTraced(chain: SimulationChain, tx: SimulateTx): Promise<Execution> {
  const send = (method: string, params: unknown[]): Promise<unknown> =>
    chain.provider.send(method, params);
  // Both at the same block: the number first, then the trace and the call pinned to it.
  const blockNumber = Number(BigInt((await send("eth_blockNumber", [])) as string));
  const block = toQuantity(blockNumber);
  const root = (await send("debug_traceCall", [
    rpcTx(tx),
    block,
    { tracer: "callTracer", tracerConfig: { withLog: true } },
  ])) as CallFrame;
  const gasUsed = BigInt(root.gasUsed);
  if (root.error !== undefined) {
    const failed = await call(chain, tx, block);
    const revert = failed.ok ? decodeRevert(root.output ?? "0x", errorsOf(chain)) : failed.revert;
    return {
      mode: "trace",
      blockNumber,
      success: false,
      revert,
      gasUsed,
      returnData: "0x",
      changes: new Map(),
      source: "unavailable",
      warnings: root.error === "execution reverted" ? [] : [`execution failed: ${root.error}`],
    };
  }
  const logs: RpcLog[] = [];
  const changes = new Map<string, Map<string, bigint>>();
  // Frames that failed (and everything under them) were rolled back: their logs and value did not happen.
  const walk = (frame: CallFrame): void => {
    if (frame.error !== undefined) return;
    logs.push(...(frame.logs ?? []));
    const value = BigInt(frame.value ?? "0x0");
    if (value > 0n && frame.to && frame.type !== "DELEGATECALL" && frame.type !== "STATICCALL") {
      addChange(changes, frame.from, NATIVE, -value);
      addChange(changes, frame.to, NATIVE, value);
    }
    for (const child of frame.calls ?? []) walk(child);
  };
  walk(root);
  for (const [holder, perToken] of transferChanges(logs)) {
    for (const [token, delta] of perToken) addChange(changes, holder, token, delta);
  }
  return {
    mode: "trace",
    blockNumber,
    success: true,
    revert: null,
    gasUsed,
    returnData: root.output ?? "0x",
    changes,
    source: "logs",
    warnings: [],
  };
}

interface RpcLog {
  address: string;
  topics: string[];
  data: string;
}

// ---------------------------------------------------------------------------------------------
// Balance changes

const erc20 = new Interface(ERC20_ABI);
const TRANSFER_TOPIC = erc20.getEvent("Transfer")!.topicHash;
const router = new Interface(ROUTER_ABI);

function addChange(
  changes: Map<string, Map<string, bigint>>,
  holder: string,
  token: string,
  delta: bigint,
): void {
  const key = holder.toLowerCase();
  if (!changes.has(key)) changes.set(key, new Map());
  const perToken = changes.get(key)!;
  perToken.set(token.toLowerCase(), (perToken.get(token.toLowerCase()) ?? 0n) + delta);
}

/** ERC-20 `Transfer(from, to, value)` logs (three topics; ERC-721's four-topic form is skipped). */
export function transferChanges(logs: readonly RpcLog[]): Map<string, Map<string, bigint>> {
  const changes = new Map<string, Map<string, bigint>>();
  for (const log of logs) {
    if (log.topics.length !== 3 || log.topics[0]?.toLowerCase() !== TRANSFER_TOPIC) continue;
    const parsed = erc20.parseLog(log);
    if (!parsed) continue;
    const [from, to, value] = parsed.args as unknown as [string, string, bigint];
    addChange(changes, from, log.address, -value);
    addChange(changes, to, log.address, value);
  }
  return changes;
}

/** Balance changes of a Uniswap-V2 router swap from its returned `amounts` (call mode). */
function routerSwapChanges(
  chain: SimulationChain,
  tx: SimulateTx,
  returnData: string,
): Map<string, Map<string, bigint>> | undefined {
  const routerAddresses = Object.values(chain.deployment.exchanges).map((e) =>
    e.router.toLowerCase(),
  );
  if (!routerAddresses.includes(tx.to.toLowerCase())) return undefined;
  let parsed;
  try {
    parsed = router.parseTransaction({ data: tx.data, value: tx.value ?? 0n });
  } catch {
    return undefined;
  }
  if (!parsed || !parsed.name.startsWith("swap") || parsed.name.includes("SupportingFeeOnTransfer"))
    return undefined;
  const [amounts] = router.decodeFunctionResult(parsed.name, returnData) as unknown as [bigint[]];
  const path = parsed.args.getValue("path") as string[];
  const recipient = parsed.args.getValue("to") as string;
  const changes = new Map<string, Map<string, bigint>>();
  const inToken = parsed.name.includes("ETHFor") ? NATIVE : path[0]!;
  const outToken = /ForExactETH|ForETH/.test(parsed.name) ? NATIVE : path[path.length - 1]!;
  addChange(changes, tx.from, inToken, -amounts[0]!);
  addChange(changes, recipient, outToken, amounts[amounts.length - 1]!);
  return changes;
}

const tokenMeta = new Map<string, Promise<{ symbol: string | null; decimals: number | null }>>();

async function metaOf(
  chain: SimulationChain,
  token: string,
): Promise<{ symbol: string | null; decimals: number | null }> {
  if (token === NATIVE) return { symbol: nativeSymbol(chain), decimals: 18 };
  const listed = Object.entries(chain.deployment.tokens).find(
    ([, t]) => t.address.toLowerCase() === token,
  );
  if (listed) return { symbol: listed[0], decimals: listed[1].decimals };
  const key = `${chain.chainId}:${token}`;
  let known = tokenMeta.get(key);
  if (!known) {
    const contract = new Contract(token, ERC20_ABI, chain.provider);
    known = Promise.all([
      (contract.getFunction("symbol")() as Promise<string>).catch(() => null),
      (contract.getFunction("decimals")() as Promise<bigint>).then(Number, () => null),
    ]).then(([symbol, decimals]) => ({ symbol, decimals }));
    tokenMeta.set(key, known);
  }
  return known;
}

async function describeChanges(
  chain: SimulationChain,
  tx: SimulateTx,
  changes: Map<string, Map<string, bigint>>,
): Promise<BalanceChange[]> {
  const out: BalanceChange[] = [];
  const order = [...changes.keys()].sort((a, b) => rank(a) - rank(b));
  function rank(holder: string): number {
    return holder === tx.from.toLowerCase() ? 0 : holder === tx.to.toLowerCase() ? 1 : 2;
  }
  for (const holder of order) {
    const perToken = changes.get(holder)!;
    const entries: BalanceChange["changes"] = [];
    for (const [token, delta] of perToken) {
      if (delta === 0n) continue;
      const meta = await metaOf(chain, token);
      entries.push({
        token: token === NATIVE ? NATIVE : getAddress(token),
        symbol: meta.symbol,
        decimals: meta.decimals,
        delta: delta.toString(),
        formatted: meta.decimals === null ? null : formatUnits(delta, meta.decimals),
      });
    }
    if (entries.length === 0) continue;
    const role = rank(holder) === 0 ? "sender" : rank(holder) === 1 ? "target" : "counterparty";
    out.push({ address: getAddress(holder), role, changes: entries });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Revert decoding

const errorInterfaces = new WeakMap<object, Interface>();
// OpenZeppelin 5's standard token errors (EIP-6093), for tokens outside the deployment records.
const tokenErrors = new Interface(
  (
    createRequire(import.meta.url)("@openzeppelin/contracts/build/contracts/IERC20Errors.json") as {
      abi: InterfaceAbi;
    }
  ).abi,
);

/** Every custom error of the chain's deployed contracts (ABIs from `deployments/`), in one interface. */
export function errorsOf(chain: RoutingChain): Interface {
  let known = errorInterfaces.get(chain.deployment);
  if (!known) {
    const seen = new Set<string>();
    const fragments: ErrorFragment[] = [];
    const interfaces = [tokenErrors];
    for (const name of Object.keys(chain.deployment.contracts)) {
      try {
        interfaces.push(chain.contract(name).interface);
      } catch {
        // A contract without a readable ABI contributes no errors.
      }
    }
    for (const iface of interfaces) {
      iface.forEachError((fragment) => {
        if (!seen.has(fragment.selector)) {
          seen.add(fragment.selector);
          fragments.push(fragment);
        }
      });
    }
    known = new Interface(fragments);
    errorInterfaces.set(chain.deployment, known);
  }
  return known;
}

export function requireChain<T extends { chainId: number }>(
  chains: readonly T[],
  chainId: number,
): T {
  const chain = chains.find((c) => c.chainId === chainId);
  if (!chain) {
    throw new ApiError(
      400,
      "UNKNOWN_CHAIN",
      `chain_id ${chainId} is not served by this relayer (known: ${chains.map((c) => c.chainId).join(", ")})`,
    );
  }
  return chain;
}
