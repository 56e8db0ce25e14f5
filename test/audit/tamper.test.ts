import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect } from "chai";
import { hexlify, randomBytes, Wallet } from "ethers";
import { serveChainsFile } from "../fixtures/rpc-bridge.ts";
import { auditReport, type AuditVerdict } from "../../relayer/audit/index.ts";
import type { SignedReport } from "../../relayer/report/report.ts";
import { openAuditWorld, type AuditWorld } from "../fixtures/audit-world.ts";
import { runAudit } from "../fixtures/cli.ts";

/**
 * The auditor on real chains: a genuine report passes every check; each forged report fails
 * with the check that catches it, including forgeries a dishonest relayer re-signs with its own
 * key (valid CID and signature, so only the chain can expose them).
 */

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const failed = (verdict: AuditVerdict) => verdict.checks.filter((c) => !c.ok).map((c) => c.id);

/** A decimal amount plus one unit in its last place (a minimal forgery). */
/** The report's claim of an action (base units, relayer/proofs/reported.ts). */
const claimed = (r: Json, index: number): Json => r.claim.actions[index];
const plusOne = (amount: string): string => (BigInt(amount) + 1n).toString();

function bump(amount: string): string {
  const [whole, fraction = ""] = amount.split(".");
  if (!fraction || /^0*$/.test(fraction)) return `${BigInt(whole!) + 1n}.0`;
  const digits = BigInt(whole! + fraction) + 1n;
  const text = digits.toString().padStart(fraction.length + 1, "0");
  return `${text.slice(0, -fraction.length)}.${text.slice(-fraction.length)}`;
}

