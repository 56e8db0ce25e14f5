import { InsufficientLiquidityError, NoRouteError } from "./errors.ts";
import type { SwapCandidate } from "./quote.ts";

/**
 * `route_optimizer.priority` values:
 * - `cost` (default): the largest output value net of the gas cost, in USD.
 * - `output`: the largest output amount, gas ignored (large orders where gas is noise).
 * - `speed`: the fewest hops (fewest pool interactions, least to go wrong), then the cheapest gas.
 */
export const ROUTE_PRIORITIES = ["cost", "output", "speed"] as const;
export type RoutePriority = (typeof ROUTE_PRIORITIES)[number];

/** A candidate whose price impact is above this is treated as lacking liquidity (10%). */
export const DEFAULT_MAX_PRICE_IMPACT_BPS = 1_000;

export interface RouteConstraints {
  priority?: RoutePriority;
  /** The chains the action may run on (in preference order for ties), when constrained. */
  chains?: readonly string[];
  dex?: string;
  maxPriceImpactBps?: number;
}

function score(c: SwapCandidate, priority: RoutePriority): number {
  if (priority === "output") return c.outputUsd || Number(c.amountOut);
  if (priority === "speed") return -c.path.length * 1e9 - c.gasUsd;
  return c.netUsd;
}

/** Best first by the priority; ties in the order of `chains` when given. */
function ranked(
  cs: readonly SwapCandidate[],
  priority: RoutePriority,
  chains: readonly string[] = [],
): SwapCandidate[] {
  return [...cs].sort((a, b) => {
    const diff = score(b, priority) - score(a, priority);
    if (diff !== 0) return diff;
    return chains.indexOf(a.chain) - chains.indexOf(b.chain);
  });
}

/**
 * Every candidate allowed by the constraints that has the liquidity, best first: the order in
 * which a whole-workflow plan tries them ({@link selectRoute} takes the first).
 */
export function rankRoutes(
  all: readonly SwapCandidate[],
  constraints: RouteConstraints,
): SwapCandidate[] {
  const maxImpact = constraints.maxPriceImpactBps ?? DEFAULT_MAX_PRICE_IMPACT_BPS;
  return ranked(
    all.filter(
      (c) =>
        (!constraints.chains || constraints.chains.includes(c.chain)) &&
        (!constraints.dex || c.exchange === constraints.dex) &&
        hasLiquidity(c, maxImpact),
    ),
    constraints.priority ?? "cost",
    constraints.chains,
  );
}

export function hasLiquidity(
  c: SwapCandidate,
  maxImpactBps = DEFAULT_MAX_PRICE_IMPACT_BPS,
): boolean {
  return c.amountOut > 0n && c.priceImpactBps <= maxImpactBps;
}

/**
 * Pick the best candidate allowed by the constraints. When the allowed candidates all lack liquidity,
 * throws INSUFFICIENT_LIQUIDITY naming the best candidate outside the constraints that has it.
 */
export function selectRoute(
  all: readonly SwapCandidate[],
  constraints: RouteConstraints,
  label: string,
): SwapCandidate {
  const priority = constraints.priority ?? "cost";
  const maxImpact = constraints.maxPriceImpactBps ?? DEFAULT_MAX_PRICE_IMPACT_BPS;
  const allowed = all.filter(
    (c) =>
      (!constraints.chains || constraints.chains.includes(c.chain)) &&
      (!constraints.dex || c.exchange === constraints.dex),
  );
  if (allowed.length === 0) {
    const where = [
      constraints.dex && `exchange ${constraints.dex}`,
      constraints.chains && `chains ${constraints.chains.join(", ")}`,
    ]
      .filter(Boolean)
      .join(" on ");
    throw new NoRouteError(`no pool for ${label}${where ? ` (${where})` : ""}`);
  }
  const feasible = ranked(
    allowed.filter((c) => hasLiquidity(c, maxImpact)),
    priority,
    constraints.chains,
  );
  if (feasible[0]) return feasible[0];
  const alternative = ranked(
    all.filter((c) => hasLiquidity(c, maxImpact)),
    priority,
    constraints.chains,
  )[0];
  const best = [...allowed].sort((a, b) => a.priceImpactBps - b.priceImpactBps)[0]!;
  const impact = (best.priceImpactBps / 100).toFixed(2);
  const detail =
    `${label}: the deepest allowed pool (${best.exchange} on ${best.chain}) would move the price ${impact}% ` +
    `(limit ${(maxImpact / 100).toFixed(2)}%)` +
    (alternative
      ? `; ${alternative.exchange} on ${alternative.chain} has the liquidity (price impact ${(alternative.priceImpactBps / 100).toFixed(2)}%)`
      : "; no chain or exchange has the liquidity for this amount");
  throw new InsufficientLiquidityError(
    detail,
    alternative ? { chain: alternative.chain, exchange: alternative.exchange } : null,
  );
}
