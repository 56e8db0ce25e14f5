import type { Middleware } from "openapi-fetch";

/**
 * The relayer's request signatures (README "How a request is signed"), lower-case hex
 * HMAC-SHA256 with the signing secret. Version 1 (the spec's) covers the `X-SVC-Timestamp` string
 * immediately followed by the raw body bytes; version 2 (`X-SVC-Signature-Version: 2`, what this
 * client sends) covers, one per line, `VERIFLOW-HMAC-SHA256-2`, the method, the path and the query
 * as sent, the timestamp and the hex SHA-256 of the body, so headers signed for one request cannot
 * authorise another. WebCrypto, so the same code signs in Node and in a browser.
 */
export interface Credentials {
  apiKey: string;
  signingSecret: string;
}

const encoder = new TextEncoder();

export async function hmacHex(secret: string, message: Uint8Array): Promise<string> {
  const key = await crypto.subtle.importKey(
    "raw",
    encoder.encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const mac = new Uint8Array(
    await crypto.subtle.sign("HMAC", key, message as Uint8Array<ArrayBuffer>),
  );
  return Array.from(mac, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** The request a version 2 signature is bound to. */
export interface SignedTarget {
  method: string;
  /** The request's URL (absolute, or a path with its query). */
  url: string;
}

/**
 * The headers for `body` signed at `timestampMs`: version 2 for `target` (the request's method and
 * URL), else the spec's version 1 (three headers).
 */
export async function signatureHeaders(
  credentials: Credentials,
  body: Uint8Array,
  timestampMs = Date.now(),
  target?: SignedTarget,
): Promise<Record<string, string>> {
  const timestamp = String(timestampMs);
  if (target) {
    const url = new URL(target.url, "http://relayer.invalid");
    const bodyHash = Array.from(
      new Uint8Array(await crypto.subtle.digest("SHA-256", body as Uint8Array<ArrayBuffer>)),
      (b) => b.toString(16).padStart(2, "0"),
    ).join("");
    const payload = [
      "VERIFLOW-HMAC-SHA256-2",
      target.method.toUpperCase(),
      url.pathname,
      url.search.slice(1),
      timestamp,
      bodyHash,
    ].join("\n");
    return {
      "X-SVC-Key": credentials.apiKey,
      "X-SVC-Timestamp": timestamp,
      "X-SVC-Signature-Version": "2",
      "X-SVC-Signature": await hmacHex(credentials.signingSecret, encoder.encode(payload)),
    };
  }
  const message = new Uint8Array(timestamp.length + body.length);
  message.set(encoder.encode(timestamp), 0);
  message.set(body, timestamp.length);
  return {
    "X-SVC-Key": credentials.apiKey,
    "X-SVC-Timestamp": timestamp,
    "X-SVC-Signature": await hmacHex(credentials.signingSecret, message),
  };
}

/**
 * Timestamps for one signer, in milliseconds, never the same twice: the wall clock, or one past
 * the last stamp when the clock has not moved on. The relayer accepts a signature once, and two
 * identical requests (the same list read twice) signed in one millisecond would be one signature,
 * the second refused as a replay. The stamp runs ahead of the clock only by the requests signed
 * within one millisecond, far inside the relayer's allowance for clock skew.
 */
export function signingClock(now: () => number = Date.now): () => number {
  let last = -Infinity;
  return () => {
    last = Math.max(now(), last + 1);
    return last;
  };
}

/**
 * A copy of `request` carrying a fresh version 2 signature, stamped `timestampMs`. Each attempt
 * must be signed anew: the relayer accepts a signature once, so a retry with the first attempt's
 * headers would be a replay. A caller signing several requests passes stamps from one
 * `signingClock`, as `hmacSigning` and `VeriflowClient` do.
 */
export async function signRequest(
  request: Request,
  credentials: Credentials,
  timestampMs = Date.now(),
): Promise<Request> {
  const body = new Uint8Array(await request.clone().arrayBuffer());
  const headers = new Headers(request.headers);
  const target = { method: request.method, url: request.url };
  for (const [name, value] of Object.entries(
    await signatureHeaders(credentials, body, timestampMs, target),
  )) {
    headers.set(name, value);
  }
  return new Request(request, { headers, ...(body.length > 0 ? { body } : {}) });
}

/** The signing step as an openapi-fetch middleware, for callers composing their own client. */
export function hmacSigning(credentials: Credentials): Middleware {
  const stamp = signingClock();
  return { onRequest: ({ request }) => signRequest(request, credentials, stamp()) };
}
