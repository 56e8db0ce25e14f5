import { concat, keccak256, ZeroHash as ZERO_BYTES32 } from "ethers";
import { ExecutionClaimError } from "./errors.ts";
import { FIELD_MODULUS, bytes32ToLimbs, executionIdToBytes32, isBytes32 } from "./field.ts";

/** Dimensions of `circuits/src/execution.circom` (`component main = Execution(8, 4, 96)`). */
export const EXECUTION_SLOTS = 8;
export const MULTISEND_RECIPIENTS = 4;
export const AMOUNT_BITS = 96;
export const MAX_AMOUNT = (1n << BigInt(AMOUNT_BITS)) - 1n;
export const BPS_DENOMINATOR = 10_000n;
export const MAX_TX_HASHES = 16;

export type ActionType = "swap" | "convert" | "bridge" | "multisend";

/** Circuit codes of the action types; 0 is an empty slot. */
export const ACTION_TYPE_CODES: Record<ActionType, number> = {
  swap: 1,
  convert: 2,
  bridge: 3,
  multisend: 4,
};

/** An amount in base units of its token: a bigint or a decimal integer string. */
export type Amount = bigint | string;

/**
 * One executed action, as the engine reports it to the prover. Amounts are base units
 * (`10n ** decimals` per whole token), each at most 2^96 - 1.
 *
 * | field              | swap / convert                         | bridge                          | multisend                     |
 * | ------------------ | -------------------------------------- | ------------------------------- | ----------------------------- |
 * | `amountIn`         | amount sold (workflow)                 | amount sent (workflow)          | total sent (workflow)         |
 * | `amountOut`        | amount received (execution)            | amount received on destination  | -                             |
 * | `quotedOut`        | quote at execution (e.g. getAmountsOut)| -                               | -                             |
 * | `slippageBps`      | tolerated slippage, basis points       | -                               | -                             |
 * | `feeCap`           | -                                      | maximum bridge fee (workflow)   | -                             |
 * | `recipientAmounts` | -                                      | -                               | per-recipient amounts (*)     |
 * | `txHashes`         | [approve?, swap]                       | [approve?, source, destination] | [approve?, multisend]         |
 *
 * (*) A multisend takes one circuit slot per 4 recipients (8 slots in all); see `encodeClaim`.
 * Fields marked "-" must be omitted (or zero). Workflow fields go into the workflow commitment,
 * execution fields and transaction hashes into the execution commitment.
 */
export type ExecutedAction = {
  type: ActionType;
  amountIn: Amount;
  amountOut?: Amount;
  quotedOut?: Amount;
  /** Integer basis points, 0..10000 (the workflow's slippage percent times 100). */
  slippageBps?: number;
  feeCap?: Amount;
  recipientAmounts?: readonly Amount[];
  /**
   * bytes32 digest of the action's other parameters (assets, chains, protocol, recipient
   * addresses): use `actionParamsDigest(action)`. Omitted means zero.
   */
  paramsDigest?: string;
  /**
   * The action's transaction hashes in order (1 to MAX_TX_HASHES). The circuit holds two 32-byte
   * values per action: the first hash, and the second hash (two transactions) or keccak256 of
   * hashes 2..n concatenated (more than two); see `committedTxHashes`.
   */
  txHashes: readonly string[];
};

/**
 * What the engine gives the prover for one execution. `salt` is a random field element
 * (`randomSalt()`) stored with the execution and handed to the client in the final report:
 * with it and the claim anyone can recompute both public commitments.
 */
export type ExecutionClaim = {
  /** The relayer's execution id (`wf_...`) or a bytes32; see `executionIdToBytes32`. */
  executionId: string;
  salt: Amount;
  actions: readonly ExecutedAction[];
};

/** One action slot in circuit form (every value a field element). */
export type EncodedSlot = {
  actionType: bigint;
  amountIn: bigint;
  amountOut: bigint;
  quoted: bigint;
  slippageBps: bigint;
  feeCap: bigint;
  recipients: bigint[];
  paramsDigest: [bigint, bigint];
  txHashes: [[bigint, bigint], [bigint, bigint]];
};

