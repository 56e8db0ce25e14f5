import { concat, keccak256, ZeroHash as ZERO_BYTES32 } from "ethers";
import { EXECUTION_VARIANTS, type ExecutionVariant } from "./circuits.ts";
import { ExecutionClaimError } from "./errors.ts";
import {
  FIELD_MODULUS,
  bytes32ToLimbs,
  canonicalDigest,
  executionIdSignal,
  isBytes32,
} from "./field.ts";

/**
 * Dimensions of `circuits/src/execution.circom` (`Execution(SLOTS, 4, 96, 5000)`); SLOTS is the
 * variant's (`EXECUTION_VARIANTS`), at most EXECUTION_SLOTS.
 */
export const EXECUTION_SLOTS: ExecutionVariant = EXECUTION_VARIANTS.at(-1)!;
export const MULTISEND_RECIPIENTS = 4;
export const AMOUNT_BITS = 96;
export const MAX_AMOUNT = (1n << BigInt(AMOUNT_BITS)) - 1n;
export const BPS_DENOMINATOR = 10_000n;
/** The API's largest slippage (50 %, relayer/workflows/amounts.ts), enforced by the circuit. */
export const MAX_SLIPPAGE_BPS = 5_000;
export const MAX_TX_HASHES = 16;

export type ActionType = "swap" | "convert" | "bridge" | "multisend";

/** Circuit codes of the action types; 0 is an empty slot. */
export const ACTION_TYPE_CODES: Record<ActionType, number> = {
  swap: 1,
  convert: 2,
  bridge: 3,
  multisend: 4,
};

/**
 * The order of the execution circuit's public signals, as snarkjs lists them and as
 * `ExecutionAttestor` passes them to the verifier: the two outputs, then the public input.
 */
export const PUBLIC_SIGNALS = ["workflowCommitment", "executionCommitment", "executionId"] as const;

/** An amount in base units of its token: a bigint or a decimal integer string. */
export type Amount = bigint | string;

/**
 * One action as submitted: the normalised workflow action (relayer/model/workflow.ts). Only the
 * fields below are read by name; the whole object (every canonical field) is digested.
 */
export type SubmittedAction = {
  type: ActionType;
  /** Swap/convert: tolerated slippage in basis points. */
  slippageBps?: number;
  /** Multisend: the recipients (their count fixes how many slots the action takes). */
  recipients?: readonly unknown[];
  /**
   * Multisend: where its recipients come from at run time (`recipients_from`) instead of
   * `recipients`. Not known at submission, so the action takes one slot whose one recipient
   * amount is the payout's total; each order's payment is checked by the auditor against the
   * anchored answer that listed it (docs/zk.md#recipients-from).
   */
  recipientsFrom?: unknown;
};

/** The workflow as submitted (the normalised workflow); digested as a whole and per action. */
export type SubmittedWorkflow = { actions: readonly SubmittedAction[] };

/**
 * One executed action, read from its transaction receipts. Amounts are base units
 * (`10n ** decimals` per whole token), each at most 2^96 - 1. Its type is the submitted action's.
 *
 * | field              | swap / convert                     | bridge                              | multisend                    |
 * | ------------------ | ---------------------------------- | ----------------------------------- | ---------------------------- |
 * | `amountIn`         | amount sold                        | amount deposited on the source      | total sent                   |
 * | `amountOut`        | amount received (Transfer events)  | amount released on the destination  | -                            |
 * | `quotedOut`        | the pool's quote before the swap   | -                                   | -                            |
 * | `feeCap`           | -                                  | the fee cap the deposit carried     | -                            |
 * | `recipientAmounts` | -                                  | -                                   | per recipient, in order      |
 * | `txHashes`         | [swap]                             | [deposit, release]                  | [multisend]                  |
 *
 * Fields marked "-" must be omitted (or zero).
 */
export type ExecutedAction = {
  amountIn: Amount;
  amountOut?: Amount;
  quotedOut?: Amount;
  feeCap?: Amount;
  recipientAmounts?: readonly Amount[];
  /**
   * The action's transaction hashes in order (1 to MAX_TX_HASHES). The circuit holds two 32-byte
   * values per action: the first hash, and the second hash (two transactions) or keccak256 of
   * hashes 2..n concatenated (more than two); see `committedTxHashes`.
   */
  txHashes: readonly string[];
};

