import { formatUnits, parseUnits } from "ethers";
import { ERC20_INTERFACE } from "./abis.ts";
import type { RoutingChain } from "./chain.ts";
import {
  ATTESTOR_CONTRACT,
  BRIDGE_CONTRACT,
  hasAsset,
  MULTISEND_CONTRACT,
  tokenOf,
} from "./chain.ts";
import type { GasStrategy } from "./fees.ts";
import { isGasStrategy } from "./fees.ts";
import { baselineGas, estimateTxGas, observedGasVersion, type TxKind } from "./gas.ts";
import { ReserveReader } from "./pools.ts";
import { nativeUsdPrice } from "./prices.ts";
import { quoteSwapCandidates, type SwapCandidate } from "./quote.ts";
import { rankRoutes, selectRoute, type RoutePriority, ROUTE_PRIORITIES } from "./select.ts";
import { ChainUnavailableError, InsufficientLiquidityError, NoRouteError } from "./errors.ts";
import type { ActionFlow } from "./chaining.ts";

/** A multisend recipient's amount: fixed, or basis points of what the multisend receives. */
export type RecipientAmountInput =
  { kind: "absolute"; amount: string } | { kind: "percent"; bps: number };

/**
 * The action fields routing reads: a structural subset of the intake's normalised
 * `WorkflowAction` (`relayer/model/workflow.ts`), so the stored workflow is planned as is.
 */
export interface RoutableAction {
  type: string;
  chain?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
  /** Decimal string in whole units; absent: the previous action's output amount. */
  amount?: string | undefined;
  slippageBps?: number | undefined;
  priority?: string | undefined;
  dex?: string | undefined;
  destination?: string | undefined;
  protocol?: string | undefined;
  recipients?: readonly { address: string; amount: RecipientAmountInput }[] | undefined;
  fallbackChains?: readonly string[] | undefined;
}

export interface RoutableWorkflow {
  actions: readonly RoutableAction[];
  gasStrategy?: string | undefined;
}

export interface PlannedTx {
  chain: string;
  kind: TxKind;
  gas: bigint;
  gasSource: "estimateGas" | "baseline";
}

/** One action after chaining and route selection: everything the agent needs to execute it. */
export interface PlannedAction {
  index: number;
  type: string;
  chain: string;
  chainId: number;
  asset: string;
  amountIn: string;
  outputAsset: string;
  outputAmount: string;
  outputChain: string;
  /**
   * The chain the action was pinned to (by the client or by chaining) when that chain was
   * unavailable and the plan moved the action to one of its fallback chains.
   */
  fallbackFrom?: string;
  /** Why the pinned chain was left (RPC failure, base fee above the cap). */
  fallbackReason?: string;
  route?: SwapCandidate;
  destination?: string;
  bridgeFee?: string;
  recipients?: { address: string; amount: string }[];
  txs: PlannedTx[];
}

export interface PlanOptions {
  /** The account that will send the transactions (gas estimated from it when it can execute now). */
  account?: string;
  gasStrategy?: GasStrategy;
  /**
   * The chain reads of this decision (one block per chain); a new one by default. Planning and
   * costing with the same reader prices the plan at the blocks it was planned on.
   */
  reader?: ReserveReader;
  /**
   * Re-planning the rest of a running workflow: the workflow index of the first action given and
   * what the action before it handed on (its actual output).
   */
  start?: { index: number; previous: ActionFlow | null };
  /**
   * Chains found unavailable (RPC failing, base fee above the cap) with the reason: no action is
   * routed there, and an action pinned there moves to its fallback chains.
   */
  unavailable?: ReadonlyMap<string, string>;
}

export function actionPriority(action: RoutableAction): RoutePriority {
  const p = action.priority ?? "cost";
  return (ROUTE_PRIORITIES as readonly string[]).includes(p) ? (p as RoutePriority) : "cost";
}

export function chainByName(chains: readonly RoutingChain[], name: string): RoutingChain {
  const chain = chains.find((c) => c.name === name);
  if (!chain) throw new NoRouteError(`unknown chain ${name}`);
  return chain;
}

/** Address of a named contract in a chain's deployment, or null when it is not deployed there. */
export function contractAddress(chain: RoutingChain, name: string): string | null {
  return chain.deployment.contracts[name]?.address ?? null;
}

