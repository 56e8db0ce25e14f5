import { z } from "@hono/zod-openapi";
import { getAddress, isHexString } from "ethers";

/** Wire shapes of `POST /tx/simulate` (validation, types and the OpenAPI document). */

export const DEFAULT_BLOCK_COUNT = 12;
export const MAX_BLOCK_COUNT = 256;

const HEX_ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** All-lower/all-upper hex is accepted; mixed case must be a correct EIP-55 checksum. */
function isUserAddress(value: string): boolean {
  if (!HEX_ADDRESS.test(value)) return false;
  const body = value.slice(2);
  if (body === body.toLowerCase() || body === body.toUpperCase()) return true;
  return getAddress(value.toLowerCase()) === value;
}

const address = z
  .string()
  .refine(isUserAddress, {
    message: "not a 0x-prefixed 20-byte address with a valid EIP-55 checksum",
  })
  .transform((v) => getAddress(v.toLowerCase()))
  .openapi({ example: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8" });

/** Wei amounts as a decimal string, a 0x hex string, or a safe integer. */
const quantity = z
  .union([z.string(), z.number().int().nonnegative()])
  .refine(
    (v) =>
      typeof v === "number"
        ? Number.isSafeInteger(v)
        : /^(0x[0-9a-fA-F]{1,64}|[0-9]{1,78})$/.test(v),
    { message: "must be a non-negative integer (decimal string, 0x hex string or safe integer)" },
  )
  .transform((v) => BigInt(v))
  .refine((v) => v < 2n ** 256n, { message: "exceeds uint256" })
  .openapi({ type: "string", example: "0" });

export const simulateRequestSchema = z
  .object({
    chain_id: z.number().int().positive().openapi({ example: 31337 }),
    tx_data: z.object({
      from: address,
      to: address,
      data: z
        .string()
        .refine((v) => isHexString(v) && v.length % 2 === 0, {
          message: "must be 0x-prefixed hex with an even number of digits",
        })
        .default("0x")
        .openapi({ example: "0x" }),
      value: quantity.optional(),
      gas: quantity
        .refine((v) => v >= 21_000n && v <= 100_000_000n, {
          message: "must be between 21000 and 100000000",
        })
        .optional(),
    }),
    block_count: z.number().int().min(1).max(MAX_BLOCK_COUNT).default(DEFAULT_BLOCK_COUNT).openapi({
      description: "MEV window: blocks the transaction may wait to be included (default 12)",
    }),
  })
  .openapi("SimulateRequest");

export type SimulateRequest = z.infer<typeof simulateRequestSchema>;
export type SimulateTx = SimulateRequest["tx_data"];

const tokenAmount = z.object({
  /** Token address, or `native` for the chain's gas asset. */
  token: z.string(),
  symbol: z.string().nullable(),
  decimals: z.number().int().nullable(),
  /** Raw base units, signed decimal string. */
  delta: z.string(),
  /** `delta` scaled by decimals (a decimal string), null when decimals are unknown. */
  formatted: z.string().nullable(),
});

export const balanceChangeSchema = z.object({
  address: z.string(),
  role: z.enum(["sender", "target", "counterparty"]),
  changes: z.array(tokenAmount),
});

export const revertSchema = z.object({
  kind: z.enum(["error", "panic", "custom", "unknown", "empty"]),
  reason: z.string(),
  data: z.string(),
  error: z
    .object({ name: z.string(), signature: z.string(), args: z.record(z.string(), z.string()) })
    .optional(),
});

export const mevSchema = z
  .object({
    applicable: z.boolean(),
    /** Why no sandwich estimate was made (not a swap, unknown pool, failing transaction). */
    reason: z.string().optional(),
    risk: z.enum(["none", "low", "medium", "high"]),
    block_count: z.number().int(),
    window: z.object({ from_block: z.number().int(), to_block: z.number().int() }),
    swap: z
      .object({
        exchange: z.string(),
        function: z.string(),
        path: z.array(z.string()),
        /** Exact-in: input and minimum output; exact-out: output and maximum input. */
        amount_in: z.string().nullable(),
        amount_out_min: z.string().nullable(),
        amount_out: z.string().nullable(),
        amount_in_max: z.string().nullable(),
        /** Output (exact-in) or input (exact-out) at the current reserves, without an attack. */
        expected: z.string(),
        /** Blocks of the window before the swap's deadline passes (a swap past it reverts). */
        exposed_blocks: z.number().int(),
      })
      .optional(),
    sandwich: z
      .object({
        pool: z.string(),
        hop: z.number().int(),
        token: z.string(),
        symbol: z.string().nullable(),
        front_run_in: z.string(),
        front_run_out: z.string(),
        back_run_out: z.string(),
        max_front_run: z.string(),
        /** Attacker's gross profit in `token` base units. */
        max_profit: z.string(),
        max_profit_formatted: z.string().nullable(),
        max_profit_usd: z.number().nullable(),
        attacker_gas_usd: z.number().nullable(),
        net_profit_usd: z.number().nullable(),
        /** What the victim loses: output (exact-in) or extra input (exact-out), base units. */
        victim_loss: z.string(),
        victim_loss_bps: z.number(),
      })
      .optional(),
  })
  .openapi("MevAssessment");

export const simulateResponseSchema = z
  .object({
    chain_id: z.number().int(),
    chain: z.string(),
    /** `trace`: debug_traceCall (callTracer, logs) on the current state; `call`: eth_call + eth_estimateGas. */
    mode: z.enum(["trace", "call"]),
    block_number: z.number().int(),
    success: z.boolean(),
    revert: revertSchema.nullable(),
    /** Exact in trace mode (also for a revert); eth_estimateGas (an upper bound) in call mode, null on revert. */
    gas_used: z.number().int().nullable(),
    return_data: z.string(),
    balance_changes: z.array(balanceChangeSchema),
    /** Where balance changes come from: logs of the executed transaction, decoded router output, or none. */
    balance_changes_source: z.enum(["logs", "router-return", "unavailable"]),
    mev: mevSchema,
    warnings: z.array(z.string()),
    simulated_at: z.string(),
  })
  .openapi("SimulateResult");

export type SimulateResult = z.infer<typeof simulateResponseSchema>;
export type BalanceChange = z.infer<typeof balanceChangeSchema>;
export type MevAssessment = z.infer<typeof mevSchema>;
