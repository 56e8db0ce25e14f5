import { createPrivateKey, createPublicKey, sign, verify } from "node:crypto";
import { IntegrationError } from "./errors.ts";

/**
 * The request signer (spec "Authentication" 3): the message is `<METHOD>:<PATH>:<hex of body
 * bytes>` — METHOD upper case, PATH the request target (path and query string, exactly as sent,
 * e.g. `/v2/crm/orders?status=unpaid`), the body's bytes in lower-case hex (empty for no body) —
 * signed with the integration's Ed25519 private key (RFC 8032, no pre-hash) and sent base64 in
 * `X-Veriflow-Signature`, with `X-Veriflow-Signature-Alg: ed25519` and `X-Veriflow-Key-Id` naming
 * the key. A failure of the crypto (an unreadable or wrong key) is INTEGRATION_SIGNING_FAILED and
 * nothing is sent.
 */
export const SIGNATURE_HEADER = "X-Veriflow-Signature";
export const SIGNATURE_ALG_HEADER = "X-Veriflow-Signature-Alg";
export const KEY_ID_HEADER = "X-Veriflow-Key-Id";
export const SIGNATURE_ALG = "ed25519";

export function signingMessage(method: string, target: string, body: Uint8Array | null): string {
  return `${method.toUpperCase()}:${target}:${body ? Buffer.from(body).toString("hex") : ""}`;
}

export function signRequest(
  integration: string,
  privatePem: () => string,
  method: string,
  target: string,
  body: Uint8Array | null,
): string {
  const message = signingMessage(method, target, body);
  try {
    const key = createPrivateKey(privatePem());
    if (key.asymmetricKeyType !== SIGNATURE_ALG) throw new Error("not an Ed25519 key");
    return sign(null, Buffer.from(message, "utf8"), key).toString("base64");
  } catch (err) {
    // The key never appears in the message; only what went wrong.
    throw new IntegrationError(
      "INTEGRATION_SIGNING_FAILED",
      integration,
      `the request could not be signed (${(err as Error).message.split("\n")[0]}); nothing was sent`,
    );
  }
}

/** What the receiving system does (and the stand-ins do): verify the base64 signature. */
export function verifyRequestSignature(
  publicPem: string,
  method: string,
  target: string,
  body: Uint8Array | null,
  signatureBase64: string,
): boolean {
  try {
    return verify(
      null,
      Buffer.from(signingMessage(method, target, body), "utf8"),
      createPublicKey(publicPem),
      Buffer.from(signatureBase64, "base64"),
    );
  } catch {
    return false;
  }
}
