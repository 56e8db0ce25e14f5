import { Contract } from "ethers";
import { CONTRACT_NAMES } from "../deployments/index.ts";
import type { EvidenceChain } from "../report/index.ts";
import {
  readAnchoredHeads,
  verifyKeyAudit,
  type AnchoredHead,
  type AuditLink,
  type KeptAudit,
  type KeyAuditStatus,
  type ListedAuditRecord,
} from "./analysis-chain.ts";

/**
 * The report's analyses (`analyses`: each one's `analysis_id` and `audit_id`) checked against the
 * owner's audit records and the chain's links, which the relayer lists only to the owner's key,
 * and the heads the report's signer (the relayer's operator) anchored in the ProofRegistry of any
 * of the auditor's chains.
 */

/** What the owner's credentials fetch: `GET /v1/analysis/audit` and `/audit/links`, every page. */
export interface AnalysisAuditEvidence {
  records: readonly ListedAuditRecord[];
  links: readonly AuditLink[];
  checkpoint: { seq: number; hash: string };
}

/** A check line of the report's audit (an AuditCheck of the `analyses` or `analysis` family). */
export interface AnalysisCheck {
  id: string;
  family: "analyses" | "analysis";
  ok: boolean;
  status: KeyAuditStatus | "not-performed";
  reason: string;
}

const REGISTRY = CONTRACT_NAMES.proofRegistry;

/** Every head anchored under the analysis audit URI in each chain's ProofRegistry. */
export async function anchoredHeadsOn(chains: readonly EvidenceChain[]): Promise<AnchoredHead[]> {
  const perChain = await Promise.all(
    chains.map((chain) => {
      const entry = chain.deployment.contracts[REGISTRY];
      if (!entry) return [];
      const registry = new Contract(entry.address, chain.abi(REGISTRY), chain.provider);
      return readAnchoredHeads(registry, entry.blockNumber);
    }),
  );
  return perChain.flat();
}

export async function analysisChecks(
  listed: readonly KeptAudit[],
  /** Called once the anchors are read, so that the links read then reach every anchor seen. */
  fetchEvidence: (() => Promise<AnalysisAuditEvidence>) | undefined,
  chains: readonly EvidenceChain[],
  operator: string,
): Promise<AnalysisCheck[]> {
  if (!fetchEvidence)
    return [
      {
        id: "analyses",
        family: "analyses",
        ok: false,
        status: "not-performed",
        reason: `not performed: the report lists ${listed.length} analyses, whose audit records only the owner's key can list (give --url/--key/--profile)`,
      },
    ];
  let anchors: AnchoredHead[];
  try {
    anchors = await anchoredHeadsOn(chains);
  } catch (err) {
    return [
      {
        id: "analyses",
        family: "analyses",
        ok: false,
        status: "fail",
        reason: `error: reading the anchored heads: ${(err as Error).message}`,
      },
    ];
  }
  const evidence = await fetchEvidence();
  const result = verifyKeyAudit({ ...evidence, anchors, operator, kept: listed });
  const chain = result.checks.filter((c) => c.id === "links" || c.id === "anchors");
  const chainOk = chain.every((c) => c.status === "pass");
  const checks: AnalysisCheck[] = [
    {
      id: "analyses",
      family: "analyses",
      ok: chainOk,
      status: chainOk ? "pass" : "fail",
      reason: chain.map((c) => `${c.id}: ${c.reason}`).join("; "),
    },
  ];
  // One kept check per listed entry, in order: found by id, an audit id listed twice would give
  // the second entry (a forged analysis under a genuine record) the first one's pass.
  const keptChecks = result.checks.filter((c) => c.id.startsWith("kept["));
  for (const i of listed.keys()) {
    const check = keptChecks[i]!;
    checks.push({
      id: `analysis[${i}]`,
      family: "analysis",
      ok: check.status === "pass",
      status: check.status,
      reason: check.reason,
    });
  }
  return checks;
}
