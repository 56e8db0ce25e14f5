import { getAddress, ZeroAddress } from "ethers";
import YAML from "yaml";
import {
  ApiError,
  documentHazard,
  issuesFromZod,
  validationFailed,
  type ValidationIssue,
} from "../http/index.ts";
import {
  COMPLIANCE_SPECS_PATH,
  INVALID_COMPLIANCE_RULES,
  resolveCompliance,
} from "../compliance/index.ts";
import { checkAmount, checkPercent, isPercent, slippageToBps, toBaseUnits } from "./amounts.ts";
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
  DEFAULT_MAX_ORDERS,
  DEFAULT_RISK_THRESHOLD,
  DEFAULT_SLIPPAGE_BPS,
  GAS_STRATEGIES,
  MAX_ORDERS_LIMIT,
  ROUTE_PRIORITIES,
  WORKFLOW_MODEL_VERSION,
  type ActionType,
  type GasStrategy,
  type Recipient,
  type RecipientsFrom,
  type RoutePriority,
  type Workflow,
  type WorkflowAction,
  type WorkflowSchedule,
} from "../model/index.ts";
import { parseCron, parseSchedulePhrase, ScheduleError } from "./schedule-phrase.ts";
import {
  workflowSubmissionSchema,
  yamlWorkflowSchema,
  type RecipientsFromWire,
} from "./schemas.ts";

/**
 * Both submission forms → the one model (relayer/model/workflow.ts). First the wire schema (structure), then the
 * checks that need the chains: known chains and assets, amounts within the asset's decimals,
 * exchanges and bridge protocols, recipients, chaining, schedule and compliance. Every problem is
 * collected with the path of the offending field in the submitted document.
 */

export type BodyFormat = "json" | "yaml";

/** The body format of a Content-Type, or undefined when it is neither JSON nor YAML. */
export function bodyFormat(contentType: string | undefined): BodyFormat | undefined {
  const mediaType = (contentType ?? "").split(";")[0]!.trim().toLowerCase();
  if (mediaType === "application/json" || mediaType.endsWith("+json")) return "json";
  if (["application/yaml", "application/x-yaml", "text/yaml", "text/x-yaml"].includes(mediaType)) {
    return "yaml";
  }
  return undefined;
}

/** Parses the raw body text; syntax errors are validation failures with a position. */
export function parseBody(format: BodyFormat, text: string): unknown {
  if (format === "json") {
    try {
      return JSON.parse(text);
    } catch (err) {
      throw validationFailed([
        { path: "", message: `body is not valid JSON: ${(err as Error).message}` },
      ]);
    }
  }
  const document = YAML.parseDocument(text, { schema: "failsafe", uniqueKeys: true });
  if (document.errors.length > 0) {
    throw validationFailed(
      document.errors.map((e) => ({
        path: "",
        message: `body is not valid YAML: ${e.message.split("\n")[0]}`,
      })),
    );
  }
  let value: unknown;
  try {
    // maxAliasCount bounds alias expansion (a "billion laughs" bomb stops here).
    value = document.toJS({ maxAliasCount: 100 });
  } catch (err) {
    throw validationFailed([
      { path: "", message: `body is not usable YAML: ${(err as Error).message.split("\n")[0]}` },
    ]);
  }
  const hazard = documentHazard(value);
  if (hazard) throw validationFailed([{ path: "", message: `the body contains ${hazard}` }]);
  return value;
}

