import { formatUnits, Interface, type TransactionDescription } from "ethers";
import {
  ROUTER_ABI,
  type RoutingChain,
  feeQuote,
  baselineGas,
  ReserveReader,
  nativeUsdPrice,
  usdPrice,
} from "../routing/index.ts";
import {
  bestSandwichOnHop,
  type PoolState,
  type SandwichPlan,
  type VictimSwap,
} from "./sandwich.ts";
import type { MevAssessment, SimulateTx } from "./schema.ts";

/**
 * MEV (sandwich) risk of a transaction over the next `block_count` blocks. The model is in
 * `sandwich.ts` and docs/aux.md; this module decodes the swap, reads the pools and prices it.
 */

/** Seconds per block assumed when converting a swap's deadline into blocks (Ethereum's slot). */
export const ASSUMED_BLOCK_SECONDS = 12;

/** Risk levels, from the attacker's net profit and the share of the victim's trade it takes. */
export const RISK_THRESHOLDS = {
  /** Below this loss (bps of the victim's expected amount) a profitable sandwich is still "low". */
  lowLossBps: 10,
  /** At or above this loss, a profitable sandwich is "high"; between the two "medium". */
  highLossBps: 100,
} as const;

const router = new Interface(ROUTER_ABI);

function decodeSwap(tx: SimulateTx, parsed: TransactionDescription): VictimSwap | undefined {
  const args = parsed.args;
  const value = tx.value ?? 0n;
  switch (parsed.name) {
    case "swapExactTokensForTokens":
    case "swapExactTokensForETH":
    case "swapExactTokensForTokensSupportingFeeOnTransferTokens":
    case "swapExactTokensForETHSupportingFeeOnTransferTokens":
      return {
        kind: "exact-in",
        amountIn: args.getValue("amountIn") as bigint,
        amountOutMin: args.getValue("amountOutMin") as bigint,
      };
    case "swapExactETHForTokens":
    case "swapExactETHForTokensSupportingFeeOnTransferTokens":
      return {
        kind: "exact-in",
        amountIn: value,
        amountOutMin: args.getValue("amountOutMin") as bigint,
      };
    case "swapTokensForExactTokens":
    case "swapTokensForExactETH":
      return {
        kind: "exact-out",
        amountOut: args.getValue("amountOut") as bigint,
        amountInMax: args.getValue("amountInMax") as bigint,
      };
    case "swapETHForExactTokens":
      return {
        kind: "exact-out",
        amountOut: args.getValue("amountOut") as bigint,
        amountInMax: value,
      };
    default:
      return undefined;
  }
}

