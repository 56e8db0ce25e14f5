import { ApiError, validationFailed, type ValidationIssue } from "../http/index.ts";
import {
  COMPLIANCE_SPECS_PATH,
  INVALID_COMPLIANCE_RULES,
  resolveCompliance,
} from "../compliance/index.ts";
import { checkAmount, slippageToBps } from "./amounts.ts";
import {
  allBridgeProtocols,
  allExchanges,
  assetDecimals,
  canonicalAsset,
  chainsWithAsset,
  type AssetCatalogue,
} from "./catalogue.ts";
import {
  ACTION_TYPES,
  DEFAULT_RISK_THRESHOLD,
  DEFAULT_SLIPPAGE_BPS,
  GAS_STRATEGIES,
  ROUTE_PRIORITIES,
  WORKFLOW_MODEL_VERSION,
  type ActionType,
  type GasStrategy,
  type RoutePriority,
  type Workflow,
  type WorkflowAction,
  type WorkflowSchedule,
} from "../model/index.ts";
import { parseCron, parseSchedulePhrase, ScheduleError } from "./schedule-phrase.ts";
import type { BodyFormat } from "./body.ts";
import { fromJson, fromYaml, parseNumber, type RawAction, type RawWorkflow } from "./forms.ts";
import { buildRecipients, buildRecipientsFrom } from "./recipients.ts";

/**
 * Both submission forms → the one model (relayer/model/workflow.ts). First the wire schema
 * (structure, forms.ts), then the checks that need the chains: known chains and assets, amounts
 * within the asset's decimals, exchanges and bridge protocols, recipients (recipients.ts),
 * chaining, schedule and compliance. Every problem is collected with the path of the offending
 * field in the submitted document.
 */

/** Fields each action type accepts besides `type`, `chain`, `from`, `amount`, `fallbackChains`. */
const TYPE_FIELDS: Record<ActionType, ReadonlyArray<keyof RawAction>> = {
  swap: ["to", "slippage", "priority", "dex"],
  convert: ["to", "slippage", "priority", "dex"],
  bridge: ["destination", "protocol"],
  multisend: ["recipients", "recipientsFrom"],
};
const TYPE_SPECIFIC: ReadonlyArray<keyof RawAction> = [
  "to",
  "slippage",
  "priority",
  "dex",
  "destination",
  "protocol",
  "recipients",
  "recipientsFrom",
];

