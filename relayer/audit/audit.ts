import { Contract, getAddress, keccak256, parseUnits, toUtf8Bytes, verifyMessage } from "ethers";
import * as snarkjs from "snarkjs";
import { lockMintInfo } from "../chains/index.ts";
import {
  reportCid,
  transactionEvidence,
  type EvidenceChain,
  type EvidenceEvent,
  type TxEvidence,
  type TxRef,
} from "../report/index.ts";
import { verifyInteractionOnChain } from "../integrations/index.ts";
import {
  assertClaimHonoured,
  encodeClaim,
  type ExecutionClaim,
  computeCommitments,
  executionIdSignal,
  executionIdToBytes32,
  receiptSigner,
  type SubmissionReceipt,
  claimFromReport,
  type ReportedClaim,
  isExecutionVariant,
  type ExecutionVariant,
} from "../proofs/index.ts";
import {
  parseAuditInput,
  parseClientReceipt,
  type AuditedAction,
  type AuditedReceipt,
  type AuditedReport,
} from "./input.ts";

/** The fields of a `recipients_from` descriptor the auditor re-derives orders with. */
type OrdersDescriptor = { id?: string; address: string; amount: string };
import { CONTRACT_NAMES } from "../deployments/index.ts";
import type { AuditSource } from "./sources.ts";
import { analysisChecks, type AnalysisAuditEvidence } from "./analyses.ts";
import type { KeyAuditStatus } from "./analysis-chain.ts";

/** How far another chain's block time may run ahead of the attestation chain's (docs/audit.md). */
const CROSS_CHAIN_CLOCK_SKEW_S = 300;

/**
 * The auditor: checks a signed final report against the chains alone (no relayer database, no
 * relayer HTTP). Every check is one line with pass/fail and its reason; see README "Auditing an
 * execution" for what each one guarantees.
 */

export type CheckFamily =
  | "source"
  | "cid"
  | "signature"
  | "receipt"
  | "client-receipt"
  | "proof"
  | "verifier"
  | "attestation"
  | "commitments"
  | "constraints"
  | "transactions"
  | "action"
  | "bridge"
  | "interaction"
  | "analyses"
  | "analysis";

/**
 * `not-performed`: the auditor lacked what the check needs (the analyses' records without the
 * owner's credentials); `not-anchored` and `unverifiable` as relayer/audit/analysis-chain.ts says.
 */
export type CheckStatus = "pass" | "fail" | "not-performed" | KeyAuditStatus;

export interface AuditCheck {
  /** Unique per report: the family, with the action or interaction it is about (`action[2]`). */
  id: string;
  family: CheckFamily;
  /** status is `pass`. */
  ok: boolean;
  status: CheckStatus;
  reason: string;
}

/** `incomplete`: nothing failed, but not every check passed (not performed, not yet anchored). */
export type VerdictOutcome = "pass" | "fail" | "incomplete";

export interface AuditVerdict {
  ok: boolean;
  outcome: VerdictOutcome;
  execution_id: string;
  cid: string;
  checks: AuditCheck[];
}

/** What the auditor trusts of one execution circuit variant: this repository's outputs. */
export interface AuditedVariant {
  /** The variant's verification key (circuits/keys/execution<slots>.vkey.json). */
  verificationKey: snarkjs.VerificationKey;
  /** Runtime bytecode of Execution<slots>Groth16Verifier as compiled from this repository. */
  verifierBytecode: string;
}

export interface AuditEnvironment {
  /** Read access to every chain the report names (RPC providers, deployments, ABI sets). */
  chains: readonly EvidenceChain[];
  /** Every execution circuit variant, by slot count (2, 4, 8). */
  variants: Readonly<Record<ExecutionVariant, AuditedVariant>>;
}

const ATTESTOR = CONTRACT_NAMES.attestor;
const REGISTRY = CONTRACT_NAMES.proofRegistry;

/** A failed expectation inside a check: its message is the check's reason. */
class Mismatch extends Error {}

function expect(condition: boolean, reason: string): asserts condition {
  if (!condition) throw new Mismatch(reason);
}

const same = (a: string | null | undefined, b: string | null | undefined) =>
  typeof a === "string" && typeof b === "string" && a.toLowerCase() === b.toLowerCase();

const short = (hash: string) => `${hash.slice(0, 10)}…`;

export interface AuditOptions {
  /**
   * The submission receipt the client kept from the 202 (or the receipt alone): compared with
   * the report's, so a receipt the relayer re-issued later is caught (`client-receipt`).
   */
  receipt?: unknown;
  /** Where the report was read by CID (artifact store or CAR file): its bytes must be the CID's. */
  source?: AuditSource;
  /**
   * Fetches the owner's audit records and the chain's links (relayer/audit/analyses.ts), to check
   * the analyses the report lists; called after the anchors are read (an anchor landing between
   * the two reads is then within the links). Without it those checks are `not-performed`.
   */
  analyses?: () => Promise<AnalysisAuditEvidence>;
}

