import { request as httpRequest, type Agent as HttpAgent } from "node:http";
import { request as httpsRequest, type Agent as HttpsAgent } from "node:https";
import { IntegrationError, MAX_RESPONSE_BYTES, responseTooLarge } from "./errors.ts";
import { AttemptFailure } from "./retry.ts";

/**
 * One HTTP exchange over node:http or node:https (by the URL's scheme) through a caller's
 * keep-alive Agent: the mTLS integrations' agent presents the client certificate, the text-analysis
 * provider's pools its connections. node:http rather than fetch: the WHATWG streams under fetch
 * cost about three times the CPU per call, which a hot path pays on every request.
 */
export interface Exchange {
  status: number;
  text: string;
  /** The `Retry-After` header, when the answer carries one (a 429). */
  retryAfter?: string;
  /** The `Location` header of a redirect (which is never followed). */
  location?: string | null;
}

/**
 * One request over the agent. The answer's body is read up to MAX_RESPONSE_BYTES (a larger one is
 * INTEGRATION_RESPONSE_TOO_LARGE, unread). Transport failures are AttemptFailures (the retry policy decides);
 * a TLS failure is INTEGRATION_TLS_FAILED at once: a refused certificate or an untrusted server
 * does not get better by retrying, and it is not the remote system's outage.
 */
export function exchange(
  integration: string,
  agent: HttpAgent | HttpsAgent,
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
    // A plain timer rather than AbortSignal.timeout: on the provider's hot path (three calls per
    // analysis) the signal's DOMException and weakly held timer cost measurable CPU per call.
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      req.destroy();
    }, init.timeoutMs);
    let handshook = false;
    let answered = false;
    const request = url.protocol === "https:" ? httpsRequest : httpRequest;
    const req = request(url, { method: init.method, headers: init.headers, agent }, (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      let total = 0;
      res.on("data", (chunk: Buffer) => {
        total += chunk.byteLength;
        if (total > MAX_RESPONSE_BYTES) {
          clearTimeout(timer);
          req.destroy();
          reject(responseTooLarge(integration, init.what));
          return;
        }
        chunks.push(chunk);
      });
      res.on("error", fail);
      res.on("end", () => {
        clearTimeout(timer);
        resolve({
          status: res.statusCode ?? 0,
          text: Buffer.concat(chunks).toString("utf8"),
          location: typeof res.headers.location === "string" ? res.headers.location : null,
          ...(typeof res.headers["retry-after"] === "string"
            ? { retryAfter: res.headers["retry-after"] }
            : {}),
        });
      });
    });
    req.on("socket", (socket) => {
      if (!req.reusedSocket) socket.once("secureConnect", () => (handshook = true));
    });
    req.on("error", fail);
    req.end(init.body ?? undefined);

    function fail(err: NodeJS.ErrnoException) {
      clearTimeout(timer);
      if (timedOut) {
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