/**
 * What the prover proves for one execution: the workflow as submitted, the salt drawn at
 * submission (both fixed by the signed submission receipt), and per submitted action what its
 * transactions did. With this anyone recomputes the three public signals (`computeCommitments`).
 */
export type ExecutionClaim = {
  /** The relayer's execution id (`wf_...`) or a bytes32; see `executionIdToBytes32`. */
  executionId: string;
  salt: Amount;
  workflow: SubmittedWorkflow;
  /** One per submitted action, in the workflow's order. */
  actions: readonly ExecutedAction[];
};

/** The workflow side of one slot: fixed at submission. */
export type WorkflowSlot = {
  actionType: bigint;
  slippageBps: bigint;
  /** Which group of MULTISEND_RECIPIENTS recipients of a wide multisend (0 otherwise). */
  part: bigint;
  actionDigest: [bigint, bigint];
};

/** One action slot in circuit form (every value a field element). */
export type EncodedSlot = WorkflowSlot & {
  amountIn: bigint;
  amountOut: bigint;
  quoted: bigint;
  feeCap: bigint;
  recipients: bigint[];
  txHashes: [[bigint, bigint], [bigint, bigint]];
};

/** The workflow side of an execution: what the submission receipt's commitment covers. */
export type EncodedWorkflow = {
  /** The circuit variant (its slot count): `slots` has this many entries. */
  variant: ExecutionVariant;
  salt: bigint;
  workflowDigest: [bigint, bigint];
  slots: WorkflowSlot[];
  /** Index of the submitted action of each used slot (a wide multisend spans several slots). */
  actionOfSlot: number[];
};

export type EncodedExecution = Omit<EncodedWorkflow, "slots"> & {
  executionId: bigint;
  slots: EncodedSlot[];
};

const EMPTY_WORKFLOW_SLOT: WorkflowSlot = {
  actionType: 0n,
  slippageBps: 0n,
  part: 0n,
  actionDigest: [0n, 0n],
};

const ZERO_EXECUTION = {
  amountIn: 0n,
  amountOut: 0n,
  quoted: 0n,
  feeCap: 0n,
  recipients: Array<bigint>(MULTISEND_RECIPIENTS).fill(0n),
  txHashes: [
    [0n, 0n],
    [0n, 0n],
  ] as EncodedSlot["txHashes"],
};

function parseAmount(value: Amount | undefined, name: string, index: number): bigint {
  if (value === undefined) return 0n;
  let n: bigint;
  if (typeof value === "bigint") n = value;
  else if (typeof value === "string" && /^\d+$/.test(value)) n = BigInt(value);
  else throw new ExecutionClaimError("shape", index, `${name} must be a bigint or decimal string`);
  if (n < 0n || n > MAX_AMOUNT) {
    throw new ExecutionClaimError(
      "range",
      index,
      `${name} ${n} is outside [0, 2^${AMOUNT_BITS}); amounts are ${AMOUNT_BITS}-bit base units`,
    );
  }
  return n;
}

function parseSalt(value: Amount): bigint {
  let salt: bigint;
  if (typeof value === "bigint") salt = value;
  else if (typeof value === "string" && /^\d+$/.test(value)) salt = BigInt(value);
  else throw new ExecutionClaimError("shape", null, "salt must be a bigint or decimal string");
  if (salt < 0n || salt >= FIELD_MODULUS) {
    throw new ExecutionClaimError(
      "range",
      null,
      "salt must be a field element (below the BN254 modulus)",
    );
  }
  return salt;
}

/** Fields a type does not use must be absent or zero: they are committed, so keep them canonical. */
const UNUSED_FIELDS: Record<ActionType, (keyof ExecutedAction)[]> = {
  swap: ["feeCap", "recipientAmounts"],
  convert: ["feeCap", "recipientAmounts"],
  bridge: ["quotedOut", "recipientAmounts"],
  multisend: ["amountOut", "quotedOut", "feeCap"],
};

const REQUIRED_FIELDS: Record<ActionType, (keyof ExecutedAction)[]> = {
  swap: ["amountOut", "quotedOut"],
  convert: ["amountOut", "quotedOut"],
  bridge: ["amountOut", "feeCap"],
  multisend: ["recipientAmounts"],
};

function isZeroValue(value: unknown): boolean {
  if (value === undefined || value === 0 || value === 0n || value === "0") return true;
  return Array.isArray(value) && value.every((v) => isZeroValue(v));
}

