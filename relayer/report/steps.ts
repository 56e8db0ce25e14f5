import { z } from "zod";
import { agentResultSchema } from "../agents/index.ts";
import type { ActionFlow } from "../routing/index.ts";
import type { RiskEvaluation } from "./risk.ts";

/**
 * The shapes of the engine's per-action steps (`engine_steps`), as the executions repository
 * (relayer/executions/store.ts) reads them back through these schemas.
 */

/** The `ExecutionAttestor.attest` transaction of a proved execution. */
export interface Attestation {
  chain: string;
  chain_id: number;
  contract: string;
  /** keccak256 of the execution id: the attestor's key. */
  execution_key: string;
  tx_hash: string;
  block_number: number;
}

/** An error body as stored with a step or an execution (`{error, detail, ...extra}`). */
export const errorBodySchema = z.looseObject({ error: z.string(), detail: z.string().optional() });
export type ErrorBody = z.infer<typeof errorBodySchema>;

const flowSchema = z.object({
  asset: z.string(),
  amount: z.string(),
  chain: z.string(),
}) satisfies z.ZodType<ActionFlow>;

/**
 * A `recipients_from` multisend's orders as fetched (relayer/integrations/orders.ts): the anchored
 * interaction whose answer listed them, and each order paid, in payout order.
 */
export const payoutOrdersSchema = z.object({
  integration: z.string(),
  interaction_id: z.number().int(),
  schema_version: z.string(),
  orders: z.array(
    z.object({
      id: z.string(),
      address: z.string(),
      amount: z.string(),
      asset: z.string().nullable(),
    }),
  ),
});
export type PayoutOrders = z.infer<typeof payoutOrdersSchema>;

/**
 * What a completed action's step stores in `engine_steps.result`: its agent's result plus what the
 * orchestrator adds (the agent's class name, the chained output, the fallback taken).
 */
export const stepResultSchema = z.intersection(
  agentResultSchema,
  z.object({
    agent: z.string(),
    output: flowSchema,
    fallback_from: z.string().nullable().default(null),
    fallback_reason: z.string().optional(),
    orders: payoutOrdersSchema.optional(),
  }),
);
export type StepResult = z.infer<typeof stepResultSchema>;

/** The finalisation's own step (action index -1) stores the attestation it sent. */
export interface FinalStepResult {
  attestation: Attestation;
}

export interface StepRow {
  execution_id: string;
  action_index: number;
  agent: string;
  state: "running" | "completed" | "failed";
  chain: string | null;
  fallback_from: string | null;
  result: StepResult | null;
  risk: RiskEvaluation | null;
  error: ErrorBody | null;
  started_at: string;
  finished_at: string | null;
}

/** What the input of a started step records (the memo values are added by {@link stepMemo}). */
export interface StepInput {
  asset: string;
  amount: string;
  previous: ActionFlow | null;
  fallback_reason?: string;
}
