import type { Middleware } from "openapi-fetch";

/**
 * The relayer's request signature (README "How a request is signed"): lower-case hex
 * HMAC-SHA256 with the signing secret over the `X-SVC-Timestamp` string immediately followed by
 * the raw body bytes. WebCrypto, so the same code signs in Node and in a browser.
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

/** The three headers for `body` signed at `timestampMs`. */
export async function signatureHeaders(
  credentials: Credentials,
  body: Uint8Array,
  timestampMs = Date.now(),
): Promise<Record<string, string>> {
  const timestamp = String(timestampMs);
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
 * A copy of `request` carrying a fresh signature. Each attempt must be signed anew: the relayer
 * accepts a signature once, so a retry with the first attempt's headers would be a replay.
 */
export async function signRequest(request: Request, credentials: Credentials): Promise<Request> {
  const body = new Uint8Array(await request.clone().arrayBuffer());
  const headers = new Headers(request.headers);
  for (const [name, value] of Object.entries(await signatureHeaders(credentials, body))) {
    headers.set(name, value);
  }
  return new Request(request, { headers, ...(body.length > 0 ? { body } : {}) });
}

/** The signing step as an openapi-fetch middleware, for callers composing their own client. */
export function hmacSigning(credentials: Credentials): Middleware {
  return { onRequest: ({ request }) => signRequest(request, credentials) };
}
