/**
 * The normalised workflow: what both submission forms (JSON "Workflow submission" and YAML
 * "Workflow definition") become after validation, and the only shape the execution engine reads.
 * It is stored as JSON in `workflow_executions.workflow` (and in deployments and schedules), so
 * every field is plain data. `WORKFLOW_MODEL_VERSION` is bumped on any incompatible change.
 *
 * Conventions
 * - Chains are devnet/network names as in the deployments (`ethereum`, `arbitrum`, `polygon`),
 *   lower-case. Assets are the deployments' token symbols in their canonical spelling (`USDC`),
 *   plus each chain's native asset (`ETH` unless the deployment says otherwise).
 * - Amounts are decimal strings in whole units of the asset (`"1.5"` ETH, never wei), canonical
 *   (no leading zeros, no trailing fractional zeros), with no more fractional digits than the asset's
 *   decimals on every chain where it exists. The engine converts with the chain's decimals.
 * - Chaining: an action whose `amount` is absent (`input: "chained"`) consumes the previous action's
 *   output: its asset (already resolved here into `from` where it is known statically), its amount
 *   and its chain. Only the first action must carry an explicit amount. A multisend produces no
 *   output, so nothing chains from it.
 * - `chain` is only what the client pinned; absent means the engine selects the chain (route
 *   selection), or inherits the previous action's chain when chained.
 * - Fallback chains (spec: "503 chain congestion → use the `fallback_chains` parameter"): accepted
 *   at the top level (`fallback_chains`, applies to every action) and per action (JSON
 *   `actions[i].fallback_chains`, YAML `actions[i].params.fallback_chains`), the per-action list
 *   replacing the workflow's. `WorkflowAction.fallbackChains` is the effective, ordered list for
 *   that action; when the action's chain's RPC fails or its base fee is above the cap, the engine
 *   moves the action to the next chain of that list (in order).
 */

export const WORKFLOW_MODEL_VERSION = 1;

export const ACTION_TYPES = ["swap", "convert", "bridge", "multisend"] as const;
export type ActionType = (typeof ACTION_TYPES)[number];

/**
 * Route priority of swap/convert (`route_optimizer.priority`, YAML `params.priority`) and the
 * agents' gas strategies: the routing module defines and documents them (relayer/routing/select.ts,
 * fees.ts); the model accepts exactly those. Priorities: `cost` (spec, default: output net of gas in
 * USD), `output` (largest output), `speed` (fewest hops, then cheapest gas). Gas: `eco` (spec
 * default), `standard`, `fast`.
 */
export { ROUTE_PRIORITIES, type RoutePriority } from "../routing/index.ts";
export { GAS_STRATEGIES, type GasStrategy } from "../routing/index.ts";
import type { RoutePriority, GasStrategy } from "../routing/index.ts";

/** Default swap/convert slippage tolerance when the client gives none: 0.5 %. */
export const DEFAULT_SLIPPAGE_BPS = 50;
/** Spec "Limits": workflow risk threshold default. */
export const DEFAULT_RISK_THRESHOLD = 0.7;

/** A multisend recipient's share: a fixed amount of the sent asset, or a share of what it receives. */
export type RecipientAmount =
  | { kind: "absolute"; amount: string }
  /** Basis points of the multisend's input (`"12.5%"` → 1250). */
  | { kind: "percent"; bps: number };

export interface Recipient {
  /** EIP-55 checksummed address. */
  address: string;
  amount: RecipientAmount;
}

/**
 * Where a multisend's recipients come from: `GET <integration url><path>?<query>` (signed, with
 * `X-Blockchain-Proof: true`, response HMAC and pinned schema checked, anchored), each record of
 * its `data` list one recipient: `address` and `amount` name the record's fields holding the 0x
 * payout address and the decimal amount, `id` the order id (settled after the payout), `asset`
 * (optional) the field that must equal the multisend's asset.
 */
export interface RecipientsFrom {
  /** A configured integration whose schema lists orders (`crm.orders`). */
  integration: string;
  path: string;
  query: Record<string, string>;
  id: string;
  address: string;
  amount: string;
  asset?: string;
  /** The most records one payout pays; more fails the action before anything is sent. */
  maxOrders: number;
}

/** Default and largest `max_orders` of a `recipients_from` (one multisend transaction pays them). */
export const DEFAULT_MAX_ORDERS = 200;
export const MAX_ORDERS_LIMIT = 500;

export interface WorkflowAction {
  /** Position in the workflow, from 0; actions run in this order. */
  index: number;
  type: ActionType;
  /** Pinned chain (bridge: the source chain); absent → selected by the engine or inherited. */
  chain?: string;
  /**
   * Input asset. Swap/convert: the asset sold. Bridge/multisend: the asset moved/sent.
   * Resolved from the previous action's output when the client left it out.
   */
  from: string;
  /** Output asset of swap/convert; absent for bridge and multisend (the asset is unchanged). */
  to?: string;
  /** Input amount; absent when `input` is `chained`. */
  amount?: string;
  /** `explicit`: `amount` is given. `chained`: the previous action's output amount is used. */
  input: "explicit" | "chained";
  /** Swap/convert: maximum tolerated slippage in basis points (spec `slippage` percent × 100). */
  slippageBps?: number;
  /** Swap/convert route priority (default `cost`). */
  priority?: RoutePriority;
  /** Swap/convert: exchange pinned by the client (YAML `dex`, JSON `dex`), e.g. `uniswap`. */
  dex?: string;
  /** Bridge: destination chain. */
  destination?: string;
  /** Bridge: protocol name, e.g. `lockmint`; absent → the engine picks one the chains support. */
  protocol?: string;
  /** Multisend recipients, in order (absent when they come from `recipientsFrom`). */
  recipients?: Recipient[];
  /**
   * Multisend: the recipients are the records an integration returns at run time (the CRM's
   * unpaid orders), fetched by the engine just before the payout; `amount` (or the chained input)
   * is then the most the payout may send. See docs/integrations.md#recipients_from.
   */
  recipientsFrom?: RecipientsFrom;
  /** Effective fallback chains of this action, in order (see the module comment). */
  fallbackChains: string[];
}

export interface WorkflowSchedule {
  /** Five-field cron expression (minute hour day-of-month month day-of-week). */
  cron: string;
  /** IANA time zone the cron is evaluated in. */
  timezone: string;
  /** The YAML `trigger.frequency` phrase it came from, when it came from one. */
  phrase?: string;
}

export interface WorkflowCompliance {
  /** Region codes from `GET /v1/compliance/specs`, upper-case. */
  jurisdictions: string[];
  /** Tax form identifiers from `GET /v1/compliance/specs`. */
  taxForms: string[];
  /** Sanctions list ids every counterparty and recipient is screened against. */
  sanctionsLists: string[];
}

export interface Workflow {
  modelVersion: typeof WORKFLOW_MODEL_VERSION;
  name: string;
  /** Which wire form it was submitted in. */
  format: "json" | "yaml";
  actions: WorkflowAction[];
  schedule?: WorkflowSchedule;
  compliance: WorkflowCompliance;
  /** Workflow-level fallback chains as given (already folded into each action's list). */
  fallbackChains: string[];
  /** Risk engine threshold in (0, 1]; a score above it stops the run (default 0.7). */
  riskThreshold: number;
  gasStrategy: GasStrategy;
}