/** Audits `input` (the GET /v1/workflows/{id} `report` envelope or a signed report). */
export async function auditReport(
  input: unknown,
  env: AuditEnvironment,
  options: AuditOptions = {},
): Promise<AuditVerdict> {
  const { report, raw, envelope } = parseAuditInput(input);
  const clientReceipt =
    options.receipt === undefined ? undefined : parseClientReceipt(options.receipt);
  // Checks run concurrently (the chains answer while the proof verifies); each keeps its place.
  const checks: AuditCheck[] = [];
  const pending: Promise<void>[] = [];
  const run = (id: string, family: CheckFamily, fn: () => Promise<string> | string) => {
    const slot = checks.push({ id, family, ok: false, status: "fail", reason: "not run" }) - 1;
    const done = (async () => {
      try {
        checks[slot] = { id, family, ok: true, status: "pass", reason: await fn() };
      } catch (err) {
        const reason = err instanceof Mismatch ? err.message : `error: ${(err as Error).message}`;
        checks[slot] = { id, family, ok: false, status: "fail", reason };
      }
    })();
    pending.push(done);
    return done;
  };
  const ctx = new AuditContext(report, env);

  const source = options.source;
  if (source)
    void run("source", "source", () => {
      expect(source.ok, source.reason);
      return source.reason;
    });

  void run("cid", "cid", async () => {
    const { artifact_id, signer, signature, ...body } = raw;
    void signer;
    void signature;
    const cid = await reportCid(body);
    expect(
      cid === artifact_id,
      `the body hashes to ${cid}, the report says ${String(artifact_id)}`,
    );
    if (envelope) {
      expect(envelope.cid === cid, `the envelope names ${envelope.cid}, the body is ${cid}`);
      expect(
        envelope.signer === report.signer && envelope.signature === report.signature,
        "the envelope's signer or signature differs from the report's",
      );
    }
    return `CIDv1 of the canonical body = ${cid}`;
  });

  void run("signature", "signature", async () => {
    const recovered = verifyMessage(report.artifact_id, report.signature);
    expect(same(recovered, report.signer), `signed by ${recovered}, not by ${report.signer}`);
    const attestor = ctx.attestor();
    const role = (await attestor.getFunction("ATTESTER_ROLE")()) as string;
    const holds = (await attestor.getFunction("hasRole")(role, recovered)) as boolean;
    expect(
      holds,
      `${recovered} holds no ATTESTER_ROLE on ${ATTESTOR} ${await attestor.getAddress()}`,
    );
    return `EIP-191 signature by ${recovered}, ATTESTER_ROLE on ${ATTESTOR} (chain ${ctx.home().chainId})`;
  });

  void run("receipt", "receipt", async () => {
    const receipt = report.receipt;
    expect(receipt != null, "the report carries no submission receipt");
    expect(
      receipt.execution_id === report.execution_id,
      `the receipt is for ${receipt.execution_id}, the report for ${report.execution_id}`,
    );
    const recovered = await ctx.relayerSigned(receipt, "the receipt");
    const [workflow] = ctx.publicSignals();
    expect(
      receipt.workflow_commitment === workflow,
      "the receipt's workflow commitment is not the one proved and attested",
    );
    return `EIP-712 receipt for ${receipt.execution_id} signed by ${recovered} (ATTESTER_ROLE); its workflow commitment is the attested one`;
  });

  if (clientReceipt)
    void run("client-receipt", "client-receipt", async () => {
      const kept = clientReceipt;
      const recovered = await ctx.relayerSigned(kept, "the client's receipt");
      expect(
        kept.execution_id === report.execution_id,
        `the client's receipt is for ${kept.execution_id}, the report for ${report.execution_id}`,
      );
      const issued = report.receipt;
      expect(issued != null, "the report carries no submission receipt");
      const differ = RECEIPT_FIELDS.filter(
        (field) => JSON.stringify(kept[field]) !== JSON.stringify(issued[field]),
      );
      expect(
        differ.length === 0,
        `the relayer signed two receipts for ${report.execution_id}: the report's differs from the one given at submission in ${differ.join(", ")}`,
      );
      return `the client's receipt (signed at submission by ${recovered}, ATTESTER_ROLE) is the report's`;
    });

  void run("proof", "proof", async () => {
    expect(
      typeof report.zk_proof === "string",
      `no proof in the report (${String(raw.proof_note ?? "")})`,
    );
    const signals = ctx.publicSignals();
    let proof: snarkjs.Groth16Proof;
    try {
      proof = JSON.parse(report.zk_proof) as snarkjs.Groth16Proof;
    } catch {
      throw new Mismatch("zk_proof is not JSON");
    }
    const slots = await ctx.variant();
    const valid = await snarkjs.groth16
      .verify(env.variants[slots].verificationKey, signals, proof, silentLogger)
      .catch(() => false);
    expect(
      valid,
      `the Groth16 proof does not verify against the ${slots}-slot execution verification key`,
    );
    return `Groth16 proof verified off chain (snarkjs) against circuits/keys/execution${slots}.vkey.json (the attested variant)`;
  });

  void run("verifier", "verifier", async () => {
    const slots = await ctx.variant();
    const verifier = (await ctx.attestor().getFunction("verifier")(slots)) as string;
    const code = await ctx.home().provider.getCode(verifier);
    const name = `Execution${slots}Groth16Verifier`;
    expect(
      code.toLowerCase() === env.variants[slots].verifierBytecode.toLowerCase(),
      `the attestor's ${slots}-slot verifier ${verifier} is not ${name} as compiled from this repository`,
    );
    return `${slots}-slot verifier ${verifier} = ${name} compiled from this repository`;
  });

  void run("attestation", "attestation", async () => {
    const att = report.attestation;
    expect(att != null, "the report carries no attestation");
    const attestor = ctx.attestor();
    const address = await attestor.getAddress();
    expect(
      same(att.contract, address),
      `the report names attestor ${att.contract}, the chain's is ${address}`,
    );
    const key = executionIdToBytes32(report.execution_id);
    expect(
      same(att.execution_key, key),
      `execution_key ${att.execution_key} is not keccak256(${report.execution_id})`,
    );
    expect(
      (await attestor.getFunction("isAttested")(key)) as boolean,
      `nothing attested under ${key}`,
    );
    const onChain = (await attestor.getFunction("getAttestation")(key)) as {
      workflowCommitment: bigint;
      executionCommitment: bigint;
      attester: string;
    };
    const [workflow, execution] = ctx.publicSignals();
    expect(
      onChain.workflowCommitment.toString() === workflow &&
        onChain.executionCommitment.toString() === execution,
      `the chain recorded other commitments under ${short(key)} than the report's public signals`,
    );
    const tx = await ctx.attestationTx();
    expect(tx.status === "success", `attestation ${short(tx.hash)} reverted`);
    expect(same(tx.to, address), `attestation ${short(tx.hash)} was not sent to the attestor`);
    expect(
      same(tx.from, report.signer),
      `attestation sent by ${tx.from}, not by the report's signer`,
    );
    const event = tx.events.find((e) => e.event === "ExecutionAttested");
    const slots = await ctx.variant();
    expect(
      event?.event === "ExecutionAttested" &&
        same(event.execution_id, key) &&
        event.workflow_commitment === workflow &&
        event.execution_commitment === execution &&
        event.slots === slots,
      `attestation ${short(tx.hash)} emitted no ExecutionAttested for these commitments`,
    );
    return `attested under ${short(key)} in block ${tx.block_number} of chain ${tx.chain_id} (${slots}-slot variant); commitments equal the public signals`;
  });

  void run("commitments", "commitments", async () => {
    const claim = ctx.claim();
    const [workflow, execution, id] = ctx.publicSignals();
    const slots = await ctx.variant();
    const computed = await computeCommitments(claim, slots);
    expect(
      computed.executionId.toString() === id &&
        id === executionIdSignal(report.execution_id).toString(),
      "the proof's execution id signal is not this execution's",
    );
    expect(
      computed.workflowCommitment.toString() === workflow,
      "the claim rebuilt from the report does not open the workflow commitment",
    );
    expect(
      computed.executionCommitment.toString() === execution,
      "the claim rebuilt from the report does not open the execution commitment",
    );
    return `claim rebuilt from the workflow, the receipt's salt and ${claim.actions.length} chain-read actions opens both commitments (${slots}-slot variant); the id signal is this execution's`;
  });

  void run("constraints", "constraints", async () => {
    assertClaimHonoured(encodeClaim(ctx.claim(), await ctx.variant()));
    return "every constraint family holds (slippage floor, bridge fee cap, multisend sums)";
  });

  void run("transactions", "transactions", async () => {
    const all = await ctx.allEvidence();
    const attestation = await ctx.attestationTx();
    const account = ctx.account();
    for (const tx of all) {
      expect(
        tx.status === "success",
        `${tx.kind} ${short(tx.hash)} on chain ${tx.chain_id} reverted`,
      );
      const operator = tx.kind === "bridge-release";
      if (!operator)
        expect(
          same(tx.from, account),
          `${tx.kind} ${short(tx.hash)} was sent by ${tx.from}, not by the execution's account ${account}`,
        );
      // On the attestation's chain, block order decides. Another chain has its own clock (a
      // devnet's runs ahead when it mines several blocks a second), so its block time may exceed
      // the attestation's by at most CROSS_CHAIN_CLOCK_SKEW_S.
      expect(
        tx.chain_id === attestation.chain_id
          ? tx.block_number < attestation.block_number
          : tx.block_timestamp <= attestation.block_timestamp + CROSS_CHAIN_CLOCK_SKEW_S,
        `${tx.kind} ${short(tx.hash)} was mined after the attestation`,
      );
    }
    return `${all.length} transactions found, successful, sent by ${account} (releases by the bridge attester), mined before the attestation`;
  });

  // In order: an action's input is what the previous one yielded on chain.
  const outputs: bigint[] = [];
  let previous: Promise<void> = Promise.resolve();
  for (const action of report.actions) {
    if (action.state !== "completed") continue;
    const after = previous;
    previous = run(`action[${action.index}]`, "action", async () => {
      await after;
      return ctx.checkAction(action, outputs);
    });
    if (action.type === "bridge")
      void run(`bridge[${action.index}]`, "bridge", () => ctx.checkBridgePairing(action));
  }

  for (const [n, interaction] of (report.api_interactions ?? []).entries()) {
    void run(`interaction[${n}]`, "interaction", async () => {
      const chain = ctx.chainById(interaction.chain_id);
      const entry = chain.deployment.contracts[REGISTRY];
      expect(entry !== undefined, `no ${REGISTRY} deployed on chain ${chain.chainId}`);
      const registry = new Contract(entry.address, chain.abi(REGISTRY), chain.provider);
      const verified = await verifyInteractionOnChain(registry, {
        ...interaction,
        batch: interaction.batch ?? null,
      });
      expect(verified.valid, verified.reason ?? "not verified");
      return `${interaction.mode} interaction anchored in ${REGISTRY} ${entry.address}`;
    });
  }

  const listed = report.analyses ?? [];
  if (listed.length > 0) {
    // Registered last: the checks above keep their slots.
    pending.push(
      analysisChecks(listed, options.analyses, env.chains, report.signer).then((found) => {
        checks.push(...found);
      }),
    );
  }

  await Promise.all(pending);
  return {
    ok: checks.every((c) => c.ok),
    outcome: checks.some((c) => c.status === "fail")
      ? "fail"
      : checks.every((c) => c.ok)
        ? "pass"
        : "incomplete",
    execution_id: report.execution_id,
    cid: report.artifact_id,
    checks,
  };
}

