import { expect } from "chai";
import { Wallet, ZeroAddress } from "ethers";
import {
  ExecutionClaimError,
  checkReceipt,
  claimFromReport,
  computeCommitments,
  issueReceipt,
  receiptSigner,
  receiptSignerFor,
  toReportedClaim,
  type ReceiptSigner,
  type SubmissionReceipt,
} from "../../relayer/proofs/index.ts";
import { sampleClaim, sampleWorkflow } from "./fixtures.ts";

const relayer: ReceiptSigner = receiptSignerFor(new Wallet("0x" + "11".repeat(32)), {
  name: "Veriflow",
  version: "1",
  chainId: 31337,
  verifyingContract: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
});

function issue(workflow = sampleWorkflow()): Promise<SubmissionReceipt> {
  return issueReceipt(
    { executionId: "wf_receipt_1", apiKeyId: "key_1", workflow, at: new Date(1_700_000_000_123) },
    relayer,
  );
}

describe("# submission receipt", () => {
  it("should be signed by the relayer over the workflow commitment under a fresh salt", async () => {
    const receipt = await issue();
    expect(receipt).to.include({
      execution_id: "wf_receipt_1",
      api_key_id: "key_1",
      submitted_at: "2023-11-14T22:13:20.123Z",
      signer: relayer.signer instanceof Wallet ? relayer.signer.address : "",
    });
    expect(receiptSigner(receipt)).to.equal(receipt.signer);
    expect(await checkReceipt(receipt, sampleWorkflow())).to.deep.equal({
      signatureValid: true,
      recoveredSigner: receipt.signer,
      commitmentMatches: true,
    });
    const again = await issue();
    expect(again.salt).to.not.equal(receipt.salt);
    expect(again.workflow_commitment).to.not.equal(receipt.workflow_commitment);
  });

  it("should carry the commitment the proof must reproduce (public signal 0)", async () => {
    const receipt = await issue();
    const claim = { ...sampleClaim("wf_receipt_1"), salt: receipt.salt };
    const { workflowCommitment } = await computeCommitments(claim);
    expect(workflowCommitment.toString()).to.equal(receipt.workflow_commitment);
  });

  it("should not open for another workflow", async () => {
    const receipt = await issue();
    const other = sampleWorkflow();
    (
      other.actions[3] as unknown as { recipients: Array<{ address: string }> }
    ).recipients[0]!.address = "0x000000000000000000000000000000000000dEaD";
    expect((await checkReceipt(receipt, other)).commitmentMatches).to.equal(false);
    const reordered = sampleWorkflow();
    reordered.actions = [...reordered.actions].reverse();
    expect((await checkReceipt(receipt, reordered)).commitmentMatches).to.equal(false);
  });

  it("should fail the signature check when any signed field changes", async () => {
    const receipt = await issue();
    const changes: Array<Partial<SubmissionReceipt>> = [
      { execution_id: "wf_receipt_2" },
      { api_key_id: "key_2" },
      { submitted_at: "2023-11-14T22:13:20.124Z" },
      { workflow_commitment: (BigInt(receipt.workflow_commitment) + 1n).toString() },
      { salt: "1" },
      { domain: { ...receipt.domain, chainId: 1 } },
      { domain: { ...receipt.domain, verifyingContract: ZeroAddress } },
      { signer: ZeroAddress },
    ];
    for (const change of changes) {
      const check = await checkReceipt({ ...receipt, ...change }, sampleWorkflow());
      expect(check.signatureValid, JSON.stringify(change)).to.equal(false);
    }
    const garbage = await checkReceipt({ ...receipt, signature: "0x1234" }, sampleWorkflow());
    expect(garbage).to.include({ signatureValid: false, recoveredSigner: null });
  });

  it("should refuse a workflow the circuit cannot prove", async () => {
    const workflow = sampleWorkflow();
    workflow.actions = Array.from({ length: 9 }, () => workflow.actions[0]!);
    let error: unknown;
    try {
      await issue(workflow);
    } catch (err) {
      error = err;
    }
    expect(error).to.be.instanceOf(ExecutionClaimError);
    expect((error as ExecutionClaimError).family).to.equal("capacity");
  });
});

describe("# claim from a report", () => {
  it("should rebuild the claim and recompute the same public signals", async () => {
    const claim = sampleClaim("wf_report_1");
    const report = {
      execution_id: "wf_report_1",
      workflow: claim.workflow,
      receipt: { salt: String(claim.salt) },
      claim: JSON.parse(JSON.stringify(toReportedClaim(claim.actions))),
    };
    const rebuilt = claimFromReport(report);
    expect(await computeCommitments(rebuilt)).to.deep.equal(await computeCommitments(claim));
    const tampered = structuredClone(report);
    tampered.claim.actions[0].amount_out = "2487500001";
    expect((await computeCommitments(claimFromReport(tampered))).executionCommitment).to.not.equal(
      (await computeCommitments(claim)).executionCommitment,
    );
  });
});
