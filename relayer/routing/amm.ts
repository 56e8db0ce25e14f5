/**
 * Uniswap V2 constant-product math, exactly as `UniswapV2Library.getAmountOut` computes it
 * (0.3% fee, integer division), so a quote equals what the router's `getAmountsOut` returns
 * for the same reserves.
 */
export const FEE_NUMERATOR = 997n;
export const FEE_DENOMINATOR = 1000n;

export function getAmountOut(amountIn: bigint, reserveIn: bigint, reserveOut: bigint): bigint {
  if (amountIn <= 0n || reserveIn <= 0n || reserveOut <= 0n) return 0n;
  const amountInWithFee = amountIn * FEE_NUMERATOR;
  return (amountInWithFee * reserveOut) / (reserveIn * FEE_DENOMINATOR + amountInWithFee);
}

export interface Hop {
  reserveIn: bigint;
  reserveOut: bigint;
}

/**
 * Output of a multi-hop path, the price impact (excluding the pool fee) in basis points, and the
 * largest share of a pool's input reserve the order takes along the path (0..1).
 */
export function quotePath(
  amountIn: bigint,
  hops: readonly Hop[],
): { amountOut: bigint; priceImpactBps: number; poolShare: number } {
  let amount = amountIn;
  let poolShare = 0;
  // Mid-price output scaled by 1e18 per hop to keep precision through several hops.
  let midOut = amountIn * 10n ** 18n;
  for (const hop of hops) {
    poolShare = Math.max(poolShare, Number(amount) / Number(hop.reserveIn || 1n));
    amount = getAmountOut(amount, hop.reserveIn, hop.reserveOut);
    midOut =
      hop.reserveIn > 0n
        ? (midOut * hop.reserveOut * FEE_NUMERATOR) / (hop.reserveIn * FEE_DENOMINATOR)
        : 0n;
  }
  if (midOut === 0n || amount === 0n)
    return { amountOut: amount, priceImpactBps: 10_000, poolShare };
  const impact = 10_000n - (amount * 10n ** 18n * 10_000n) / midOut;
  return { amountOut: amount, priceImpactBps: Number(impact < 0n ? 0n : impact), poolShare };
}

/** `amountOutMin` for a tolerance in percent (spec: `slippage` is a percentage). */
export function minimumOut(quoted: bigint, slippagePercent: number): bigint {
  const bps = BigInt(Math.round(slippagePercent * 100));
  return (quoted * (10_000n - bps)) / 10_000n;
}
