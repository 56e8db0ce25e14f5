import { formatUnits, parseUnits } from "ethers";
import { ERC20_INTERFACE } from "./abis.ts";
import type { RoutingChain } from "./chain.ts";
import { hasAsset, tokenOf } from "./chain.ts";
import type { GasStrategy } from "./fees.ts";
import { isGasStrategy } from "./fees.ts";
import { baselineGas, estimateTxGas, observedGasVersion, type TxKind } from "./gas.ts";
import { ReserveReader } from "./pools.ts";
import { nativeUsdPrice } from "./prices.ts";
import { quoteSwapCandidates, type SwapCandidate } from "./quote.ts";
import { bridgeDestinationAhead } from "./bridge-ahead.ts";
import { selectRoute, type RoutePriority, ROUTE_PRIORITIES } from "./select.ts";
import { NoRouteError } from "./errors.ts";

/** A multisend recipient's amount: fixed, or basis points of what the multisend receives. */
export type RecipientAmountInput =
  { kind: "absolute"; amount: string } | { kind: "percent"; bps: number };

/**
 * The action fields routing reads: a structural subset of the intake's normalised
 * `WorkflowAction` (`relayer/workflows/model.ts`), so the stored workflow is planned as is.
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

export const BRIDGE_CONTRACT = "LockMintBridge";
export const MULTISEND_CONTRACT = "Multisend";
export const ATTESTOR_CONTRACT = "ExecutionAttestor";

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
 * Chaining rule: an action without `from` (or bridge/multisend asset) takes the previous action's
 * output asset; without `amount` it takes the previous output amount; and it runs on the chain where
 * the previous output is (a bridge's output is on its destination). The first action's chain is its
 * `chain` pin, else the one routing chooses.
 */
export async function planWorkflow(
  chainSet: readonly RoutingChain[],
  workflow: RoutableWorkflow,
  options: PlanOptions = {},
): Promise<PlannedAction[]> {
  const reader = options.reader ?? new ReserveReader();
  const planned: PlannedAction[] = [];
  let previous: { asset: string; amount: string; chain: string } | null = null;
  for (const [index, action] of workflow.actions.entries()) {
    const pinnedChain = action.chain ?? previous?.chain;
    const asset = (action.from ?? previous?.asset)?.toUpperCase();
    const amount = action.amount ?? previous?.amount;
    if (!asset || !amount)
      throw new NoRouteError(
        `action ${index + 1} (${action.type}) has no asset or amount and no previous action`,
      );
    const label = `action ${index + 1} (${action.type} ${amount} ${asset})`;
    const allowedChains = pinnedChain ? [pinnedChain, ...(action.fallbackChains ?? [])] : undefined;
    let step: PlannedAction;
    if (action.type === "swap" || action.type === "convert") {
      if (!action.to) throw new NoRouteError(`${label} has no target asset`);
      const candidates = await quoteSwapCandidates(
        chainSet,
        {
          from: asset,
          to: action.to,
          amount,
          chains: allowedChains,
          dex: action.dex,
          account: options.account,
          gasStrategy: options.gasStrategy,
        },
        reader,
      );
      // In the estimate every later action without its own chain runs where the output is.
      const avoid = pinnedChain
        ? undefined
        : bridgeDestinationAhead(workflow.actions, index, () => true);
      const route = selectRoute(
        candidates.filter((c) => c.chain !== avoid),
        { priority: actionPriority(action), chains: allowedChains?.slice(0, 1), dex: action.dex },
        label,
      );
      const chain = chainByName(chainSet, route.chain);
      const approve = await approveGas(
        chain,
        route.pathAddresses[0]!,
        route.router,
        route.amountIn,
        options.account,
        reader,
      );
      step = {
        index,
        type: action.type,
        chain: chain.name,
        chainId: chain.chainId,
        asset,
        amountIn: amount,
        outputAsset: action.to.toUpperCase(),
        outputAmount: route.amountOutDecimal,
        outputChain: chain.name,
        route,
        txs: [
          ...(approve ? [approve] : []),
          { chain: chain.name, kind: "swap", gas: route.gas, gasSource: route.gasSource },
        ],
      };
    } else if (action.type === "bridge") {
      if (!action.destination) throw new NoRouteError(`${label} has no destination chain`);
      const source = chainByName(
        chainSet,
        pinnedChain ??
          chainSet.find((c) => c.name !== action.destination && hasAsset(c, asset))?.name ??
          "",
      );
      const destination = chainByName(chainSet, action.destination);
      const bridgeAddress = contractAddress(source, BRIDGE_CONTRACT);
      if (!bridgeAddress || !contractAddress(destination, BRIDGE_CONTRACT))
        throw new NoRouteError(
          `${label}: no ${action.protocol ?? "lockmint"} bridge between ${source.name} and ${destination.name}`,
        );
      const token = tokenOf(source, asset);
      const gross = parseUnits(amount, token.decimals);
      const [fee] = (await reader.view(
        source,
        source.contract(BRIDGE_CONTRACT).interface,
        bridgeAddress,
        "quoteFee",
        [gross],
      )) as unknown as [bigint];
      const approve = await approveGas(
        source,
        token.address,
        bridgeAddress,
        gross,
        options.account,
        reader,
      );
      const deposit = await estimateTxGas(source, "bridge-deposit", null);
      const release = await estimateTxGas(destination, "bridge-release", null);
      const net = formatUnits(gross - fee, token.decimals);
      step = {
        index,
        type: "bridge",
        chain: source.name,
        chainId: source.chainId,
        asset,
        amountIn: amount,
        outputAsset: asset,
        outputAmount: net,
        outputChain: destination.name,
        destination: destination.name,
        bridgeFee: formatUnits(fee, token.decimals),
        txs: [
          ...(approve ? [approve] : []),
          {
            chain: source.name,
            kind: "bridge-deposit",
            gas: deposit.gas,
            gasSource: deposit.source,
          },
          {
            chain: destination.name,
            kind: "bridge-release",
            gas: release.gas,
            gasSource: release.source,
          },
        ],
      };
    } else if (action.type === "multisend") {
      const recipients = action.recipients ?? [];
      const chain = chainByName(
        chainSet,
        pinnedChain ??
          chainSet.find((c) => hasAsset(c, asset) && contractAddress(c, MULTISEND_CONTRACT))
            ?.name ??
          "",
      );
      const multisend = contractAddress(chain, MULTISEND_CONTRACT);
      if (!multisend) throw new NoRouteError(`${label}: no multisend contract on ${chain.name}`);
      const token = tokenOf(chain, asset);
      const total = parseUnits(amount, token.decimals);
      const resolved = resolveRecipients(recipients, total, token.decimals);
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
      step = {
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
    } else {
      throw new NoRouteError(`${label}: unknown action type ${action.type}`);
    }
    planned.push(step);
    previous = { asset: step.outputAsset, amount: step.outputAmount, chain: step.outputChain };
  }
  return planned;
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
