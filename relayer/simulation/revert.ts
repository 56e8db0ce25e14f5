import { AbiCoder, dataSlice, type Interface } from "ethers";

export interface DecodedRevert {
  /** `Error(string)`, `Panic(uint256)`, a custom error's signature, or `unknown`. */
  kind: "error" | "panic" | "custom" | "unknown" | "empty";
  /** Human-readable reason: the message, the panic's meaning, or `Name(arg, …)`. */
  reason: string;
  /** Raw revert data (hex). */
  data: string;
  /** Custom error name and its arguments (as strings) when decoded. */
  error?: { name: string; signature: string; args: Record<string, string> };
}

const ERROR_STRING = "0x08c379a0";
const PANIC = "0x4e487b71";

/** Solidity's panic codes (docs: "Panic via assert and Error via require"). */
const PANIC_REASONS: Record<string, string> = {
  "0": "generic compiler panic",
  "1": "assertion failed",
  "17": "arithmetic overflow or underflow",
  "18": "division or modulo by zero",
  "33": "invalid enum value",
  "34": "invalid storage byte array encoding",
  "49": "pop() on an empty array",
  "50": "array index out of bounds",
  "65": "out of memory",
  "81": "call to an uninitialised internal function",
};

export function decodeRevert(data: string, errors: Interface): DecodedRevert {
  if (data === "0x" || data === "") {
    return { kind: "empty", reason: "reverted without a reason", data: "0x" };
  }
  const selector = data.slice(0, 10).toLowerCase();
  const coder = AbiCoder.defaultAbiCoder();
  try {
    if (selector === ERROR_STRING) {
      const [message] = coder.decode(["string"], dataSlice(data, 4));
      return { kind: "error", reason: String(message), data };
    }
    if (selector === PANIC) {
      const [code] = coder.decode(["uint256"], dataSlice(data, 4));
      const key = (code as bigint).toString();
      return {
        kind: "panic",
        reason: `panic 0x${(code as bigint).toString(16)}: ${PANIC_REASONS[key] ?? "unknown panic code"}`,
        data,
      };
    }
    const parsed = errors.parseError(data);
    if (parsed) {
      const args: Record<string, string> = {};
      parsed.fragment.inputs.forEach((input, i) => {
        args[input.name || String(i)] = String(parsed.args[i]);
      });
      const shown = parsed.fragment.inputs.map(
        (input, i) => `${input.name ? `${input.name}=` : ""}${String(parsed.args[i])}`,
      );
      return {
        kind: "custom",
        reason: `${parsed.name}(${shown.join(", ")})`,
        data,
        error: { name: parsed.name, signature: parsed.signature, args },
      };
    }
  } catch {
    // Data that claims a known selector but does not decode falls through to "unknown".
  }
  return { kind: "unknown", reason: `unrecognised revert data (selector ${selector})`, data };
}

/**
 * Finds revert data in an error thrown by a provider. EDR, ethers' JsonRpcProvider and Hardhat's
 * provider wrap it differently (`data`, `error.data`, `info.error.data`, `data.data`).
 */
export function revertDataOf(err: unknown, depth = 0): string | undefined {
  if (depth > 5 || err === null || typeof err !== "object") return undefined;
  const record = err as Record<string, unknown>;
  const direct = record.data;
  if (typeof direct === "string" && /^0x[0-9a-fA-F]*$/.test(direct)) return direct;
  for (const key of ["data", "error", "info", "cause", "revert"]) {
    const found = revertDataOf(record[key], depth + 1);
    if (found !== undefined) return found;
  }
  return undefined;
}
