import { id as keccakText, Transaction, type Signer } from "ethers";
import type { Logger } from "pino";
import { type EngineStore, findAccount } from "../accounts/index.ts";
import { ATTESTOR_CONTRACT, type RoutingChain } from "../routing/index.ts";
import type { Workflow } from "../model/index.ts";
import { crashPoint, TxJournal } from "../transactions/index.ts";
import {
  reportCid,
  type Attestation,
  type ComplianceAlert,
  type ComplianceSection,
  type GasMetric,
  type Operation,
  type ReportAction,
  type ReportAnalysis,
  type ReportAttestation,
  type ReportBody,
  type ReportOrders,
  type SignedReport,
  type ErrorBody,
  type StepResult,
  type StepRow,
  type TxEvidence,
  type TxRef,
} from "../report/index.ts";
import {
  complianceAlerts,
  findReport,
  submissionReceipt,
  finishStep,
  insertReport,
  loadSteps,
  setExecution,
  startStep,
  stepMemo,
} from "../executions/index.ts";
import {
  ExecutionClaimError,
  ProverUnavailableError,
  slotsOfActions,
  type ReportedClaim,
  type SubmissionReceipt,
} from "../proofs/index.ts";

/** Proves an execution and returns the arguments of `ExecutionAttestor.attest` after the id. */
export interface ExecutionProver {
  prove(input: {
    executionId: string;
    workflow: Workflow;
    results: StepResult[];
    /** The submission receipt: its salt and workflow commitment are what the proof must use. */
    receipt: SubmissionReceipt | null;
  }): Promise<{
    proof: unknown;
    publicSignals: string[];
    /** `attest(executionId, ...attestArgs)`. */
    attestArgs: unknown[];
    /** The commitments' blinding salt, published in the report. */
    salt?: string;
    commitments?: { workflow: string; execution: string };
    /** The execution side of the proved claim (`claimFromReport` rebuilds the claim from it). */
    claim?: ReportedClaim;
  }>;
}

/** Where a final report is stored: an artifact of the execution's key (relayer/artifacts). */
export interface ReportArtifacts {
  putArtifact(value: unknown, owner: { apiKeyId: string; kind: "report" }): Promise<string>;
}

export interface FinalizeDeps {
  store: EngineStore;
  chains: { list(): readonly RoutingChain[] };
  /** Groth16 prover (relayer/proofs); without one the report says why there is no proof. */
  prover?: ExecutionProver;
  /** Content-addressed store (relayer/artifacts); the report's CID is computed the same way. */
  artifacts?: ReportArtifacts;
  /**
   * The execution's external API interactions (relayer/integrations), anchored immediate ones and
   * pending batched ones, listed in the report as `api_interactions`.
   */
  apiInteractions?: (executionId: string) => Promise<unknown[]>;
  /** The text analyses that reference the execution (relayer/analysis): the report's `analyses`. */
  analyses?: (executionId: string) => Promise<ReportAnalysis[]>;
  /**
   * Settles the service fee of a completed execution and issues its payment receipt
   * (relayer/integrations/payments.ts); its result is the report's `payment_receipt`.
   */
  settle?: (input: { executionId: string; apiKeyId: string }) => Promise<unknown>;
  /**
   * Reads the committed transactions back from their chains (relayer/report/evidence.ts): the
   * report's `evidence`, what an auditor compares with the chain.
   */
  evidence?: (refs: readonly TxRef[]) => Promise<TxEvidence[]>;
}

/** The finalisation's own step row (proof memo, attestation transaction slot). */
export const FINAL_STEP = -1;

interface FinalizeInput {
  id: string;
  apiKeyId: string;
  name: string;
  workflow: Workflow;
  state: "completed" | "failed" | "cancelled";
  error: ErrorBody | undefined;
  /** The `recipients_from` payouts' orders and settlements (payouts.ts), when there are any. */
  orders?: ReportOrders | null;
}

