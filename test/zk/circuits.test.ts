import { readFile } from "node:fs/promises";
import path from "node:path";
import { expect } from "chai";
import { WitnessCalculatorBuilder, type WitnessCalculator } from "circom_runtime";
import * as snarkjs from "snarkjs";
import {
  CIRCUITS_DIR,
  EXECUTION_VARIANTS,
  circuitFiles,
  executionCircuit,
  type ExecutionVariant,
} from "../../relayer/proofs/circuits.ts";
import {
  MAX_AMOUNT,
  MAX_SLIPPAGE_BPS,
  PUBLIC_SIGNALS,
  encodeClaim,
  executionCircuitInput,
  minimumOut,
  type ExecutionClaim,
} from "../../relayer/proofs/claim.ts";
import { FIELD_MODULUS, executionIdSignal } from "../../relayer/proofs/field.ts";
import {
  artifactsRoot,
  cidDigestLimbs,
  closeProver,
  computeCommitments,
  publicSignalsOf,
} from "../../relayer/proofs/index.ts";
import { jsonCid, sampleClaim } from "./fixtures.ts";

type Input = Record<string, unknown>;
const silent = { info() {}, debug() {}, warn() {}, error() {} };
type Grid = string[][];

/**
 * The circuit input of a claim (in `variant`, by default the smallest it fits), WITHOUT the
 * TypeScript honour checks: lets a test lie.
 */
function rawInput(claim: ExecutionClaim, variant?: ExecutionVariant): Input {
  return executionCircuitInput(encodeClaim(claim, variant));
}

/** The execution variant an input is for (its slot count). */
const variantOfInput = (input: Input) => (input.actionType as string[]).length as ExecutionVariant;

function withAction(claim: ExecutionClaim, index: number, patch: object): ExecutionClaim {
  const actions = claim.actions.map((a, i) => (i === index ? { ...a, ...patch } : a));
  return { ...claim, actions } as ExecutionClaim;
}

/** The claim with a submitted action changed (its workflow side). */
function withSubmitted(claim: ExecutionClaim, index: number, patch: object): ExecutionClaim {
  const actions = claim.workflow.actions.map((a, i) => (i === index ? { ...a, ...patch } : a));
  return { ...claim, workflow: { ...claim.workflow, actions } } as ExecutionClaim;
}

const tx = (n: number) => "0x" + n.toString(16).padStart(64, "0");

/** The sample with its multisend widened to 6 recipients (two slots). */
function wideMultisend(): ExecutionClaim {
  const claim = sampleClaim();
  const multisend = claim.workflow.actions[3]!;
  const recipients = [1, 2, 3, 4, 5, 6].map((n) => ({
    address: "0x" + n.toString(16).padStart(40, "0"),
    amount: { kind: "percent", bps: 1000 },
  }));
  const wide = withSubmitted(claim, 3, { ...multisend, recipients });
  return withAction(wide, 3, {
    amountIn: 600n,
    recipientAmounts: [100n, 100n, 100n, 100n, 100n, 100n],
  });
}