describe("# auditor: genuine and forged reports (embedded devnet)", function () {
  this.timeout(600_000);
  let world: AuditWorld;
  let genuine: SignedReport;
  let other: SignedReport;

  before(async function () {
    world = await openAuditWorld();
    genuine = await world.execute("key_audit_a");
    other = await world.execute("key_audit_b", "2000");
  });
  after(async function () {
    await world?.close();
  });

  it("should pass every check of a genuine report, and of its GET /v1/workflows/{id} envelope", async function () {
    const verdict = await auditReport(genuine, world.env);
    expect(failed(verdict), JSON.stringify(verdict.checks, null, 1)).to.deep.equal([]);
    expect(verdict.ok).to.equal(true);
    expect(verdict.checks.map((c) => c.id)).to.include.members([
      "cid",
      "signature",
      "receipt",
      "proof",
      "verifier",
      "attestation",
      "commitments",
      "constraints",
      "transactions",
      "action[0]",
      "action[1]",
      "action[2]",
      "bridge[2]",
      "action[3]",
      "interaction[0]",
    ]);
    // Chained inputs are checked against what the previous action yielded on chain.
    for (const id of ["action[0]", "action[1]"])
      expect(verdict.checks.find((c) => c.id === id)!.reason).to.match(
        /amount in as the workflow gave it$/,
      );
    const envelope = {
      cid: genuine.artifact_id,
      signer: genuine.signer,
      signature: genuine.signature,
      report: genuine,
    };
    expect((await auditReport(envelope, world.env)).ok).to.equal(true);
    expect((await auditReport(other, world.env)).ok).to.equal(true);
  });

  it("should check the proof and the verifier of the variant the chain recorded, not another's", async function () {
    const verdict = await auditReport(genuine, world.env);
    const reason = (v: AuditVerdict, id: string) => v.checks.find((c) => c.id === id)!.reason;
    // the 4-action workflow is proved and attested with the 4-slot variant
    expect(reason(verdict, "verifier")).to.match(
      /^4-slot verifier 0x[0-9a-fA-F]{40} = Execution4Groth16Verifier/,
    );
    expect(reason(verdict, "proof")).to.match(/execution4\.vkey\.json/);
    // an auditor whose 4-slot key and bytecode are the 8-slot variant's catches both
    const { variants } = world.env;
    const swapped = { ...world.env, variants: { ...variants, 4: variants[8] } };
    const forged = await auditReport(genuine, swapped);
    expect(failed(forged)).to.have.members(["proof", "verifier"]);
    expect(reason(forged, "verifier")).to.match(
      /4-slot verifier .* is not Execution4Groth16Verifier/,
    );
  });

  it("should list in the report every committed transaction as the chain holds it, approvals included", async function () {
    const evidence = genuine.evidence as Json;
    const transactions = evidence.transactions as Json[];
    const listed = (genuine.actions as Json[]).flatMap((a) => a.result.txs as Json[]);
    expect(transactions.map((t) => t.hash)).to.deep.equal([
      ...listed.map((t) => t.hash),
      (genuine.attestation as Json).tx_hash,
    ]);
    expect(transactions.map((t) => t.kind)).to.include.members([
      "approve",
      "swap",
      "bridge-deposit",
      "bridge-release",
      "multisend",
      "attest",
    ]);
    for (const tx of transactions) {
      expect(tx.status).to.equal("success");
      expect(tx.block_number).to.be.a("number");
      const chain = world.engine.chains.byId(tx.chain_id);
      const receipt = await chain.provider.getTransactionReceipt(tx.hash);
      expect(receipt!.from).to.equal(tx.from);
      expect(receipt!.blockNumber).to.equal(tx.block_number);
    }
    const names = (kind: string) =>
      transactions
        .filter((t) => t.kind === kind)
        .flatMap((t) => (t.events as Json[]).map((e) => e.event));
    expect(names("approve")).to.include("Approval");
    expect(names("swap")).to.include.members(["Transfer", "Swap"]);
    expect(names("bridge-deposit")).to.include.members(["Transfer", "Deposited"]);
    expect(names("bridge-release")).to.include("Released");
    expect(names("multisend")).to.include.members(["Transfer", "Dispersed"]);
    expect(names("attest")).to.include("ExecutionAttested");
    expect(evidence.account).to.equal(transactions[0]!.from);
  });

  type Forgery = {
    name: string;
    /** Whether the forger re-signs it with the relayer's operator key (a dishonest relayer). */
    resign: boolean;
    forge(report: Json): void | Promise<void>;
    /** Checks that must fail. */
    caught: string[];
  };

  const action = (r: Json, index: number) => (r.actions as Json[])[index]!;
  const submitted = (r: Json, index: number) => (r.workflow.actions as Json[])[index]!;
  const txOf = (r: Json, index: number, kind: string) =>
    (action(r, index).result.txs as Json[]).find((t) => t.kind === kind)!;

  const forgeries: Forgery[] = [
    {
      name: "an amount changed without re-signing",
      resign: false,
      forge: (r) => void (action(r, 1).result.amount_out = bump(action(r, 1).result.amount_out)),
      caught: ["cid"],
    },
    {
      name: "re-signed by a key the chain does not recognise",
      resign: false,
      forge: async (r) => {
        const stranger = Wallet.createRandom();
        r.signer = stranger.address;
        r.signature = await stranger.signMessage(r.artifact_id);
      },
      caught: ["signature"],
    },
    {
      name: "a changed amount out",
      resign: true,
      forge: (r) => {
        action(r, 1).result.amount_out = bump(action(r, 1).result.amount_out);
        claimed(r, 1).amount_out = plusOne(claimed(r, 1).amount_out);
      },
      caught: ["commitments", "action[1]"],
    },
    {
      name: "a changed multisend recipient",
      resign: true,
      forge: (r) => {
        const forged = Wallet.createRandom().address;
        action(r, 3).result.recipients[1].address = forged;
        submitted(r, 3).recipients[1].address = forged;
      },
      caught: ["commitments", "action[3]"],
    },
    {
      name: "a changed amount paid to a recipient",
      resign: true,
      forge: (r) => {
        const paid = action(r, 3).result.recipients[0];
        paid.amount = bump(paid.amount);
        claimed(r, 3).recipient_amounts[0] = plusOne(claimed(r, 3).recipient_amounts[0]);
        claimed(r, 3).amount_in = plusOne(claimed(r, 3).amount_in);
      },
      caught: ["commitments", "action[3]"],
    },
    {
      name: "a swap hash replaced by a real transaction of another execution",
      resign: true,
      forge: (r) => {
        const theirs = txOf(other, 1, "swap").hash as string;
        const ours = txOf(r, 1, "swap");
        r.tx_hashes = (r.tx_hashes as string[]).map((h) => (h === ours.hash ? theirs : h));
        ours.hash = theirs;
        ours.chainId = txOf(other, 1, "swap").chainId;
        claimed(r, 1).tx_hashes = [theirs];
      },
      caught: ["commitments", "transactions", "action[1]"],
    },
    {
      name: "a claim that is not what its action results say",
      resign: true,
      forge: (r) => void (claimed(r, 1).amount_out = plusOne(claimed(r, 1).amount_out)),
      caught: ["commitments"],
    },
    {
      name: "a dropped action",
      resign: true,
      forge: (r) => {
        r.actions = (r.actions as Json[]).slice(0, 3);
        r.workflow.actions = (r.workflow.actions as Json[]).slice(0, 3);
      },
      caught: ["commitments"],
    },
    {
      name: "a changed slippage (workflow and result)",
      resign: true,
      forge: (r) => {
        submitted(r, 1).slippageBps = 5000;
        action(r, 1).result.slippage_bps = 5000;
      },
      caught: ["commitments"],
    },
    {
      name: "a changed quote",
      resign: true,
      forge: (r) => {
        action(r, 0).result.quoted_out = bump(action(r, 0).result.quoted_out);
        claimed(r, 0).quoted_out = plusOne(claimed(r, 0).quoted_out);
      },
      caught: ["commitments"],
    },
    {
      name: "another execution's proof, signals and attestation",
      resign: true,
      forge: (r) => {
        r.zk_proof = other.zk_proof;
        r.public_signals = other.public_signals;
        r.attestation = other.attestation;
      },
      caught: ["attestation", "commitments"],
    },
    {
      name: "another execution's proof and commitments under this execution's attestation",
      resign: true,
      forge: (r) => {
        r.zk_proof = other.zk_proof;
        r.public_signals = other.public_signals;
      },
      caught: ["attestation", "commitments"],
    },
    {
      name: "a different salt",
      resign: true,
      forge: (r) => {
        r.attestation.salt = plusOne(r.attestation.salt);
        r.receipt.salt = plusOne(r.receipt.salt);
      },
      caught: ["commitments"],
    },
    {
      name: "a bridge release that never happened",
      resign: true,
      forge: (r) => {
        const fake = hexlify(randomBytes(32));
        const release = txOf(r, 2, "bridge-release");
        r.tx_hashes = (r.tx_hashes as string[]).map((h) => (h === release.hash ? fake : h));
        action(r, 2).result.dest_tx = fake;
        release.hash = fake;
        claimed(r, 2).tx_hashes[1] = fake;
      },
      caught: ["commitments", "transactions", "bridge[2]"],
    },
    {
      name: "a submission receipt re-signed by a key that is not the relayer's",
      resign: true,
      forge: async (r) => {
        const stranger = Wallet.createRandom();
        r.receipt.signer = stranger.address;
        await world.signReceipt(r.receipt, stranger);
      },
      caught: ["receipt"],
    },
    {
      name: "a submission receipt whose workflow commitment was changed after signing",
      resign: true,
      forge: (r) => void (r.receipt.workflow_commitment = plusOne(r.receipt.workflow_commitment)),
      caught: ["receipt"],
    },
    {
      name: "another execution's submission receipt",
      resign: true,
      forge: (r) => void (r.receipt = structuredClone((other as Json).receipt)),
      caught: ["receipt", "commitments"],
    },
    {
      name: "an API interaction pointing at another registry",
      resign: true,
      forge: (r) => {
        const chain = world.engine.chains.byId(r.api_interactions[0].chain_id);
        r.api_interactions[0].registry = chain.deployment.contracts.CircuitBreakerGateway!.address;
      },
      caught: ["interaction[0]"],
    },
  ];

  for (const forgery of forgeries) {
    it(`should fail ${forgery.caught.join(", ")} on ${forgery.name}`, async function () {
      const copy = structuredClone(genuine) as Json;
      await forgery.forge(copy);
      const report = forgery.resign ? await world.resign(copy) : copy;
      const verdict = await auditReport(report, world.env);
      expect(verdict.ok).to.equal(false);
      expect(failed(verdict), JSON.stringify(verdict.checks, null, 1)).to.include.members(
        forgery.caught,
      );
      if (forgery.resign) {
        // The dishonest relayer's own key: CID and signature hold, the chain does not.
        expect(failed(verdict)).to.not.include("cid");
        expect(failed(verdict)).to.not.include("signature");
      }
    });
  }

  it("should fail the cid check on an envelope whose CID is not its report's", async function () {
    const envelope = {
      cid: other.artifact_id,
      signer: genuine.signer,
      signature: genuine.signature,
      report: genuine,
    };
    expect(failed(await auditReport(envelope, world.env))).to.deep.equal(["cid"]);
  });

  describe("# the receipt the client kept from the 202 (--receipt)", function () {
    /** The 202 body the client kept: the receipt as the relayer gave it at submission. */
    const accepted = () => ({
      status: "queued",
      execution_id: genuine.execution_id,
      receipt: structuredClone((genuine as Json).receipt),
    });

    it("should pass client-receipt when the report's receipt is the one given at submission", async function () {
      const verdict = await auditReport(genuine, world.env, { receipt: accepted() });
      expect(failed(verdict), JSON.stringify(verdict.checks, null, 1)).to.deep.equal([]);
      expect(verdict.checks.find((c) => c.id === "client-receipt")!.reason).to.match(
        /is the report's$/,
      );
      // The receipt alone is accepted too.
      const alone = await auditReport(genuine, world.env, { receipt: accepted().receipt });
      expect(alone.ok).to.equal(true);
    });

    it("should fail only client-receipt on a report whose receipt the relayer re-issued later", async function () {
      const later = new Date(Date.parse((genuine as Json).receipt.submitted_at) + 1).toISOString();
      const forged = await world.reissue(genuine, { submitted_at: later });
      // Without the client's copy every check holds: the re-issued receipt is validly signed.
      expect(failed(await auditReport(forged, world.env))).to.deep.equal([]);
      const verdict = await auditReport(forged, world.env, { receipt: accepted() });
      expect(failed(verdict)).to.deep.equal(["client-receipt"]);
      expect(verdict.checks.find((c) => c.id === "client-receipt")!.reason).to.match(
        /signed two receipts .* differs .* in submitted_at, signature$/,
      );
    });

    it("should fail client-receipt on a re-issued receipt committing to another salt", async function () {
      const forged = await world.reissue(genuine, {
        salt: plusOne((genuine as Json).receipt.salt),
      });
      const verdict = await auditReport(forged, world.env, { receipt: accepted() });
      expect(failed(verdict)).to.include.members(["client-receipt", "commitments"]);
      expect(verdict.checks.find((c) => c.id === "client-receipt")!.reason).to.match(
        /in salt, signature$/,
      );
    });

    it("should fail client-receipt on a client copy the relayer never signed, or of another execution", async function () {
      const stranger = Wallet.createRandom();
      const framed = accepted();
      framed.receipt.workflow_commitment = plusOne(framed.receipt.workflow_commitment);
      framed.receipt.signer = stranger.address;
      await world.signReceipt(framed.receipt, stranger);
      const verdict = await auditReport(genuine, world.env, { receipt: framed });
      expect(failed(verdict)).to.deep.equal(["client-receipt"]);
      expect(verdict.checks.find((c) => c.id === "client-receipt")!.reason).to.match(
        /holds no ATTESTER_ROLE/,
      );
      const tampered = accepted();
      tampered.receipt.salt = plusOne(tampered.receipt.salt);
      expect(failed(await auditReport(genuine, world.env, { receipt: tampered }))).to.deep.equal([
        "client-receipt",
      ]);
      const theirs = { receipt: structuredClone((other as Json).receipt) };
      const wrong = await auditReport(genuine, world.env, { receipt: theirs });
      expect(failed(wrong)).to.deep.equal(["client-receipt"]);
      expect(wrong.checks.find((c) => c.id === "client-receipt")!.reason).to.match(
        /the client's receipt is for wf_.*, the report for wf_/,
      );
    });

    it("should refuse a receipt file that is not a receipt (input error)", async function () {
      let error: unknown;
      await auditReport(genuine, world.env, { receipt: { hello: "world" } }).catch(
        (err: unknown) => (error = err),
      );
      expect((error as Error)?.message).to.match(/not a Veriflow submission receipt/);
    });
  });

  describe("# the audit command (npm run audit, veriflow-audit)", function () {
    let dir: string;
    let served: Awaited<ReturnType<typeof serveChainsFile>> | undefined;
    let chainsFile: string;

    const audit = (...args: string[]) => runAudit(args, process.env as Record<string, string>);

    before(async function () {
      dir = await mkdtemp(path.join(tmpdir(), "vf-audit-"));
      served = await serveChainsFile(world.engine.chains.list(), dir);
      chainsFile = served.file;
      await writeFile(
        path.join(dir, "envelope.json"),
        JSON.stringify({
          cid: genuine.artifact_id,
          signer: genuine.signer,
          signature: genuine.signature,
          report: genuine,
        }),
      );
      const forged = structuredClone(genuine) as Json;
      forged.attestation.salt = "1";
      forged.receipt.salt = "1";
      await writeFile(path.join(dir, "forged.json"), JSON.stringify(await world.resign(forged)));
      await writeFile(
        path.join(dir, "reissued.json"),
        JSON.stringify(await world.reissue(genuine)),
      );
      await writeFile(
        path.join(dir, "accepted.json"),
        JSON.stringify({ status: "queued", receipt: (genuine as Json).receipt }),
      );
    });
    after(async function () {
      await served?.close();
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    it("should print one PASS line per check and exit 0 on the genuine report envelope", async function () {
      const run = await audit(path.join(dir, "envelope.json"), "--chains", chainsFile);
      expect(run.code, run.stderr + run.stdout).to.equal(0);
      const lines = run.stdout.trim().split("\n");
      expect(lines.at(-1)).to.match(/^verdict: PASS: wf_/);
      expect(lines.slice(0, -1).every((l) => l.startsWith("PASS  "))).to.equal(true);
      expect(lines.some((l) => /^PASS {2}proof /.test(l))).to.equal(true);
    });

    it("should exit 1 naming the failing check on a forged report, and print the verdict as JSON with --json", async function () {
      const run = await audit(path.join(dir, "forged.json"), "--chains", chainsFile);
      expect(run.code).to.equal(1);
      expect(run.stdout).to.match(
        /^FAIL {2}commitments +the claim rebuilt from the report does not open/m,
      );
      expect(run.stdout.trim().split("\n").at(-1)).to.match(/^verdict: FAIL: /);
      const json = await audit(path.join(dir, "forged.json"), "--chains", chainsFile, "--json");
      expect(json.code).to.equal(1);
      const verdict = JSON.parse(json.stdout) as {
        ok: boolean;
        checks: { id: string; ok: boolean }[];
      };
      expect(verdict.ok).to.equal(false);
      expect(verdict.checks.find((c) => c.id === "commitments")!.ok).to.equal(false);
    });

    it("should exit 1 on a re-issued receipt with --receipt, 0 with the genuine report", async function () {
      const accepted = path.join(dir, "accepted.json");
      const run = await audit(
        path.join(dir, "reissued.json"),
        "--receipt",
        accepted,
        "--chains",
        chainsFile,
      );
      expect(run.code, run.stderr).to.equal(1);
      expect(run.stdout).to.match(/^FAIL {2}client-receipt +the relayer signed two receipts/m);
      const fine = await audit(
        path.join(dir, "envelope.json"),
        "--receipt",
        accepted,
        "--chains",
        chainsFile,
      );
      expect(fine.code, fine.stderr + fine.stdout).to.equal(0);
      expect(fine.stdout).to.match(/^PASS {2}client-receipt /m);
      const notReceipt = await audit(
        path.join(dir, "envelope.json"),
        "--receipt",
        path.join(dir, "envelope.json"),
        "--chains",
        chainsFile,
      );
      expect(notReceipt.code).to.equal(2);
      expect(notReceipt.stderr).to.match(/not a Veriflow submission receipt/);
    });

    it("should exit 2 on usage and input errors", async function () {
      expect((await audit()).code).to.equal(2);
      expect((await audit("a.json", "b.json")).code).to.equal(2);
      expect((await audit(path.join(dir, "envelope.json"), "--bogus")).code).to.equal(2);
      const missing = await audit(path.join(dir, "missing.json"), "--chains", chainsFile);
      expect(missing.code).to.equal(2);
      expect(missing.stderr).to.match(/cannot read/);
      await writeFile(path.join(dir, "not-a-report.json"), JSON.stringify({ hello: "world" }));
      const wrong = await audit(path.join(dir, "not-a-report.json"), "--chains", chainsFile);
      expect(wrong.code).to.equal(2);
      expect(wrong.stderr).to.match(/not a signed Veriflow execution report/);
      const badChains = await audit(
        path.join(dir, "envelope.json"),
        "--chains",
        path.join(dir, "envelope.json"),
      );
      expect(badChains.code).to.equal(2);
      expect(badChains.stderr).to.match(/invalid chains file/);
    });
  });
});
