import { createHash, createHmac, timingSafeEqual } from "node:crypto";

/**
 * The request signatures. Version 1 is the spec's: lower-case hex HMAC-SHA256, keyed with the
 * signing secret, over the `X-SVC-Timestamp` string immediately followed by the raw body bytes (no
 * separator). It does not cover the method or the target, so headers signed for one request can be
 * sent first to another with the same body (a bodyless GET's to a bodyless DELETE). Version 2
 * (`X-SVC-Signature-Version: 2`) signs, one per line:
 *
 *     VERIFLOW-HMAC-SHA256-2
 *     <METHOD, upper case>
 *     <path, exactly as sent (percent-encoded)>
 *     <query, exactly as sent, without "?"; empty when none>
 *     <X-SVC-Timestamp>
 *     <lower-case hex SHA-256 of the raw body; of the empty string when none>
 */
export const TIMESTAMP_TOLERANCE_MS = 300_000;
export const SIGNATURE_VERSION_HEADER = "X-SVC-Signature-Version";
export const V2_PREFIX = "VERIFLOW-HMAC-SHA256-2";

/** What version 2 binds a signature to besides the timestamp and the body. */
export interface SignedTarget {
  method: string;
  /** The path as sent, percent-encoded (`URL.pathname`). */
  path: string;
  /** The query as sent, without `?` (`URL.search` minus its `?`); empty when none. */
  query: string;
}

/** The method, path and query of a request target (`/v1/x?y=1`, or an absolute URL). */
export function signedTarget(method: string, target: string): SignedTarget {
  const url = new URL(target, "http://relayer.invalid");
  return { method: method.toUpperCase(), path: url.pathname, query: url.search.slice(1) };
}

const bytesOf = (body: Uint8Array | string) =>
  typeof body === "string" ? Buffer.from(body, "utf8") : body;

export function signPayload(secret: string, timestamp: string, body: Uint8Array | string): string {
  return createHmac("sha256", secret).update(timestamp, "utf8").update(bytesOf(body)).digest("hex");
}

/** The version 2 string to sign (see above). */
export function payloadV2(
  target: SignedTarget,
  timestamp: string,
  body: Uint8Array | string,
): string {
  const bodyHash = createHash("sha256").update(bytesOf(body)).digest("hex");
  return [V2_PREFIX, target.method, target.path, target.query, timestamp, bodyHash].join("\n");
}

export function signPayloadV2(
  secret: string,
  target: SignedTarget,
  timestamp: string,
  body: Uint8Array | string,
): string {
  return createHmac("sha256", secret)
    .update(payloadV2(target, timestamp, body), "utf8")
    .digest("hex");
}

/**
 * Constant-time check of `signature` (64 lower-case hex characters) against the signature each of
 * `secrets` gives (`sign(secret)`).
 */
export function verifyHmac(
  secrets: readonly string[],
  signature: string,
  sign: (secret: string) => string,
): boolean {
  const given = Buffer.from(signature, "hex");
  let ok = false;
  // Every secret is checked (no early exit) so timing does not reveal which one matched.
  for (const secret of secrets) {
    const expected = Buffer.from(sign(secret), "hex");
    ok = (expected.length === given.length && timingSafeEqual(expected, given)) || ok;
  }
  return ok;
}

/** Version 1: `signature` against any of `secrets` over timestamp + body. */
export function verifySignature(
  secrets: readonly string[],
  timestamp: string,
  body: Uint8Array,
  signature: string,
): boolean {
  return verifyHmac(secrets, signature, (secret) => signPayload(secret, timestamp, body));
}

/**
 * Headers for a signed request (clients, tests, benchmarks): version 2 when `target` is given
 * (the method and target of the request), else the spec's version 1.
 */
export function signedHeaders(
  key: string,
  secret: string,
  body: Uint8Array | string,
  timestamp = String(Date.now()),
  target?: { method: string; target: string },
): Record<string, string> {
  if (!target) {
    return {
      "X-SVC-Key": key,
      "X-SVC-Timestamp": timestamp,
      "X-SVC-Signature": signPayload(secret, timestamp, body),
    };
  }
  return {
    "X-SVC-Key": key,
    "X-SVC-Timestamp": timestamp,
    [SIGNATURE_VERSION_HEADER]: "2",
    "X-SVC-Signature": signPayloadV2(
      secret,
      signedTarget(target.method, target.target),
      timestamp,
      body,
    ),
  };
}
