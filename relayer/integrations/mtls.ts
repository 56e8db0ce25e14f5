import { createHash, createPrivateKey, X509Certificate } from "node:crypto";
import { Agent } from "node:https";
import { z } from "zod";
import { PEM_CERTIFICATE } from "../config/index.ts";

/**
 * Mutual TLS for `auth.type: oauth2_mtls` (RFC 8705): the client's certificate chain and private
 * key, kept in the vault as one credential, and an Agent that presents them (and trusts `auth.ca`
 * when set) on every connection it opens (requests go through ./exchange.ts).
 *
 * The stored credential is JSON `{"client_id": "...", "cert": "<PEM chain, leaf first>",
 * "key": "<PEM private key, unencrypted: the vault encrypts it>"}`
 * (`npm run integrations -- set-mtls-credential`).
 */

const credentialSchema = z
  .object({
    client_id: z.string().min(1, "must not be empty").max(256),
    cert: z.string().regex(PEM_CERTIFICATE, "must be a PEM certificate chain"),
    key: z.string().regex(/-----BEGIN (?:[A-Z]+ )?PRIVATE KEY-----/, "must be a PEM private key"),
  })
  .strict();

export interface MtlsCredential {
  clientId: string;
  cert: string;
  key: string;
  /** RFC 8705 `x5t#S256` of the leaf certificate: what a certificate-bound token is bound to. */
  thumbprint: string;
}

/** The vault text of a credential (what the CLI stores). */
export function encodeMtlsCredential(input: {
  clientId: string;
  cert: string;
  key: string;
}): string {
  return JSON.stringify({ client_id: input.clientId, cert: input.cert, key: input.key });
}

/**
 * Parses and checks a stored credential: a certificate, a private key that is the certificate's.
 * Errors name what is wrong, never the content.
 */
export function parseMtlsCredential(text: string): MtlsCredential {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error('not JSON (expected {"client_id", "cert", "key"})');
  }
  const parsed = credentialSchema.safeParse(json);
  if (!parsed.success) {
    throw new Error(
      parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"} ${i.message}`).join("; "),
    );
  }
  const { client_id: clientId, cert, key } = parsed.data;
  let leaf: X509Certificate;
  try {
    leaf = new X509Certificate(cert.match(PEM_CERTIFICATE)![0]);
  } catch {
    throw new Error("cert is not a readable X.509 certificate");
  }
  let privateKey;
  try {
    privateKey = createPrivateKey(key);
  } catch {
    throw new Error(
      "key is not a readable private key (an encrypted key must be stored decrypted)",
    );
  }
  if (!leaf.checkPrivateKey(privateKey))
    throw new Error("key is not the private key of the first certificate of cert");
  return { clientId, cert, key, thumbprint: certificateThumbprint(leaf.raw) };
}

/** RFC 8705 §3.1: base64url of the SHA-256 of the certificate's DER. */
export function certificateThumbprint(der: Uint8Array): string {
  return createHash("sha256").update(der).digest("base64url");
}

/** One connection pool presenting the credential; `ca` replaces the default roots when set. */
export function mtlsAgent(credential: MtlsCredential, ca: string | undefined): Agent {
  return new Agent({ cert: credential.cert, key: credential.key, ca, keepAlive: true });
}