export async function assessMev(
  chain: RoutingChain,
  tx: SimulateTx,
  context: { blockCount: number; blockNumber: number; success: boolean },
): Promise<MevAssessment> {
  const base = {
    block_count: context.blockCount,
    window: {
      from_block: context.blockNumber + 1,
      to_block: context.blockNumber + context.blockCount,
    },
  };
  const none = (reason: string): MevAssessment => ({
    ...base,
    applicable: false,
    reason,
    risk: "none",
  });

  const exchange = Object.entries(chain.deployment.exchanges).find(
    ([, e]) => e.router.toLowerCase() === tx.to.toLowerCase(),
  );
  if (!exchange) return none("not a call to a known Uniswap-V2 router: no sandwichable swap");
  let parsed: TransactionDescription | null;
  try {
    parsed = router.parseTransaction({ data: tx.data, value: tx.value ?? 0n });
  } catch {
    parsed = null;
  }
  const swap = parsed ? decodeSwap(tx, parsed) : undefined;
  if (!parsed || !swap) return none("the router call is not a swap");
  if (!context.success) return none("the transaction reverts: there is no swap to sandwich");

  const path = parsed.args.getValue("path") as string[];
  const reader = new ReserveReader();
  const pools: (PoolState & { pair: string })[] = [];
  for (let i = 0; i + 1 < path.length; i++) {
    const pool = await reader.reserves(chain, exchange[0], path[i]!, path[i + 1]!);
    if (!pool) return none(`no ${exchange[0]} pool for hop ${i} of the path`);
    pools.push({ reserveIn: pool.reserveIn, reserveOut: pool.reserveOut, pair: pool.pair });
  }

  const symbolOf = (address: string): string | null =>
    Object.entries(chain.deployment.tokens).find(
      ([, t]) => t.address.toLowerCase() === address.toLowerCase(),
    )?.[0] ?? null;
  const decimalsOf = (address: string): number | null =>
    Object.values(chain.deployment.tokens).find(
      (t) => t.address.toLowerCase() === address.toLowerCase(),
    )?.decimals ?? null;

  const latest = await chain.provider.getBlock("latest");
  const deadline = parsed.args.getValue("deadline") as bigint;
  const secondsLeft = Number(deadline) - (latest?.timestamp ?? 0);
  const exposedBlocks = Math.max(
    0,
    Math.min(context.blockCount, Math.floor(secondsLeft / ASSUMED_BLOCK_SECONDS)),
  );

  const candidates: { plan: SandwichPlan; usd: number | null; share: number }[] = [];
  for (let hop = 0; hop < pools.length; hop++) {
    const plan = bestSandwichOnHop(pools, swap, hop);
    if (!plan) continue;
    const symbol = symbolOf(path[hop]!);
    const decimals = decimalsOf(path[hop]!);
    const price = symbol ? await usdPrice(chain, symbol, reader).catch(() => null) : null;
    const usd =
      price !== null && decimals !== null ? (Number(plan.profit) / 10 ** decimals) * price : null;
    candidates.push({ plan, usd, share: Number(plan.profit) / Number(pools[hop]!.reserveIn) });
  }
  const expected = candidates[0]?.plan.victimWithout;
  const swapInfo = {
    exchange: exchange[0],
    function: parsed.name,
    path: path.map((a) => symbolOf(a) ?? a),
    amount_in: swap.kind === "exact-in" ? swap.amountIn.toString() : null,
    amount_out_min: swap.kind === "exact-in" ? swap.amountOutMin.toString() : null,
    amount_out: swap.kind === "exact-out" ? swap.amountOut.toString() : null,
    amount_in_max: swap.kind === "exact-out" ? swap.amountInMax.toString() : null,
    expected: expected?.toString() ?? "0",
    exposed_blocks: exposedBlocks,
  };
  if (candidates.length === 0)
    return {
      ...base,
      applicable: true,
      reason: "the swap fails at the current reserves",
      risk: "none",
      swap: swapInfo,
    };

  candidates.sort((a, b) => (a.usd !== null && b.usd !== null ? b.usd - a.usd : b.share - a.share));
  const best = candidates[0]!;
  const plan = best.plan;
  const token = path[plan.hop]!;
  const decimals = decimalsOf(token);

  const [fees, nativePrice] = await Promise.all([
    feeQuote(chain.provider, "fast"),
    nativeUsdPrice(chain, reader).catch(() => null),
  ]);
  const attackerGas = 2n * baselineGas(chain.chainId, "swap", 1);
  const gasUsd =
    nativePrice === null
      ? null
      : (Number(attackerGas * fees.expectedPricePerGas) / 1e18) * nativePrice;
  const netUsd = best.usd !== null && gasUsd !== null ? best.usd - gasUsd : null;

  const loss =
    swap.kind === "exact-in"
      ? plan.victimWithout - plan.victimWith
      : plan.victimWith - plan.victimWithout;
  const lossBps =
    plan.victimWithout > 0n ? Number((loss * 1_000_000n) / plan.victimWithout) / 100 : 0;

  return {
    ...base,
    applicable: true,
    risk: exposedBlocks === 0 ? "none" : riskLevel(plan.profit, netUsd, lossBps),
    ...(exposedBlocks === 0
      ? { reason: "the swap's deadline passes before the next block of the window" }
      : {}),
    swap: swapInfo,
    sandwich: {
      pool: pools[plan.hop]!.pair,
      hop: plan.hop,
      token,
      symbol: symbolOf(token),
      front_run_in: plan.frontRunIn.toString(),
      front_run_out: plan.frontRunOut.toString(),
      back_run_out: plan.backRunOut.toString(),
      max_front_run: plan.maxFrontRun.toString(),
      max_profit: plan.profit.toString(),
      max_profit_formatted: decimals === null ? null : formatUnits(plan.profit, decimals),
      max_profit_usd: best.usd,
      attacker_gas_usd: gasUsd,
      net_profit_usd: netUsd,
      victim_loss: loss.toString(),
      victim_loss_bps: lossBps,
    },
  };
}

/**
 * none: nothing to extract; low: extractable but not worth the attacker's gas, or under 0.1% of
 * the trade; medium: profitable, under 1%; high: profitable and 1% or more of the trade.
 * Without USD prices, gas cannot be weighed and the share of the trade decides alone.
 */
export function riskLevel(
  profit: bigint,
  netUsd: number | null,
  lossBps: number,
): MevAssessment["risk"] {
  if (profit <= 0n) return "none";
  if (netUsd !== null && netUsd <= 0) return "low";
  if (lossBps < RISK_THRESHOLDS.lowLossBps) return "low";
  return lossBps < RISK_THRESHOLDS.highLossBps ? "medium" : "high";
}