const silentLogger = { info() {}, debug() {}, warn() {}, error() {} };

/** Every field a receipt carries; two receipts of one execution must agree on all of them. */
const RECEIPT_FIELDS = [
  "execution_id",
  "api_key_id",
  "submitted_at",
  "workflow_commitment",
  "salt",
  "domain",
  "signer",
  "signature",
] as const satisfies readonly (keyof SubmissionReceipt)[];

/** An action result as the report carries it (read field by field, every field checked). */
type Result = Record<string, unknown>;

/** Per-report state of an audit: chains by id, receipts read once. */
class AuditContext {
  private readonly evidence = new Map<string, Promise<TxEvidence>>();

  private readonly report: AuditedReport;
  private readonly env: AuditEnvironment;

  constructor(report: AuditedReport, env: AuditEnvironment) {
    this.report = report;
    this.env = env;
  }

  chainById(chainId: number): EvidenceChain {
    const chain = this.env.chains.find((c) => c.chainId === chainId);
    if (!chain) throw new Mismatch(`chain ${chainId} is not among the auditor's chains`);
    return chain;
  }

  chainByName(name: string): EvidenceChain {
    const chain = this.env.chains.find((c) => c.name === name);
    if (!chain) throw new Mismatch(`chain ${name} is not among the auditor's chains`);
    return chain;
  }