/**
 * The two 32-byte values an action's transactions are committed as: [first, second] for one or
 * two transactions (zero when there is no second), [first, keccak256(second ‖ ... ‖ last)] for more.
 */
export function committedTxHashes(txHashes: readonly string[]): [string, string] {
  const first = txHashes[0]!;
  if (txHashes.length === 1) return [first, ZERO_BYTES32];
  if (txHashes.length === 2) return [first, txHashes[1]!];
  return [first, keccak256(concat(txHashes.slice(1)))];
}

/** floor(quoted * (10000 - bps) / 10000): the least a swap may return. */
export function minimumOut(quoted: bigint, slippageBps: bigint): bigint {
  return (quoted * (BPS_DENOMINATOR - slippageBps)) / BPS_DENOMINATOR;
}

/** How many circuit slots a submitted action takes (a multisend: one per 4 recipients). */
function slotsOf(action: SubmittedAction): number {
  if (action.type !== "multisend" || action.recipientsFrom !== undefined) return 1;
  return Math.max(1, Math.ceil((action.recipients?.length ?? 0) / MULTISEND_RECIPIENTS));
}

/** The circuit slot indices of each submitted action, in order (a wide multisend has several). */
export function slotsOfActions(workflow: SubmittedWorkflow): number[][] {
  let next = 0;
  return workflow.actions.map((action) => Array.from({ length: slotsOf(action) }, () => next++));
}

function workflowSlotsOf(action: SubmittedAction, index: number): WorkflowSlot[] {
  const code = ACTION_TYPE_CODES[action.type];
  if (code === undefined) {
    throw new ExecutionClaimError(
      "type",
      index,
      `unknown action type ${JSON.stringify(action.type)} (expected ${Object.keys(ACTION_TYPE_CODES).join(", ")})`,
    );
  }
  const swapLike = action.type === "swap" || action.type === "convert";
  const slippage = swapLike ? (action.slippageBps ?? 0) : 0;
  if (!Number.isInteger(slippage) || slippage < 0 || slippage > MAX_SLIPPAGE_BPS) {
    throw new ExecutionClaimError(
      "range",
      index,
      `slippageBps ${slippage} is not an integer in 0..${MAX_SLIPPAGE_BPS}`,
    );
  }
  if (action.type === "multisend" && !action.recipients?.length && !action.recipientsFrom) {
    throw new ExecutionClaimError("shape", index, "multisend needs at least one recipient");
  }
  const actionDigest = bytes32ToLimbs(canonicalDigest(action));
  return Array.from({ length: slotsOf(action) }, (_, part) => ({
    actionType: BigInt(code),
    slippageBps: BigInt(slippage),
    part: BigInt(part),
    actionDigest,
  }));
}

/** The smallest variant with at least `slots` slots, or null when none has enough. */
export function variantFor(slots: number): ExecutionVariant | null {
  return EXECUTION_VARIANTS.find((v) => v >= slots) ?? null;
}

/**
 * The workflow side of the circuit input, from the workflow as submitted and the salt: all the
 * submission receipt's commitment depends on. Padded to `variant`'s slots, by default the
 * smallest variant the workflow fits (what the receipt commits to and the prover proves).
 * Throws `capacity` when the workflow needs more slots than the variant (or the largest) has:
 * then it cannot be proved and is refused at submission.
 */
export function encodeWorkflow(
  workflow: SubmittedWorkflow,
  salt: Amount,
  variant?: ExecutionVariant,
): EncodedWorkflow {
  const actions = workflow?.actions;
  if (!Array.isArray(actions) || actions.length === 0) {
    throw new ExecutionClaimError("capacity", null, "an execution needs at least one action");
  }
  const slots: WorkflowSlot[] = [];
  const actionOfSlot: number[] = [];
  actions.forEach((action, i) => {
    for (const slot of workflowSlotsOf(action, i)) {
      slots.push(slot);
      actionOfSlot.push(i);
    }
  });
  const size = variant ?? variantFor(slots.length) ?? EXECUTION_SLOTS;
  if (slots.length > size) {
    throw new ExecutionClaimError(
      "capacity",
      null,
      `the actions need ${slots.length} slots (a multisend takes one per ${MULTISEND_RECIPIENTS} recipients); the ${variant === undefined ? "largest " : ""}circuit has ${size}`,
    );
  }
  while (slots.length < size) slots.push(EMPTY_WORKFLOW_SLOT);
  return {
    variant: size,
    salt: parseSalt(salt),
    workflowDigest: bytes32ToLimbs(canonicalDigest(workflow)),
    slots,
    actionOfSlot,
  };
}

