import type { ReportedClaim, SubmissionReceipt } from "../proofs/index.ts";
import canonicalize from "canonicalize";
import { CID } from "multiformats/cid";
import * as json from "multiformats/codecs/json";
import { sha256 } from "multiformats/hashes/sha2";
import type { ScreenResult } from "../agents/index.ts";
import type { TxEvidence } from "./evidence.ts";
import type { ActionType, Workflow } from "../model/index.ts";
import type { RiskEvaluation } from "./risk.ts";
import type { Attestation, ErrorBody, StepResult, StepRow } from "./steps.ts";

export type { Attestation } from "./steps.ts";

/**
 * The final report as the spec's "Blockchain artifact" and "DeFi transaction artifact".
 * The stored JSON carries the data fields; the two operations are methods of
 * {@link DeFiTransactionArtifact}, built from a stored report.
 *
 * `artifact_id` is the CIDv1 (`json` codec, sha2-256) of the canonical JSON (RFC 8785) of the report
 * body, i.e. the report without `artifact_id`, `signature` and `signer` (a CID cannot contain itself).
 */
export interface GasMetric {
  /** Gas units used by the execution's transactions on this chain. */
  used: number;
  /** Native asset (ETH) not spent thanks to EIP-1559: Σ gasUsed × (maxFeePerGas − effective price). */
  saved: number;
}

export interface Operation {
  protocol: string;
  action: string;
  chain: string;
  /** Price level at which the position would be liquidated; null for spot operations (no leverage). */
  liquidation_price: number | null;
}

/** The report's attestation: the transaction plus what an auditor needs to recompute the signals. */
export interface ReportAttestation extends Attestation {
  salt: string | null;
  commitments: { workflow: string; execution: string } | null;
}

/**
 * One action of the report: its step (chain, agent, state, transactions) and its agent's typed
 * result. A bridge's result carries the execution proof as its `zk_proof` (spec: cross-chain agents
 * return `src_tx`, `dest_tx` and `zk_proof`), null when the execution was not proved.
 */
export interface ReportAction {
  index: number;
  type: ActionType;
  agent: string | null;
  state: StepRow["state"] | "not_run";
  chain: string | null;
  chain_id: number | null;
  fallback_from: string | null;
  tx_hashes: string[];
  result: (StepResult & { zk_proof?: string | null; zk_proof_slots?: number[] }) | null;
  risk: RiskEvaluation | null;
  error: ErrorBody | null;
}

export interface RiskScores {
  threshold: number;
  max: number;
  /** The scores of each agent's runs, keyed by its class name (spec: results stored under it). */
  by_agent: Record<string, number[]>;
}

export interface ReportBody {
  kind: "veriflow.execution-report";
  version: 1;
  execution_id: string;
  name: string;
  state: "completed" | "failed" | "cancelled";
  error: ErrorBody | null;
  workflow: Workflow;
  actions: ReportAction[];
  completed_actions: number[];
  not_run: number[];
  tx_hashes: string[];
  gas_metrics: Record<string, GasMetric>;
  operations: Operation[];
  risk_scores: RiskScores;
  liquidation_protection: boolean;
  compliance: ComplianceSection;
  api_interactions: unknown[];
  /** The text analyses that reference this execution (`workflow_id`), oldest first. */
  analyses: ReportAnalysis[];
  zk_proof: string | null;
  public_signals: string[] | null;
  attestation: ReportAttestation | null;
  /** The proved claim's execution side, read from the chains (relayer/proofs/reported.ts). */
  claim: ReportedClaim | null;
  /** The signed submission receipt (relayer/proofs/receipt.ts); null without an attestor. */
  receipt: SubmissionReceipt | null;
  /** Why there is no proof, when there is none. */
  proof_note?: string;
  /** The committed transactions as their chains hold them (relayer/report/evidence.ts). */
  evidence: ReportEvidence | null;
  relayer: { chain: string; chain_id: number };
  /** The service fee's payment receipt (relayer/integrations/payments.ts), when payments are configured. */
  payment_receipt?: unknown;
  /** A workflow with `recipients_from` multisends: the orders paid and their settlement. */
  orders?: ReportOrders;
}