  /** The chain holding the attestation (the relayer's home chain). */
  home(): EvidenceChain {
    const id = this.report.attestation?.chain_id ?? this.report.relayer?.chain_id;
    if (id === undefined) throw new Mismatch("the report names no attestation chain");
    return this.chainById(id);
  }

  /**
   * The receipt's EIP-712 signature recovers to its `signer`, under the domain of the auditor's
   * attestor, and that key holds ATTESTER_ROLE there (read on chain). Returns the signer.
   */
  async relayerSigned(receipt: AuditedReceipt, what: string): Promise<string> {
    let recovered: string;
    try {
      recovered = receiptSigner(receipt as SubmissionReceipt);
    } catch {
      throw new Mismatch(`${what}'s EIP-712 signature does not recover`);
    }
    expect(
      same(recovered, receipt.signer),
      `${what} signed by ${recovered}, not by ${receipt.signer}`,
    );
    const home = this.home();
    const attestor = this.attestor();
    const address = await attestor.getAddress();
    expect(
      receipt.domain.chainId === home.chainId && same(receipt.domain.verifyingContract, address),
      `${what}'s domain (chain ${receipt.domain.chainId}, ${receipt.domain.verifyingContract}) is not the attestor ${address} on chain ${home.chainId}`,
    );
    const role = (await attestor.getFunction("ATTESTER_ROLE")()) as string;
    expect(
      (await attestor.getFunction("hasRole")(role, recovered)) as boolean,
      `${what}'s signer ${recovered} holds no ATTESTER_ROLE on ${ATTESTOR} ${address}`,
    );
    return recovered;
  }

  /** The attestor of the auditor's deployment (never the address the report names). */
  attestor(): Contract {
    const chain = this.home();
    const entry = chain.deployment.contracts[ATTESTOR];
    if (!entry) throw new Mismatch(`no ${ATTESTOR} deployed on chain ${chain.chainId}`);
    return new Contract(entry.address, chain.abi(ATTESTOR), chain.provider);
  }

  private attestedVariant: Promise<ExecutionVariant> | undefined;

  /**
   * The circuit variant the chain recorded the attestation under (`getAttestation(key).slots`):
   * the proof, the verifier and the commitments are checked as that variant's.
   */
  variant(): Promise<ExecutionVariant> {
    this.attestedVariant ??= (async () => {
      const attestor = this.attestor();
      const key = executionIdToBytes32(this.report.execution_id);
      expect(
        (await attestor.getFunction("isAttested")(key)) as boolean,
        `nothing attested under ${key}`,
      );
      const { slots } = (await attestor.getFunction("getAttestation")(key)) as { slots: bigint };
      const variant = Number(slots);
      expect(
        isExecutionVariant(variant),
        `the attestation names a ${variant}-slot circuit, which this repository does not have`,
      );
      return variant;
    })();
    return this.attestedVariant;
  }