/** The form-independent view of one action, with where each field sits in the submitted document. */
interface RawAction {
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

interface RawWorkflow {
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

function fromJson(document: unknown): RawWorkflow {
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

function fromYaml(document: unknown): RawWorkflow {
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

/**
 * EIP-55 checksums (keccak-256 per address) by the address as written: clients pay the same
 * recipients again and again. Bounded: started over beyond 10,000 addresses.
 */
const checksums = new Map<string, string | null>();
function checksummed(value: string): string | null {
  let address = checksums.get(value);
  if (address === undefined) {
    try {
      address = getAddress(value);
    } catch {
      address = null;
    }
    if (checksums.size >= 10_000) checksums.clear();
    checksums.set(value, address);
  }
  return address;
}

function checkAddress(
  value: string,
): { ok: true; address: string } | { ok: false; message: string } {
  if (!/^0x[0-9a-fA-F]{40}$/.test(value)) {
    return { ok: false, message: `"${value}" is not an EVM address (0x and 40 hex digits)` };
  }
  const address = checksummed(value);
  if (address === null) {
    return {
      ok: false,
      message: `"${value}" fails its EIP-55 checksum (mixed-case address with a typo?)`,
    };
  }
  if (address === ZeroAddress)
    return { ok: false, message: "the zero address cannot receive funds" };
  return { ok: true, address };
}

function parseNumber(value: number | string): number {
  if (typeof value === "number") return value;
  return /^-?\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : Number.NaN;
}

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

/**
 * `recipients_from`: the integration must be one the relayer has configured to list orders; the
 * field names were checked by the wire schema.
 */
function buildRecipientsFrom(
  a: RawAction,
  catalogue: AssetCatalogue,
  issues: ValidationIssue[],
): RecipientsFrom | undefined {
  const wire = a.recipientsFrom!;
  const path = a.path("recipientsFrom");
  const sources = [...(catalogue.recipientSources ?? [])].sort();
  let ok = true;
  if (!sources.includes(wire.integration)) {
    ok = false;
    issues.push({
      path: `${path}.integration`,
      message: sources.length
        ? `unknown integration "${wire.integration}"; integrations that list orders: ${sources.join(", ")}`
        : `unknown integration "${wire.integration}"; this relayer has no integration that lists orders`,
    });
  }
  let maxOrders = DEFAULT_MAX_ORDERS;
  if (wire.max_orders !== undefined) {
    const value = parseNumber(wire.max_orders);
    if (Number.isInteger(value) && value >= 1 && value <= MAX_ORDERS_LIMIT) maxOrders = value;
    else {
      ok = false;
      issues.push({
        path: `${path}.max_orders`,
        message: `must be a whole number from 1 to ${MAX_ORDERS_LIMIT}`,
      });
    }
  }
  const fields = [wire.id ?? "id", wire.address, wire.amount, ...(wire.asset ? [wire.asset] : [])];
  if (new Set(fields).size !== fields.length) {
    ok = false;
    issues.push({ path, message: "id, address, amount and asset must name different fields" });
  }
  if (!ok) return undefined;
  return {
    integration: wire.integration,
    path: wire.path,
    query: wire.query ?? {},
    id: wire.id ?? "id",
    address: wire.address,
    amount: wire.amount,
    ...(wire.asset ? { asset: wire.asset } : {}),
    maxOrders,
  };
}

function buildRecipients(
  a: RawAction,
  action: WorkflowAction,
  asset: string | undefined,
  chain: string | undefined,
  catalogue: AssetCatalogue,
  issues: ValidationIssue[],
  hasInput: boolean,
): Recipient[] {
  if (!a.recipients || a.recipients.length === 0) {
    issues.push({
      path: a.path("recipients"),
      message: "required for a multisend action (at least one)",
    });
    return [];
  }
  const decimals = asset ? assetDecimals(catalogue, asset, chain) : undefined;
  const recipients: Recipient[] = [];
  const seen = new Set<string>();
  let percentBps = 0;
  let absoluteTotal = 0n;
  a.recipients.forEach((r, j) => {
    const path = `${a.path("recipients")}.${j}`;
    const address = checkAddress(r.address.trim());
    if (!address.ok) {
      issues.push({ path: `${path}.address`, message: address.message });
    } else if (seen.has(address.address)) {
      issues.push({
        path: `${path}.address`,
        message: `${address.address} appears twice; give it one amount`,
      });
    } else {
      seen.add(address.address);
    }
    if (isPercent(r.amount)) {
      const pct = checkPercent(r.amount);
      if (!pct.ok) issues.push({ path: `${path}.amount`, message: pct.message });
      else {
        percentBps += pct.bps;
        if (address.ok)
          recipients.push({ address: address.address, amount: { kind: "percent", bps: pct.bps } });
      }
    } else if (decimals !== undefined) {
      const amount = checkAmount(r.amount, decimals, asset!);
      if (!amount.ok) issues.push({ path: `${path}.amount`, message: amount.message });
      else {
        absoluteTotal += toBaseUnits(amount.canonical, decimals);
        if (address.ok)
          recipients.push({
            address: address.address,
            amount: { kind: "absolute", amount: amount.canonical },
          });
      }
    }
  });
  if (percentBps > 10_000) {
    issues.push({
      path: a.path("recipients"),
      message: `percentages sum to ${percentBps / 100}%, more than 100%`,
    });
  }
  if (percentBps > 0 && action.amount === undefined && !hasInput) {
    issues.push({
      path: a.path("amount"),
      message:
        "percentage recipients need an amount to share: give amount or chain from a previous action",
    });
  }
  if (decimals !== undefined && action.amount !== undefined) {
    // Absolute amounts come off the top; percentages share the rest of the input.
    const input = toBaseUnits(action.amount, decimals);
    if (absoluteTotal * 10_000n > input * BigInt(10_000 - Math.min(percentBps, 10_000))) {
      issues.push({
        path: a.path("recipients"),
        message: `recipients receive more than the multisend's amount ${action.amount} ${asset}`,
      });
    }
  } else if (
    decimals !== undefined &&
    action.amount === undefined &&
    !hasInput &&
    percentBps === 0
  ) {
    // A first-action multisend of absolute amounts sends exactly their total.
    const total = absoluteTotal.toString().padStart(decimals + 1, "0");
    const whole = total.slice(0, total.length - decimals);
    const fraction = total.slice(total.length - decimals).replace(/0+$/, "");
    if (absoluteTotal > 0n) {
      action.amount = fraction ? `${whole}.${fraction}` : whole;
      action.input = "explicit";
    }
  }
  return recipients;
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
