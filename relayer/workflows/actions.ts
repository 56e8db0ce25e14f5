import type { ValidationIssue } from "../http/index.ts";
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
  DEFAULT_SLIPPAGE_BPS,
  ROUTE_PRIORITIES,
  type ActionType,
  type RoutePriority,
  type WorkflowAction,
} from "../model/index.ts";
import { parseNumber, type RawAction } from "./forms.ts";
import { buildRecipients, buildRecipientsFrom } from "./recipients.ts";

/**
 * One submitted action → the model's action (relayer/model/workflow.ts), checked against the
 * catalogue: the fields every type shares (type, chain, source asset, amount, fallback chains),
 * then the fields of its type (exchange, bridge, multisend). Problems are appended to the
 * scope's issues with the path of the offending field, in the order the fields are read.
 */

/** What the previous action hands to the next (the chaining rule in relayer/model/workflow.ts). */
export type Flow = { readonly asset?: string | undefined; readonly hasOutput: boolean };

export const NO_OUTPUT: Flow = Object.freeze({ hasOutput: false });

/** The catalogue's names, each unknown one recorded as an issue at its path. */
export interface Names {
  chain(value: string, path: string): string | undefined;
  asset(value: string, path: string): string | undefined;
  /** Known chains of a list, each once, in the order given. */
  chains(values: string[] | undefined, path: string): string[];
}

