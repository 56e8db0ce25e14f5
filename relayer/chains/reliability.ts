import { z } from "zod";

/**
 * How the relayer treats a chain's transactions once they are sent (docs/reliability.md):
 *
 * - `confirmations`: blocks that must hold a transaction (its own block counts as 1) before the
 *   engine treats it as final: before the next step uses it (a bridge deposit before its release),
 *   before the execution is proved and before the report. A receipt whose block is no longer
 *   canonical, or a transaction that disappeared, is a reorg: see relayer/execution/transactions.ts.
 * - `stuckAfterMs`: a transaction not mined within this is replaced (same nonce) with fees raised
 *   by `feeBumpPercent` (at least 10: nodes refuse smaller replacements), at most up to
 *   `maxFeePerGasGwei`. Above the cap the transaction waits for the base fee to come back.
 */
export const chainReliabilitySchema = z
  .object({
    confirmations: z.number().int().min(1).max(1_000),
    stuckAfterMs: z.number().int().min(50).max(3_600_000),
    feeBumpPercent: z.number().int().min(10).max(500),
    maxFeePerGasGwei: z.number().positive().max(1_000_000),
  })
  .strict();

export type ChainReliability = z.infer<typeof chainReliabilitySchema>;

/** One chain's overrides in a chains configuration: any subset of the fields. */
export const chainReliabilityOverridesSchema = chainReliabilitySchema.partial();
export type ChainReliabilityOverrides = z.infer<typeof chainReliabilityOverridesSchema>;

/**
 * Devnet defaults: a local chain has no reorgs of its own (a test or the chaos suite makes them),
 * so one block is final; a transaction pending 10 s is replaced. The fee cap is twice the engine's
 * default congestion cap (300 gwei, relayer/execution/health.ts): a transaction already sent may
 * pay more to finish than a new action accepts to start.
 */
export const DEVNET_RELIABILITY: ChainReliability = {
  confirmations: 1,
  stuckAfterMs: 10_000,
  feeBumpPercent: 25,
  maxFeePerGasGwei: 600,
};

/**
 * Defaults for a chain of a chains file (a real network) that names none: three blocks and a
 * three-minute stuck timeout. Set `confirmations` to the network's finality (e.g. 64 on Ethereum
 * mainnet for finalized, a few for an L2 with a trusted sequencer).
 */
export const NETWORK_RELIABILITY: ChainReliability = {
  confirmations: 3,
  stuckAfterMs: 180_000,
  feeBumpPercent: 25,
  maxFeePerGasGwei: 600,
};

export function reliabilityWith(
  defaults: ChainReliability,
  overrides: ChainReliabilityOverrides | undefined,
): ChainReliability {
  return { ...defaults, ...overrides };
}
