import { execFile } from "node:child_process";
import { readFile, readdir } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { expect } from "chai";
import { Interface, ZeroHash, concat, keccak256 } from "ethers";
import { REPO_ROOT } from "../../relayer/proofs/circuits.ts";
import {
  committedTxHashes,
  encodeClaim,
  executionCircuitInput,
} from "../../relayer/proofs/claim.ts";
import {
  ATTEST_FUNCTION,
  ArtifactInputError,
  ExecutionClaimError,
  PROVER_NICENESS,
  ProverPool,
  ProverUnavailableError,
  artifactsRoot,
  closeProver,
  computeCommitments,
  executionIdToBytes32,
  loadCircuit,
  proveArtifacts,
  proveExecution,
  verifyArtifactInclusion,
  verifyArtifactsProof,
  verifyExecutionProof,
  type ExecutionClaim,
  type ExecutionProof,
} from "../../relayer/proofs/index.ts";
import { identityCid, jsonCid, sampleClaim } from "./fixtures.ts";

function withAction(claim: ExecutionClaim, index: number, patch: object): ExecutionClaim {
  const actions = claim.actions.map((a, i) => (i === index ? { ...a, ...patch } : a));
  return { ...claim, actions } as ExecutionClaim;
}

function withSubmitted(claim: ExecutionClaim, index: number, patch: object): ExecutionClaim {
  const actions = claim.workflow.actions.map((a, i) => (i === index ? { ...a, ...patch } : a));
  return { ...claim, workflow: { ...claim.workflow, actions } } as ExecutionClaim;
}

/** The sample's multisend with `count` recipients (percentages) and these amounts. */
function withRecipients(claim: ExecutionClaim, amounts: bigint[]): ExecutionClaim {
  const recipients = amounts.map((_, n) => ({
    address: "0x" + (n + 1).toString(16).padStart(40, "0"),
    amount: { kind: "percent", bps: 100 },
  }));
  const widened = withSubmitted(claim, 3, { recipients });
  return withAction(widened, 3, {
    amountIn: amounts.reduce((a, b) => a + b, 0n),
    recipientAmounts: amounts,
  });
}

async function expectClaimError(
  claim: ExecutionClaim,
  family: string,
  actionIndex: number | null,
): Promise<ExecutionClaimError> {
  let error: unknown;
  try {
    await proveExecution(claim);
  } catch (err) {
    error = err;
  }
  expect(error).to.be.instanceOf(ExecutionClaimError);
  const claimError = error as ExecutionClaimError;
  expect(claimError.family).to.equal(family);
  expect(claimError.actionIndex).to.equal(actionIndex);
  expect(claimError.status).to.equal(422);
  expect(claimError.toBody()).to.include({ error: "EXECUTION_CLAIM_INVALID", family });
  return claimError;
}

async function expectArtifactError(cids: string[], pattern: RegExp): Promise<void> {
  let error: unknown;
  try {
    await proveArtifacts(cids);
  } catch (err) {
    error = err;
  }
  expect(error).to.be.instanceOf(ArtifactInputError);
  expect((error as ArtifactInputError).status).to.equal(400);
  expect((error as ArtifactInputError).detail).to.match(pattern);
}

const tx = (n: number) => "0x" + n.toString(16).padStart(64, "0");

