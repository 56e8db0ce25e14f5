import { ApiError, validationFailed, type ValidationIssue } from "../http/index.ts";
import {
  COMPLIANCE_SPECS_PATH,
  INVALID_COMPLIANCE_RULES,
  resolveCompliance,
} from "../compliance/index.ts";
import type { AssetCatalogue } from "./catalogue.ts";
import {
  DEFAULT_RISK_THRESHOLD,
  GAS_STRATEGIES,
  WORKFLOW_MODEL_VERSION,
  type GasStrategy,
  type Workflow,
  type WorkflowAction,
  type WorkflowSchedule,
} from "../model/index.ts";
import { parseCron, parseSchedulePhrase, ScheduleError } from "./schedule-phrase.ts";
import type { BodyFormat } from "./body.ts";
import { fromJson, fromYaml, parseNumber, type RawWorkflow } from "./forms.ts";
import { NO_OUTPUT, catalogueNames, normaliseAction, type ActionScope } from "./actions.ts";

/**
 * Both submission forms → the one model (relayer/model/workflow.ts). First the wire schema
 * (structure, forms.ts), then the checks that need the chains: each action's (actions.ts: known
 * chains and assets, amounts within the asset's decimals, exchanges and bridge protocols,
 * recipients, chaining), then the workflow's schedule, risk threshold, gas strategy and, last,
 * compliance. Every problem is collected with the path of the offending field in the submitted
 * document.
 */

/** The semantic pass shared by both forms. */
function buildWorkflow(raw: RawWorkflow, catalogue: AssetCatalogue): Workflow {
  const issues: ValidationIssue[] = [];
  const names = catalogueNames(catalogue, issues);
  const workflowFallbacks = names.chains(raw.fallbackChains, raw.paths.fallbackChains);
  const actions = workflowActions(raw, { catalogue, issues, names, workflowFallbacks });
  const schedule = workflowSchedule(raw, issues);
  const riskThreshold = workflowRiskThreshold(raw, issues);
  const gasStrategy = workflowGasStrategy(raw, issues);
  if (issues.length) throw validationFailed(issues);

  const workflow: Workflow = {
    modelVersion: WORKFLOW_MODEL_VERSION,
    name: raw.name.trim(),
    format: raw.format,
    actions,
    compliance: workflowCompliance(raw),
    fallbackChains: workflowFallbacks,
    riskThreshold,
    gasStrategy,
  };
  if (schedule) workflow.schedule = schedule;
  return workflow;
}

/** The actions in order, each handed what the previous one outputs. */
function workflowActions(raw: RawWorkflow, scope: ActionScope): WorkflowAction[] {
  const actions: WorkflowAction[] = [];
  let flow = NO_OUTPUT;
  raw.actions.forEach((a, index) => {
    const { action, next } = normaliseAction(scope, a, index, flow);
    if (action) actions.push(action);
    flow = next;
  });
  return actions;
}

function workflowSchedule(
  raw: RawWorkflow,
  issues: ValidationIssue[],
): WorkflowSchedule | undefined {
  if (!raw.schedule) return undefined;
  try {
    if (raw.schedule.phrase !== undefined) return parseSchedulePhrase(raw.schedule.phrase);
    if (raw.schedule.cron !== undefined)
      return parseCron(raw.schedule.cron, raw.schedule.timezone ?? "UTC");
    issues.push({ path: raw.schedule.path, message: "a time zone without a schedule" });
  } catch (err) {
    if (!(err instanceof ScheduleError)) throw err;
    issues.push({ path: raw.schedule.path, message: err.message });
  }
  return undefined;
}

function workflowRiskThreshold(raw: RawWorkflow, issues: ValidationIssue[]): number {
  if (raw.riskThreshold === undefined) return DEFAULT_RISK_THRESHOLD;
  const value = parseNumber(raw.riskThreshold);
  if (value > 0 && value <= 1) return value;
  issues.push({
    path: raw.paths.riskThreshold,
    message: "risk_threshold must be a number in (0, 1]",
  });
  return DEFAULT_RISK_THRESHOLD;
}

function workflowGasStrategy(raw: RawWorkflow, issues: ValidationIssue[]): GasStrategy {
  if (raw.gasStrategy === undefined) return "eco";
  if ((GAS_STRATEGIES as readonly string[]).includes(raw.gasStrategy))
    return raw.gasStrategy as GasStrategy;
  issues.push({
    path: raw.paths.gasStrategy,
    message: `unknown gas strategy "${raw.gasStrategy}"; one of ${GAS_STRATEGIES.join(", ")}`,
  });
  return "eco";
}

/**
 * The compliance rules, checked after every other field: a structurally valid workflow with
 * unsupported rules gets the error that points at the catalogue (spec: "400 invalid compliance
 * rules → consult /v1/compliance/specs").
 */
function workflowCompliance(raw: RawWorkflow): Workflow["compliance"] {
  const compliance = resolveCompliance(
    { jurisdictions: raw.jurisdictions, taxForms: raw.taxForms },
    { jurisdictions: raw.paths.jurisdictions, taxForms: raw.paths.taxForms },
  );
  if (compliance.issues.length) {
    throw new ApiError(
      400,
      INVALID_COMPLIANCE_RULES,
      `${compliance.issues.map((i) => `${i.path}: ${i.message}`).join("; ")}; the supported jurisdictions, sanctions lists and tax forms are listed at GET ${COMPLIANCE_SPECS_PATH}`,
      { specs: COMPLIANCE_SPECS_PATH, issues: compliance.issues },
    );
  }
  return compliance.value;
}

/** JSON "Workflow submission" → model; throws ApiError (VALIDATION_FAILED / INVALID_COMPLIANCE_RULES). */
export function normaliseJsonWorkflow(document: unknown, catalogue: AssetCatalogue): Workflow {
  return buildWorkflow(fromJson(document), catalogue);
}

/** YAML "Workflow definition" (already parsed, failsafe schema) → model. */
export function normaliseYamlWorkflow(document: unknown, catalogue: AssetCatalogue): Workflow {
  return buildWorkflow(fromYaml(document), catalogue);
}

export function normaliseWorkflow(
  format: BodyFormat,
  document: unknown,
  catalogue: AssetCatalogue,
): Workflow {
  return format === "json"
    ? normaliseJsonWorkflow(document, catalogue)
    : normaliseYamlWorkflow(document, catalogue);
}