function executedSlots(
  submitted: SubmittedAction,
  action: ExecutedAction,
  index: number,
): Array<Omit<EncodedSlot, keyof WorkflowSlot>> {
  if (!action || typeof action !== "object") {
    throw new ExecutionClaimError("shape", index, "missing executed action");
  }
  for (const field of UNUSED_FIELDS[submitted.type]) {
    if (!isZeroValue(action[field])) {
      throw new ExecutionClaimError("unused", index, `${submitted.type} does not use ${field}`);
    }
  }
  for (const field of REQUIRED_FIELDS[submitted.type]) {
    if (action[field] === undefined) {
      throw new ExecutionClaimError("shape", index, `${submitted.type} requires ${field}`);
    }
  }
  const txHashes = action.txHashes ?? [];
  if (txHashes.length < 1 || txHashes.length > MAX_TX_HASHES) {
    throw new ExecutionClaimError(
      "shape",
      index,
      `expected 1 to ${MAX_TX_HASHES} txHashes, got ${txHashes.length}`,
    );
  }
  for (const hash of txHashes) {
    if (!isBytes32(hash))
      throw new ExecutionClaimError("shape", index, `not a transaction hash: ${hash}`);
  }
  const recipients = (action.recipientAmounts ?? []).map((a, r) =>
    parseAmount(a, `recipientAmounts[${r}]`, index),
  );
  const submittedRecipients =
    submitted.recipientsFrom !== undefined ? 1 : (submitted.recipients?.length ?? 0);
  if (submitted.type === "multisend" && recipients.length !== submittedRecipients) {
    throw new ExecutionClaimError(
      "workflow",
      index,
      `${recipients.length} recipient amounts for the ${submittedRecipients} submitted recipients`,
    );
  }
  const first = {
    amountIn: parseAmount(action.amountIn, "amountIn", index),
    amountOut: parseAmount(action.amountOut, "amountOut", index),
    quoted: parseAmount(action.quotedOut, "quotedOut", index),
    feeCap: parseAmount(action.feeCap, "feeCap", index),
    recipients: padRecipients(recipients.slice(0, MULTISEND_RECIPIENTS)),
    txHashes: committedTxHashes(txHashes).map(bytes32ToLimbs) as EncodedSlot["txHashes"],
  };
  if (recipients.length <= MULTISEND_RECIPIENTS) return [first];

  // A multisend wider than one slot takes one slot per MULTISEND_RECIPIENTS recipients, in order,
  // each with amount in = its recipients' sum; the first part carries the transaction hashes. The
  // circuit proves each part; the whole action's total, which no single slot holds, is checked here.
  const total = recipients.reduce((a, b) => a + b, 0n);
  if (total !== first.amountIn) {
    throw new ExecutionClaimError(
      "multisend",
      index,
      `recipient amounts sum to ${total}, not to amount in ${first.amountIn}`,
    );
  }
  const parts = [];
  for (let r = 0; r < recipients.length; r += MULTISEND_RECIPIENTS) {
    const part = recipients.slice(r, r + MULTISEND_RECIPIENTS);
    parts.push({
      ...(r === 0 ? first : ZERO_EXECUTION),
      amountIn: part.reduce((a, b) => a + b, 0n),
      recipients: padRecipients(part),
    });
  }
  return parts;
}

function padRecipients(recipients: readonly bigint[]): bigint[] {
  const padded = [...recipients];
  while (padded.length < MULTISEND_RECIPIENTS) padded.push(0n);
  return padded;
}

/**
 * Encodes a claim into circuit slots (of `variant`, by default the smallest that fits), checking
 * its shape and ranges and that it lines up with the submitted workflow, but NOT whether the
 * execution honoured it (`assertClaimHonoured` does that). Tests use it alone to feed the
 * circuit a dishonest witness.
 */
