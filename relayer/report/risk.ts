import { VeriflowError } from "../errors/index.ts";
import { z } from "zod";
import type { AgentResultBase } from "../agents/index.ts";
import { DEFAULT_RISK_THRESHOLD } from "../model/index.ts";

/**
 * The risk engine (spec "Workflow orchestration rule"): after each agent, its result is scored in
 * [0, 1]; a score above the workflow's threshold (default 0.7) stops the run.
 *
 * Each metric is mapped to [0, 1], where 1 means "at the limit of what we accept":
 * | metric | 1.0 at |
 * | --- | --- |
 * | `price_impact` | 10% price impact (the routing liquidity limit) |
 * | `slippage_used` | the whole slippage tolerance used (received = minimum out) |
 * | `pool_depth` | the order taking 10% of a pool's input reserve |
 * | `gas_spike` | next base fee 5× the recent median (0 at or below the median) |
 * | `counterparty_flags` | any counterparty flagged by a sanctions source |
 * | `gas_retries` | three OUT_OF_GAS retries |
 * The score is the largest metric: one metric at its limit is enough to stop.
 */

export const riskEvaluationSchema = z.object({
  score: z.number(),
  threshold: z.number(),
  passed: z.boolean(),
  /** Each metric in [0, 1] by name (the table above). */
  metrics: z.record(z.string(), z.number()),
});
export type RiskEvaluation = z.infer<typeof riskEvaluationSchema>;

export class RiskThresholdExceededError extends VeriflowError {
  readonly evaluation: RiskEvaluation;
  readonly agent: string;

  constructor(agent: string, evaluation: RiskEvaluation) {
    const worst = Object.entries(evaluation.metrics).sort(([, a], [, b]) => b - a)[0];
    const detail = `${agent} scored ${evaluation.score.toFixed(3)} > threshold ${evaluation.threshold} (highest: ${worst?.[0]} ${worst?.[1].toFixed(3)})`;
    super("RISK_THRESHOLD_EXCEEDED", detail, { agent, risk: evaluation }, detail);
    this.evaluation = evaluation;
    this.agent = agent;
  }
}

const clamp = (v: number) => (Number.isFinite(v) ? Math.min(1, Math.max(0, v)) : 1);
const round = (v: number) => Math.round(v * 10_000) / 10_000;

export function evaluateRisk(
  result: Pick<AgentResultBase, "metrics">,
  threshold = DEFAULT_RISK_THRESHOLD,
): RiskEvaluation {
  const m = result.metrics;
  const metrics: Record<string, number> = {
    gas_spike: round(clamp((m.gas_spike - 1) / 4)),
    counterparty_flags: m.flagged_counterparties > 0 ? 1 : 0,
    gas_retries: round(clamp(m.out_of_gas_retries / 3)),
  };
  if (m.price_impact_bps !== undefined)
    metrics.price_impact = round(clamp(m.price_impact_bps / 1_000));
  if (m.slippage_used_bps !== undefined && m.slippage_tolerance_bps) {
    metrics.slippage_used = round(clamp(m.slippage_used_bps / m.slippage_tolerance_bps));
  }
  if (m.pool_share !== undefined) metrics.pool_depth = round(clamp(m.pool_share / 0.1));
  const score = Math.max(...Object.values(metrics));
  return { score, threshold, passed: score <= threshold, metrics };
}
