import { type RoutingChain, feeQuote } from "../routing/index.ts";

/**
 * Whether a chain can take an action now (spec 503 "chain congestion"): its RPC answers within
 * the timeout and its next base fee is at most the cap. The reason names which failed.
 */
export interface ChainHealth {
  ok: boolean;
  reason?: string;
  baseFeeGwei?: number;
}

/** Default base fee cap: above it a chain counts as congested (gwei). */
export const DEFAULT_BASE_FEE_CAP_GWEI = 300;

/**
 * How long an action waits for a chain whose RPC does not answer (and that has no fallback
 * left) before it fails with CHAIN_UNAVAILABLE, in seconds: a node restart or a dropped load
 * balancer is over within seconds; an outage longer than this is answered with the error and its
 * `retry_in`. Bounds of VERIFLOW_CHAIN_OUTAGE_WINDOW_SECONDS: relayer/config/.
 */
export const DEFAULT_CHAIN_OUTAGE_WINDOW_SECONDS = 30;
const RPC_TIMEOUT_MS = 3_000;

async function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      p,
      new Promise<T>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

export async function chainHealth(
  chain: RoutingChain,
  baseFeeCapGwei = DEFAULT_BASE_FEE_CAP_GWEI,
): Promise<ChainHealth> {
  try {
    // The next block's base fee (fee history's last entry): what a transaction sent now pays.
    const fees = await withTimeout(feeQuote(chain.provider, "eco"), RPC_TIMEOUT_MS);
    const baseFee = fees.nextBaseFeePerGas;
    const baseFeeGwei = Number(baseFee) / 1e9;
    if (baseFeeGwei > baseFeeCapGwei) {
      return {
        ok: false,
        reason: `base fee ${baseFeeGwei.toFixed(1)} gwei is above the cap of ${baseFeeCapGwei} gwei`,
        baseFeeGwei,
      };
    }
    return { ok: true, baseFeeGwei };
  } catch (err) {
    return { ok: false, reason: `RPC unavailable: ${(err as Error).message.slice(0, 200)}` };
  }
}
