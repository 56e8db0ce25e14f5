import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import {
  ApiError,
  loadBody,
  MAX_BODY_BYTES,
  type AppEnv,
  type AuthenticatedKey,
} from "../http/index.ts";
import type { Store } from "../store/index.ts";
import { DEFAULT_FAILED_AUTH_PER_MINUTE, FailedAuthLimiter } from "./failures.ts";
import {
  signedTarget,
  signPayload,
  signPayloadV2,
  SIGNATURE_VERSION_HEADER,
  TIMESTAMP_TOLERANCE_MS,
  verifyHmac,
} from "./hmac.ts";
import { CredentialsCache, type ApiKeyCredentials } from "./keys.ts";
import { recordSignature } from "./replay.ts";

/**
 * Authentication (spec "Authentication"): every request outside health, metrics and docs carries
 * `X-SVC-Key`, `X-SVC-Timestamp` (epoch ms) and `X-SVC-Signature`: version 1, the spec's
 * HMAC-SHA256(secret, timestamp + raw body), or with `X-SVC-Signature-Version: 2` the version that
 * also covers the method, path and query (relayer/auth/hmac.ts). The headers are authenticated
 * before the body is read, so a caller without a known key never costs a body read. Checks, in
 * order, each failing with 401 and its own code: the source address's failure limit (429), headers
 * present, well-formed, signature version known, timestamp within ±300 s, key known and not
 * revoked, version 1 allowed for the key (not when it requires version 2); then the body is read
 * (415, 413, 400 for hostile bytes); a bodyless state-changing request under version 1 refused
 * unless the key allows it; signature valid (constant time, against the current and, during a
 * rotation, the previous secret); signature not seen before (shared through the database).
 * Compliance endpoints also accept `Authorization: Bearer <API_KEY>` (key checked, then the body).
 */

export interface AuthOptions {
  store: Store;
  masterKey: Buffer;
  clock?: () => number;
  /** The most bytes a request's body may have (default MAX_BODY_BYTES for every request). */
  bodyLimit?: (method: string, path: string) => number;
  /** Accept `Authorization: Bearer <API_KEY>` as an alternative (compliance endpoints). */
  allowBearer?: boolean | ((path: string) => boolean);
  /** How long looked-up credentials are reused (default 1 s); see CredentialsCache. */
  credentialsTtlMs?: number;
  /** Failed authentications a source address may make per minute (see FailedAuthLimiter). */
  failedAuthPerMinute?: number;
  /**
   * Records a verified signature; false when it was already used. The default is
   * `recordSignature`; the app passes one that also counts the rate in the same round trip.
   */
  admit?: (
    c: Context<AppEnv>,
    credentials: ApiKeyCredentials,
    signature: string,
    timestampMs: number,
  ) => Promise<boolean>;
}

export const AUTH_ERRORS = {
  missingKey: "AUTH_MISSING_KEY",
  missingSignature: "AUTH_MISSING_SIGNATURE",
  missingTimestamp: "AUTH_MISSING_TIMESTAMP",
  malformedKey: "AUTH_MALFORMED_KEY",
  malformedTimestamp: "AUTH_MALFORMED_TIMESTAMP",
  malformedSignature: "AUTH_MALFORMED_SIGNATURE",
  timestampExpired: "AUTH_TIMESTAMP_EXPIRED",
  timestampInFuture: "AUTH_TIMESTAMP_IN_FUTURE",
  unknownKey: "AUTH_UNKNOWN_KEY",
  revokedKey: "AUTH_KEY_REVOKED",
  badSignature: "AUTH_BAD_SIGNATURE",
  replay: "AUTH_REPLAYED_SIGNATURE",
  malformedAuthorization: "AUTH_MALFORMED_AUTHORIZATION",
  unsupportedVersion: "AUTH_UNSUPPORTED_SIGNATURE_VERSION",
  versionRequired: "AUTH_SIGNATURE_V2_REQUIRED",
} as const;