/** The semantic pass shared by both forms. */
function buildWorkflow(raw: RawWorkflow, catalogue: AssetCatalogue): Workflow {
  const issues: ValidationIssue[] = [];
  const knownChains = [...catalogue.chains.keys()];

  const chainName = (value: string, path: string): string | undefined => {
    const name = value.trim().toLowerCase();
    if (catalogue.chains.has(name)) return name;
    issues.push({
      path,
      message: `unknown chain "${value}"; known chains: ${knownChains.join(", ")}`,
    });
    return undefined;
  };
  const assetName = (value: string, path: string): string | undefined => {
    const symbol = canonicalAsset(catalogue, value.trim());
    if (symbol) return symbol;
    issues.push({ path, message: `unknown asset "${value}" on every chain` });
    return undefined;
  };
  const chainList = (values: string[] | undefined, path: string): string[] => {
    const out: string[] = [];
    (values ?? []).forEach((v, i) => {
      const name = chainName(v, `${path}.${i}`);
      if (name && !out.includes(name)) out.push(name);
    });
    return out;
  };

  const workflowFallbacks = chainList(raw.fallbackChains, raw.paths.fallbackChains);
  const exchanges = allExchanges(catalogue);
  const protocols = allBridgeProtocols(catalogue);

  // What the previous action hands to the next (see the chaining rule in relayer/model/workflow.ts).
  let flow: { asset?: string; hasOutput: boolean } = { hasOutput: false };
  const actions: WorkflowAction[] = [];

  raw.actions.forEach((a, index) => {
    if (!(ACTION_TYPES as readonly string[]).includes(a.type)) {
      issues.push({
        path: a.path("type"),
        message: `unknown action type "${a.type}"; one of ${ACTION_TYPES.join(", ")}`,
      });
      flow = { hasOutput: false };
      return;
    }
    const type = a.type as ActionType;
    for (const field of TYPE_SPECIFIC) {
      if (a[field] !== undefined && !TYPE_FIELDS[type].includes(field)) {
        issues.push({
          path: a.path(field),
          message: `${field} does not apply to a ${type} action`,
        });
      }
    }

    const chain = a.chain !== undefined ? chainName(a.chain, a.path("chain")) : undefined;
    let from: string | undefined;
    if (a.from !== undefined) {
      from = assetName(a.from, a.path("from"));
    } else if (flow.hasOutput) {
      from = flow.asset;
    } else {
      issues.push({
        path: a.path("from"),
        message:
          index === 0
            ? "required on the first action"
            : "required: the previous action has no output to take it from",
      });
    }
    // A chained amount is the previous action's output, so its asset is that output's asset.
    if (
      a.amount === undefined &&
      a.from !== undefined &&
      from &&
      flow.asset &&
      from !== flow.asset
    ) {
      issues.push({
        path: a.path("from"),
        message: `without an amount this action takes the previous output (${flow.asset}); give an amount to use ${from}`,
      });
    }
    if (from && chain && !catalogue.chains.get(chain)!.assets.has(from.toUpperCase())) {
      issues.push({
        path: a.path(a.from !== undefined ? "from" : "chain"),
        message: `${from} does not exist on ${chain}`,
      });
    }

    const action: WorkflowAction = {
      index,
      type,
      from: from ?? "",
      input: a.amount !== undefined ? "explicit" : "chained",
      fallbackChains: [],
    };
    if (chain) action.chain = chain;

    // Amount: within the asset's decimals, or chained from the previous action's output.
    if (a.amount !== undefined) {
      const decimals = from ? assetDecimals(catalogue, from, chain) : undefined;
      if (decimals !== undefined) {
        const checked = checkAmount(a.amount, decimals, from!);
        if (checked.ok) action.amount = checked.canonical;
        else issues.push({ path: a.path("amount"), message: checked.message });
      }
    } else if (!flow.hasOutput && type !== "multisend") {
      issues.push({
        path: a.path("amount"),
        message:
          index === 0
            ? "required on the first action"
            : "required: the previous action has no output to take it from",
      });
    }

    if (type === "swap" || type === "convert") {
      if (a.to === undefined) {
        issues.push({ path: a.path("to"), message: `required for a ${type} action` });
      } else {
        const to = assetName(a.to, a.path("to"));
        if (to) {
          action.to = to;
          if (from && to === from)
            issues.push({ path: a.path("to"), message: `${type} from ${from} to itself` });
          if (chain && !catalogue.chains.get(chain)!.assets.has(to.toUpperCase())) {
            issues.push({ path: a.path("to"), message: `${to} does not exist on ${chain}` });
          } else if (!chain && from && to !== from) {
            const both = chainsWithAsset(catalogue, from).filter((c) =>
              c.assets.has(to.toUpperCase()),
            );
            if (both.length === 0) {
              issues.push({ path: a.path("to"), message: `no chain has both ${from} and ${to}` });
            }
          }
        }
      }
      if (a.slippage !== undefined) {
        const bps = slippageToBps(parseNumber(a.slippage));
        if (bps.ok) action.slippageBps = bps.bps;
        else issues.push({ path: a.path("slippage"), message: bps.message });
      } else {
        action.slippageBps = DEFAULT_SLIPPAGE_BPS;
      }
      const priority = (a.priority ?? "cost").toLowerCase();
      if ((ROUTE_PRIORITIES as readonly string[]).includes(priority))
        action.priority = priority as RoutePriority;
      else
        issues.push({
          path: a.path("priority"),
          message: `unknown route priority "${a.priority}"; one of ${ROUTE_PRIORITIES.join(", ")}`,
        });
      if (a.dex !== undefined) {
        const dex = a.dex.trim().toLowerCase();
        const onChain = chain ? catalogue.chains.get(chain)!.exchanges : exchanges;
        if (onChain.has(dex)) action.dex = dex;
        else
          issues.push({
            path: a.path("dex"),
            message: `unknown exchange "${a.dex}"${chain ? ` on ${chain}` : ""}; known: ${[...onChain].join(", ")}`,
          });
      }
      flow = { asset: action.to, hasOutput: true };
    } else if (type === "bridge") {
      if (a.destination === undefined) {
        issues.push({ path: a.path("destination"), message: "required for a bridge action" });
      } else {
        const destination = chainName(a.destination, a.path("destination"));
        if (destination) {
          action.destination = destination;
          if (chain && destination === chain) {
            issues.push({
              path: a.path("destination"),
              message: "destination is the source chain",
            });
          }
          if (from && !catalogue.chains.get(destination)!.assets.has(from.toUpperCase())) {
            issues.push({
              path: a.path("destination"),
              message: `${from} does not exist on ${destination}`,
            });
          }
        }
      }
      if (a.protocol !== undefined) {
        const protocol = a.protocol.trim().toLowerCase();
        if (protocols.has(protocol)) action.protocol = protocol;
        else
          issues.push({
            path: a.path("protocol"),
            message: `unknown bridge protocol "${a.protocol}"; known: ${[...protocols].join(", ") || "none"}`,
          });
      }
      flow = { asset: from, hasOutput: true };
    } else if (a.recipientsFrom !== undefined) {
      if (a.recipients !== undefined) {
        issues.push({
          path: a.path("recipientsFrom"),
          message: "give either recipients or recipients_from, not both",
        });
      }
      const source = buildRecipientsFrom(a, catalogue, issues);
      if (source) action.recipientsFrom = source;
      if (a.amount === undefined && !flow.hasOutput) {
        issues.push({
          path: a.path("amount"),
          message:
            "required: the most the payout of the fetched orders may send (or chain it from a previous action)",
        });
      }
      flow = { hasOutput: false };
    } else {
      action.recipients = buildRecipients(
        a,
        action,
        from,
        chain,
        catalogue,
        issues,
        flow.hasOutput,
      );
      flow = { hasOutput: false };
    }

    const own = chainList(a.fallbackChains, a.path("fallbackChains"));
    action.fallbackChains = (a.fallbackChains !== undefined ? own : workflowFallbacks).filter(
      (c) => c !== chain,
    );
    actions.push(action);
  });

  let schedule: WorkflowSchedule | undefined;
  if (raw.schedule) {
    try {
      if (raw.schedule.phrase !== undefined) schedule = parseSchedulePhrase(raw.schedule.phrase);
      else if (raw.schedule.cron !== undefined)
        schedule = parseCron(raw.schedule.cron, raw.schedule.timezone ?? "UTC");
      else issues.push({ path: raw.schedule.path, message: "a time zone without a schedule" });
    } catch (err) {
      if (!(err instanceof ScheduleError)) throw err;
      issues.push({ path: raw.schedule.path, message: err.message });
    }
  }

  let riskThreshold = DEFAULT_RISK_THRESHOLD;
  if (raw.riskThreshold !== undefined) {
    const value = parseNumber(raw.riskThreshold);
    if (value > 0 && value <= 1) riskThreshold = value;
    else
      issues.push({
        path: raw.paths.riskThreshold,
        message: "risk_threshold must be a number in (0, 1]",
      });
  }
  let gasStrategy: GasStrategy = "eco";
  if (raw.gasStrategy !== undefined) {
    if ((GAS_STRATEGIES as readonly string[]).includes(raw.gasStrategy))
      gasStrategy = raw.gasStrategy as GasStrategy;
    else
      issues.push({
        path: raw.paths.gasStrategy,
        message: `unknown gas strategy "${raw.gasStrategy}"; one of ${GAS_STRATEGIES.join(", ")}`,
      });
  }

  if (issues.length) throw validationFailed(issues);

  // Compliance last: a structurally valid workflow with unsupported rules gets the error that
  // points at the catalogue (spec: "400 invalid compliance rules → consult /v1/compliance/specs").
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

  const workflow: Workflow = {
    modelVersion: WORKFLOW_MODEL_VERSION,
    name: raw.name.trim(),
    format: raw.format,
    actions,
    compliance: compliance.value,
    fallbackChains: workflowFallbacks,
    riskThreshold,
    gasStrategy,
  };
  if (schedule) workflow.schedule = schedule;
  return workflow;
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