/** Resolve a multisend's recipients: a percentage is a share of `total` (base units, rounded down). */
export function resolveRecipients(
  recipients: readonly { address: string; amount: RecipientAmountInput }[],
  total: bigint,
  decimals: number,
): { address: string; amount: bigint }[] {
  return recipients.map((r) =>
    r.amount.kind === "percent"
      ? { address: r.address, amount: (total * BigInt(r.amount.bps)) / 10_000n }
      : { address: r.address, amount: parseUnits(r.amount.amount, decimals) },
  );
}

/** An action's input after the chaining rule: what it spends, and the chain it is pinned to. */
export interface ActionInput {
  asset: string;
  amount: string;
  /** The client's pin, else (a chained action) the chain where the previous output is. */
  pinned?: string;
}

/**
 * The chaining rule, written once (the plan, the estimate and the execution use it): an action
 * without `from` takes the previous action's output asset; without `amount` it is chained: it
 * takes the previous output amount (the actual one when executing) and runs on the chain where
 * that output is (a bridge's output is on its destination). An action with its own amount and no
 * `chain` is routed on its own.
 */
export function actionInput(
  action: RoutableAction,
  previous: ActionFlow | null,
  index: number,
): ActionInput {
  const asset = action.from ?? previous?.asset;
  const amount = action.amount ?? previous?.amount;
  if (!asset || !amount)
    throw new NoRouteError(
      `action ${index + 1} (${action.type}) has no input: no amount and no previous output`,
    );
  const pinned = action.chain ?? (action.amount === undefined ? previous?.chain : undefined);
  return { asset, amount, ...(pinned ? { pinned } : {}) };
}

/** What a planned action hands to the next (the chaining rule's "previous output"). */
export function plannedOutput(step: PlannedAction): ActionFlow {
  return { asset: step.outputAsset, amount: step.outputAmount, chain: step.outputChain };
}

/** Errors that make a candidate chain unusable for the plan (another candidate may do). */
function isRoutingError(err: unknown): boolean {
  return (
    err instanceof NoRouteError ||
    err instanceof InsufficientLiquidityError ||
    err instanceof ChainUnavailableError
  );
}

/** A chain read that failed while planning on it: the chain is unavailable, not the route. */
async function onChain<T>(chain: RoutingChain, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (err) {
    if (isRoutingError(err)) throw err;
    throw new ChainUnavailableError(
      chain.name,
      `RPC unavailable: ${(err as Error).message?.slice(0, 200) ?? String(err)}`,
    );
  }
}

async function approveGas(
  chain: RoutingChain,
  token: string,
  spender: string,
  amount: bigint,
  account: string | undefined,
  reader: ReserveReader,
): Promise<PlannedTx | null> {
  if (account) {
    const [allowance] = (await reader.view(chain, ERC20_INTERFACE, token, "allowance", [
      account,
      spender,
    ])) as unknown as [bigint];
    if (allowance >= amount) return null;
    const tx = {
      to: token,
      from: account,
      data: ERC20_INTERFACE.encodeFunctionData("approve", [spender, amount]),
    };
    const est = await estimateTxGas(chain, "approve", tx, 1, await reader.snapshot(chain));
    return { chain: chain.name, kind: "approve", gas: est.gas, gasSource: est.source };
  }
  const est = await estimateTxGas(chain, "approve", null);
  return { chain: chain.name, kind: "approve", gas: est.gas, gasSource: est.source };
}

/**
 * The whole workflow's routing decision, made once for all its actions (the intake's estimate and
 * the execution both use it). Each action's input follows the chaining rule ({@link actionInput}).
 * A pinned action runs on its pin, or on its fallback chains in order when the pin is unavailable;
 * a routed action's candidate chains are ranked (swap/convert by the route priority, bridge and
 * multisend in chain order), and the plan takes the best candidate that leaves every later action
 * a valid plan: a swap is never placed on the chain its chained bridge was meant to reach. When no
 * candidate does, the error of the best candidate's attempt is thrown.
 */