describe("# circuits", function () {
  this.timeout(120_000);
  const executions = new Map<ExecutionVariant, WitnessCalculator>();
  let artifacts: WitnessCalculator;
  const wasm: Record<string, Uint8Array> = {};
  /** The witness of an execution input, by the variant its slot count names. */
  const execution = {
    calculateWitness: (input: Input, check: boolean) =>
      executions.get(variantOfInput(input))!.calculateWitness(input, check),
    calculateWTNSBin: (input: Input, check: boolean) =>
      executions.get(variantOfInput(input))!.calculateWTNSBin(input, check),
  };

  before(async () => {
    for (const slots of EXECUTION_VARIANTS) {
      const name = executionCircuit(slots);
      wasm[name] = await readFile(circuitFiles(name).wasm);
      executions.set(slots, await WitnessCalculatorBuilder(wasm[name]));
    }
    wasm.artifacts = await readFile(circuitFiles("artifacts").wasm);
    artifacts = await WitnessCalculatorBuilder(wasm.artifacts);
  });
  after(closeProver);

  /**
   * Expects the circuit to reject `input` at the constraint written `constraint` in template
   * `template` of `file`, so the failure is the one the test means and not another. A fresh
   * calculator per case: circom_runtime accumulates error messages across calls.
   */
  async function expectRejected(
    circuit: "execution" | "artifacts",
    input: Input,
    [file, template, constraint]: [string, string, string],
  ): Promise<void> {
    const source = (await readFile(path.join(CIRCUITS_DIR, "src", file), "utf8")).split("\n");
    const line = source.findIndex((l) => l.trim() === constraint) + 1;
    expect(line, `constraint not found in ${file}: ${constraint}`).to.be.greaterThan(0);
    const name = circuit === "execution" ? executionCircuit(variantOfInput(input)) : circuit;
    const calculator = await WitnessCalculatorBuilder(wasm[name]!);
    let error: unknown;
    const consoleError = console.error;
    console.error = () => {}; // the calculator prints every failure before throwing it
    try {
      await calculator.calculateWitness(input, true);
    } catch (err) {
      error = err;
    } finally {
      console.error = consoleError;
    }
    expect(error, "the circuit accepted a witness it must reject").to.be.instanceOf(Error);
    const message = (error as Error).message;
    expect(message).to.match(/Assert Failed/);
    expect(message).to.match(new RegExp(`template ${template}_\\d+ line: ${line}\\b`));
  }
  const slot = (constraint: string): [string, string, string] => [
    "action.circom",
    "ActionSlot",
    constraint,
  ];
  const top = (constraint: string): [string, string, string] => [
    "execution.circom",
    "Execution",
    constraint,
  ];
  const tree = (constraint: string): [string, string, string] => [
    "artifacts.circom",
    "Artifacts",
    constraint,
  ];

  describe("# execution circuit", () => {
    it("should output the public signals the TypeScript helpers compute", async () => {
      const claim = sampleClaim();
      const witness = await execution.calculateWitness(rawInput(claim), true);
      const expected = await computeCommitments(claim);
      // wire 0 is the constant 1; the two outputs follow, then the public execution id
      expect(witness.slice(1, 4)).to.deep.equal(publicSignalsOf(expected).map(BigInt));
      expect(expected.executionId).to.equal(executionIdSignal(claim.executionId));
      expect(PUBLIC_SIGNALS).to.deep.equal([
        "workflowCommitment",
        "executionCommitment",
        "executionId",
      ]);
    });

    it("should accept an execution using all 8 slots and 4 recipients at the range limit", async () => {
      const base = sampleClaim();
      const extra = base.workflow.actions.slice(0, 3).map((a, i) => ({ ...a, index: 4 + i }));
      const wide = {
        index: 7,
        type: "multisend" as const,
        from: "DAI",
        input: "chained",
        recipients: [1, 2, 3, 4].map((n) => ({
          address: "0x" + n.toString(16).padStart(40, "0"),
          amount: { kind: "percent", bps: 100 },
        })),
      };
      const full: ExecutionClaim = {
        ...base,
        workflow: { ...base.workflow, actions: [...base.workflow.actions, ...extra, wide] },
        actions: [
          ...base.actions,
          ...base.actions.slice(0, 3).map((a, i) => ({
            ...a,
            txHashes: a.txHashes.map((_, k) => tx(0xd0 + 2 * i + k)),
          })),
          {
            amountIn: MAX_AMOUNT,
            recipientAmounts: [MAX_AMOUNT - 3n, 1n, 1n, 1n],
            txHashes: ["0x" + "ff".repeat(32)],
          },
        ],
      };
      const input = rawInput(full);
      expect(variantOfInput(input)).to.equal(8);
      const witness = await execution.calculateWitness(input, true);
      expect(witness[2]).to.equal((await computeCommitments(full)).executionCommitment);
    });

    it("should prove each workflow with the smallest variant it fits, each variant its own commitments", async () => {
      const base = sampleClaim();
      const two: ExecutionClaim = {
        ...base,
        workflow: { ...base.workflow, actions: base.workflow.actions.slice(0, 2) },
        actions: base.actions.slice(0, 2),
      };
      expect(variantOfInput(rawInput(two))).to.equal(2);
      expect(variantOfInput(rawInput(base))).to.equal(4);
      expect(variantOfInput(rawInput(wideMultisend()))).to.equal(8);
      // one claim in every variant that holds it: each circuit outputs what TypeScript computes,
      // and the commitments differ per variant (a commitment opens under one variant only)
      const seen = new Set<bigint>();
      for (const slots of EXECUTION_VARIANTS) {
        const witness = await execution.calculateWitness(rawInput(two, slots), true);
        const expected = await computeCommitments(two, slots);
        expect(witness.slice(1, 4)).to.deep.equal(publicSignalsOf(expected).map(BigInt));
        seen.add(expected.workflowCommitment);
      }
      expect(seen.size).to.equal(EXECUTION_VARIANTS.length);
      expect(() => rawInput(base, 2)).to.throw(/need 4 slots.*circuit has 2/);
    });

    it("should change both commitments when the salt changes", async () => {
      const a = await computeCommitments(sampleClaim());
      const b = await computeCommitments({ ...sampleClaim(), salt: 1n });
      expect(a.workflowCommitment).to.not.equal(b.workflowCommitment);
      expect(a.executionCommitment).to.not.equal(b.executionCommitment);
    });

    it("should bind the execution id into the execution commitment and its own signal", async () => {
      const a = await computeCommitments(sampleClaim("wf_a"));
      const b = await computeCommitments(sampleClaim("wf_b"));
      expect(a.workflowCommitment).to.equal(b.workflowCommitment);
      expect(a.executionCommitment).to.not.equal(b.executionCommitment);
      expect(a.executionId).to.not.equal(b.executionId);
      expect(a.executionId < FIELD_MODULUS).to.equal(true);
    });

    it("should commit the workflow as submitted: every field changes the workflow commitment", async () => {
      const base = await computeCommitments(sampleClaim());
      const variants: Array<(w: Record<string, unknown>[]) => void> = [
        (a) => ((a[0] as { amount: string }).amount = "2"),
        (a) => ((a[0] as { to: string }).to = "DAI"),
        (a) => ((a[2] as { destination: string }).destination = "arbitrum"),
        (a) => ((a[2] as { protocol: string }).protocol = "other"),
        (a) => {
          const r = (a[3] as { recipients: Array<{ address: string }> }).recipients;
          r[1] = { ...r[1]!, address: "0x000000000000000000000000000000000000bEEF" };
        },
        (a) => {
          const r = (a[3] as { recipients: Array<{ amount: unknown }> }).recipients;
          r[1] = { ...r[1]!, amount: { kind: "percent", bps: 2501 } };
        },
      ];
      for (const change of variants) {
        const claim = sampleClaim();
        const actions = structuredClone(claim.workflow.actions) as unknown as Record<
          string,
          unknown
        >[];
        change(actions);
        const changed = {
          ...claim,
          workflow: { ...claim.workflow, actions },
        } as unknown as ExecutionClaim;
        expect((await computeCommitments(changed)).workflowCommitment).to.not.equal(
          base.workflowCommitment,
        );
      }
      const renamed = sampleClaim();
      const other = { ...renamed, workflow: { ...renamed.workflow, name: "other" } };
      expect((await computeCommitments(other)).workflowCommitment).to.not.equal(
        base.workflowCommitment,
      );
    });

    describe("# slippage", () => {
      const swap = sampleClaim().actions[0]!;
      const least = minimumOut(BigInt(swap.quotedOut!), 50n);

      it("should accept amount out exactly at floor(quoted * (10000 - bps) / 10000)", async () => {
        await execution.calculateWitness(
          rawInput(withAction(sampleClaim(), 0, { amountOut: least })),
          true,
        );
      });

      it("should reject amount out one unit below the minimum", async () => {
        await expectRejected(
          "execution",
          rawInput(withAction(sampleClaim(), 0, { amountOut: least - 1n })),
          slot("honoured.in <== most - least;"),
        );
      });

      it("should round the minimum down (a non-integer bound is not rounded up)", async () => {
        // 999 * 9999 / 10000 = 998.9001 -> minimum 998
        const claim = withSubmitted(
          withAction(sampleClaim(), 0, { quotedOut: 999n, amountOut: 998n }),
          0,
          {
            slippageBps: 1,
          },
        );
        await execution.calculateWitness(rawInput(claim), true);
        await expectRejected(
          "execution",
          rawInput(withAction(claim, 0, { amountOut: 997n })),
          slot("honoured.in <== most - least;"),
        );
      });

      it("should accept the API's maximum slippage and reject one basis point more", async () => {
        const claim = withSubmitted(
          withAction(sampleClaim(), 0, { amountOut: 1_250_000_000n }),
          0,
          {
            slippageBps: MAX_SLIPPAGE_BPS,
          },
        );
        await execution.calculateWitness(rawInput(claim), true);
        const input = rawInput(claim);
        (input.slippageBps as string[])[0] = String(MAX_SLIPPAGE_BPS + 1);
        await expectRejected("execution", input, slot("slippageMax.out === 1;"));
      });

      it("should reject a zero quote (a minimum of zero accepts any output)", async () => {
        const input = rawInput(sampleClaim());
        (input.quoted as string[])[0] = "0";
        (input.amountOut as string[])[0] = "0";
        await expectRejected("execution", input, slot("isSwapLike * quoteIsZero.out === 0;"));
      });
    });

    describe("# multisend", () => {
      it("should reject recipient amounts summing to amount in plus one", async () => {
        const claim = withAction(sampleClaim(), 3, {
          recipientAmounts: [1_500_001n, 1_000_000n, 500_000n],
        });
        await expectRejected(
          "execution",
          rawInput(claim),
          slot("isMultisend * (recipientSum - amountIn) === 0;"),
        );
      });

      it("should reject recipient amounts summing to amount in minus one", async () => {
        const claim = withAction(sampleClaim(), 3, {
          recipientAmounts: [1_499_999n, 1_000_000n, 500_000n],
        });
        await expectRejected(
          "execution",
          rawInput(claim),
          slot("isMultisend * (recipientSum - amountIn) === 0;"),
        );
      });

      it("should prove a multisend wider than a slot in parts, hashes in the first part only", async () => {
        const claim = wideMultisend();
        await execution.calculateWitness(rawInput(claim), true);
        const input = rawInput(claim);
        expect((input.part as string[]).slice(3, 5)).to.deep.equal(["0", "1"]);
        (input.txHashes as Grid[])[4]![0] = ["0", "7"];
        await expectRejected("execution", input, slot("(1 - isFirstPart.out) * txValue[k] === 0;"));
      });

      it("should reject a part index on an action that is not a multisend", async () => {
        const input = rawInput(sampleClaim());
        (input.part as string[])[0] = "1";
        await expectRejected("execution", input, slot("(1 - isMultisend) * part === 0;"));
      });
    });

    describe("# bridge", () => {
      it("should accept received exactly amount in minus the fee cap", async () => {
        const claim = withAction(sampleClaim(), 2, { amountOut: 4_000_000n - 20_000n });
        await execution.calculateWitness(rawInput(claim), true);
      });

      it("should reject received one unit below amount in minus the fee cap", async () => {
        const claim = withAction(sampleClaim(), 2, { amountOut: 4_000_000n - 20_000n - 1n });
        await expectRejected("execution", rawInput(claim), slot("honoured.in <== most - least;"));
      });
    });

    describe("# transaction hashes", () => {
      it("should reject a zero first transaction hash", async () => {
        const input = rawInput(sampleClaim());
        (input.txHashes as Grid[])[0]![0] = ["0", "0"];
        await expectRejected("execution", input, slot("needsTx * txZero[0].out === 0;"));
      });

      it("should reject a bridge without its release transaction", async () => {
        const input = rawInput(sampleClaim());
        (input.txHashes as Grid[])[2]![1] = ["0", "0"];
        await expectRejected("execution", input, slot("isBridge * txZero[1].out === 0;"));
      });

      it("should reject one transaction committed by two actions", async () => {
        const claim = withAction(sampleClaim(), 3, { txHashes: [tx(0xa1)] });
        await expectRejected(
          "execution",
          rawInput(claim),
          top("(value[a] - value[b]) * inverse[pair] === 1 - isZero[a];"),
        );
      });

      it("should reject one transaction committed twice within an action", async () => {
        const claim = withAction(sampleClaim(), 2, { txHashes: [tx(0xb1), tx(0xb1)] });
        await expectRejected(
          "execution",
          rawInput(claim),
          top("(value[a] - value[b]) * inverse[pair] === 1 - isZero[a];"),
        );
      });
    });

    describe("# range", () => {
      it("should reject an amount one bit wider than the range check", async () => {
        const input = rawInput(sampleClaim());
        (input.amountIn as string[])[0] = (MAX_AMOUNT + 1n).toString();
        await expectRejected("execution", input, slot("amountRange[c].in <== column[c];"));
      });

      it("should reject a bridge amount in that wraps the field (the comparison alone accepts it)", async () => {
        // amountOut + feeCap - (p - 1) = amountOut + feeCap + 1 (mod p): only column 0 can fail
        const input = rawInput(sampleClaim());
        (input.amountIn as string[])[2] = (FIELD_MODULUS - 1n).toString();
        await expectRejected("execution", input, slot("amountRange[c].in <== column[c];"));
      });

      it("should bound a multisend's amount in by its range-checked recipients, and refuse one above 2^96 - 1 before proving", async () => {
        const claim = withAction(sampleClaim(), 3, {
          amountIn: 3n * MAX_AMOUNT,
          recipientAmounts: [MAX_AMOUNT, MAX_AMOUNT, MAX_AMOUNT],
        });
        expect(() => rawInput(claim)).to.throw(/amountIn .* is outside \[0, 2\^96\)/);
        const input = rawInput(sampleClaim());
        (input.recipients as Grid)[3] = [MAX_AMOUNT, MAX_AMOUNT, MAX_AMOUNT, MAX_AMOUNT].map(
          String,
        );
        (input.amountIn as string[])[3] = (4n * MAX_AMOUNT).toString();
        // the circuit's bound: four 96-bit recipients, so below 2^98
        await execution.calculateWitness(input, true);
        (input.recipients as Grid)[3]![0] = (FIELD_MODULUS - 1n).toString();
        (input.amountIn as string[])[3] = (3n * MAX_AMOUNT - 1n).toString();
        await expectRejected("execution", input, slot("amountRange[c].in <== column[c];"));
      });

      it("should reject a 'negative' recipient amount that wraps the field", async () => {
        // (p - 1) + 3_000_001 = 3_000_000 (mod p): the sum holds, the range check must not
        const input = rawInput(sampleClaim());
        (input.recipients as Grid)[3] = [(FIELD_MODULUS - 1n).toString(), "3000001", "0", "0"];
        await expectRejected("execution", input, slot("amountRange[c].in <== column[c];"));
      });

      it("should reject a swap amount out that wraps the field", async () => {
        const input = rawInput(sampleClaim());
        (input.amountOut as string[])[0] = (FIELD_MODULUS - 1n).toString();
        await expectRejected("execution", input, slot("amountRange[c].in <== column[c];"));
      });

      it("should reject a 'negative' fee cap that wraps the field", async () => {
        const input = rawInput(sampleClaim());
        (input.feeCap as string[])[2] = (FIELD_MODULUS - 1n).toString();
        await expectRejected("execution", input, slot("amountRange[c].in <== column[c];"));
      });

      it("should reject a 'negative' quote that wraps the field", async () => {
        const input = rawInput(sampleClaim());
        (input.quoted as string[])[0] = (FIELD_MODULUS - 1n).toString();
        await expectRejected("execution", input, slot("amountRange[c].in <== column[c];"));
      });

      it("should reject a 'negative' amount in any recipient's column", async () => {
        // (p - 1) + 3_000_001 = 3_000_000 (mod p) = amount in: only recipient r's column can fail
        for (let r = 0; r < 4; r++) {
          const input = rawInput(sampleClaim());
          const recipients = (input.recipients as Grid)[3]!;
          recipients.fill("0");
          recipients[r] = (FIELD_MODULUS - 1n).toString();
          recipients[(r + 1) % 4] = "3000001";
          await expectRejected("execution", input, slot("amountRange[c].in <== column[c];"));
        }
      });

      it("should reject a slippage that wraps the field", async () => {
        const input = rawInput(sampleClaim());
        (input.slippageBps as string[])[0] = (FIELD_MODULUS - 1n).toString();
        await expectRejected("execution", input, slot("slippageRange.in <== slippageBps;"));
      });
    });

    describe("# unused slots and fields", () => {
      it("should reject a non-zero amount in an unused slot", async () => {
        const input = rawInput(sampleClaim(), 8);
        (input.amountIn as string[])[6] = "1";
        await expectRejected("execution", input, slot("isEmpty * amountIn === 0;"));
      });

      it("should reject a transaction hash in an unused slot", async () => {
        const input = rawInput(sampleClaim(), 8);
        (input.txHashes as Grid[])[7]![0] = ["0", "1"];
        await expectRejected("execution", input, slot("isEmpty * txHashes[k][1] === 0;"));
      });

      it("should reject an action after an empty slot", async () => {
        const input = rawInput(sampleClaim());
        (input.actionType as string[])[1] = "0";
        for (const key of ["amountIn", "amountOut", "quoted", "slippageBps"])
          (input[key] as string[])[1] = "0";
        (input.actionDigest as Grid)[1] = ["0", "0"];
        (input.txHashes as Grid[])[1] = [
          ["0", "0"],
          ["0", "0"],
        ];
        await expectRejected(
          "execution",
          input,
          top("slots[i].isEmpty * (1 - slots[i + 1].isEmpty) === 0;"),
        );
      });

      it("should reject an execution without any action", async () => {
        const input = rawInput(sampleClaim(), 8);
        for (const key of [
          "actionType",
          "slippageBps",
          "part",
          "amountIn",
          "amountOut",
          "quoted",
          "feeCap",
        ]) {
          input[key] = Array(8).fill("0");
        }
        input.recipients = Array.from({ length: 8 }, () => ["0", "0", "0", "0"]);
        input.actionDigest = Array.from({ length: 8 }, () => ["0", "0"]);
        input.txHashes = Array.from({ length: 8 }, () => [
          ["0", "0"],
          ["0", "0"],
        ]);
        await expectRejected("execution", input, top("slots[0].isEmpty === 0;"));
      });

      it("should reject a fee cap on a swap", async () => {
        const input = rawInput(sampleClaim());
        (input.feeCap as string[])[0] = "1";
        await expectRejected("execution", input, slot("(1 - isBridge) * feeCap === 0;"));
      });

      it("should reject a second field in a column, even when the column's value is unchanged", async () => {
        // column 0 of a swap = amountIn + recipients[0]; column 2 of a bridge = quoted + feeCap
        const swap = rawInput(sampleClaim());
        const amountIn = BigInt((swap.amountIn as string[])[0]!);
        (swap.amountIn as string[])[0] = (amountIn - 1n).toString();
        (swap.recipients as Grid)[0]![0] = "1";
        await expectRejected("execution", swap, slot("(1 - isMultisend) * recipients[r] === 0;"));
        const bridge = rawInput(sampleClaim());
        const feeCap = BigInt((bridge.feeCap as string[])[2]!);
        (bridge.feeCap as string[])[2] = (feeCap - 1n).toString();
        (bridge.quoted as string[])[2] = "1";
        await expectRejected("execution", bridge, slot("(1 - isSwapLike) * quoted === 0;"));
      });

      it("should reject an unknown action type", async () => {
        const input = rawInput(sampleClaim());
        (input.actionType as string[])[3] = "5";
        await expectRejected("execution", input, slot("typeSum === 1;"));
      });
    });

    describe("# commitments", () => {
      it("should fail the R1CS check when an output commitment is replaced", async () => {
        const files = circuitFiles(executionCircuit(4));
        const good = await execution.calculateWTNSBin(rawInput(sampleClaim()), true);
        expect(await snarkjs.wtns.check(files.r1cs, good, silent)).to.equal(true);
        // wtns layout: 12-byte file header, section 1 (12-byte header + 40 bytes), section 2 header (12
        // bytes): witness values follow, 32 bytes little-endian each; wire 1 = workflowCommitment.
        const tampered = Uint8Array.from(good);
        const wire1 = 12 + 12 + 40 + 12 + 32;
        tampered[wire1] = tampered[wire1]! ^ 1;
        expect(await snarkjs.wtns.check(files.r1cs, tampered, silent)).to.equal(false);
      });
    });
  });

  describe("# artifacts circuit", () => {
    async function cids(n: number): Promise<string[]> {
      return Promise.all(Array.from({ length: n }, (_, i) => jsonCid({ artifact: i })));
    }
    function input(list: string[], count = list.length): Input {
      const digests = Array.from({ length: 32 }, (_, i) =>
        i < list.length ? cidDigestLimbs(list[i]!).map(String) : ["0", "0"],
      );
      return { count: String(count), digests };
    }

    it("should output the root the TypeScript tree computes", async () => {
      const list = await cids(5);
      const witness = await artifacts.calculateWitness(input(list), true);
      expect(witness[1]).to.equal(await artifactsRoot(list));
      expect(witness[2]).to.equal(5n);
    });

    it("should accept the full 32 artifacts", async () => {
      const list = await cids(32);
      const witness = await artifacts.calculateWitness(input(list), true);
      expect(witness[1]).to.equal(await artifactsRoot(list));
    });

    it("should reject a digest beyond the count", async () => {
      await expectRejected(
        "artifacts",
        input(await cids(3), 2),
        tree("(1 - used[i].out) * digests[i][0] === 0;"),
      );
    });

    it("should reject a count of zero", async () => {
      await expectRejected("artifacts", input([], 0), tree("countZero.out === 0;"));
    });

    it("should reject a count above 32", async () => {
      await expectRejected("artifacts", input(await cids(2), 33), tree("countMax.out === 1;"));
    });
  });
});
