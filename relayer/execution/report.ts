import canonicalize from "canonicalize";
import { CID } from "multiformats/cid";
import * as json from "multiformats/codecs/json";
import { sha256 } from "multiformats/hashes/sha2";

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

export interface ReportBody {
  kind: "veriflow.execution-report";
  version: 1;
  execution_id: string;
  tx_hashes: string[];
  zk_proof?: string | null;
  gas_metrics: Record<string, GasMetric>;
  operations: Operation[];
  risk_scores: Record<string, unknown>;
  liquidation_protection: boolean;
  [key: string]: unknown;
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

export async function reportCid(body: ReportBody): Promise<string> {
  const bytes = new TextEncoder().encode(canonicalJson(body));
  return CID.createV1(json.code, await sha256.digest(bytes)).toString();
}

/** Spec "Blockchain artifact". */
export class BlockchainArtifact {
  readonly artifact_id: string;
  readonly tx_hashes: string[];
  readonly zk_proof: string | null;
  readonly gas_metrics: Record<string, GasMetric>;

  constructor(report: SignedReport) {
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
  readonly risk_scores: Record<string, unknown>;
  readonly liquidation_protection: boolean;

  constructor(report: SignedReport) {
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