  /** [workflowCommitment, executionCommitment, executionId] (relayer/proofs PUBLIC_SIGNALS). */
  publicSignals(): [string, string, string] {
    const signals = this.report.public_signals;
    expect(Array.isArray(signals) && signals.length === 3, "the report carries no public signals");
    return [signals[0]!, signals[1]!, signals[2]!];
  }

  account(): string {
    const account = this.report.evidence?.account;
    expect(typeof account === "string", "the report names no execution account (evidence.account)");
    return getAddress(account);
  }

  read(ref: TxRef): Promise<TxEvidence> {
    const key = `${ref.chain_id}:${ref.hash.toLowerCase()}`;
    let found = this.evidence.get(key);
    if (!found) {
      found = transactionEvidence(this.env.chains, ref).catch((err: unknown) => {
        throw new Mismatch((err as Error).message);
      });
      this.evidence.set(key, found);
    }
    return found;
  }

  attestationTx(): Promise<TxEvidence> {
    const att = this.report.attestation;
    expect(att != null, "the report carries no attestation");
    return this.read({
      action_index: null,
      kind: "attest",
      chain_id: att.chain_id,
      hash: att.tx_hash,
    });
  }

  /** Every transaction of every completed action, from the chain. */
  allEvidence(): Promise<TxEvidence[]> {
    return Promise.all(
      this.completed().flatMap((a) =>
        (a.result?.txs ?? []).map((t) =>
          this.read({ action_index: a.index, kind: t.kind, chain_id: t.chainId, hash: t.hash }),
        ),
      ),
    );
  }

  completed(): AuditedAction[] {
    return this.report.actions.filter((a) => a.state === "completed");
  }

  decimalsOf = (chainName: string, asset: string): number => {
    const token = this.chainByName(chainName).deployment.tokens[asset];
    if (!token) throw new Mismatch(`no token ${asset} on ${chainName}`);
    return token.decimals;
  };

  /** The execution claim rebuilt from the report's workflow, receipt salt and claim. */
  claim(): ExecutionClaim {
    const { report } = this;
    expect(report.receipt?.salt != null, "the report carries no submission receipt (salt)");
    expect(report.claim != null, "the report carries no claim");
    expect(
      report.actions.length === report.workflow.actions.length,
      `the report lists ${report.actions.length} actions, its workflow ${report.workflow.actions.length}`,
    );
    const claimed = report.claim as ReportedClaim;
    expect(
      claimed.actions.length === report.actions.length,
      `the claim lists ${claimed.actions.length} actions, the report ${report.actions.length}`,
    );
    // The proved claim must be what the action results say (which the action checks compare
    // with the chain): otherwise a proof of other amounts would pass beside genuine results.
    for (const action of report.actions)
      this.expectClaimedAsResult(action, claimed.actions[action.index]!);
    return claimFromReport({
      execution_id: report.execution_id,
      workflow: report.workflow as unknown as ExecutionClaim["workflow"],
      receipt: { salt: report.receipt.salt },
      claim: claimed,
    });
  }

  private expectClaimedAsResult(action: AuditedAction, claimed: ReportedClaim["actions"][number]) {
    const r = action.result as Record<string, unknown> | null;
    expect(r !== null && action.state === "completed", `action ${action.index} did not complete`);
    const chain = String(r.chain);
    const units = (value: unknown, on: string, asset: unknown) =>
      parseUnits(String(value), this.decimalsOf(on, String(asset))).toString();
    const last = (kind: string) =>
      [...(action.result?.txs ?? [])]
        .reverse()
        .find((t) => t.kind === kind && t.status === "confirmed")?.hash;
    let expected: Record<string, unknown>;
    if (action.type === "swap" || action.type === "convert") {
      expected = {
        amount_in: units(r.amount_in, chain, r.from),
        amount_out: units(r.amount_out, chain, r.to),
        quoted_out: units(r.quoted_out, chain, r.to),
        tx_hashes: [last("swap")],
      };
    } else if (action.type === "bridge") {
      expected = {
        amount_in: units(r.amount_in, chain, r.asset),
        amount_out: units(r.amount_out, String(r.destination), r.asset),
        fee_cap: units(r.max_fee, chain, r.asset),
        tx_hashes: [r.src_tx, r.dest_tx],
      };
    } else {
      const recipients = (r.recipients ?? []) as Array<{ amount: string }>;
      // recipients_from: one slot whose one recipient amount is the payout's total.
      const fromOrders = this.workflowAction(action).recipientsFrom !== undefined;
      expected = {
        amount_in: units(r.total, chain, r.asset),
        recipient_amounts: fromOrders
          ? [units(r.total, chain, r.asset)]
          : recipients.map((x) => units(x.amount, chain, r.asset)),
        tx_hashes: [last("multisend")],
      };
    }
    for (const [field, value] of Object.entries(expected)) {
      expect(
        JSON.stringify((claimed as Record<string, unknown>)[field]) === JSON.stringify(value),
        `action ${action.index}: the claim's ${field} is not the action result's`,
      );
    }
  }

  private txOf(action: AuditedAction, kind: string): Promise<TxEvidence> {
    const record = [...(action.result?.txs ?? [])].reverse().find((t) => t.kind === kind);
    expect(record !== undefined, `action ${action.index} lists no ${kind} transaction`);
    return this.read({
      action_index: action.index,
      kind,
      chain_id: record.chainId,
      hash: record.hash,
    });
  }

