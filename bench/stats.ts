/**
 * The statistics the benchmarks report, defined once so that the figures under bench/results/
 * mean the same thing in every file: a quantile is the nearest rank (the smallest sample with at
 * least that share of the samples at or below it, no interpolation: p99 of 100 samples is the
 * 99th smallest, p50 of 10 the 5th), and a median of an even count is the mean of the two middle
 * samples.
 */

function sortedCopy(samples: readonly number[]): number[] {
  if (!samples.length) throw new Error("a statistic of no samples");
  return [...samples].sort((a, b) => a - b);
}

/** The nearest-rank quantile `p` (0 < p ≤ 1) of the samples. */
export function quantile(samples: readonly number[], p: number): number {
  if (!(p > 0 && p <= 1)) throw new Error(`a quantile is in (0, 1], not ${p}`);
  const sorted = sortedCopy(samples);
  return sorted[Math.ceil(p * sorted.length) - 1]!;
}

export function median(samples: readonly number[]): number {
  const sorted = sortedCopy(samples);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** `value` rounded to `decimals` places, as the results files write figures. */
export function rounded(value: number, decimals: number): number {
  const scale = 10 ** decimals;
  return Math.round(value * scale) / scale;
}