export type EncodedExecution = {
  salt: bigint;
  executionId: [bigint, bigint];
  slots: EncodedSlot[];
  /** Index in `claim.actions` of each used slot (a wide multisend spans several slots). */
  actionOfSlot: number[];
};

const EMPTY_SLOT: EncodedSlot = {
  actionType: 0n,
  amountIn: 0n,
  amountOut: 0n,
  quoted: 0n,
  slippageBps: 0n,
  feeCap: 0n,
  recipients: Array<bigint>(MULTISEND_RECIPIENTS).fill(0n),
  paramsDigest: [0n, 0n],
  txHashes: [
    [0n, 0n],
    [0n, 0n],
  ],
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

function requireField(action: ExecutedAction, field: keyof ExecutedAction, index: number): void {
  if (action[field] === undefined) {
    throw new ExecutionClaimError("shape", index, `${action.type} requires ${field}`);
  }
}

/** Fields a type does not use must be absent or zero: they are committed, so keep them canonical. */
const UNUSED_FIELDS: Record<ActionType, (keyof ExecutedAction)[]> = {
  swap: ["feeCap", "recipientAmounts"],
  convert: ["feeCap", "recipientAmounts"],
  bridge: ["quotedOut", "slippageBps", "recipientAmounts"],
  multisend: ["amountOut", "quotedOut", "slippageBps", "feeCap"],
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

function encodeAction(action: ExecutedAction, index: number): EncodedSlot[] {
  const code = ACTION_TYPE_CODES[action.type];
  if (code === undefined) {
    throw new ExecutionClaimError(
      "type",
      index,
      `unknown action type ${JSON.stringify(action.type)} (expected ${Object.keys(ACTION_TYPE_CODES).join(", ")})`,
    );
  }
  for (const field of UNUSED_FIELDS[action.type]) {
    if (!isZeroValue(action[field])) {
      throw new ExecutionClaimError("unused", index, `${action.type} does not use ${field}`);
    }
  }
  if (action.type === "swap" || action.type === "convert") {
    for (const f of ["amountOut", "quotedOut", "slippageBps"] as const)
      requireField(action, f, index);
  } else if (action.type === "bridge") {
    for (const f of ["amountOut", "feeCap"] as const) requireField(action, f, index);
  } else {
    requireField(action, "recipientAmounts", index);
  }

  const slippage = action.slippageBps ?? 0;
  if (!Number.isInteger(slippage) || slippage < 0 || slippage > 10_000) {
    throw new ExecutionClaimError(
      "range",
      index,
      `slippageBps ${slippage} is not an integer in 0..10000`,
    );
  }
  const recipientAmounts = action.recipientAmounts ?? [];
  if (action.type === "multisend" && recipientAmounts.length === 0) {
    throw new ExecutionClaimError("shape", index, "multisend needs at least one recipient amount");
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
  const digest = action.paramsDigest ?? "0x" + "0".repeat(64);
  if (!isBytes32(digest)) {
    throw new ExecutionClaimError("shape", index, "paramsDigest must be a 32-byte hex value");
  }

  const recipients = recipientAmounts.map((a, r) =>
    parseAmount(a, `recipientAmounts[${r}]`, index),
  );
  const slot: EncodedSlot = {
    actionType: BigInt(code),
    amountIn: parseAmount(action.amountIn, "amountIn", index),
    amountOut: parseAmount(action.amountOut, "amountOut", index),
    quoted: parseAmount(action.quotedOut, "quotedOut", index),
    slippageBps: BigInt(slippage),
    feeCap: parseAmount(action.feeCap, "feeCap", index),
    recipients: padRecipients(recipients),
    paramsDigest: bytes32ToLimbs(digest),
    txHashes: committedTxHashes(txHashes).map(bytes32ToLimbs) as EncodedSlot["txHashes"],
  };
  if (recipients.length <= MULTISEND_RECIPIENTS) return [slot];

  // A multisend wider than one slot takes one slot per MULTISEND_RECIPIENTS recipients, in order,
  // each with amount in = its recipients' sum. The circuit then proves each part; the whole
  // action's total, which no single slot holds, is checked here.
  const total = recipients.reduce((a, b) => a + b, 0n);
  if (total !== slot.amountIn) {
    throw new ExecutionClaimError(
      "multisend",
      index,
      `recipient amounts sum to ${total}, not to amount in ${slot.amountIn}`,
    );
  }
  const parts: EncodedSlot[] = [];
  for (let r = 0; r < recipients.length; r += MULTISEND_RECIPIENTS) {
    const part = recipients.slice(r, r + MULTISEND_RECIPIENTS);
    parts.push({
      ...slot,
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
 * Encodes a claim into circuit slots, checking its shape and ranges but NOT whether the
 * execution honoured the workflow (`assertClaimHonoured` does that). Tests use it alone to feed
 * the circuit a dishonest witness.
 */
export function encodeClaim(claim: ExecutionClaim): EncodedExecution {
  if (!Array.isArray(claim.actions) || claim.actions.length === 0) {
    throw new ExecutionClaimError("capacity", null, "an execution needs at least one action");
  }
  if (claim.actions.length > EXECUTION_SLOTS) {
    throw new ExecutionClaimError(
      "capacity",
      null,
      `${claim.actions.length} actions; the circuit proves at most ${EXECUTION_SLOTS}`,
    );
  }
  let salt: bigint;
  if (typeof claim.salt === "bigint") salt = claim.salt;
  else if (typeof claim.salt === "string" && /^\d+$/.test(claim.salt)) salt = BigInt(claim.salt);
  else throw new ExecutionClaimError("shape", null, "salt must be a bigint or decimal string");
  if (salt < 0n || salt >= FIELD_MODULUS) {
    throw new ExecutionClaimError(
      "range",
      null,
      "salt must be a field element (below the BN254 modulus)",
    );
  }
  let executionId: [bigint, bigint];
  try {
    executionId = bytes32ToLimbs(executionIdToBytes32(claim.executionId));
  } catch (err) {
    throw new ExecutionClaimError("shape", null, (err as Error).message);
  }
  const slots: EncodedSlot[] = [];
  const actionOfSlot: number[] = [];
  claim.actions.forEach((action, i) => {
    for (const slot of encodeAction(action, i)) {
      slots.push(slot);
      actionOfSlot.push(i);
    }
  });
  if (slots.length > EXECUTION_SLOTS) {
    throw new ExecutionClaimError(
      "capacity",
      null,
      `the actions need ${slots.length} slots (a multisend takes one per ${MULTISEND_RECIPIENTS} recipients); the circuit has ${EXECUTION_SLOTS}`,
    );
  }
  while (slots.length < EXECUTION_SLOTS) slots.push(EMPTY_SLOT);
  return { salt, executionId, slots, actionOfSlot };
}

/**
 * The circuit's constraint families, evaluated in TypeScript on an encoded claim: throws an
 * `ExecutionClaimError` naming the family and the action for the first one violated.
 */
export function assertClaimHonoured(encoded: EncodedExecution): void {
  encoded.slots.forEach((slot, slotIndex) => {
    const index = encoded.actionOfSlot[slotIndex] ?? slotIndex;
    const type = Number(slot.actionType);
    if (type === ACTION_TYPE_CODES.swap || type === ACTION_TYPE_CODES.convert) {
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
  });
}

/** The circuit's input object (decimal strings), in `execution.circom`'s signal names. */
export function executionCircuitInput(encoded: EncodedExecution): Record<string, unknown> {
  const s = (v: bigint) => v.toString();
  const column = <T>(pick: (slot: EncodedSlot) => T) => encoded.slots.map(pick);
  return {
    salt: s(encoded.salt),
    executionId: encoded.executionId.map(s),
    actionType: column((x) => s(x.actionType)),
    amountIn: column((x) => s(x.amountIn)),
    amountOut: column((x) => s(x.amountOut)),
    quoted: column((x) => s(x.quoted)),
    slippageBps: column((x) => s(x.slippageBps)),
    feeCap: column((x) => s(x.feeCap)),
    recipients: column((x) => x.recipients.map(s)),
    paramsDigest: column((x) => x.paramsDigest.map(s)),
    txHashes: column((x) => x.txHashes.map((h) => h.map(s))),
  };
}