  /**
   * A `recipients_from` multisend's orders as the report's `orders.used` gives them, checked: the
   * response as received hashes to its interaction's `response_hash` (which `interaction[n]`
   * verifies on chain), and the orders re-derived from it with the workflow's descriptor are the
   * report's, in order. They are what the multisend must have paid.
   */
  private anchoredOrders(
    action: AuditedAction,
    spec: OrdersDescriptor,
  ): Array<{ address: string; amount: { kind: string; amount?: string; bps?: number } }> {
    const orders = (this.report as { orders?: { used?: unknown[] } }).orders;
    const used = (orders?.used ?? []) as Array<{
      action_index: number;
      interaction_id: number;
      response: string | null;
      response_hash: string | null;
      orders: Array<{ id: string; address: string; amount: string }>;
    }>;
    const entry = used.find((u) => u.action_index === action.index);
    expect(entry !== undefined, `multisend ${action.index} has no orders in the report`);
    expect(
      typeof entry.response === "string" &&
        keccak256(toUtf8Bytes(entry.response)) === entry.response_hash,
      `multisend ${action.index}: the orders' response does not hash to its response_hash`,
    );
    const interaction = (this.report.api_interactions ?? []).find(
      (i) => Number((i as { id?: unknown }).id) === entry.interaction_id,
    ) as { response_hash?: string } | undefined;
    expect(
      interaction !== undefined && interaction.response_hash === entry.response_hash,
      `multisend ${action.index}: the orders' interaction ${entry.interaction_id} is not the report's anchored interaction`,
    );
    let records: Array<Record<string, unknown>> = [];
    try {
      records = (JSON.parse(entry.response!) as { data: Array<Record<string, unknown>> }).data;
    } catch {
      expect(false, `multisend ${action.index}: the orders' response is not JSON`);
    }
    expect(
      Array.isArray(records) &&
        records.length === entry.orders.length &&
        records.every((rec, i) => {
          const o = entry.orders[i]!;
          return (
            String(rec[spec.id ?? "id"]) === o.id &&
            same(String(rec[spec.address]), o.address) &&
            String(rec[spec.amount]) === o.amount
          );
        }),
      `multisend ${action.index}: the report's orders are not the anchored answer's`,
    );
    return entry.orders.map((o) => ({
      address: o.address,
      amount: { kind: "absolute", amount: o.amount },
    }));
  }

  private workflowAction(action: AuditedAction): Record<string, unknown> {
    const submitted = this.report.workflow.actions.find((w) => w.index === action.index);
    expect(submitted !== undefined, `the workflow has no action ${action.index}`);
    expect(
      submitted.type === action.type,
      `action ${action.index} is a ${action.type}, the workflow's a ${submitted.type}`,
    );
    return submitted;
  }

  /** The amount an action started from: the workflow's, or what the previous action yielded on chain. */
  private inputAmount(
    action: AuditedAction,
    outputs: readonly bigint[],
    chain: string,
    asset: string,
  ): bigint | null {
    const submitted = this.workflowAction(action);
    if (typeof submitted.amount === "string")
      return parseUnits(submitted.amount, this.decimalsOf(chain, asset));
    return action.index > 0 ? (outputs[action.index - 1] ?? null) : null;
  }

  /**
   * The amount an action's result says it took in (`amount_in`, in units of `asset`), which must be
   * what the workflow gave it when that is known (`expectedIn`, null when it is not).
   */
  private takenIn(
    action: AuditedAction,
    r: Result,
    outputs: readonly bigint[],
    chain: string,
    asset: string,
  ): { amountIn: bigint; expectedIn: bigint | null } {
    const amountIn = parseUnits(String(r.amount_in), this.decimalsOf(chain, asset));
    const expectedIn = this.inputAmount(action, outputs, chain, asset);
    if (expectedIn !== null)
      expect(
        amountIn === expectedIn,
        `${action.type} ${action.index} took in ${amountIn}, the workflow gave it ${expectedIn}`,
      );
    return { amountIn, expectedIn };
  }