/** Methods that change state: a bodyless one must say, in a version 2 signature, what it is. */
const STATE_CHANGING = new Set(["POST", "PUT", "PATCH", "DELETE"]);

const unauthorized = (code: string, detail: string) =>
  new ApiError(401, code, detail, {}, { "WWW-Authenticate": 'HMAC-SHA256 realm="veriflow"' });

const KEY_PATTERN = /^[A-Za-z0-9_.-]{1,128}$/;
const TIMESTAMP_PATTERN = /^[0-9]{1,16}$/;
const SIGNATURE_PATTERN = /^[0-9a-f]{64}$/;

async function credentialsFor(
  cache: CredentialsCache,
  key: string,
  now: number,
): Promise<ApiKeyCredentials> {
  const credentials = await cache.get(key, now);
  if (!credentials) throw unauthorized(AUTH_ERRORS.unknownKey, "the API key is not known");
  if (credentials.revoked) throw unauthorized(AUTH_ERRORS.revokedKey, "the API key was revoked");
  return credentials;
}

export function authenticate(options: AuthOptions) {
  const clock = options.clock ?? Date.now;
  const bodyLimit = options.bodyLimit ?? (() => MAX_BODY_BYTES);
  const cache = new CredentialsCache(options.store, options.masterKey, options.credentialsTtlMs);
  const admit =
    options.admit ??
    ((_c, credentials, signature, timestampMs) =>
      recordSignature(options.store, credentials.id, signature, timestampMs));
  const bearerAllowed =
    typeof options.allowBearer === "function"
      ? options.allowBearer
      : () => options.allowBearer === true;

  const failures = new FailedAuthLimiter(
    options.failedAuthPerMinute ?? DEFAULT_FAILED_AUTH_PER_MINUTE,
  );

  return createMiddleware<AppEnv>(async (c, next) => {
    const now = clock();
    const address = sourceAddress(c);
    if (address === undefined) return check(c, next, now);
    failures.check(address, now);
    try {
      return await check(c, next, now);
    } catch (err) {
      if (err instanceof ApiError && err.status === 401 && !c.get("apiKey")) {
        failures.record(address, now);
      }
      throw err;
    }
  });

  async function check(c: Context<AppEnv>, next: () => Promise<void>, now: number) {
    const key = c.req.header("x-svc-key");
    const authorization = c.req.header("authorization");

    if (key === undefined && authorization !== undefined && bearerAllowed(c.req.path)) {
      const match = /^Bearer ([A-Za-z0-9_.-]{1,128})$/.exec(authorization.trim());
      if (!match) {
        throw unauthorized(
          AUTH_ERRORS.malformedAuthorization,
          "the Authorization header must be `Bearer <API_KEY>`",
        );
      }
      const credentials = await credentialsFor(cache, match[1]!, now);
      await loadBody(c, bodyLimit(c.req.method, c.req.path));
      setKey(c, credentials, "bearer");
      return next();
    }

    const timestamp = c.req.header("x-svc-timestamp");
    const signature = c.req.header("x-svc-signature");
    if (key === undefined)
      throw unauthorized(AUTH_ERRORS.missingKey, "X-SVC-Key header is missing");
    if (timestamp === undefined) {
      throw unauthorized(AUTH_ERRORS.missingTimestamp, "X-SVC-Timestamp header is missing");
    }
    if (signature === undefined) {
      throw unauthorized(AUTH_ERRORS.missingSignature, "X-SVC-Signature header is missing");
    }
    if (!KEY_PATTERN.test(key)) {
      throw unauthorized(AUTH_ERRORS.malformedKey, "X-SVC-Key is not a well-formed API key");
    }
    if (!TIMESTAMP_PATTERN.test(timestamp)) {
      throw unauthorized(
        AUTH_ERRORS.malformedTimestamp,
        "X-SVC-Timestamp must be milliseconds since the epoch as a decimal string",
      );
    }
    if (!SIGNATURE_PATTERN.test(signature)) {
      throw unauthorized(
        AUTH_ERRORS.malformedSignature,
        "X-SVC-Signature must be 64 lower-case hex characters (HMAC-SHA256)",
      );
    }
    const versionHeader = c.req.header(SIGNATURE_VERSION_HEADER);
    if (versionHeader !== undefined && versionHeader !== "1" && versionHeader !== "2") {
      throw unauthorized(
        AUTH_ERRORS.unsupportedVersion,
        `${SIGNATURE_VERSION_HEADER} must be 1 or 2 (absent means 1)`,
      );
    }
    const version = versionHeader === "2" ? 2 : 1;
    const timestampMs = Number(timestamp);
    if (timestampMs < now - TIMESTAMP_TOLERANCE_MS) {
      throw unauthorized(
        AUTH_ERRORS.timestampExpired,
        `X-SVC-Timestamp is more than ${TIMESTAMP_TOLERANCE_MS / 1000} s old; sign the request again with the current time`,
      );
    }
    if (timestampMs > now + TIMESTAMP_TOLERANCE_MS) {
      throw unauthorized(
        AUTH_ERRORS.timestampInFuture,
        `X-SVC-Timestamp is more than ${TIMESTAMP_TOLERANCE_MS / 1000} s in the future; check the client's clock`,
      );
    }
    const credentials = await credentialsFor(cache, key, now);
    if (version === 1 && credentials.signaturePolicy.requireV2) {
      throw unauthorized(
        AUTH_ERRORS.versionRequired,
        `this key requires signature version 2: send ${SIGNATURE_VERSION_HEADER}: 2 and sign the method, path, query, timestamp and body hash`,
      );
    }
    // Only now, for a known key, is the body read (bounded).
    await loadBody(c, bodyLimit(c.req.method, c.req.path));
    const body = c.get("rawBody");
    if (
      version === 1 &&
      body.byteLength === 0 &&
      STATE_CHANGING.has(c.req.method) &&
      !credentials.signaturePolicy.allowV1Bodyless
    ) {
      throw unauthorized(
        AUTH_ERRORS.versionRequired,
        `a ${c.req.method} without a body must be signed with version 2 (${SIGNATURE_VERSION_HEADER}: 2): version 1 covers only the timestamp and the body, not which request it authorises`,
      );
    }
    const target = version === 2 ? signedTarget(c.req.method, c.req.url) : undefined;
    const valid = verifyHmac(credentials.secrets, signature, (secret) =>
      target
        ? signPayloadV2(secret, target, timestamp, body)
        : signPayload(secret, timestamp, body),
    );
    if (!valid) {
      throw unauthorized(
        AUTH_ERRORS.badSignature,
        version === 2
          ? "X-SVC-Signature does not match version 2: HMAC-SHA256(signing secret, the method, path, query, X-SVC-Timestamp and body hash, one per line, after VERIFLOW-HMAC-SHA256-2)"
          : "X-SVC-Signature does not match HMAC-SHA256(signing secret, X-SVC-Timestamp + body)",
      );
    }
    if (!(await admit(c, credentials, signature, timestampMs))) {
      throw unauthorized(
        AUTH_ERRORS.replay,
        "this signature was already used; sign each request with a fresh timestamp",
      );
    }
    setKey(c, credentials, "hmac");
    return next();
  }
}

/**
 * The peer's address under @hono/node-server; undefined elsewhere (`app.request()` in tests),
 * where there is no network peer to limit.
 */
function sourceAddress(c: Context<AppEnv>): string | undefined {
  const incoming = (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)
    ?.incoming;
  return incoming?.socket?.remoteAddress;
}

function setKey(
  c: { set(key: "apiKey", value: AuthenticatedKey): void },
  credentials: ApiKeyCredentials,
  method: AuthenticatedKey["method"],
): void {
  c.set("apiKey", { id: credentials.id, key: credentials.key, tier: credentials.tier, method });
}