describe("# prover library", function () {
  this.timeout(120_000);
  after(closeProver);

  describe("# proveExecution", () => {
    let proved: ExecutionProof;
    before(async () => {
      proved = await proveExecution(sampleClaim());
    });

    it("should prove an honoured execution with the TypeScript commitments as public signals", async () => {
      const expected = await computeCommitments(sampleClaim());
      expect(proved.publicSignals).to.deep.equal([
        expected.workflowCommitment.toString(),
        expected.executionCommitment.toString(),
        expected.executionId.toString(),
      ]);
      expect(proved.commitments).to.deep.equal(expected);
      expect(
        await verifyExecutionProof(proved.proof, proved.publicSignals, proved.variant),
      ).to.equal(true);
    });

    it("should reject the proof off chain when any public signal changes", async () => {
      for (let i = 0; i < 3; i++) {
        const changed = [...proved.publicSignals];
        changed[i] = (BigInt(changed[i]!) + 1n).toString();
        expect(await verifyExecutionProof(proved.proof, changed, proved.variant)).to.equal(false);
      }
      expect(
        await verifyExecutionProof(proved.proof, proved.publicSignals.slice(0, 2), proved.variant),
      ).to.equal(false);
    });

    it("should prove with the smallest variant and fail against every other variant's key", async () => {
      expect(proved.variant).to.equal(4);
      expect(proved.calldata.args[1]).to.equal(4);
      for (const slots of [2, 8] as const) {
        expect(await verifyExecutionProof(proved.proof, proved.publicSignals, slots)).to.equal(
          false,
        );
      }
    });

    it("should prove the same through a prover pool's worker thread, off the event loop", async () => {
      const pool = new ProverPool({ threads: 1 });
      try {
        // the event loop keeps turning while the thread proves
        let ticks = 0;
        const timer = setInterval(() => ticks++, 5);
        const pooled = await proveExecution(sampleClaim(), undefined, pool).finally(() =>
          clearInterval(timer),
        );
        expect(pooled.publicSignals).to.deep.equal(proved.publicSignals);
        expect(
          await verifyExecutionProof(pooled.proof, pooled.publicSignals, pooled.variant),
        ).to.equal(true);
        expect(ticks).to.be.greaterThan(5);
        // a second proof reuses the thread's loaded keys
        const again = await proveExecution(sampleClaim("wf_pool_2"), undefined, pool);
        expect(
          await verifyExecutionProof(again.proof, again.publicSignals, again.variant),
        ).to.equal(true);
      } finally {
        await pool.close();
      }
      let closed: unknown;
      await proveExecution(sampleClaim(), undefined, pool).catch((err: unknown) => (closed = err));
      expect(closed).to.be.instanceOf(ProverUnavailableError);
    });

    it("should report a witness the circuit rejects in the pool as an error, and keep proving", async () => {
      const pool = new ProverPool({ threads: 1 });
      try {
        const input = executionCircuitInput(encodeClaim(sampleClaim()));
        (input.amountOut as string[])[0] = "1"; // below the swap's minimum
        let error: unknown;
        await pool.prove("execution4", input).catch((err: unknown) => (error = err));
        expect((error as Error).message).to.match(/Assert Failed/);
        const after = await pool.prove(
          "execution4",
          executionCircuitInput(encodeClaim(sampleClaim())),
        );
        expect(after.publicSignals).to.deep.equal(proved.publicSignals);
      } finally {
        await pool.close();
      }
    });

    it("should prove at the pool's nice value on its own threads and leave the event loop's thread at normal priority", async () => {
      // /proc/self/task/<tid>/stat: the nice value is the 19th field, the 17th after "comm)".
      const niceOfThreads = async () => {
        const tids = await readdir("/proc/self/task");
        const stats = await Promise.all(
          tids.map((tid) => readFile(`/proc/self/task/${tid}/stat`, "utf8").catch(() => "")),
        );
        return new Map(
          tids.map((tid, i) => [
            Number(tid),
            Number(stats[i]!.slice(stats[i]!.lastIndexOf(")") + 2).split(" ")[16]),
          ]),
        );
      };
      const input = executionCircuitInput(encodeClaim(sampleClaim()));
      for (const [options, nice] of [
        [{}, PROVER_NICENESS],
        [{ niceness: 3 }, 3],
      ] as const) {
        const before = await niceOfThreads();
        const pool = new ProverPool({ threads: 1, ...options });
        try {
          await pool.prove("execution4", input);
          const after = await niceOfThreads();
          const started = [...after].filter(([tid]) => !before.has(tid));
          expect(started.map(([, n]) => n)).to.include(nice);
          expect(after.get(process.pid)).to.equal(0);
        } finally {
          await pool.close();
        }
      }
    });

    it("should refuse a claim whose workflow is not the receipt's commitment", async () => {
      const receiptCommitment = proved.commitments.workflowCommitment;
      const other = withSubmitted(sampleClaim(), 0, { slippageBps: 5000 });
      let error: unknown;
      try {
        await proveExecution(other, receiptCommitment);
      } catch (err) {
        error = err;
      }
      expect(error).to.be.instanceOf(ExecutionClaimError);
      expect((error as ExecutionClaimError).family).to.equal("workflow");
      let saltError: unknown;
      try {
        await proveExecution({ ...sampleClaim(), salt: 7n }, receiptCommitment);
      } catch (err) {
        saltError = err;
      }
      expect((saltError as ExecutionClaimError).family).to.equal("workflow");
    });

    it("should encode attest calldata that decodes to the same arguments", () => {
      const decoded = new Interface([ATTEST_FUNCTION]).decodeFunctionData(
        "attest",
        proved.calldata.data,
      );
      expect(decoded[0]).to.equal(executionIdToBytes32("wf_sample_0001"));
      expect(proved.calldata.args[0]).to.equal(proved.executionId);
      expect(Number(decoded[1])).to.equal(proved.variant);
      expect(decoded[3].map(String)).to.deep.equal(proved.publicSignals.slice(0, 2));
      expect(BigInt(decoded[2].a[0])).to.equal(BigInt(proved.proof.pi_a[0]!));
      // G2 coordinates are swapped for the EVM pairing precompile
      expect(BigInt(decoded[2].b[0][0])).to.equal(BigInt(proved.proof.pi_b[0]![1]!));
    });

    it("should prove again with the cached keys", async () => {
      const other = await proveExecution(sampleClaim("wf_sample_0002"));
      expect(other.publicSignals[0]).to.equal(proved.publicSignals[0]);
      expect(other.publicSignals[1]).to.not.equal(proved.publicSignals[1]);
      expect(other.publicSignals[2]).to.not.equal(proved.publicSignals[2]);
      expect(await verifyExecutionProof(other.proof, other.publicSignals, other.variant)).to.equal(
        true,
      );
    });
  });

  describe("# process lifetime", () => {
    it("should let a process that proved exit without closeProver", async () => {
      const index = pathToFileURL(path.join(REPO_ROOT, "relayer/proofs/index.ts")).href;
      const fixtures = pathToFileURL(path.join(REPO_ROOT, "test/zk/fixtures.ts")).href;
      const script = [
        `import { proveExecution, verifyExecutionProof } from ${JSON.stringify(index)};`,
        `import { sampleClaim } from ${JSON.stringify(fixtures)};`,
        `const p = await proveExecution(sampleClaim("wf_exit"));`,
        `console.log(await verifyExecutionProof(p.proof, p.publicSignals, p.variant));`,
      ].join("\n");
      // If snarkjs' idle worker threads held the process open, this would never resolve.
      const { stdout } = await promisify(execFile)(process.execPath, [
        "--input-type=module",
        "-e",
        script,
      ]);
      expect(stdout.trim()).to.equal("true");
    });
  });

  describe("# cached witness calculator", () => {
    it("should report each witness failure on its own and keep working afterwards", async () => {
      const circuit = await loadCircuit("execution4");
      const failure = async (claim: ExecutionClaim) => {
        const consoleError = console.error;
        console.error = () => {}; // the calculator prints failures before throwing them
        try {
          await circuit.calculateWitness(executionCircuitInput(encodeClaim(claim)));
        } catch (err) {
          return (err as Error).message;
        } finally {
          console.error = consoleError;
        }
        throw new Error("the circuit accepted a dishonest witness");
      };
      const slippage = await failure(withAction(sampleClaim(), 0, { amountOut: 1n }));
      const multisend = await failure(
        withAction(sampleClaim(), 3, { recipientAmounts: [1_500_001n, 1_000_000n, 500_000n] }),
      );
      const slippageLine = /ActionSlot_\d+ line: (\d+)/.exec(slippage)![1];
      const multisendLine = /ActionSlot_\d+ line: (\d+)/.exec(multisend)![1];
      expect(slippageLine).to.not.equal(multisendLine);
      expect(multisend).to.not.include(`line: ${slippageLine}\n`);
      const witness = await circuit.calculateWitness(
        executionCircuitInput(encodeClaim(sampleClaim())),
      );
      expect(witness.length).to.be.greaterThan(0);
    });
  });

  describe("# wide multisend", () => {
    it("should prove a multisend with more recipients than one slot holds", async () => {
      const recipients = [600_000n, 500_000n, 400_000n, 300_000n, 700_000n, 250_000n, 250_000n];
      const claim = withRecipients(sampleClaim("wf_wide"), recipients);
      const proved = await proveExecution(claim);
      expect(
        await verifyExecutionProof(proved.proof, proved.publicSignals, proved.variant),
      ).to.equal(true);
      expect(proved.commitments).to.deep.equal(await computeCommitments(claim));
      // every recipient amount is committed: moving one unit between recipients changes it
      const moved = withAction(claim, 3, {
        recipientAmounts: [600_001n, 499_999n, 400_000n, 300_000n, 700_000n, 250_000n, 250_000n],
      });
      expect((await computeCommitments(moved)).executionCommitment).to.not.equal(
        proved.commitments.executionCommitment,
      );
    });
  });

  describe("# transaction hashes", () => {
    it("should commit one, two or more hashes per action, each list differently", async () => {
      const lists = [[tx(1)], [tx(1), tx(2)], [tx(1), tx(2), tx(3)], [tx(1), tx(3), tx(2)]];
      const commitments = await Promise.all(
        lists.map(
          async (txHashes) =>
            (await computeCommitments(withAction(sampleClaim(), 2, { txHashes })))
              .executionCommitment,
        ),
      );
      expect(new Set(commitments).size).to.equal(lists.length);
      expect(committedTxHashes([tx(1), tx(2), tx(3)])).to.deep.equal([
        tx(1),
        keccak256(concat([tx(2), tx(3)])),
      ]);
      expect(committedTxHashes([tx(1)])).to.deep.equal([tx(1), ZeroHash]);
    });

    it("should prove a bridge with approve, source and destination transactions", async () => {
      const claim = withAction(sampleClaim("wf_three_txs"), 2, { txHashes: [tx(7), tx(8), tx(9)] });
      const proved = await proveExecution(claim);
      expect(proved.commitments).to.deep.equal(await computeCommitments(claim));
      expect(
        await verifyExecutionProof(proved.proof, proved.publicSignals, proved.variant),
      ).to.equal(true);
    });
  });

  describe("# claim errors name the constraint family and the action", () => {
    it("should report slippage one unit beyond the tolerance", async () => {
      const error = await expectClaimError(
        withAction(sampleClaim(), 0, { amountOut: 2_487_499_999n }),
        "slippage",
        0,
      );
      expect(error.detail).to.match(
        /action 0: slippage: amount out 2487499999 is below the minimum 2487500000/,
      );
    });

    it("should report a multisend whose recipients do not sum to amount in", async () => {
      await expectClaimError(
        withAction(sampleClaim(), 3, { recipientAmounts: [1n, 2n, 3n] }),
        "multisend",
        3,
      );
    });

    it("should report a bridge that received less than amount in minus the fee cap", async () => {
      await expectClaimError(withAction(sampleClaim(), 2, { amountOut: 3_979_999n }), "bridge", 2);
    });

    it("should report an amount wider than 96 bits", async () => {
      await expectClaimError(withAction(sampleClaim(), 1, { amountOut: 1n << 96n }), "range", 1);
    });

    it("should report a negative amount", async () => {
      await expectClaimError(withAction(sampleClaim(), 0, { amountIn: -1n }), "range", 0);
    });

    it("should report slippage above the API's maximum", async () => {
      await expectClaimError(withSubmitted(sampleClaim(), 0, { slippageBps: 5_001 }), "range", 0);
    });

    it("should report a zero quote", async () => {
      await expectClaimError(
        withAction(sampleClaim(), 1, { quotedOut: 0n, amountOut: 0n }),
        "quote",
        1,
      );
    });

    it("should report a zero transaction hash", async () => {
      await expectClaimError(withAction(sampleClaim(), 0, { txHashes: [ZeroHash] }), "tx", 0);
    });

    it("should report a bridge without its release transaction", async () => {
      await expectClaimError(
        withAction(sampleClaim(), 2, { txHashes: [tx(0xb1), ZeroHash] }),
        "tx",
        2,
      );
    });

    it("should report a transaction committed by two actions", async () => {
      const error = await expectClaimError(
        withAction(sampleClaim(), 3, { txHashes: [tx(0xa1)] }),
        "tx",
        3,
      );
      expect(error.detail).to.match(/already committed by action 0/);
    });

    it("should report executed actions that do not line up with the workflow", async () => {
      const claim = sampleClaim();
      await expectClaimError({ ...claim, actions: claim.actions.slice(0, 3) }, "workflow", null);
      await expectClaimError(
        withAction(claim, 3, { amountIn: 3n, recipientAmounts: [1n, 2n] }),
        "workflow",
        3,
      );
    });

    it("should report a field the action type does not use", async () => {
      await expectClaimError(withAction(sampleClaim(), 0, { feeCap: 5n }), "unused", 0);
    });

    it("should report an unknown action type", async () => {
      await expectClaimError(withSubmitted(sampleClaim(), 1, { type: "stake" }), "type", 1);
    });

    it("should report a missing required field", async () => {
      await expectClaimError(withAction(sampleClaim(), 2, { feeCap: undefined }), "shape", 2);
    });

    it("should report a malformed transaction hash", async () => {
      await expectClaimError(withAction(sampleClaim(), 3, { txHashes: ["0x1234"] }), "shape", 3);
    });

    it("should report more transaction hashes than an action may carry", async () => {
      const hashes = Array.from(
        { length: 17 },
        (_, i) => "0x" + (i + 1).toString(16).padStart(64, "0"),
      );
      await expectClaimError(withAction(sampleClaim(), 0, { txHashes: hashes }), "shape", 0);
    });

    it("should report more actions than slots", async () => {
      const claim = sampleClaim();
      const actions = [
        ...claim.workflow.actions,
        ...claim.workflow.actions,
        claim.workflow.actions[0]!,
      ];
      await expectClaimError(
        { ...claim, workflow: { ...claim.workflow, actions } },
        "capacity",
        null,
      );
    });

    it("should report an empty execution", async () => {
      const claim = sampleClaim();
      await expectClaimError(
        { ...claim, workflow: { ...claim.workflow, actions: [] }, actions: [] },
        "capacity",
        null,
      );
    });

    it("should report a wide multisend that would exceed the slots", async () => {
      const claim = withRecipients(sampleClaim(), [1n, 1n, 1n, 1n, 2_999_996n]);
      // 3 actions + the 2-slot multisend + 3 more actions + 1 = 8 actions in 9 slots
      const submitted = claim.workflow.actions;
      const actions = [...submitted, ...submitted.slice(0, 3), submitted[0]!];
      await expectClaimError(
        { ...claim, workflow: { ...claim.workflow, actions } },
        "capacity",
        null,
      );
    });

    it("should report a wide multisend whose recipients do not sum to amount in", async () => {
      const claim = withAction(withRecipients(sampleClaim(), [1n, 1n, 1n, 1n, 2_999_996n]), 3, {
        amountIn: 3_000_001n,
      });
      await expectClaimError(claim, "multisend", 3);
    });

    it("should report a salt outside the field", async () => {
      await expectClaimError({ ...sampleClaim(), salt: 1n << 254n }, "range", null);
    });
  });

  describe("# proveArtifacts", () => {
    it("should prove a root over the CIDs with an inclusion path per CID", async () => {
      const cids = await Promise.all([0, 1, 2].map((i) => jsonCid({ report: i })));
      const proved = await proveArtifacts(cids);
      expect(proved.count).to.equal(3);
      expect(proved.root).to.equal((await artifactsRoot(cids)).toString());
      expect(proved.publicSignals).to.deep.equal([proved.root, "3"]);
      expect(await verifyArtifactsProof(proved.proof, proved.publicSignals)).to.equal(true);
      expect(await verifyArtifactsProof(proved.proof, [proved.root, "2"])).to.equal(false);
      expect(proved.inclusions.map((i) => i.cid)).to.deep.equal(cids);
      for (const inclusion of proved.inclusions) {
        expect(inclusion.siblings).to.have.length(5);
        expect(await verifyArtifactInclusion(proved.root, inclusion)).to.equal(true);
      }
      const moved = { ...proved.inclusions[1]!, index: 2 };
      expect(await verifyArtifactInclusion(proved.root, moved)).to.equal(false);
      const outsider = { ...proved.inclusions[0]!, cid: await jsonCid({ report: 99 }) };
      expect(await verifyArtifactInclusion(proved.root, outsider)).to.equal(false);
    });

    it("should commit to the order of the artifacts", async () => {
      const cids = await Promise.all([0, 1].map((i) => jsonCid({ report: i })));
      expect(await artifactsRoot(cids)).to.not.equal(await artifactsRoot([...cids].reverse()));
    });

    it("should reject an empty list", async () => {
      await expectArtifactError([], /at least one/);
    });

    it("should reject more than 32 CIDs", async () => {
      const cids = await Promise.all(Array.from({ length: 33 }, (_, i) => jsonCid({ i })));
      await expectArtifactError(cids, /at most 32/);
    });

    it("should reject a duplicate CID", async () => {
      const cid = await jsonCid({ same: true });
      await expectArtifactError([cid, cid], /listed twice/);
    });

    it("should reject a string that is not a CID", async () => {
      await expectArtifactError(["not-a-cid"], /not a CID/);
    });

    it("should reject a CID that is not sha2-256", async () => {
      await expectArtifactError([identityCid()], /not sha2-256/);
    });
  });
});
