import { z } from "@hono/zod-openapi";
import { queryInteger } from "../http/index.ts";
import type { SubmissionReceipt } from "../proofs/index.ts";
import {
  ACTION_TYPES,
  DEFAULT_MAX_ORDERS,
  EXECUTION_STAGES,
  EXECUTION_STATES,
  GAS_STRATEGIES,
  MAX_ORDERS_LIMIT,
  ROUTE_PRIORITIES,
} from "../model/index.ts";
import { errorBodySchema, riskEvaluationSchema, stepResultSchema } from "../report/index.ts";

/**
 * Wire shapes of the workflow endpoints, one zod schema each: request validation, the TypeScript
 * types (`z.infer`) and the OpenAPI document come from these. Structural checks live here;
 * checks that need the chains (known assets, decimals, exchanges) live in normalise.ts.
 */

const DECIMAL = /^(0|[1-9]\d*)(\.\d+)?$/;
const PERCENT = /^(0|[1-9]\d*)(\.\d+)?\s*%$/;

export const decimalAmountSchema = z
  .string()
  .regex(DECIMAL, 'must be a decimal amount as a string, e.g. "1.5"')
  .openapi({ example: "1.5" });

const recipientAmountSchema = z
  .string()
  .refine((v) => DECIMAL.test(v) || PERCENT.test(v), {
    message: 'must be a decimal amount ("250.5") or a percentage ("25%")',
  })
  .openapi({ example: "25%" });

const chainNameSchema = z.string().min(1).max(64).openapi({ example: "arbitrum" });
const assetSymbolSchema = z.string().min(1).max(32).openapi({ example: "USDC" });
const fallbackChainsSchema = z
  .array(chainNameSchema)
  .max(8)
  .openapi({
    description: "Chains to move to, in order, when the chain is congested or down (503).",
    example: ["polygon"],
  });

const slippagePercentSchema = z
  .number()
  .gt(0, "slippage must be greater than 0 %")
  .lte(50, "slippage must be at most 50 %")
  .openapi({
    description: "Maximum tolerated slippage in percent, (0, 50]; default 0.5.",
    example: 0.5,
  });

export const recipientSchema = z
  .object({
    address: z.string().openapi({ example: "0x52908400098527886E0F7030069857D2E4169EE7" }),
    amount: recipientAmountSchema,
  })
  .strict()
  .openapi("Recipient");

const recordFieldSchema = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, "must be a record field name such as wallet");

/**
 * A multisend's recipients from an integration (docs/integrations.md#recipients_from), the same
 * object in JSON (`actions[i].recipients_from`) and YAML (`params.recipients_from`).
 */
export const recipientsFromSchema = z
  .object({
    integration: z
      .string()
      .regex(/^[a-z][a-z0-9_-]{0,63}$/, "must name a configured integration")
      .openapi({ example: "crm" }),
    path: z
      .string()
      .max(256)
      .regex(/^\/[A-Za-z0-9._~/-]*$/, "must be a path such as /crm/orders")
      .openapi({ example: "/crm/orders" }),
    query: z
      .record(z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/), z.string().max(256))
      .refine((q) => Object.keys(q).length <= 16, "at most 16 query parameters")
      .default({})
      .openapi({ example: { status: "unpaid" } }),
    id: recordFieldSchema.default("id").openapi({ description: "the order id field" }),
    address: recordFieldSchema.openapi({
      description: "the 0x payout address field",
      example: "wallet",
    }),
    amount: recordFieldSchema.openapi({
      description: "the decimal amount field",
      example: "amount",
    }),
    asset: recordFieldSchema.optional().openapi({
      description: "the field that must equal the multisend's asset",
      example: "currency",
    }),
    max_orders: z
      .union([z.number(), z.string().max(16)])
      .optional()
      .openapi({
        description: `the most orders one payout pays, 1-${MAX_ORDERS_LIMIT} (default ${DEFAULT_MAX_ORDERS})`,
        example: 100,
      }),
  })
  .strict()
  .openapi("RecipientsFrom");
export type RecipientsFromWire = z.infer<typeof recipientsFromSchema>;