/** The proof part of the report: the proof and its attestation, or why there is none. */
interface ProofSection {
  zk_proof: string | null;
  public_signals: string[] | null;
  attestation: ReportAttestation | null;
  claim: ReportedClaim | null;
  proof_note?: string;
}

/** The chain that holds the attestation and whose operator signs the report. */
export function homeChain(chains: readonly RoutingChain[]): RoutingChain {
  return chains.find((c) => c.deployment.contracts[ATTESTOR_CONTRACT]) ?? chains[0]!;
}

/**
 * Proof, attestation, report. Idempotent: a stored report ends it; the proof is memoised and the
 * attestation journalled, so a resumed finalisation attests once and reports the attested proof.
 */
export async function finalizeExecution(
  deps: FinalizeDeps,
  input: FinalizeInput,
  log: Logger,
): Promise<SignedReport> {
  const { store } = deps;
  const existing = await findReport(store, input.id);
  if (existing) return existing.report;

  const chains = deps.chains.list();
  const home = homeChain(chains);
  const steps = await loadSteps(store, input.id);
  const results = input.workflow.actions.flatMap((a) => {
    const step = steps.get(a.index);
    return step?.state === "completed" && step.result ? [step.result] : [];
  });

  const receipt = await submissionReceipt(store, input.id);
  let proof: ProofSection = {
    zk_proof: null,
    public_signals: null,
    attestation: null,
    claim: null,
  };
  const canProve = Boolean(deps.prover && home.deployment.contracts[ATTESTOR_CONTRACT]);
  if (input.state === "completed" && canProve) {
    await setExecution(store, input.id, { stage: "prove" });
    await startStep(store, input.id, FINAL_STEP, "Finalizer", home.name, null, {}).catch(() => {});
    const memo = stepMemo(store, input.id, FINAL_STEP);
    let proved: Awaited<ReturnType<ExecutionProver["prove"]>> | null = null;
    try {
      proved = await memo("proof", () =>
        deps.prover!.prove({ executionId: input.id, workflow: input.workflow, results, receipt }),
      );
    } catch (err) {
      // The claim does not fit the circuit (e.g. more multisend recipients than its slots) or the
      // keys are not installed: the execution stands, the report says why it carries no proof.
      if (!(err instanceof ExecutionClaimError) && !(err instanceof ProverUnavailableError))
        throw err;
      proof.proof_note = `no execution proof: ${(err as Error).message}`;
      log.warn({ err: (err as Error).message }, "execution not provable");
    }
    if (proved) {
      const attestation = await attest(deps, home, input.id, proved.attestArgs);
      crashPoint("proof.attested");
      proof = {
        zk_proof: JSON.stringify(proved.proof),
        public_signals: proved.publicSignals,
        attestation: {
          ...attestation,
          salt: proved.salt ?? null,
          commitments: proved.commitments ?? null,
        },
        claim: proved.claim ?? null,
      };
      await finishStep(store, input.id, FINAL_STEP, "completed", { result: { attestation } });
    }
  } else if (input.state === "completed") {
    proof.proof_note = "no prover or ExecutionAttestor configured on this relayer";
  } else {
    proof.proof_note = `no execution proof: the execution ${input.state} before completing`;
  }

  await setExecution(store, input.id, { stage: "report" });
  // Before the report, so the payment's interaction and receipt are in it. A gateway failure
  // throws: the job is retried and resumes here (the payment row and journal make it exactly once).
  const payment =
    deps.settle && input.state === "completed"
      ? await deps.settle({ executionId: input.id, apiKeyId: input.apiKeyId })
      : null;
  const body = await buildReport(deps, input, steps, proof, home);
  body.receipt = receipt;
  if (deps.settle) body.payment_receipt = payment;
  if (input.orders) {
    const interactions = body.api_interactions as Array<{ id?: number }>;
    body.orders = {
      ...input.orders,
      used: input.orders.used.map((u) => ({
        ...u,
        anchor: interactions.find((i) => Number(i.id) === u.interaction_id) ?? null,
      })),
    };
  }
  const cid = deps.artifacts
    ? await deps.artifacts.putArtifact(body, { apiKeyId: input.apiKeyId, kind: "report" })
    : await reportCid(body);
  const signer = operator(home);
  const report: SignedReport = {
    ...body,
    artifact_id: cid,
    signer: await signer.getAddress(),
    signature: await signer.signMessage(cid),
  };
  // The body's CID cannot be inside it, so the signature is not in the body: the signed report
  // is stored too, under its own CID, which alone is enough to audit (docs/audit.md).
  const signedCid = deps.artifacts
    ? await deps.artifacts.putArtifact(report, { apiKeyId: input.apiKeyId, kind: "report" })
    : await reportCid(report);
  await insertReport(store, input.id, report, signedCid);
  log.info({ cid, state: input.state }, "final report stored");
  return report;
}