/**
 * The orders of `recipients_from` multisends (relayer/execution/payouts.ts): each answer used,
 * with its interaction (its anchor is that interaction's entry in `api_interactions`) and the
 * response exactly as received (keccak256 of it is the anchored `response_hash`: an auditor
 * re-derives the orders from it with the workflow's descriptor); each order settled with the
 * payment gateway, and each paid on chain but not settled.
 */
export interface ReportOrders {
  used: Array<{
    action_index: number;
    integration: string;
    interaction_id: number;
    schema_version: string;
    response_hash: string | null;
    response: string | null;
    orders: Array<{ id: string; address: string; amount: string; asset: string | null }>;
    /** The interaction's anchor when the report was built (immediate, batch, or pending). */
    anchor?: unknown;
  }>;
  settlements: Array<{
    action_index: number;
    order_id: string;
    settlement_key: string;
    gateway_payment_id: string;
    interaction_id: number;
  }>;
  unsettled: Array<{
    action_index: number;
    order_id: string;
    settlement_key: string;
    error: string;
  }>;
}

/** A text analysis in the final report (relayer/analysis): its id, audit record and result. */
export interface ReportAnalysis {
  analysis_id: string;
  audit_id: string;
  model: string;
  created_at: string;
  compliance_checks: {
    clm_violations: number;
    uben_compliance: "passed" | "failed";
    pii_leakage: boolean;
  };
}

export interface ReportEvidence {
  /** The execution's account (the sender of every transaction but releases and the attestation). */
  account: string | null;
  transactions: TxEvidence[];
}

/** A compliance alert raised while screening (`engine_compliance_alerts`). */
export interface ComplianceAlert {
  action_index: number;
  address: string;
  role: string;
  sources: string[];
}

export interface ComplianceSection {
  lists: string[];
  jurisdictions: string[];
  /** The lists the jurisdictions require; null when the workflow declared none. */
  required: string[] | null;
  /** Every list consulted for the execution's counterparties and recipients. */
  consulted: string[];
  screened: Array<ScreenResult & { action_index: number }>;
  alerts: ComplianceAlert[];
}

export interface SignedReport extends ReportBody {
  artifact_id: string;
  signer: string;
  signature: string;
}

export function canonicalJson(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new Error("report is not JSON-serialisable");
  return text;
}

/** The CID of a report body (any JSON value: an auditor computes it over the body it received). */
export async function reportCid(body: object): Promise<string> {
  const bytes = new TextEncoder().encode(canonicalJson(body));
  return CID.createV1(json.code, await sha256.digest(bytes)).toString();
}

/** The fields of a signed report the spec's two artifacts are built from. */
export type ArtifactFields = Pick<
  SignedReport,
  | "artifact_id"
  | "tx_hashes"
  | "zk_proof"
  | "gas_metrics"
  | "operations"
  | "risk_scores"
  | "liquidation_protection"
>;

/** Spec "Blockchain artifact". */
export class BlockchainArtifact {
  readonly artifact_id: string;
  readonly tx_hashes: string[];
  readonly zk_proof: string | null;
  readonly gas_metrics: Record<string, GasMetric>;

  constructor(report: ArtifactFields) {
    this.artifact_id = report.artifact_id;
    this.tx_hashes = report.tx_hashes;
    this.zk_proof = report.zk_proof ?? null;
    this.gas_metrics = report.gas_metrics;
  }

  /** JSON text holding the proof and the CID (spec operation `to_audit_json`). */
  to_audit_json(): string {
    return JSON.stringify({ proof: this.zk_proof, cid: this.artifact_id });
  }
}

/** Spec "DeFi transaction artifact". */
export class DeFiTransactionArtifact extends BlockchainArtifact {
  readonly operations: Operation[];
  readonly risk_scores: RiskScores;
  readonly liquidation_protection: boolean;

  constructor(report: ArtifactFields) {
    super(report);
    this.operations = report.operations;
    this.risk_scores = report.risk_scores;
    this.liquidation_protection = report.liquidation_protection ?? true;
  }

  /** True when any operation has a `liquidation_price` greater than `price_drop` (spec). */
  simulate_liquidation(price_drop: number): boolean {
    return this.operations.some(
      (op) => op.liquidation_price !== null && op.liquidation_price > price_drop,
    );
  }
}
