import { issuesFromZod, validationFailed, type ValidationIssue } from "../http/index.ts";
import {
  workflowSubmissionSchema,
  yamlWorkflowSchema,
  type RecipientsFromWire,
} from "./schemas.ts";
import type { BodyFormat } from "./body.ts";

/**
 * The two submission forms (JSON "Workflow submission", YAML "Workflow definition") adapted to one
 * form-independent view, each field with where it sits in the submitted document.
 */

/** The form-independent view of one action, with where each field sits in the submitted document. */
export interface RawAction {
  type: string;
  chain?: string;
  from?: string;
  to?: string;
  amount?: string;
  slippage?: number | string;
  priority?: string;
  dex?: string;
  destination?: string;
  protocol?: string;
  recipients?: { address: string; amount: string }[];
  recipientsFrom?: RecipientsFromWire;
  fallbackChains?: string[];
  path: (field: string) => string;
}

/** The model's name of a raw field → its name on the wire (both forms). */
const WIRE_FIELDS: Partial<Record<string, string>> = {
  fallbackChains: "fallback_chains",
  recipientsFrom: "recipients_from",
};

export interface RawWorkflow {
  format: BodyFormat;
  name: string;
  actions: RawAction[];
  schedule?: { cron?: string; timezone?: string; phrase?: string; path: string };
  jurisdictions?: string[];
  taxForms?: string[];
  fallbackChains?: string[];
  riskThreshold?: number | string;
  gasStrategy?: string;
  paths: Record<
    "jurisdictions" | "taxForms" | "fallbackChains" | "riskThreshold" | "gasStrategy",
    string
  >;
}

export function fromJson(document: unknown): RawWorkflow {
  const parsed = workflowSubmissionSchema.safeParse(document);
  if (!parsed.success) throw validationFailed(issuesFromZod(parsed.error));
  const body = parsed.data;
  return {
    format: "json",
    name: body.name,
    actions: body.actions.map((a, i) => ({
      type: a.type,
      chain: a.chain,
      from: a.from,
      to: a.to,
      amount: a.amount,
      slippage: a.slippage,
      priority: a.route_optimizer?.priority,
      dex: a.dex,
      destination: a.destination,
      protocol: a.protocol,
      recipients: a.recipients,
      recipientsFrom: a.recipients_from,
      fallbackChains: a.fallback_chains,
      path: (field) =>
        `actions.${i}` +
        (field === "priority" ? ".route_optimizer.priority" : `.${WIRE_FIELDS[field] ?? field}`),
    })),
    schedule:
      body.schedule !== undefined
        ? { cron: body.schedule, timezone: body.timezone, path: "schedule" }
        : body.timezone !== undefined
          ? { timezone: body.timezone, path: "timezone" }
          : undefined,
    ...workflowLevelFields(body),
  };
}

export function fromYaml(document: unknown): RawWorkflow {
  const parsed = yamlWorkflowSchema.safeParse(document);
  if (!parsed.success) throw validationFailed(issuesFromZod(parsed.error));
  const body = parsed.data;
  const issues: ValidationIssue[] = [];
  const actions = body.actions.map((item, i): RawAction => {
    const p = item.params ?? {};
    const base = `actions.${i}.params`;
    const recipients = p.recipients?.map((entry, j) => {
      const keys = Object.keys(entry);
      // Either `- 0xAddress: 100` or the explicit `- {address: 0x…, amount: 100}`.
      if (keys.length === 2 && "address" in entry && "amount" in entry) {
        return { address: entry["address"]!, amount: entry["amount"]! };
      }
      if (keys.length !== 1) {
        issues.push({
          path: `${base}.recipients.${j}`,
          message: "each recipient maps one address to its amount (e.g. `- 0xAbC…: 100`)",
        });
      }
      return { address: keys[0] ?? "", amount: entry[keys[0] ?? ""] ?? "" };
    });
    return {
      type: item.action,
      chain: p.chain,
      from: p.from,
      to: p.to,
      amount: p.amount,
      slippage: p.slippage,
      priority: p.priority,
      dex: p.dex,
      destination: p.destination,
      protocol: p.protocol,
      recipients,
      recipientsFrom: p.recipients_from,
      fallbackChains: p.fallback_chains,
      path: (field) =>
        field === "type" ? `actions.${i}.action` : `${base}.${WIRE_FIELDS[field] ?? field}`,
    };
  });
  if (issues.length) throw validationFailed(issues);
  const trigger = body.trigger;
  let schedule: RawWorkflow["schedule"];
  if (trigger?.frequency !== undefined && trigger.cron !== undefined) {
    throw validationFailed([
      { path: "trigger", message: "give either trigger.frequency or trigger.cron, not both" },
    ]);
  } else if (trigger?.frequency !== undefined) {
    schedule = { phrase: trigger.frequency, path: "trigger.frequency" };
    if (trigger.timezone !== undefined) {
      throw validationFailed([
        {
          path: "trigger.timezone",
          message: "the time zone of trigger.frequency is part of the phrase",
        },
      ]);
    }
  } else if (trigger?.cron !== undefined) {
    schedule = { cron: trigger.cron, timezone: trigger.timezone, path: "trigger.cron" };
  } else if (trigger?.timezone !== undefined) {
    schedule = { timezone: trigger.timezone, path: "trigger.timezone" };
  }
  return {
    format: "yaml",
    name: body.name,
    actions,
    schedule,
    ...workflowLevelFields(body),
  };
}

/** The workflow-level fields both forms share, with their wire paths for validation issues. */
function workflowLevelFields(body: {
  compliance?: { jurisdictions?: string[]; tax_forms?: string[] };
  fallback_chains?: string[];
  risk_threshold?: number | string;
  gas_strategy?: string;
}) {
  return {
    jurisdictions: body.compliance?.jurisdictions,
    taxForms: body.compliance?.tax_forms,
    fallbackChains: body.fallback_chains,
    riskThreshold: body.risk_threshold,
    gasStrategy: body.gas_strategy,
    paths: {
      jurisdictions: "compliance.jurisdictions",
      taxForms: "compliance.tax_forms",
      fallbackChains: "fallback_chains",
      riskThreshold: "risk_threshold",
      gasStrategy: "gas_strategy",
    },
  };
}

/** A number as written: YAML scalars arrive as text (failsafe schema). */
export function parseNumber(value: number | string): number {
  if (typeof value === "number") return value;
  return /^-?\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : Number.NaN;
}