/** Spec "Action object (JSON form)", plus `chain`, `dex` and `fallback_chains`. */
export const jsonActionSchema = z
  .object({
    type: z.enum(ACTION_TYPES),
    chain: chainNameSchema
      .optional()
      .openapi({ description: "Pin the chain (bridge: the source chain)." }),
    from: assetSymbolSchema.optional(),
    to: assetSymbolSchema.optional(),
    amount: decimalAmountSchema.optional(),
    slippage: slippagePercentSchema.optional(),
    destination: chainNameSchema.optional(),
    protocol: z.string().min(1).max(64).optional().openapi({ example: "lockmint" }),
    route_optimizer: z
      .object({ priority: z.enum(ROUTE_PRIORITIES) })
      .strict()
      .optional(),
    dex: z.string().min(1).max(64).optional().openapi({ example: "uniswap" }),
    recipients: z.array(recipientSchema).min(1).max(256).optional(),
    recipients_from: recipientsFromSchema.optional(),
    fallback_chains: fallbackChainsSchema.optional(),
  })
  .strict()
  .openapi("Action");

const complianceSchema = z
  .object({
    jurisdictions: z
      .array(z.string().max(16))
      .max(32)
      .optional()
      .openapi({ example: ["US"] }),
    tax_forms: z
      .array(z.string().max(32))
      .max(16)
      .optional()
      .openapi({ example: ["1099-DA"] }),
  })
  .strict()
  .openapi("ComplianceRules");

const riskThresholdSchema = z
  .number()
  .gt(0)
  .lte(1)
  .openapi({ description: "Risk engine threshold, (0, 1]; default 0.7.", example: 0.7 });

/** Spec "Workflow submission" (JSON form of POST /v1/workflows and POST /workflows/deploy). */
export const workflowSubmissionSchema = z
  .object({
    name: z.string().min(1).max(128).openapi({ example: "weekly-treasury-rebalance" }),
    schedule: z.string().max(128).optional().openapi({
      description: "Five-field cron expression; each firing runs the workflow again.",
      example: "0 9 * * 1",
    }),
    timezone: z.string().max(64).optional().openapi({
      description: "IANA zone of `schedule` (default UTC).",
      example: "America/New_York",
    }),
    actions: z.array(jsonActionSchema).min(1).max(32),
    compliance: complianceSchema.optional(),
    fallback_chains: fallbackChainsSchema.optional(),
    risk_threshold: riskThresholdSchema.optional(),
    gas_strategy: z.enum(GAS_STRATEGIES).optional(),
  })
  .strict()
  .openapi("WorkflowSubmission");

export type WorkflowSubmission = z.infer<typeof workflowSubmissionSchema>;
export type JsonAction = z.infer<typeof jsonActionSchema>;

/** Runs a deployed configuration (`POST /workflows/deploy`) by name; latest version unless pinned. */
export const deploymentRunSchema = z
  .object({
    deployment: z.string().min(1).max(128).openapi({ example: "weekly-treasury-rebalance" }),
    version: z.number().int().positive().optional().openapi({ example: 2 }),
  })
  .strict()
  .openapi("DeploymentRun");

export type DeploymentRun = z.infer<typeof deploymentRunSchema>;

// YAML form. Parsed with the YAML failsafe schema so every scalar keeps its source text (amounts
// stay exact, `0x…` addresses are not read as hexadecimal numbers); numbers arrive as strings.
const yamlNumber = z.union([z.string(), z.number()]).transform((v) => String(v).trim());

const yamlParamsSchema = z
  .object({
    chain: chainNameSchema.optional(),
    from: assetSymbolSchema.optional(),
    to: assetSymbolSchema.optional(),
    amount: yamlNumber.optional(),
    slippage: yamlNumber.optional(),
    dex: z.string().min(1).max(64).optional(),
    priority: z.string().optional(),
    destination: chainNameSchema.optional(),
    protocol: z.string().min(1).max(64).optional(),
    recipients: z
      .array(z.record(z.string(), yamlNumber))
      .min(1)
      .max(256)
      .optional()
      .openapi({ description: "Each item maps an address to an amount (or a `<n>%` share)." }),
    recipients_from: recipientsFromSchema.optional(),
    fallback_chains: fallbackChainsSchema.optional(),
  })
  .strict();