export async function planWorkflow(
  chainSet: readonly RoutingChain[],
  workflow: RoutableWorkflow,
  options: PlanOptions = {},
): Promise<PlannedAction[]> {
  const reader = options.reader ?? new ReserveReader();
  const unavailable = new Map(options.unavailable ?? []);
  const first = options.start?.index ?? 0;
  // The search backtracks only over routed actions and prunes at the first action that cannot
  // run, but a workflow failing late could revisit every combination: it stops after this many
  // single-action plans and reports the error it has.
  let budget = MAX_ACTION_PLANS;
  const planFrom = async (i: number, previous: ActionFlow | null): Promise<PlannedAction[]> => {
    const action = workflow.actions[i];
    if (!action) return [];
    const index = first + i;
    const input = actionInput(action, previous, index);
    const label = `action ${index + 1} (${action.type} ${input.amount} ${input.asset})`;
    const quotes =
      action.type === "swap" || action.type === "convert"
        ? await quoteEverywhere(chainSet, action, input, label, unavailable, options, reader)
        : null;
    const queue = candidateChains(chainSet, action, input, index, label, unavailable, quotes);
    let bestError: unknown = null;
    for (const { chain, fallbackFrom } of queue) {
      if (budget-- <= 0 && bestError) break;
      try {
        const step = await onChain(chain, () =>
          planOn(chainSet, action, input, index, label, chain, options, reader, quotes),
        );
        if (fallbackFrom) {
          step.fallbackFrom = fallbackFrom;
          step.fallbackReason = `${fallbackFrom}: ${unavailable.get(fallbackFrom) ?? "unavailable"}`;
        }
        return [step, ...(await planFrom(i + 1, plannedOutput(step)))];
      } catch (err) {
        if (!isRoutingError(err)) throw err;
        bestError ??= err;
        if (!(err instanceof ChainUnavailableError) || err.chain !== chain.name) continue;
        unavailable.set(chain.name, err.detail);
        // A pin found unreachable while planning on it: its fallbacks, in order.
        if (input.pinned === chain.name) {
          const fallbacks = fallbacksOf(chainSet, action, chain.name).filter(
            (c) => !unavailable.has(c.name),
          );
          queue.push(...fallbacks.map((c) => ({ chain: c, fallbackFrom: chain.name })));
          bestError = noChainFor(index, chain.name, err.detail);
        }
      }
    }
    throw (
      bestError ?? new NoRouteError(`action ${index + 1} (${action.type}): no chain can run it`)
    );
  };
  return planFrom(0, options.start?.previous ?? null);
}

/** Single-action plans one decision may make before it gives up (see planWorkflow). */
export const MAX_ACTION_PLANS = 64;

function noChainFor(index: number, pin: string, reason: string): ChainUnavailableError {
  return new ChainUnavailableError(
    pin,
    `no chain available for action ${index + 1}: ${pin}: ${reason}`,
  );
}

/**
 * A swap's quotes on every chain not known to be unavailable, on every exchange (a `dex` pin is a
 * selection constraint, so that a failure names where else the order fits); a chain whose reads
 * fail has none.
 */
interface SwapQuotes {
  all: SwapCandidate[];
  /** Chains whose quoting failed, with the reason. */
  failed: Map<string, string>;
}

async function quoteEverywhere(
  chainSet: readonly RoutingChain[],
  action: RoutableAction,
  input: ActionInput,
  label: string,
  unavailable: ReadonlyMap<string, string>,
  options: PlanOptions,
  reader: ReserveReader,
): Promise<SwapQuotes> {
  if (!action.to) throw new NoRouteError(`${label} has no target asset`);
  const failed = new Map<string, string>();
  const quotes = await Promise.all(
    chainSet
      .filter((c) => !unavailable.has(c.name))
      .map((chain) =>
        quoteSwapCandidates(
          [chain],
          {
            from: input.asset,
            to: action.to!,
            amount: input.amount,
            account: options.account,
            gasStrategy: options.gasStrategy,
          },
          reader,
        ).catch((err: unknown) => {
          failed.set(
            chain.name,
            `RPC unavailable: ${String((err as Error).message).slice(0, 200)}`,
          );
          return [];
        }),
      ),
  );
  return { all: quotes.flat(), failed };
}

/**
 * The chains an action may run on, best first. Pinned: the pin, or (the pin unavailable) its
 * fallback chains in order. Routed swap/convert: every chain with a liquid route, by the route
 * priority (none: the routing error naming an alternative). Routed bridge: every other chain with
 * the asset and the bridge. Routed multisend: every chain with the asset and a multisend.
 */