function operator(chain: RoutingChain): Signer {
  if (!chain.operator) throw new Error(`no operator key on ${chain.name}`);
  return chain.operator;
}

async function attest(
  deps: FinalizeDeps,
  home: RoutingChain,
  executionId: string,
  args: unknown[],
): Promise<Attestation> {
  const attestor = home.contract(ATTESTOR_CONTRACT);
  const key = keccakText(executionId);
  const request = await attestor.getFunction("attest").populateTransaction(key, ...args);
  const slot = { executionId, actionIndex: FINAL_STEP, slot: "attest" };
  const sent = await new TxJournal(deps.store).sendCall(
    home,
    operator(home),
    slot,
    "attest",
    request,
  );
  if (sent.status !== "confirmed") throw new Error(`attestation reverted: ${sent.hash}`);
  return {
    chain: home.name,
    chain_id: home.chainId,
    contract: await attestor.getAddress(),
    execution_key: key,
    tx_hash: sent.hash,
    block_number: sent.receipt.blockNumber,
  };
}

async function buildReport(
  deps: FinalizeDeps,
  input: FinalizeInput,
  steps: ReadonlyMap<number, StepRow>,
  proof: ProofSection,
  home: RoutingChain,
): Promise<ReportBody> {
  const chains = deps.chains.list();
  const journal = new TxJournal(deps.store);
  const txs = await journal.list(input.id);
  const gas: Record<string, GasMetric> = {};
  for (const row of await journal.mined(input.id)) {
    const used = row.gasUsed;
    const paid = row.effectiveGasPrice;
    const maxFee = row.raw ? (Transaction.from(row.raw).maxFeePerGas ?? paid) : paid;
    const metric = (gas[String(row.chainId)] ??= { used: 0, saved: 0 });
    metric.used += Number(used);
    metric.saved += Number(used * (maxFee > paid ? maxFee - paid : 0n)) / 1e18;
  }
  const alerts: ComplianceAlert[] = (await complianceAlerts(deps.store, input.id)).map(
    ({ created_at: _, ...alert }) => alert,
  );
  const slots = slotsOfActions(input.workflow);
  const actions = input.workflow.actions.map((action): ReportAction => {
    const step = steps.get(action.index);
    const result = step?.result ?? null;
    const chain = chains.find((c) => c.name === step?.chain);
    return {
      index: action.index,
      type: action.type,
      agent: step?.agent ?? null,
      state: step?.state ?? "not_run",
      chain: step?.chain ?? null,
      chain_id: chain?.chainId ?? null,
      fallback_from: step?.fallback_from ?? null,
      // Released ones were never sent; dropped ones are no longer on chain (the step's error names it).
      tx_hashes: txs
        .filter(
          (t) => t.action_index === action.index && t.state !== "released" && t.state !== "dropped",
        )
        .map((t) => t.hash),
      // A bridge's zk_proof is the execution proof; `zk_proof_slots` are the circuit slots that
      // hold this bridge (its deposit and release hashes, amounts and fee cap).
      result:
        result?.action === "bridge"
          ? {
              ...result,
              zk_proof: proof.zk_proof,
              zk_proof_slots: proof.zk_proof ? (slots[action.index] ?? []) : [],
            }
          : result,
      risk: step?.risk ?? null,
      error: step?.error ?? null,
    };
  });
  const operations: Operation[] = actions
    .filter((a) => a.state === "completed")
    .map((a) => ({
      protocol: protocolOf(a.result),
      action: a.type,
      chain: a.chain ?? "",
      liquidation_price: null,
    }));
  const attested = proof.attestation;
  const dropped = new Set(txs.filter((t) => t.state === "dropped").map((t) => t.hash));
  const evidenceRefs: TxRef[] = [
    ...actions.flatMap((a) =>
      (a.result?.txs ?? [])
        .filter((t) => !dropped.has(t.hash))
        .map((t) => ({
          action_index: a.index,
          kind: t.kind,
          chain_id: t.chainId,
          hash: t.hash,
        })),
    ),
    ...(attested
      ? [
          {
            action_index: null,
            kind: "attest",
            chain_id: attested.chain_id,
            hash: attested.tx_hash,
          },
        ]
      : []),
  ];
  const account = await findAccount(deps.store, input.apiKeyId);
  const riskByAgent: Record<string, number[]> = {};
  for (const a of actions) {
    const score = a.risk?.score;
    if (a.agent && score !== undefined) (riskByAgent[a.agent] ??= []).push(score);
  }
  const allScores = Object.values(riskByAgent).flat();
  return {
    kind: "veriflow.execution-report",
    version: 1,
    execution_id: input.id,
    name: input.name,
    state: input.state,
    error: input.error ?? null,
    workflow: input.workflow,
    actions,
    completed_actions: actions.filter((a) => a.state === "completed").map((a) => a.index),
    not_run: actions.filter((a) => a.state === "not_run").map((a) => a.index),
    tx_hashes: txs
      .filter((t) => t.state === "confirmed" || t.state === "reverted")
      .map((t) => t.hash),
    gas_metrics: gas,
    operations,
    risk_scores: {
      threshold: input.workflow.riskThreshold,
      max: allScores.length ? Math.max(...allScores) : 0,
      by_agent: riskByAgent,
    },
    liquidation_protection: true,
    compliance: complianceSection(input.workflow, actions, alerts),
    api_interactions: deps.apiInteractions ? await deps.apiInteractions(input.id) : [],
    analyses: deps.analyses ? await deps.analyses(input.id) : [],
    zk_proof: proof.zk_proof,
    public_signals: proof.public_signals,
    attestation: proof.attestation,
    claim: proof.claim,
    receipt: null,
    ...(proof.proof_note ? { proof_note: proof.proof_note } : {}),
    evidence: deps.evidence
      ? { account: account?.address ?? null, transactions: await deps.evidence(evidenceRefs) }
      : null,
    relayer: { chain: home.name, chain_id: home.chainId },
  };
}