  /**
   * The action's transactions decoded from the chain agree with its result (what the claim is
   * built from) and with the submitted workflow; records what it yielded for the next action.
   */
  async checkAction(action: AuditedAction, outputs: bigint[]): Promise<string> {
    const submitted = this.workflowAction(action);
    const r = action.result as unknown as Result;
    expect(r != null, `action ${action.index} has no result`);
    const chain = this.chainByName(String(action.chain));
    const account = this.account();
    const tokenAddress = (c: EvidenceChain, symbol: string) => {
      const token = c.deployment.tokens[symbol];
      if (!token) throw new Mismatch(`no token ${symbol} on ${c.name}`);
      return token.address;
    };
    const transfers = (tx: TxEvidence) =>
      tx.events.filter(
        (e): e is Extract<EvidenceEvent, { event: "Transfer" }> => e.event === "Transfer",
      );

    if (action.type === "swap" || action.type === "convert") {
      const from = String(r.from);
      const to = String(r.to);
      for (const [field, value] of [
        ["from", from],
        ["to", to],
      ] as const)
        if (typeof submitted[field] === "string")
          expect(
            submitted[field] === value,
            `action ${action.index} ${field} ${value}, the workflow's ${String(submitted[field])}`,
          );
      expect(
        Number(r.slippage_bps) === Number(submitted.slippageBps),
        `action ${action.index} slippage ${String(r.slippage_bps)} bps, the workflow's ${String(submitted.slippageBps)} bps`,
      );
      const amountOut = parseUnits(String(r.amount_out), this.decimalsOf(chain.name, to));
      const { amountIn, expectedIn } = this.takenIn(action, r, outputs, chain.name, from);
      const tx = await this.txOf(action, "swap");
      expect(
        tx.chain_id === chain.chainId,
        `swap ${short(tx.hash)} is on chain ${tx.chain_id}, not ${chain.name}`,
      );
      const exchange = chain.deployment.exchanges[String(r.exchange)];
      expect(
        exchange !== undefined && same(tx.to, exchange.router),
        `swap ${short(tx.hash)} did not call the ${String(r.exchange)} router`,
      );
      expect(
        tx.events.some((e) => e.event === "Swap"),
        `swap ${short(tx.hash)} emitted no Uniswap V2 Swap`,
      );
      const paid = transfers(tx).find(
        (e) => same(e.address, tokenAddress(chain, from)) && same(e.from, account),
      );
      expect(
        paid?.value === amountIn.toString(),
        `swap ${short(tx.hash)} moved ${paid?.value ?? "no"} ${from} from the account, the report says ${amountIn}`,
      );
      const recipient = getAddress(String(r.recipient ?? account));
      const got = transfers(tx)
        .filter((e) => same(e.address, tokenAddress(chain, to)) && same(e.to, recipient))
        .at(-1);
      expect(
        got?.value === amountOut.toString(),
        `swap ${short(tx.hash)} paid ${got?.value ?? "no"} ${to} to ${recipient}, the report says ${amountOut}`,
      );
      expect(
        same(recipient, account),
        `swap ${short(tx.hash)} paid ${recipient}, not the execution's account`,
      );
      outputs[action.index] = amountOut;
      const input = expectedIn === null ? "" : `, amount in as the workflow gave it`;
      return `${action.type} ${from}→${to} on ${chain.name}: Transfer ${amountIn} in, Swap, Transfer ${amountOut} out to the account; slippage ${String(r.slippage_bps)} bps as submitted${input}`;
    }

    if (action.type === "bridge") {
      const asset = String(r.asset);
      expect(
        submitted.destination === r.destination,
        `bridge ${action.index} went to ${String(r.destination)}, the workflow's ${String(submitted.destination)}`,
      );
      expect(
        (submitted.protocol ?? "lockmint") === r.protocol,
        `bridge ${action.index} used ${String(r.protocol)}, the workflow's ${String(submitted.protocol)}`,
      );
      const { amountIn } = this.takenIn(action, r, outputs, chain.name, asset);
      const deposit = await this.txOf(action, "bridge-deposit");
      const event = deposit.events.find((e) => e.event === "Deposited");
      expect(event?.event === "Deposited", `deposit ${short(deposit.hash)} emitted no Deposited`);
      const gross = BigInt(event.amount) + BigInt(event.fee);
      expect(
        gross === amountIn,
        `deposit ${short(deposit.hash)} took ${gross} (net ${event.amount} + fee ${event.fee}), the report says ${amountIn}`,
      );
      const locked = transfers(deposit).find(
        (e) => same(e.from, account) && same(e.to, event.address),
      );
      expect(
        locked?.value === amountIn.toString() && same(locked.address, tokenAddress(chain, asset)),
        `deposit ${short(deposit.hash)} moved ${locked?.value ?? "no"} ${asset} from the account to the bridge, the report says ${amountIn}`,
      );
      expect(
        same(event.sender, account) && same(event.recipient, account),
        `deposit ${short(deposit.hash)} is not from and to the execution's account`,
      );
      expect(
        same(event.token, tokenAddress(chain, asset)),
        `deposit ${short(deposit.hash)} locked another token than ${asset}`,
      );
      const destination = this.chainByName(String(r.destination));
      expect(
        event.destination_chain_id === destination.chainId,
        `deposit ${short(deposit.hash)} is bound for chain ${event.destination_chain_id}, not ${destination.name}`,
      );
      const maxFee = parseUnits(String(r.max_fee), this.decimalsOf(chain.name, asset));
      expect(
        BigInt(event.fee) <= maxFee,
        `deposit ${short(deposit.hash)} paid fee ${event.fee} over the cap ${maxFee}`,
      );
      const amountOut = parseUnits(String(r.amount_out), this.decimalsOf(destination.name, asset));
      outputs[action.index] = amountOut;
      return `bridge ${asset} ${chain.name}→${destination.name}: Transfer ${amountIn} to the bridge, Deposited net ${event.amount} + fee ${event.fee} (cap ${maxFee}), nonce ${event.nonce}`;
    }

    if (action.type === "multisend") {
      const asset = String(r.asset);
      const recipients =
        (r.recipients as Array<{ address: string; amount: string }> | undefined) ?? [];
      const wanted =
        submitted.recipientsFrom !== undefined
          ? this.anchoredOrders(action, submitted.recipientsFrom as OrdersDescriptor)
          : ((submitted.recipients as
              | Array<{ address: string; amount: { kind: string; amount?: string; bps?: number } }>
              | undefined) ?? []);
      const decimals = this.decimalsOf(chain.name, asset);
      const input = this.inputAmount(action, outputs, chain.name, asset);
      expect(
        recipients.length === wanted.length,
        `multisend ${action.index} paid ${recipients.length} recipients, the workflow names ${wanted.length}`,
      );
      wanted.forEach((w, i) => {
        const paid = recipients[i]!;
        expect(
          same(paid.address, w.address),
          `multisend ${action.index} recipient ${i} is ${paid.address}, the workflow's ${w.address}`,
        );
        const amount = parseUnits(paid.amount, decimals);
        const due =
          w.amount.kind === "percent"
            ? input === null
              ? null
              : (input * BigInt(w.amount.bps ?? 0)) / 10_000n
            : parseUnits(String(w.amount.amount), decimals);
        if (due !== null)
          expect(
            amount === due,
            `multisend ${action.index} recipient ${i} got ${amount}, the workflow's share is ${due}`,
          );
      });
      const tx = await this.txOf(action, "multisend");
      expect(
        tx.chain_id === chain.chainId,
        `multisend ${short(tx.hash)} is on chain ${tx.chain_id}, not ${chain.name}`,
      );
      const contract = chain.deployment.contracts.Multisend;
      expect(
        contract !== undefined && same(tx.to, contract.address),
        `multisend ${short(tx.hash)} did not call the Multisend contract`,
      );
      const sent = transfers(tx).filter(
        (e) => same(e.address, tokenAddress(chain, asset)) && same(e.from, account),
      );
      expect(
        sent.length === recipients.length,
        `multisend ${short(tx.hash)} made ${sent.length} transfers, the report lists ${recipients.length}`,
      );
      recipients.forEach((paid, i) => {
        const amount = parseUnits(paid.amount, decimals).toString();
        expect(
          same(sent[i]!.to, paid.address) && sent[i]!.value === amount,
          `multisend ${short(tx.hash)} transfer ${i} paid ${sent[i]!.value} to ${sent[i]!.to}, the report says ${amount} to ${paid.address}`,
        );
      });
      const total = parseUnits(String(r.total), decimals);
      if (input !== null) outputs[action.index] = input > total ? input - total : 0n;
      return `multisend ${asset} on ${chain.name}: ${recipients.length} Transfers from the account equal the report's and the workflow's recipients`;
    }
    throw new Mismatch(`unknown action type ${action.type}`);
  }