function candidateChains(
  chainSet: readonly RoutingChain[],
  action: RoutableAction,
  input: ActionInput,
  index: number,
  label: string,
  unavailable: ReadonlyMap<string, string>,
  quotes: SwapQuotes | null,
): Array<{ chain: RoutingChain; fallbackFrom?: string }> {
  if (input.pinned) {
    const pin = chainByName(chainSet, input.pinned);
    const reason = unavailable.get(pin.name);
    if (reason === undefined) return [{ chain: pin }];
    const fallbacks = fallbacksOf(chainSet, action, pin.name).filter(
      (c) => !unavailable.has(c.name),
    );
    if (fallbacks.length === 0) throw noChainFor(index, pin.name, reason);
    return fallbacks.map((chain) => ({ chain, fallbackFrom: pin.name }));
  }
  const open = chainSet.filter((c) => !unavailable.has(c.name));
  if (quotes) {
    const constraints = { priority: actionPriority(action), dex: action.dex };
    const ranked = rankRoutes(quotes.all, constraints);
    if (ranked.length === 0) selectRoute(quotes.all, constraints, label); // throws the routing error
    return [...new Set(ranked.map((c) => c.chain))].map((name) => ({
      chain: chainByName(chainSet, name),
    }));
  }
  if (action.type === "bridge") {
    const eligible = open.filter(
      (c) =>
        c.name !== action.destination &&
        hasAsset(c, input.asset) &&
        contractAddress(c, BRIDGE_CONTRACT),
    );
    if (eligible.length === 0)
      throw new NoRouteError(
        `${label}: no chain to bridge ${input.asset} from to ${action.destination}`,
      );
    return eligible.map((chain) => ({ chain }));
  }
  if (action.type === "multisend") {
    const eligible = open.filter(
      (c) => hasAsset(c, input.asset) && contractAddress(c, MULTISEND_CONTRACT),
    );
    if (eligible.length === 0)
      throw new NoRouteError(`${label}: no chain with ${input.asset} and a multisend contract`);
    return eligible.map((chain) => ({ chain }));
  }
  throw new NoRouteError(`${label}: unknown action type ${action.type}`);
}

/** The action's fallback chains other than `except`, in order (unknown names are skipped). */
function fallbacksOf(
  chainSet: readonly RoutingChain[],
  action: RoutableAction,
  except: string,
): RoutingChain[] {
  return (action.fallbackChains ?? [])
    .filter((name) => name !== except)
    .flatMap((name) => chainSet.filter((c) => c.name === name));
}

/** Plans one action on one chain: its route, amounts, output and transactions. */
async function planOn(
  chainSet: readonly RoutingChain[],
  action: RoutableAction,
  input: ActionInput,
  index: number,
  label: string,
  chain: RoutingChain,
  options: PlanOptions,
  reader: ReserveReader,
  quotes: SwapQuotes | null,
): Promise<PlannedAction> {
  const { asset, amount } = input;
  if (quotes && action.to) {
    const failure = quotes.failed.get(chain.name);
    if (failure !== undefined) throw new ChainUnavailableError(chain.name, failure);
    // Selected among the quotes of every chain, so that a failure here names where it would fit.
    const route = selectRoute(
      quotes.all,
      { priority: actionPriority(action), chains: [chain.name], dex: action.dex },
      label,
    );
    const approve = await approveGas(
      chain,
      route.pathAddresses[0]!,
      route.router,
      route.amountIn,
      options.account,
      reader,
    );
    return {
      index,
      type: action.type,
      chain: chain.name,
      chainId: chain.chainId,
      asset,
      amountIn: amount,
      outputAsset: action.to,
      outputAmount: route.amountOutDecimal,
      outputChain: chain.name,
      route,
      txs: [
        ...(approve ? [approve] : []),
        { chain: chain.name, kind: "swap", gas: route.gas, gasSource: route.gasSource },
      ],
    };
  }
  if (action.type === "bridge") {
    if (!action.destination) throw new NoRouteError(`${label} has no destination chain`);
    const destination = chainByName(chainSet, action.destination);
    if (destination.chainId === chain.chainId)
      throw new NoRouteError(`${label}: bridge source and destination are the same chain`);
    const bridgeAddress = contractAddress(chain, BRIDGE_CONTRACT);
    if (!bridgeAddress || !contractAddress(destination, BRIDGE_CONTRACT))
      throw new NoRouteError(
        `${label}: no ${action.protocol ?? "lockmint"} bridge between ${chain.name} and ${destination.name}`,
      );
    if (!hasAsset(chain, asset)) throw new NoRouteError(`${label}: no ${asset} on ${chain.name}`);
    const token = tokenOf(chain, asset);
    const gross = parseUnits(amount, token.decimals);
    const [fee] = (await reader.view(
      chain,
      chain.contract(BRIDGE_CONTRACT).interface,
      bridgeAddress,
      "quoteFee",
      [gross],
    )) as unknown as [bigint];
    const approve = await approveGas(
      chain,
      token.address,
      bridgeAddress,
      gross,
      options.account,
      reader,
    );
    const deposit = await estimateTxGas(chain, "bridge-deposit", null);
    const release = await estimateTxGas(destination, "bridge-release", null);
    return {
      index,
      type: "bridge",
      chain: chain.name,
      chainId: chain.chainId,
      asset,
      amountIn: amount,
      outputAsset: asset,
      outputAmount: formatUnits(gross - fee, token.decimals),
      outputChain: destination.name,
      destination: destination.name,
      bridgeFee: formatUnits(fee, token.decimals),
      txs: [
        ...(approve ? [approve] : []),
        { chain: chain.name, kind: "bridge-deposit", gas: deposit.gas, gasSource: deposit.source },
        {
          chain: destination.name,
          kind: "bridge-release",
          gas: release.gas,
          gasSource: release.source,
        },
      ],
    };
  }
  if (action.type === "multisend") {
    const multisend = contractAddress(chain, MULTISEND_CONTRACT);
    if (!multisend) throw new NoRouteError(`${label}: no multisend contract on ${chain.name}`);
    if (!hasAsset(chain, asset)) throw new NoRouteError(`${label}: no ${asset} on ${chain.name}`);
    const token = tokenOf(chain, asset);
    const total = parseUnits(amount, token.decimals);
    const resolved = resolveRecipients(action.recipients ?? [], total, token.decimals);
    const sent = resolved.reduce((s, r) => s + r.amount, 0n);
    const approve = await approveGas(
      chain,
      token.address,
      multisend,
      sent,
      options.account,
      reader,
    );
    const send = await estimateTxGas(chain, "multisend", null, resolved.length);
    return {
      index,
      type: "multisend",
      chain: chain.name,
      chainId: chain.chainId,
      asset,
      amountIn: formatUnits(sent, token.decimals),
      outputAsset: asset,
      outputAmount: formatUnits(total - sent, token.decimals),
      outputChain: chain.name,
      recipients: resolved.map((r) => ({
        address: r.address,
        amount: formatUnits(r.amount, token.decimals),
      })),
      txs: [
        ...(approve ? [approve] : []),
        { chain: chain.name, kind: "multisend", gas: send.gas, gasSource: send.source },
      ],
    };
  }
  throw new NoRouteError(`${label}: unknown action type ${action.type}`);
}