/**
 * The report's compliance section: the lists the workflow's jurisdictions require (`required`,
 * null when it declared none: every available source was used), the lists actually consulted
 * for its counterparties and recipients (`consulted`, from every screening result), each
 * screening, and the alerts raised.
 */
function complianceSection(
  workflow: Workflow,
  actions: readonly ReportAction[],
  alerts: ComplianceAlert[],
): ComplianceSection {
  const screened = actions.flatMap((a) =>
    (a.result?.compliance ?? []).map((c) => ({ action_index: a.index, ...c })),
  );
  const jurisdictions = workflow.compliance?.jurisdictions ?? [];
  return {
    lists: workflow.compliance?.sanctionsLists ?? [],
    jurisdictions,
    required: jurisdictions.length ? (workflow.compliance?.sanctionsLists ?? []) : null,
    consulted: [...new Set(screened.flatMap((s) => s.checked))].sort(),
    screened,
    alerts,
  };
}

/** The protocol of a completed action's operation: its exchange, bridge protocol or `multisend`. */
function protocolOf(result: StepResult | null): string {
  switch (result?.action) {
    case "swap":
    case "convert":
      return result.exchange;
    case "bridge":
      return result.protocol;
    case "multisend":
      return "multisend";
    default:
      return "unknown";
  }
}
