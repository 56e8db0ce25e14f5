import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * The spec's request signature: lower-case hex HMAC-SHA256, keyed with the signing secret, over
 * the `X-SVC-Timestamp` string immediately followed by the raw body bytes (no separator).
 */
export const TIMESTAMP_TOLERANCE_MS = 300_000;

export function signPayload(secret: string, timestamp: string, body: Uint8Array | string): string {
  return createHmac("sha256", secret)
    .update(timestamp, "utf8")
    .update(typeof body === "string" ? Buffer.from(body, "utf8") : body)
    .digest("hex");
}

/** Constant-time check of `signature` (64 lower-case hex characters) against any of `secrets`. */
export function verifySignature(
  secrets: readonly string[],
  timestamp: string,
  body: Uint8Array,
  signature: string,
): boolean {
  const given = Buffer.from(signature, "hex");
  let ok = false;
  // Every secret is checked (no early exit) so timing does not reveal which one matched.
  for (const secret of secrets) {
    const expected = Buffer.from(signPayload(secret, timestamp, body), "hex");
    ok = (expected.length === given.length && timingSafeEqual(expected, given)) || ok;
  }
  return ok;
}

/** Headers for a signed request (clients, tests, benchmarks). */
export function signedHeaders(
  key: string,
  secret: string,
  body: Uint8Array | string,
  timestamp = String(Date.now()),
): Record<string, string> {
  return {
    "X-SVC-Key": key,
    "X-SVC-Timestamp": timestamp,
    "X-SVC-Signature": signPayload(secret, timestamp, body),
  };
}