export interface CostEstimate {
  total_usd: number;
  gas_breakdown: Record<string, number>;
}

/** Round USD to the cent for display, keeping sub-cent costs visible (4 significant digits). */
function roundUsd(v: number): number {
  if (v === 0) return 0;
  return v >= 0.01 ? Math.round(v * 100) / 100 : Number(v.toPrecision(4));
}

/**
 * Cost of a workflow in USD per chain: the planned transactions' gas (estimated on chain), times the
 * expected price per gas from fee history for the gas strategy, times the native asset's USD price
 * from that chain's pools.
 */
export async function estimateCost(
  chains: { list(): readonly RoutingChain[] } | readonly RoutingChain[],
  workflow: RoutableWorkflow,
  options: PlanOptions = {},
): Promise<CostEstimate & { plan: PlannedAction[] }> {
  // Each caller gets its own copy of the plan.
  return structuredClone(await memoisedEstimate(chains, workflow, options));
}

/**
 * The estimate's figures alone (what the intake answers with), without copying the plan: the
 * same memoised estimate as {@link estimateCost}, at a fraction of its cost per request.
 */
export async function estimateCostSummary(
  chains: { list(): readonly RoutingChain[] } | readonly RoutingChain[],
  workflow: RoutableWorkflow,
  options: PlanOptions = {},
): Promise<CostEstimate> {
  const { total_usd, gas_breakdown } = await memoisedEstimate(chains, workflow, options);
  return { total_usd, gas_breakdown: { ...gas_breakdown } };
}