export function encodeClaim(claim: ExecutionClaim, variant?: ExecutionVariant): EncodedExecution {
  const workflow = encodeWorkflow(claim.workflow, claim.salt, variant);
  const submitted = claim.workflow.actions;
  if (!Array.isArray(claim.actions) || claim.actions.length !== submitted.length) {
    throw new ExecutionClaimError(
      "workflow",
      null,
      `${Array.isArray(claim.actions) ? claim.actions.length : 0} executed actions for the ${submitted.length} submitted`,
    );
  }
  let executionId: bigint;
  try {
    executionId = executionIdSignal(claim.executionId);
  } catch (err) {
    throw new ExecutionClaimError("shape", null, (err as Error).message);
  }
  const executed = claim.actions.flatMap((action, i) => executedSlots(submitted[i]!, action, i));
  const slots = workflow.slots.map((slot, s): EncodedSlot => ({
    ...slot,
    ...(executed[s] ?? ZERO_EXECUTION),
  }));
  return { ...workflow, executionId, slots };
}

/**
 * The circuit's constraint families, evaluated in TypeScript on an encoded claim: throws an
 * `ExecutionClaimError` naming the family and the action for the first one violated.
 */
export function assertClaimHonoured(encoded: EncodedExecution): void {
  const seen = new Map<bigint, number>();
  encoded.slots.forEach((slot, slotIndex) => {
    const index = encoded.actionOfSlot[slotIndex] ?? slotIndex;
    const type = Number(slot.actionType);
    if (type === 0) return;
    if (type === ACTION_TYPE_CODES.swap || type === ACTION_TYPE_CODES.convert) {
      if (slot.quoted === 0n) {
        throw new ExecutionClaimError("quote", index, "the quote is zero");
      }
      const least = minimumOut(slot.quoted, slot.slippageBps);
      if (slot.amountOut < least) {
        throw new ExecutionClaimError(
          "slippage",
          index,
          `amount out ${slot.amountOut} is below the minimum ${least} (quote ${slot.quoted}, slippage ${slot.slippageBps} bps)`,
        );
      }
    } else if (type === ACTION_TYPE_CODES.bridge) {
      if (slot.amountOut + slot.feeCap < slot.amountIn) {
        throw new ExecutionClaimError(
          "bridge",
          index,
          `received ${slot.amountOut} is below amount in ${slot.amountIn} minus fee cap ${slot.feeCap}`,
        );
      }
    } else if (type === ACTION_TYPE_CODES.multisend) {
      const sum = slot.recipients.reduce((a, b) => a + b, 0n);
      if (sum !== slot.amountIn) {
        throw new ExecutionClaimError(
          "multisend",
          index,
          `recipient amounts sum to ${sum}, not to amount in ${slot.amountIn}`,
        );
      }
    }
    const values = slot.txHashes.map(([hi, lo]) => (hi << 128n) | lo);
    if (slot.part === 0n && values[0] === 0n) {
      throw new ExecutionClaimError("tx", index, "the first transaction hash is zero");
    }
    if (type === ACTION_TYPE_CODES.bridge && values[1] === 0n) {
      throw new ExecutionClaimError("tx", index, "a bridge needs its release transaction hash");
    }
    for (const value of values) {
      if (value === 0n) continue;
      const earlier = seen.get(value);
      if (earlier !== undefined) {
        throw new ExecutionClaimError(
          "tx",
          index,
          `transaction 0x${value.toString(16).padStart(64, "0")} is already committed by action ${earlier}`,
        );
      }
      seen.set(value, index);
    }
  });
}

/** The circuit's input object (decimal strings), in `execution.circom`'s signal names. */
export function executionCircuitInput(encoded: EncodedExecution): Record<string, unknown> {
  const s = (v: bigint) => v.toString();
  const column = <T>(pick: (slot: EncodedSlot) => T) => encoded.slots.map(pick);
  return {
    salt: s(encoded.salt),
    workflowDigest: encoded.workflowDigest.map(s),
    executionId: s(encoded.executionId),
    actionType: column((x) => s(x.actionType)),
    slippageBps: column((x) => s(x.slippageBps)),
    part: column((x) => s(x.part)),
    actionDigest: column((x) => x.actionDigest.map(s)),
    amountIn: column((x) => s(x.amountIn)),
    amountOut: column((x) => s(x.amountOut)),
    quoted: column((x) => s(x.quoted)),
    feeCap: column((x) => s(x.feeCap)),
    recipients: column((x) => x.recipients.map(s)),
    txHashes: column((x) => x.txHashes.map((h) => h.map(s))),
  };
}
