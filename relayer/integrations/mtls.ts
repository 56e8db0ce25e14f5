import { createHash, createPrivateKey, X509Certificate } from "node:crypto";
import { Agent, request } from "node:https";
import { z } from "zod";
import { IntegrationError, MAX_RESPONSE_BYTES, responseTooLarge } from "./errors.ts";
import { PEM_CERTIFICATE } from "../config/index.ts";
import { AttemptFailure } from "./retry.ts";

/**
 * Mutual TLS for `auth.type: oauth2_mtls` (RFC 8705): the client's certificate chain and private
 * key, kept in the vault as one credential, and requests over node:https with an Agent that
 * presents them (and trusts `auth.ca` when set) on every connection it opens.
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

export interface Exchange {
  status: number;
  text: string;
  /** The `Retry-After` header, when the answer carries one (a 429). */
  retryAfter?: string;
  /** The `Location` header of a redirect (which is never followed). */
  location?: string | null;
}

/**
 * One request over the agent. Transport failures are AttemptFailures (the retry policy decides);
 * a TLS failure is INTEGRATION_TLS_FAILED at once: a refused certificate or an untrusted server
 * does not get better by retrying, and it is not the remote system's outage.
 */
export function httpsExchange(
  integration: string,
  agent: Agent,
  url: URL,
  init: {
    method: string;
    headers: Record<string, string>;
    body: Uint8Array | string | null;
    timeoutMs: number;
    /** Names the endpoint in errors ("token endpoint"). */
    what: string;
  },
): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const signal = AbortSignal.timeout(init.timeoutMs);
    let handshook = false;
    let answered = false;
    const req = request(
      url,
      { method: init.method, headers: init.headers, agent, signal },
      (res) => {
        answered = true;
        const chunks: Buffer[] = [];
        let total = 0;
        res.on("data", (chunk: Buffer) => {
          total += chunk.byteLength;
          if (total > MAX_RESPONSE_BYTES) {
            req.destroy();
            reject(responseTooLarge(integration, init.what));
            return;
          }
          chunks.push(chunk);
        });
        res.on("error", fail);
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            text: Buffer.concat(chunks).toString("utf8"),
            location: typeof res.headers.location === "string" ? res.headers.location : null,
            ...(typeof res.headers["retry-after"] === "string"
              ? { retryAfter: res.headers["retry-after"] }
              : {}),
          }),
        );
      },
    );
    req.on("socket", (socket) => {
      if (!req.reusedSocket) socket.once("secureConnect", () => (handshook = true));
    });
    req.on("error", fail);
    req.end(init.body ?? undefined);

    function fail(err: NodeJS.ErrnoException) {
      if (signal.aborted) {
        reject(
          new AttemptFailure(
            "timeout",
            null,
            `${init.what}: no answer within ${init.timeoutMs} ms`,
          ),
        );
        return;
      }
      const tls = tlsFailure(err, handshook && !answered);
      if (tls) {
        reject(new IntegrationError("INTEGRATION_TLS_FAILED", integration, `${init.what}: ${tls}`));
        return;
      }
      reject(
        new AttemptFailure(
          "network_error",
          null,
          `${init.what}: network error: ${err.code ?? err.message}`,
        ),
      );
    }
  });
}

/** OpenSSL's verification results for the server's certificate (Node's error codes). */
const SERVER_CERTIFICATE_CODES = new Set([
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "CERT_HAS_EXPIRED",
  "CERT_NOT_YET_VALID",
  "CERT_UNTRUSTED",
  "CERT_REVOKED",
  "CERT_SIGNATURE_FAILURE",
  "ERR_TLS_CERT_ALTNAME_INVALID",
]);

/** Why the TLS layer failed, in words an operator can act on; null for other failures. */
function tlsFailure(err: NodeJS.ErrnoException, resetAfterFreshHandshake: boolean): string | null {
  const code = err.code ?? "";
  if (SERVER_CERTIFICATE_CODES.has(code))
    return `the server's certificate is not trusted (${code}): set auth.ca to the CA that issued it`;
  const alert = /^ERR_SSL_(?:TLSV1\d?|SSLV3)_ALERT_(.+)$/.exec(code);
  if (alert)
    return `the server refused the TLS handshake (alert: ${alert[1]!.toLowerCase().replaceAll("_", " ")}): the client certificate must be issued by a CA the server trusts and registered for the client_id`;
  if (code.startsWith("ERR_SSL_") || code.startsWith("ERR_TLS_"))
    return `the TLS handshake failed (${code})`;
  // TLS 1.3 servers check the client certificate after the client's side of the handshake is
  // done; many (Node among them) then just drop the connection instead of sending an alert.
  if (resetAfterFreshHandshake && (code === "ECONNRESET" || code === "EPIPE"))
    return "the server closed the connection right after the TLS handshake, before any answer: it most likely refused the client certificate (not issued by a CA it trusts, or revoked)";
  return null;
}