async function memoisedEstimate(
  chains: { list(): readonly RoutingChain[] } | readonly RoutingChain[],
  workflow: RoutableWorkflow,
  options: PlanOptions,
): Promise<CostEstimate & { plan: PlannedAction[] }> {
  const list = Array.isArray(chains)
    ? (chains as readonly RoutingChain[])
    : (chains as { list(): readonly RoutingChain[] }).list();
  const gasStrategy =
    options.gasStrategy ??
    (isGasStrategy(workflow.gasStrategy ?? "") ? (workflow.gasStrategy as GasStrategy) : "eco");
  const reader = options.reader ?? new ReserveReader();
  options = { ...options, gasStrategy, reader };
  // An estimate is a function of the chains' state (their latest blocks), their fee histories,
  // the gas figures observed on receipts and the workflow: with all of them equal, the same
  // estimate is served again (and identical concurrent estimates are computed once) instead of
  // planning the same workflow on the same blocks for every request.
  const [snapshots, histories] = await Promise.all([
    Promise.all(list.map((c) => reader.snapshot(c))),
    Promise.all(list.map((c) => reader.feeHistory(c))),
  ]);
  let key = `${gasStrategy}|${options.account ?? ""}|${observedGasVersion()}`;
  list.forEach((c, i) => {
    key += `|${c.chainId}:${snapshots[i]!.head.hash}:${historyKey(histories[i]!)}`;
  });
  key += `|${actionsKey(workflow.actions)}`;
  let pending = estimates.get(key);
  if (!pending) {
    pending = computeEstimate(list, workflow, options, reader);
    const started = pending;
    if (estimates.size >= MAX_MEMOISED_ESTIMATES) estimates.delete(estimates.keys().next().value!);
    estimates.set(key, started);
    started.catch(() => {
      if (estimates.get(key) === started) estimates.delete(key);
    });
  }
  return pending;
}

/**
 * Memo keys of fee histories and action lists. Concurrent decisions share one fee-history read
 * (the same object), so its key is built once. Plain JSON (no replacer): neither holds bigints;
 * should one ever, the replacer form is used instead of failing.
 */
const historyKeys = new WeakMap<object, string>();
function historyKey(history: object): string {
  let key = historyKeys.get(history);
  if (key === undefined) {
    key = internedKey(jsonKey(history));
    historyKeys.set(history, key);
  }
  return key;
}

/**
 * A short stand-in for a long key (a fee history's JSON runs to kilobytes): equal texts get the
 * same stand-in, so the estimate's key stays short to build and to look up on every request.
 */
const interned = new Map<string, string>();
let internedCount = 0;
function internedKey(text: string): string {
  let key = interned.get(text);
  if (key === undefined) {
    if (interned.size >= 1024) interned.clear();
    key = `#${internedCount++}`;
    interned.set(text, key);
  }
  return key;
}
function actionsKey(actions: RoutableWorkflow["actions"]): string {
  return jsonKey(actions);
}
function jsonKey(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch {
    return JSON.stringify(value, (_k, v: unknown) => (typeof v === "bigint" ? `${v}n` : v));
  }
}

/** Estimates by everything they depend on (see estimateCost), most recent last. */
const estimates = new Map<string, Promise<CostEstimate & { plan: PlannedAction[] }>>();
const MAX_MEMOISED_ESTIMATES = 256;

async function computeEstimate(
  list: readonly RoutingChain[],
  workflow: RoutableWorkflow,
  options: PlanOptions,
  reader: ReserveReader,
): Promise<CostEstimate & { plan: PlannedAction[] }> {
  const plan = await planWorkflow(list, workflow, options);
  const attestation = list.find((c) => contractAddress(c, ATTESTOR_CONTRACT));
  const extra: PlannedTx[] = attestation
    ? [
        {
          chain: attestation.name,
          kind: "attest",
          gas: baselineGas(attestation.chainId, "attest"),
          gasSource: "baseline",
        },
      ]
    : [];
  return { ...(await costOfPlan(list, plan, options.gasStrategy, extra, reader)), plan };
}

export async function costOfPlan(
  list: readonly RoutingChain[],
  plan: readonly PlannedAction[],
  gasStrategy: GasStrategy = "eco",
  extra: readonly PlannedTx[] = [],
  reader: ReserveReader = new ReserveReader(),
): Promise<CostEstimate> {
  const gasByChain = new Map<string, bigint>();
  for (const tx of [...plan.flatMap((a) => a.txs), ...extra])
    gasByChain.set(tx.chain, (gasByChain.get(tx.chain) ?? 0n) + tx.gas);
  const breakdown: Record<string, number> = {};
  let total = 0;
  for (const [name, gas] of gasByChain) {
    const chain = chainByName(list, name);
    const fees = await reader.feeQuote(chain, gasStrategy);
    const usd =
      (Number(gas * fees.expectedPricePerGas) / 1e18) * (await nativeUsdPrice(chain, reader));
    breakdown[name] = roundUsd(usd);
    total += usd;
  }
  return { total_usd: roundUsd(total), gas_breakdown: breakdown };
}
