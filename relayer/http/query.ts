import { z } from "@hono/zod-openapi";

/** Decimal digits alone: no sign, fraction, exponent, radix prefix or blank (`1e3`, `0x10`, ` 16`). */
const DECIMAL_DIGITS = /^\d{1,16}$/;

/**
 * A query parameter holding a whole number from `min` to `max`, written in decimal digits. A query
 * string is text, and a number coerced from it would also read `0x10`, `1e3`, `16.0`, ` 16 ` and
 * an empty value (0) as numbers: a client that sent one of those meant something else, and gets a
 * 400 naming the parameter instead. Documented as an integer with its bounds.
 */
export function queryInteger(min: number, max: number = Number.MAX_SAFE_INTEGER) {
  return z
    .preprocess(
      (value) => (typeof value === "string" && DECIMAL_DIGITS.test(value) ? Number(value) : value),
      z
        .number({ error: "must be a whole number written in decimal digits" })
        .int("must be a whole number written in decimal digits")
        .min(min, `must be at least ${min}`)
        .max(max, `must be at most ${max}`),
    )
    .openapi({ type: "integer", minimum: min, maximum: max });
}

/** The same, `fallback` when the parameter is absent (documented as its default). */
export function queryIntegerOr(fallback: number, min: number, max?: number) {
  return queryInteger(min, max).default(fallback).openapi({ default: fallback });
}