/** Spec "Workflow definition" (YAML form, `Content-Type: application/yaml`). */
export const yamlWorkflowSchema = z
  .object({
    name: z.string().min(1).max(128),
    trigger: z
      .object({
        frequency: z.string().max(128).optional().openapi({ example: "every Monday at 09:00 EST" }),
        cron: z.string().max(128).optional(),
        timezone: z.string().max(64).optional(),
      })
      .strict()
      .optional(),
    actions: z
      .array(z.object({ action: z.string(), params: yamlParamsSchema.optional() }).strict())
      .min(1)
      .max(32),
    compliance: complianceSchema.optional(),
    fallback_chains: fallbackChainsSchema.optional(),
    risk_threshold: yamlNumber.optional(),
    gas_strategy: z.string().optional(),
  })
  .strict()
  .openapi("WorkflowDefinition");

export type YamlWorkflow = z.infer<typeof yamlWorkflowSchema>;

/**
 * A named schema or null, documented as `anyOf: [$ref, null]`: `.nullable()` on a named schema is
 * rendered as `allOf: [$ref, {type: [object, null]}]`, which admits no null (generated client types
 * could not hold one).
 */
function nullableRef<T extends z.ZodType>(schema: T) {
  return z.union([schema, z.null()]);
}

export const costEstimateSchema = z
  .object({
    total_usd: z.number().openapi({ example: 1.27 }),
    gas_breakdown: z
      .record(z.string(), z.number())
      .openapi({ example: { arbitrum: 0.02, ethereum: 1.25 } }),
  })
  .openapi("CostEstimate");

export const scheduleViewSchema = z
  .object({
    id: z.string().openapi({ example: "sch_01J..." }),
    name: z.string(),
    cron: z.string(),
    timezone: z.string(),
    phrase: z.string().nullable(),
    deployment: z.object({ name: z.string(), version: z.number().int().nullable() }).nullable(),
    paused: z.boolean().openapi({ description: "true between pause and resume: no firings" }),
    paused_at: z.string().nullable(),
    next_run_at: z.string().nullable().openapi({ description: "null while paused" }),
    last_fired_at: z.string().nullable(),
    fire_count: z.number().int(),
    created_at: z.string(),
  })
  .openapi("Schedule");

/**
 * The signed submission receipt (relayer/proofs/receipt.ts, docs/zk.md#submission-receipt): keep
 * it; with the workflow it proves what was submitted, and the execution proof must reproduce its
 * `workflow_commitment`.
 */
export const submissionReceiptSchema = z
  .object({
    execution_id: z.string(),
    api_key_id: z.string(),
    submitted_at: z.string().openapi({ description: "ISO 8601; signed as milliseconds" }),
    workflow_commitment: z.string().openapi({
      description: "Poseidon commitment to the workflow as submitted (decimal field element)",
    }),
    salt: z.string().openapi({ description: "the commitments' salt, drawn at submission" }),
    domain: z.object({
      name: z.string(),
      version: z.string(),
      chainId: z.number().int(),
      verifyingContract: z.string().openapi({ description: "the ExecutionAttestor" }),
    }),
    signer: z.string().openapi({ description: "the relayer operator (ATTESTER_ROLE)" }),
    signature: z.string().openapi({ description: "EIP-712 signature, type SubmissionReceipt" }),
  })
  .openapi("SubmissionReceipt");
// The wire shape and the proofs library's type are one fact: this fails to compile if they drift.
const receiptShapeMatches: z.ZodType<SubmissionReceipt> = submissionReceiptSchema;
void receiptShapeMatches;

/** Spec "Submission result", plus the schedule a scheduled submission registered. */
export const submissionResultSchema = z
  .object({
    status: z.literal("queued"),
    execution_id: z.string().openapi({ example: "wf_01JD8X3V6N2Q5R7T9W0Y1Z2A3B" }),
    cost_estimate: costEstimateSchema,
    receipt: submissionReceiptSchema
      .nullable()
      .openapi({ description: "null only when the relayer has no ExecutionAttestor" }),
    schedule: scheduleViewSchema.optional(),
  })
  .openapi("SubmissionResult");

export type SubmissionResult = z.infer<typeof submissionResultSchema>;

export const stepViewSchema = z
  .object({
    index: z.number().int(),
    action: z.enum(ACTION_TYPES),
    agent: z.string().nullable().openapi({ example: "SwapAgent" }),
    state: z
      .string()
      .openapi({ description: "pending | running | completed | failed", example: "completed" }),
    chain: z.string().nullable(),
    fallback_from: z
      .string()
      .nullable()
      .openapi({ description: "The chain the action moved away from (503)." }),
    tx_hashes: z.array(z.string()),
    result: stepResultSchema.nullable().openapi({
      description: "The agent's result, one shape per action type (discriminated by `action`).",
    }),
    risk: riskEvaluationSchema.nullable(),
    error: errorBodySchema.nullable(),
    started_at: z.string().nullable(),
    finished_at: z.string().nullable(),
  })
  .openapi("ExecutionStep");