  /** The deposit's release on the destination: same nonce, amount minus fee, by the bridge attester. */
  async checkBridgePairing(action: AuditedAction): Promise<string> {
    const r = action.result as unknown as Result;
    const source = this.chainByName(String(action.chain));
    const destination = this.chainByName(String(r.destination));
    const deposit = await this.txOf(action, "bridge-deposit");
    const locked = deposit.events.find((e) => e.event === "Deposited");
    expect(locked?.event === "Deposited", `deposit ${short(deposit.hash)} emitted no Deposited`);
    const release = await this.txOf(action, "bridge-release");
    expect(
      release.chain_id === destination.chainId,
      `release ${short(release.hash)} is on chain ${release.chain_id}, not ${destination.name}`,
    );
    const released = release.events.find((e) => e.event === "Released");
    expect(released?.event === "Released", `release ${short(release.hash)} emitted no Released`);
    const info = lockMintInfo(destination.deployment);
    expect(info !== undefined, `no lockmint bridge on ${destination.name}`);
    expect(
      same(released.address, info.address),
      `release ${short(release.hash)} came from ${released.address}, not ${destination.name}'s bridge`,
    );
    expect(
      same(info.peers[String(source.chainId)], locked.address),
      `the deposit's bridge ${locked.address} is not ${destination.name}'s peer on ${source.name}`,
    );
    expect(
      released.source_chain_id === source.chainId && released.nonce === locked.nonce,
      `release ${short(release.hash)} pays deposit ${released.source_chain_id}/${released.nonce}, not ${source.chainId}/${locked.nonce}`,
    );
    // Deposited.amount is already net of the fee (the gross amount is amount + fee).
    expect(
      released.amount === locked.amount,
      `released ${released.amount}, the deposit minus fee is ${locked.amount}`,
    );
    expect(
      same(released.recipient, locked.recipient) && same(released.token, locked.remote_token),
      `release ${short(release.hash)} paid another recipient or token than the deposit named`,
    );
    expect(
      same(release.from, info.attester) && same(released.attester, info.attester),
      `release ${short(release.hash)} was not sent by the bridge attester ${info.attester}`,
    );
    const amountOut = parseUnits(
      String(r.amount_out),
      this.decimalsOf(destination.name, String(r.asset)),
    );
    expect(
      released.amount === amountOut.toString(),
      `released ${released.amount}, the report says ${amountOut}`,
    );
    return `deposit nonce ${locked.nonce} on ${source.name} released on ${destination.name} by the bridge attester: ${released.amount} = ${BigInt(locked.amount) + BigInt(locked.fee)} − fee ${locked.fee}`;
  }
}