/** What every action of one workflow is checked against, and where its problems go. */
export interface ActionScope {
  catalogue: AssetCatalogue;
  issues: ValidationIssue[];
  names: Names;
  /** The workflow's own fallback chains: an action's when it gives none. */
  workflowFallbacks: string[];
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

/** The action's fields resolved before its type's own: what the type's builder reads. */
type Resolved = {
  a: RawAction;
  action: WorkflowAction;
  /** The source asset, when known (given, or chained from the previous output). */
  from: string | undefined;
  chain: string | undefined;
  /** What the previous action hands to this one. */
  flow: Flow;
};

export function catalogueNames(catalogue: AssetCatalogue, issues: ValidationIssue[]): Names {
  const knownChains = [...catalogue.chains.keys()];
  const names: Names = {
    chain(value, path) {
      const name = value.trim().toLowerCase();
      if (catalogue.chains.has(name)) return name;
      issues.push({
        path,
        message: `unknown chain "${value}"; known chains: ${knownChains.join(", ")}`,
      });
      return undefined;
    },
    asset(value, path) {
      const symbol = canonicalAsset(catalogue, value.trim());
      if (symbol) return symbol;
      issues.push({ path, message: `unknown asset "${value}" on every chain` });
      return undefined;
    },
    chains(values, path) {
      const out: string[] = [];
      (values ?? []).forEach((v, i) => {
        const name = names.chain(v, `${path}.${i}`);
        if (name && !out.includes(name)) out.push(name);
      });
      return out;
    },
  };
  return names;
}

/**
 * The model's action at `index` and what it hands to the next one; no action when its type is
 * unknown (then it hands nothing on).
 */
export function normaliseAction(
  scope: ActionScope,
  a: RawAction,
  index: number,
  flow: Flow,
): { action?: WorkflowAction; next: Flow } {
  const type = actionType(scope, a);
  if (!type) return { next: NO_OUTPUT };
  checkTypeFields(scope, a, type);
  const chain = a.chain !== undefined ? scope.names.chain(a.chain, a.path("chain")) : undefined;
  const from = sourceAsset(scope, a, index, flow, chain);
  const action: WorkflowAction = {
    index,
    type,
    from: from ?? "",
    input: a.amount !== undefined ? "explicit" : "chained",
    fallbackChains: [],
  };
  if (chain) action.chain = chain;
  const resolved: Resolved = { a, action, from, chain, flow };
  actionAmount(scope, resolved, index);
  const next =
    type === "swap" || type === "convert"
      ? exchangeFields(scope, resolved)
      : type === "bridge"
        ? bridgeFields(scope, resolved)
        : multisendFields(scope, resolved);
  action.fallbackChains = fallbackChains(scope, a, chain);
  return { action, next };
}

function actionType(scope: ActionScope, a: RawAction): ActionType | undefined {
  if ((ACTION_TYPES as readonly string[]).includes(a.type)) return a.type as ActionType;
  scope.issues.push({
    path: a.path("type"),
    message: `unknown action type "${a.type}"; one of ${ACTION_TYPES.join(", ")}`,
  });
  return undefined;
}

/** Every type-specific field given must belong to the action's type. */
function checkTypeFields(scope: ActionScope, a: RawAction, type: ActionType): void {
  for (const field of TYPE_SPECIFIC) {
    if (a[field] !== undefined && !TYPE_FIELDS[type].includes(field)) {
      scope.issues.push({
        path: a.path(field),
        message: `${field} does not apply to a ${type} action`,
      });
    }
  }
}

function missingInput(index: number): string {
  return index === 0
    ? "required on the first action"
    : "required: the previous action has no output to take it from";
}

/** The asset the action spends: given, or the previous action's output; present on its chain. */
function sourceAsset(
  scope: ActionScope,
  a: RawAction,
  index: number,
  flow: Flow,
  chain: string | undefined,
): string | undefined {
  let from: string | undefined;
  if (a.from !== undefined) {
    from = scope.names.asset(a.from, a.path("from"));
  } else if (flow.hasOutput) {
    from = flow.asset;
  } else {
    scope.issues.push({ path: a.path("from"), message: missingInput(index) });
  }
  // A chained amount is the previous action's output, so its asset is that output's asset.
  if (a.amount === undefined && a.from !== undefined && from && flow.asset && from !== flow.asset) {
    scope.issues.push({
      path: a.path("from"),
      message: `without an amount this action takes the previous output (${flow.asset}); give an amount to use ${from}`,
    });
  }
  if (from && chain && !scope.catalogue.chains.get(chain)!.assets.has(from.toUpperCase())) {
    scope.issues.push({
      path: a.path(a.from !== undefined ? "from" : "chain"),
      message: `${from} does not exist on ${chain}`,
    });
  }
  return from;
}

/** The amount: within the asset's decimals, or chained from the previous action's output. */
function actionAmount(scope: ActionScope, r: Resolved, index: number): void {
  const { a, action, from, chain } = r;
  if (a.amount !== undefined) {
    const decimals = from ? assetDecimals(scope.catalogue, from, chain) : undefined;
    if (decimals !== undefined) {
      const checked = checkAmount(a.amount, decimals, from!);
      if (checked.ok) action.amount = checked.canonical;
      else scope.issues.push({ path: a.path("amount"), message: checked.message });
    }
  } else if (!r.flow.hasOutput && action.type !== "multisend") {
    scope.issues.push({ path: a.path("amount"), message: missingInput(index) });
  }
}

/** A swap's or convert's target asset, slippage, route priority and exchange. */
function exchangeFields(scope: ActionScope, r: Resolved): Flow {
  const { a, action } = r;
  const to = targetAsset(scope, r);
  if (to) action.to = to;
  if (a.slippage !== undefined) {
    const bps = slippageToBps(parseNumber(a.slippage));
    if (bps.ok) action.slippageBps = bps.bps;
    else scope.issues.push({ path: a.path("slippage"), message: bps.message });
  } else {
    action.slippageBps = DEFAULT_SLIPPAGE_BPS;
  }
  const priority = (a.priority ?? "cost").toLowerCase();
  if ((ROUTE_PRIORITIES as readonly string[]).includes(priority))
    action.priority = priority as RoutePriority;
  else
    scope.issues.push({
      path: a.path("priority"),
      message: `unknown route priority "${a.priority}"; one of ${ROUTE_PRIORITIES.join(", ")}`,
    });
  if (a.dex !== undefined) {
    const dex = a.dex.trim().toLowerCase();
    const onChain = r.chain
      ? scope.catalogue.chains.get(r.chain)!.exchanges
      : allExchanges(scope.catalogue);
    if (onChain.has(dex)) action.dex = dex;
    else
      scope.issues.push({
        path: a.path("dex"),
        message: `unknown exchange "${a.dex}"${r.chain ? ` on ${r.chain}` : ""}; known: ${[...onChain].join(", ")}`,
      });
  }
  return { asset: action.to, hasOutput: true };
}

/** The asset a swap or convert buys: known, not its source, and on a chain with its source. */
function targetAsset(scope: ActionScope, { a, action, from, chain }: Resolved): string | undefined {
  if (a.to === undefined) {
    scope.issues.push({ path: a.path("to"), message: `required for a ${action.type} action` });
    return undefined;
  }
  const to = scope.names.asset(a.to, a.path("to"));
  if (!to) return undefined;
  if (from && to === from)
    scope.issues.push({ path: a.path("to"), message: `${action.type} from ${from} to itself` });
  if (chain && !scope.catalogue.chains.get(chain)!.assets.has(to.toUpperCase())) {
    scope.issues.push({ path: a.path("to"), message: `${to} does not exist on ${chain}` });
  } else if (!chain && from && to !== from) {
    const both = chainsWithAsset(scope.catalogue, from).filter((c) =>
      c.assets.has(to.toUpperCase()),
    );
    if (both.length === 0) {
      scope.issues.push({ path: a.path("to"), message: `no chain has both ${from} and ${to}` });
    }
  }
  return to;
}

/** A bridge's destination chain (not its source, holding its asset) and protocol. */
function bridgeFields(scope: ActionScope, { a, action, from, chain }: Resolved): Flow {
  if (a.destination === undefined) {
    scope.issues.push({ path: a.path("destination"), message: "required for a bridge action" });
  } else {
    const destination = scope.names.chain(a.destination, a.path("destination"));
    if (destination) {
      action.destination = destination;
      if (chain && destination === chain) {
        scope.issues.push({
          path: a.path("destination"),
          message: "destination is the source chain",
        });
      }
      if (from && !scope.catalogue.chains.get(destination)!.assets.has(from.toUpperCase())) {
        scope.issues.push({
          path: a.path("destination"),
          message: `${from} does not exist on ${destination}`,
        });
      }
    }
  }
  if (a.protocol !== undefined) {
    const protocol = a.protocol.trim().toLowerCase();
    const protocols = allBridgeProtocols(scope.catalogue);
    if (protocols.has(protocol)) action.protocol = protocol;
    else
      scope.issues.push({
        path: a.path("protocol"),
        message: `unknown bridge protocol "${a.protocol}"; known: ${[...protocols].join(", ") || "none"}`,
      });
  }
  return { asset: from, hasOutput: true };
}

/** A multisend's recipients: listed (recipients.ts), or fetched from an integration at run time. */
function multisendFields(scope: ActionScope, { a, action, from, chain, flow }: Resolved): Flow {
  if (a.recipientsFrom === undefined) {
    action.recipients = buildRecipients(
      a,
      action,
      from,
      chain,
      scope.catalogue,
      scope.issues,
      flow.hasOutput,
    );
    return NO_OUTPUT;
  }
  if (a.recipients !== undefined) {
    scope.issues.push({
      path: a.path("recipientsFrom"),
      message: "give either recipients or recipients_from, not both",
    });
  }
  const source = buildRecipientsFrom(a, scope.catalogue, scope.issues);
  if (source) action.recipientsFrom = source;
  if (a.amount === undefined && !flow.hasOutput) {
    scope.issues.push({
      path: a.path("amount"),
      message:
        "required: the most the payout of the fetched orders may send (or chain it from a previous action)",
    });
  }
  return NO_OUTPUT;
}

/** The action's own fallback chains, or else the workflow's; never its own chain. */
function fallbackChains(scope: ActionScope, a: RawAction, chain: string | undefined): string[] {
  const own = scope.names.chains(a.fallbackChains, a.path("fallbackChains"));
  return (a.fallbackChains !== undefined ? own : scope.workflowFallbacks).filter(
    (c) => c !== chain,
  );
}
