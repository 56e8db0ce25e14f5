import type { TransactionRequest } from "ethers";
import type { RoutingChain } from "./chain.ts";
import type { ChainSnapshot } from "./snapshot.ts";

/** The kinds of transaction the engine sends. */
export type TxKind =
  "approve" | "swap" | "bridge-deposit" | "bridge-release" | "multisend" | "attest" | "wrap";

/**
 * Gas used when the exact transaction cannot be estimated against the current state (its input
 * only exists after an earlier action of the same workflow, or the allowance is set by an earlier
 * transaction of the plan). Upper bounds of what these transactions used on the devnet; any gas the
 * engine observes on a receipt replaces them for that chain and kind ({@link recordObservedGas}).
 */
export const GAS_BASELINE: Record<TxKind, bigint> = {
  approve: 46_500n,
  swap: 125_000n,
  "bridge-deposit": 110_000n,
  "bridge-release": 130_000n,
  multisend: 40_000n,
  attest: 260_000n,
  wrap: 46_000n,
};
/** Extra gas per additional swap hop and per multisend recipient. */
export const GAS_PER_EXTRA_HOP = 60_000n;
export const GAS_PER_RECIPIENT = 32_000n;

const observed = new Map<string, bigint>();

function key(chainId: number, kind: TxKind, units: number): string {
  return `${chainId}:${kind}:${units}`;
}

/** Remember the gas a receipt showed for a kind of transaction (units: hops or recipients). */
export function recordObservedGas(
  chainId: number,
  kind: TxKind,
  units: number,
  gasUsed: bigint,
): void {
  observed.set(key(chainId, kind, units), gasUsed);
}

export function baselineGas(chainId: number, kind: TxKind, units = 1): bigint {
  const seen = observed.get(key(chainId, kind, units));
  if (seen) return seen;
  const base = GAS_BASELINE[kind];
  if (kind === "swap") return base + GAS_PER_EXTRA_HOP * BigInt(Math.max(0, units - 1));
  if (kind === "multisend") return base + GAS_PER_RECIPIENT * BigInt(units);
  return base;
}

export interface GasEstimate {
  gas: bigint;
  /** `estimateGas` on the current state, or the baseline when the transaction cannot run yet. */
  source: "estimateGas" | "baseline";
}

/**
 * `eth_estimateGas` of the planned transaction; the baseline when it cannot execute on the current
 * state. With a `snapshot`, an identical transaction is estimated once while that block is the latest.
 */
export async function estimateTxGas(
  chain: RoutingChain,
  kind: TxKind,
  request: TransactionRequest | null,
  units = 1,
  snapshot?: ChainSnapshot,
): Promise<GasEstimate> {
  if (request) {
    try {
      const gas = snapshot
        ? await snapshot.estimateGas(request)
        : await chain.provider.estimateGas(request);
      return { gas, source: "estimateGas" };
    } catch {
      // Reverts on the current state (missing balance or allowance that an earlier step provides).
    }
  }
  return { gas: baselineGas(chain.chainId, kind, units), source: "baseline" };
}
