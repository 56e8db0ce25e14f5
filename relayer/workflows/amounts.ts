/**
 * Exact decimal amounts. Amounts travel as decimal strings in whole units (spec: "decimal amount
 * as a string") and are compared here as integers scaled by the asset's decimals, never as floats.
 */

const DECIMAL = /^(0|[1-9]\d*)(?:\.(\d+))?$/;
const PERCENT = /^(0|[1-9]\d*)(?:\.(\d+))?\s*%$/;

/** Largest whole part accepted: beyond any token's supply, and keeps scaled values bounded. */
const MAX_WHOLE_DIGITS = 30;

export type AmountCheck = { ok: true; canonical: string } | { ok: false; message: string };

/** Checks a positive decimal amount with at most `decimals` fractional digits; returns it canonical. */
export function checkAmount(value: string, decimals: number, asset: string): AmountCheck {
  const match = DECIMAL.exec(value.trim());
  if (!match) return { ok: false, message: `"${value}" is not a decimal amount (e.g. "1.5")` };
  const whole = match[1]!;
  const fraction = (match[2] ?? "").replace(/0+$/, "");
  if (whole.length > MAX_WHOLE_DIGITS) return { ok: false, message: `"${value}" is too large` };
  if (fraction.length > decimals) {
    return {
      ok: false,
      message: `"${value}" has ${fraction.length} decimal places; ${asset} has ${decimals}`,
    };
  }
  if (/^0*$/.test(whole + fraction)) return { ok: false, message: "amount must be greater than 0" };
  return { ok: true, canonical: fraction ? `${whole}.${fraction}` : whole };
}

/** Amount in the asset's smallest unit. `value` must already have passed checkAmount. */
export function toBaseUnits(value: string, decimals: number): bigint {
  const [whole, fraction = ""] = value.split(".");
  return BigInt(whole! + fraction.padEnd(decimals, "0"));
}

export function isPercent(value: string): boolean {
  return PERCENT.test(value.trim());
}

export type PercentCheck = { ok: true; bps: number } | { ok: false; message: string };

/** `"12.5%"` → 1250 basis points; at most two decimal places, in (0, 100]. */
export function checkPercent(value: string): PercentCheck {
  const match = PERCENT.exec(value.trim());
  if (!match) return { ok: false, message: `"${value}" is not a percentage (e.g. "25%")` };
  const fraction = (match[2] ?? "").replace(/0+$/, "");
  if (fraction.length > 2) {
    return { ok: false, message: `"${value}": percentages take at most two decimal places` };
  }
  if (match[1]!.length > 3) return { ok: false, message: `"${value}" is above 100%` };
  const bps = Number(match[1]) * 100 + Number(fraction.padEnd(2, "0"));
  if (bps === 0) return { ok: false, message: "percentage must be greater than 0%" };
  if (bps > 10_000) return { ok: false, message: `"${value}" is above 100%` };
  return { ok: true, bps };
}

/** Slippage percent in (0, 50] → basis points, at most two decimal places. */
export function slippageToBps(
  percent: number,
): { ok: true; bps: number } | { ok: false; message: string } {
  if (!Number.isFinite(percent) || percent <= 0 || percent > 50) {
    return { ok: false, message: "slippage must be greater than 0 and at most 50 (percent)" };
  }
  const bps = Math.round(percent * 100);
  if (Math.abs(bps - percent * 100) > 1e-6) {
    return { ok: false, message: "slippage takes at most two decimal places (basis points)" };
  }
  return { ok: true, bps };
}
