import { z } from "zod";

/**
 * API tiers (spec "Limits"). Tier 1 and tier 3 are the spec's; tier 2 ("pro") is ours:
 * 300 requests/min and 50 concurrent workflows, a step of 15x/10x over free and 1/4 and 1/10
 * of enterprise, sized for a team running scheduled treasury workflows.
 */
export const TIER_NAMES = ["free", "pro", "enterprise"] as const;
export type TierName = (typeof TIER_NAMES)[number];

export interface TierLimits {
  requestsPerMinute: number;
  concurrentWorkflows: number;
  /** Artifacts a key may hold from `POST /artifacts` (reports and manifests are not counted). */
  artifactCount: number;
  /** Bytes (canonical JSON) of those artifacts. */
  artifactBytes: number;
  /** `/zk/generate` calls per key and UTC day: each costs a Groth16 proof and an operator transaction. */
  zkProofsPerDay: number;
}

const MIB = 1024 * 1024;

/**
 * The artifact quota is sized so a free key can keep a few months of small documents (100 MiB)
 * and an enterprise key tens of thousands of reports' worth; the proving quota so a free key
 * can try the endpoint and a paying one anchor a batch every few minutes all day.
 */
export const DEFAULT_TIER_LIMITS: Readonly<Record<TierName, TierLimits>> = Object.freeze({
  free: {
    requestsPerMinute: 20,
    concurrentWorkflows: 5,
    artifactCount: 1_000,
    artifactBytes: 100 * MIB,
    zkProofsPerDay: 20,
  },
  pro: {
    requestsPerMinute: 300,
    concurrentWorkflows: 50,
    artifactCount: 10_000,
    artifactBytes: 1024 * MIB,
    zkProofsPerDay: 500,
  },
  enterprise: {
    requestsPerMinute: 1200,
    concurrentWorkflows: 500,
    artifactCount: 100_000,
    artifactBytes: 10 * 1024 * MIB,
    zkProofsPerDay: 5_000,
  },
});

const overrideSchema = z
  .partialRecord(
    z.enum(TIER_NAMES),
    z
      .object({
        requestsPerMinute: z.number().int().positive().optional(),
        concurrentWorkflows: z.number().int().positive().optional(),
        artifactCount: z.number().int().positive().optional(),
        artifactBytes: z.number().int().positive().optional(),
        zkProofsPerDay: z.number().int().positive().optional(),
      })
      .strict(),
  )
  .optional();

/** Tier limits with the operator's override (`VERIFLOW_LIMITS`, JSON) applied over the defaults. */
export function resolveTierLimits(overrideJson?: string): Record<TierName, TierLimits> {
  const limits = structuredClone(DEFAULT_TIER_LIMITS) as Record<TierName, TierLimits>;
  if (!overrideJson) return limits;
  let raw: unknown;
  try {
    raw = JSON.parse(overrideJson);
  } catch {
    throw new Error('VERIFLOW_LIMITS must be JSON, e.g. {"pro":{"requestsPerMinute":600}}');
  }
  const parsed = overrideSchema.safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    throw new Error(`VERIFLOW_LIMITS is invalid: ${issues}`);
  }
  for (const [tier, values] of Object.entries(parsed.data ?? {})) {
    Object.assign(limits[tier as TierName], values);
  }
  return limits;
}
