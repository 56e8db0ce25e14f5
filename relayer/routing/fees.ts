import type { Provider } from "ethers";

/**
 * Gas strategies, all derived from `eth_feeHistory` over the last {@link FEE_HISTORY_BLOCKS} blocks:
 * - `eco` (default): tip = 10th percentile of recent tips; fee cap = 1.25 × next base fee + tip
 *   (lands within a couple of blocks unless the base fee climbs fast).
 * - `standard`: tip = median recent tip; fee cap = 2 × next base fee + tip.
 * - `fast`: tip = 90th percentile recent tip (at least 2 gwei); fee cap = 3 × next base fee + tip.
 * The expected price per gas (used for cost estimates) is next base fee + tip: what is actually paid.
 */
export const GAS_STRATEGIES = ["eco", "standard", "fast"] as const;
export type GasStrategy = (typeof GAS_STRATEGIES)[number];
export const FEE_HISTORY_BLOCKS = 10;
/** Tip percentiles read for the eco, standard and fast strategies. */
export const FEE_PERCENTILES: readonly number[] = [10, 50, 90];

export interface FeeQuote {
  strategy: GasStrategy;
  nextBaseFeePerGas: bigint;
  /** Median base fee over the history window (the reference for the gas-spike risk metric). */
  medianBaseFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
  maxFeePerGas: bigint;
  /** What a transaction is expected to pay per gas. */
  expectedPricePerGas: bigint;
}

export interface FeeHistory {
  baseFeePerGas: string[];
  reward?: string[][];
}

function median(values: bigint[]): bigint {
  if (values.length === 0) return 0n;
  const sorted = [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return sorted[Math.floor(sorted.length / 2)]!;
}

export function isGasStrategy(value: string): value is GasStrategy {
  return (GAS_STRATEGIES as readonly string[]).includes(value);
}

/**
 * `eth_feeHistory` over `blocks` blocks ending at `newest`, through the provider's JSON-RPC `send`
 * (every provider the chain set builds has one).
 */
export async function feeHistory(
  provider: Provider,
  blocks: number = FEE_HISTORY_BLOCKS,
  percentiles: readonly number[] = FEE_PERCENTILES,
  newest: number | "latest" = "latest",
): Promise<FeeHistory> {
  const rpc = provider as Provider & {
    send?: (method: string, params: unknown[]) => Promise<unknown>;
  };
  if (typeof rpc.send === "function") {
    return (await rpc.send("eth_feeHistory", [
      `0x${blocks.toString(16)}`,
      newest === "latest" ? newest : `0x${newest.toString(16)}`,
      percentiles,
    ])) as FeeHistory;
  }
  // A provider without raw JSON-RPC: the block's base fee and the provider's tip suggestion.
  const [block, data] = await Promise.all([provider.getBlock(newest), provider.getFeeData()]);
  const base = `0x${(block?.baseFeePerGas ?? 0n).toString(16)}`;
  const tip = `0x${(data.maxPriorityFeePerGas ?? 0n).toString(16)}`;
  return { baseFeePerGas: [base, base], reward: [[tip, tip, tip]] };
}

/** The fee quote of a strategy from the latest blocks' fee history. */
export async function feeQuote(
  provider: Provider,
  strategy: GasStrategy = "eco",
): Promise<FeeQuote> {
  return feeQuoteFromHistory(await feeHistory(provider), strategy);
}

/** The fee quote of a strategy from a fee history (`FEE_HISTORY_BLOCKS` blocks, `FEE_PERCENTILES`). */
export function feeQuoteFromHistory(history: FeeHistory, strategy: GasStrategy = "eco"): FeeQuote {
  const baseFees = history.baseFeePerGas.map((v) => BigInt(v));
  // The last entry is the base fee of the next block.
  const nextBaseFeePerGas = baseFees[baseFees.length - 1] ?? 0n;
  const medianBaseFeePerGas = median(
    baseFees.slice(0, -1).length ? baseFees.slice(0, -1) : baseFees,
  );
  const rewards = history.reward ?? [];
  const column = { eco: 0, standard: 1, fast: 2 }[strategy];
  const tip = median(rewards.map((r) => BigInt(r[column] ?? "0x0")));
  const GWEI = 1_000_000_000n;
  const maxPriorityFeePerGas = strategy === "fast" && tip < 2n * GWEI ? 2n * GWEI : tip;
  const capTimes = { eco: 125n, standard: 200n, fast: 300n }[strategy];
  const maxFeePerGas = (nextBaseFeePerGas * capTimes) / 100n + maxPriorityFeePerGas;
  return {
    strategy,
    nextBaseFeePerGas,
    medianBaseFeePerGas,
    maxPriorityFeePerGas,
    maxFeePerGas,
    expectedPricePerGas: nextBaseFeePerGas + maxPriorityFeePerGas,
  };
}