export const executionSummarySchema = z
  .object({
    execution_id: z.string(),
    name: z.string(),
    state: z.enum(EXECUTION_STATES),
    stage: z.enum(EXECUTION_STAGES),
    cancel_requested: z.boolean(),
    trigger: z.enum(["api", "schedule"]),
    schedule_id: z.string().nullable(),
    deployment: z.object({ name: z.string(), version: z.number().int() }).nullable(),
    cost_estimate: nullableRef(costEstimateSchema),
    created_at: z.string(),
    updated_at: z.string(),
    finished_at: z.string().nullable(),
  })
  .openapi("ExecutionSummary");

export const executionViewSchema = executionSummarySchema
  .extend({
    workflow: z.unknown(),
    receipt: submissionReceiptSchema.nullable(),
    steps: z.array(stepViewSchema),
    compliance_alerts: z.array(z.unknown()),
    error: z.unknown().nullable(),
    report: z
      .object({
        cid: z.string().openapi({ description: "CID of the report body (its `artifact_id`)" }),
        signed_cid: z.string().nullable().openapi({
          description:
            "CID of the signed report (`report` below) in the artifact store: the one CID an auditor needs (`npm run audit -- <signed_cid>`); null for reports signed before signed copies were stored",
        }),
        signer: z.string(),
        signature: z.string(),
        report: z.unknown(),
      })
      .nullable()
      .openapi({
        description:
          "The final report when the execution is done, with its CID and the relayer's signature.",
      }),
  })
  .openapi("Execution");

export const executionListQuerySchema = z.object({
  state: z.enum(EXECUTION_STATES).optional(),
  limit: queryInteger(1, 100).optional().openapi({ example: 20 }),
  cursor: z.string().max(200).optional(),
});

export const executionListSchema = z
  .object({
    items: z.array(executionSummarySchema),
    next_cursor: z.string().nullable(),
  })
  .openapi("ExecutionList");

export const executionIdParamSchema = z.object({
  id: z
    .string()
    .openapi({ param: { name: "id", in: "path" }, example: "wf_01JD8X3V6N2Q5R7T9W0Y1Z2A3B" }),
});

export const cancelResultSchema = z
  .object({
    execution_id: z.string(),
    state: z.enum(EXECUTION_STATES),
    cancel_requested: z.boolean(),
  })
  .openapi("CancelResult");

export const scheduleListSchema = z
  .object({ items: z.array(scheduleViewSchema), next_cursor: z.string().nullable() })
  .openapi("ScheduleList");

export const scheduleIdParamSchema = z.object({
  id: z
    .string()
    .openapi({ param: { name: "id", in: "path" }, example: "sch_01JD8X3V6N2Q5R7T9W0Y1Z2A3B" }),
});

export const listQuerySchema = z.object({
  limit: queryInteger(1, 100).optional(),
  cursor: z.string().max(200).optional(),
});

export const deployResultSchema = z
  .object({
    id: z.string().openapi({ example: "dep_01JD8X3V6N2Q5R7T9W0Y1Z2A3B" }),
    name: z.string(),
    version: z.number().int(),
    schedule: nullableRef(scheduleViewSchema),
    created_at: z.string(),
  })
  .openapi("DeployResult");

export const deploymentListSchema = z
  .object({
    items: z.array(
      z.object({
        name: z.string(),
        latest_version: z.number().int(),
        latest_id: z.string(),
        updated_at: z.string(),
      }),
    ),
    next_cursor: z.string().nullable(),
  })
  .openapi("DeploymentList");

export const deploymentVersionsSchema = z
  .object({
    name: z.string(),
    versions: z.array(
      z.object({
        id: z.string(),
        version: z.number().int(),
        created_at: z.string(),
        workflow: z.unknown(),
      }),
    ),
  })
  .openapi("DeploymentVersions");

export const deploymentNameParamSchema = z.object({
  name: z
    .string()
    .max(128)
    .openapi({ param: { name: "name", in: "path" }, example: "payroll" }),
});
