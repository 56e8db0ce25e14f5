import { createHmac, randomUUID, timingSafeEqual } from "node:crypto";
import type { Logger } from "pino";
import type { EngineStore } from "../accounts/index.ts";
import { readBounded } from "../http/index.ts";
import { bearerJwt } from "./auth.ts";
import {
  anchorImmediate,
  endpointWithId,
  newInteractionId,
  recordInteraction,
  type AnchorTarget,
} from "./anchor.ts";
import type { OnChainBreaker } from "./breaker.ts";
import type { IntegrationConfig } from "../config/index.ts";
import {
  IntegrationError,
  MAX_RESPONSE_BYTES,
  redirectRefused,
  responseTooLarge,
} from "./errors.ts";
import {
  credentialFingerprint,
  DISABLE_AFTER_UNAUTHORIZED,
  type IntegrationHealth,
} from "./health.ts";
import { OAuthMtls } from "./oauth2.ts";
import type { Exchange } from "./exchange.ts";
import { reserveToken } from "./rate-limit.ts";
import { AttemptFailure, parseRetryAfter, retryPolicy } from "./retry.ts";
import { responseSchema } from "../config/index.ts";
import {
  KEY_ID_HEADER,
  SIGNATURE_ALG,
  SIGNATURE_ALG_HEADER,
  SIGNATURE_HEADER,
  signRequest,
} from "./signer.ts";
import { readCredential, signingKeyPem } from "./vault.ts";

/**
 * One named external REST system. A call: refused at once while the node is disabled or its
 * circuit is OPEN on chain (or routed to the configured fallback); signed (spec "Authentication"
 * 3); authorised with a JWT bearer or an OAuth 2.0 access token over mutual TLS (oauth2.ts); each
 * attempt rate limited by the bucket every process shares; retried per the retry policy (only on
 * its conditions, and a 429 after its Retry-After); recorded and anchored once it has a response;
 * validated against the pinned response schema (or the rollback version, with an alert). The
 * spec's error handlings: a 429 whose wait exceeds `max_delay` is INTEGRATION_RATE_LIMITED with the
 * wait; a 504 goes to the fallback at once; a 401 is INTEGRATION_UNAUTHORIZED ("rotate the
 * credential") and, answered to a fresh credential, marks it suspect and eventually disables the
 * node; a failure (no response, final status >= 500) is reported to the CircuitBreakerGateway.
 */
export interface CallRequest {
  method: "GET" | "POST" | "PUT" | "DELETE";
  /** Path under the integration's base URL, e.g. `/crm/orders`. */
  path: string;
  query?: Record<string, string>;
  body?: unknown;
  headers?: Record<string, string>;
  /** The execution and action the call serves (listed in its report). */
  executionId?: string;
  actionIndex?: number;
}

export interface CallResult<T = unknown> {
  /** The integration that answered (the fallback's name when this one was routed around). */
  integration: string;
  status: number;
  data: T;
  interactionId: number;
  /** The API version the answer was accepted under: the pinned one, or the rollback version. */
  schemaVersion: string;
  /** Why the configured integration was routed around to its fallback, when it was. */
  routedAround?: { integration: string; reason: RouteAroundReason };
}

export type RouteAroundReason = "disabled" | "circuit_open" | "gateway_timeout";

export interface ClientDeps {
  store: EngineStore;
  masterKey: Buffer;
  logger: Logger;
  target: AnchorTarget;
  breaker: OnChainBreaker;
  health: IntegrationHealth;
  clock?: () => number;
  fetch?: typeof fetch;
  sleep?: (ms: number) => Promise<void>;
  env?: Record<string, string | undefined>;
  /** The client to use while this one's circuit is open (`fallback`). */
  fallback?: () => IntegrationClient;
}

const defaultSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

interface CallAuthorization {
  /** Names the credential in alerts: a fingerprint or certificate thumbprint, never the secret. */
  fingerprint: string;
  /** Whether a 401 answered a credential issued for this call (not a cached one). */
  freshOn401(renewed: boolean): boolean;
  token(): Promise<string>;
  send(
    url: URL,
    init: { method: string; headers: Record<string, string>; body: Uint8Array | null },
  ): Promise<Exchange>;
  renew?(token: string): void;
}

export class IntegrationClient {
  readonly config: IntegrationConfig;
  private readonly deps: ClientDeps;
  private readonly mtls: OAuthMtls | null;

  constructor(config: IntegrationConfig, deps: ClientDeps) {
    this.config = config;
    this.deps = deps;
    const auth = config.auth;
    this.mtls =
      auth.type === "oauth2_mtls"
        ? new OAuthMtls(
            config.name,
            auth,
            () => readCredential(deps.store, deps.masterKey, config.name, auth, deps.env),
            { timeoutMs: config.timeoutMs, now: () => this.now() },
          )
        : null;
  }

  get name(): string {
    return this.config.name;
  }

  private now(): number {
    return (this.deps.clock ?? Date.now)();
  }

  async call<T = unknown>(request: CallRequest): Promise<CallResult<T>> {
    const node = await this.deps.health.state(this.name);
    if (node.state === "disabled") {
      return this.routeAround<T>(
        request,
        "disabled",
        () =>
          new IntegrationError(
            "INTEGRATION_DISABLED",
            this.name,
            `the integration node is disabled since ${node.since} (${node.reason}); no request was sent: rotate the credential ${this.config.auth.credentialId}, then re-enable it with npm run integrations -- enable ${this.name}`,
          ),
      );
    }
    if (await this.deps.breaker.isOpen()) {
      return this.routeAround<T>(
        request,
        "circuit_open",
        () =>
          new IntegrationError(
            "INTEGRATION_CIRCUIT_OPEN",
            this.name,
            `the circuit of gateway ${this.deps.breaker.gateway} is OPEN on chain; no request was sent (it closes after the contract's cooldown)`,
          ),
      );
    }
    const url = new URL(this.config.url + request.path);
    for (const [k, v] of Object.entries(request.query ?? {})) url.searchParams.set(k, v);
    const target = url.pathname + url.search;
    const bodyText = request.body === undefined ? null : JSON.stringify(request.body);
    const bodyBytes = bodyText === null ? null : new TextEncoder().encode(bodyText);

    const { privatePem } = await signingKeyPem(
      this.deps.store,
      this.deps.masterKey,
      this.name,
    ).catch(() => ({ privatePem: null as string | null }));
    const signature = signRequest(
      this.name,
      () => {
        if (privatePem === null)
          throw new Error("the signing key does not decrypt under this master key");
        return privatePem;
      },
      request.method,
      target,
      bodyBytes,
    );
    const auth = await this.authorization();
    const headers: Record<string, string> = {
      Accept: "application/json",
      ...(bodyText !== null ? { "Content-Type": "application/json" } : {}),
      // One key for every attempt of this call: a retried POST is not a second payment. A
      // caller's own key (a payment reference) survives restarts too.
      "Idempotency-Key": randomUUID(),
      ...request.headers,
      [SIGNATURE_HEADER]: signature,
      [SIGNATURE_ALG_HEADER]: SIGNATURE_ALG,
      [KEY_ID_HEADER]: `${this.name}-request-signer`,
    };

    // Spec 504 "route around": with a fallback, a gateway timeout is not waited out here.
    const stop = (f: AttemptFailure) => f.status === 504 && this.deps.fallback !== undefined;
    let response: { status: number; text: string } | null = null;
    let failure: AttemptFailure | null = null;
    let renewed = false;
    try {
      response = await retryPolicy(this.config.retry, stop).execute(async () => {
        for (;;) {
          await this.takeToken();
          const token = await auth.token();
          const res = await auth.send(url, {
            method: request.method,
            headers: { ...headers, Authorization: `Bearer ${token}` },
            body: bodyBytes,
          });
          // oauth2_mtls: a refused token (expired early, revoked) is replaced once per call.
          if (res.status === 401 && auth.renew && !renewed) {
            renewed = true;
            auth.renew(token);
            continue;
          }
          if (res.status >= 300 && res.status < 400) {
            throw redirectRefused(this.name, res.status, res.location ?? null);
          }
          if (res.status >= 400) {
            throw new AttemptFailure("status", res.status, `HTTP ${res.status}`, {
              text: res.text,
              retryAfterMs: res.status === 429 ? parseRetryAfter(res.retryAfter, this.now()) : null,
            });
          }
          return res;
        }
      });
    } catch (err) {
      if (!(err instanceof AttemptFailure)) throw err;
      failure = err;
      if (err.status !== null && err.text !== null)
        response = { status: err.status, text: err.text };
    }

    const observedAt = Math.floor(this.now() / 1000);
    let interactionId = 0;
    if (response) {
      interactionId = await this.record(request, url, bodyText, response, observedAt);
    }
    if (failure) {
      if (failure.status === 504 && this.deps.fallback) {
        await this.reportFailure();
        return this.viaFallback<T>(this.deps.fallback, request, "gateway_timeout");
      }
      throw await this.failed(failure, auth, renewed);
    }
    const { data, version, received } = await this.validate(response!.text, request.executionId);
    await this.verifyHmac(received);
    if (node.state === "suspect") await this.deps.health.succeeded(this.name);
    return {
      integration: this.name,
      status: response!.status,
      data: data as T,
      interactionId,
      schemaVersion: version,
    };
  }

  /** The configured fallback answers instead (and says which integration it stood in for). */
  private async routeAround<T>(
    request: CallRequest,
    reason: RouteAroundReason,
    refusal: () => IntegrationError,
  ): Promise<CallResult<T>> {
    if (!this.deps.fallback) throw refusal();
    return this.viaFallback<T>(this.deps.fallback, request, reason);
  }

  private async viaFallback<T>(
    fallback: () => IntegrationClient,
    request: CallRequest,
    reason: RouteAroundReason,
  ): Promise<CallResult<T>> {
    const result = await fallback().call<T>(request);
    return { ...result, routedAround: result.routedAround ?? { integration: this.name, reason } };
  }

  /** One token of the shared rate limit per attempt (retries are metered too). */
  private async takeToken(): Promise<void> {
    const limit = this.config.rateLimit;
    if (!limit) return;
    const wait = await reserveToken(this.deps.store, this.name, limit, this.now());
    if (wait > 0) await (this.deps.sleep ?? defaultSleep)(wait);
  }

  private async reportFailure(): Promise<{ failures: number; opened: boolean } | null> {
    return this.deps.breaker.reportFailure().catch((err: unknown) => {
      this.deps.logger.error(
        { err, integration: this.name },
        "could not report the failure on chain",
      );
      return null;
    });
  }

  /** The typed error of a final failed attempt, after the bookkeeping it calls for. */
  private async failed(
    failure: AttemptFailure,
    auth: CallAuthorization,
    renewed: boolean,
  ): Promise<IntegrationError> {
    const credentialId = this.config.auth.credentialId;
    if (failure.status === 401) {
      let consequence = "";
      if (auth.freshOn401(renewed)) {
        const node = await this.deps.health.unauthorized(this.name, auth.fingerprint, credentialId);
        consequence =
          node.state === "disabled"
            ? `; the integration node is now disabled (${node.reason}): npm run integrations -- enable ${this.name} after rotating it`
            : node.state === "suspect"
              ? `; the credential is suspect (${node.unauthorizedCount} of ${DISABLE_AFTER_UNAUTHORIZED} consecutive 401s before the node is disabled)`
              : "";
      }
      return new IntegrationError(
        "INTEGRATION_UNAUTHORIZED",
        this.name,
        `401 Unauthorized${renewed ? " again with a newly issued access token" : ""}: rotate the credential ${credentialId} (key_vault ${this.config.auth.keyVault}) and check the remote system's registration${consequence}`,
        401,
      );
    }
    if (failure.status === 429) {
      const wait = failure.retryAfterMs;
      const seconds = wait === null ? null : Math.ceil(wait / 1000);
      const why =
        wait !== null && wait > this.config.retry.maxDelayMs
          ? `it asks to wait ${seconds} s (Retry-After), more than the retry policy's max_delay of ${this.config.retry.maxDelayMs / 1000} s; not retried`
          : `still 429 after ${this.config.retry.attempts} attempt(s)`;
      return new IntegrationError(
        "INTEGRATION_RATE_LIMITED",
        this.name,
        `the system's rate limit was exceeded (429): ${why}${seconds !== null ? `; retry after ${seconds} s` : ""}`,
        429,
        wait,
      );
    }
    if (failure.status !== null && failure.status < 500) {
      return new IntegrationError(
        "INTEGRATION_REQUEST_REFUSED",
        this.name,
        `the system answered ${failure.status} (not retried)`,
        failure.status,
      );
    }
    const reported = await this.reportFailure();
    return new IntegrationError(
      "INTEGRATION_UNAVAILABLE",
      this.name,
      `${failure.message} after ${this.config.retry.attempts} attempt(s)${reported ? `; failure ${reported.failures} recorded on chain${reported.opened ? ", circuit OPEN" : ""}` : ""}`,
      failure.status,
    );
  }

  /**
   * How this call is authorised and sent. jwt_bearer: a fresh JWT per attempt over fetch.
   * oauth2_mtls: the cached access token over the client certificate's connections; `renew`
   * drops a token the API refused.
   */
  private async authorization(): Promise<CallAuthorization> {
    const auth = this.config.auth;
    if (auth.type === "oauth2_mtls") {
      const session = await this.mtls!.session();
      return {
        fingerprint: `x5t#S256 ${session.thumbprint}`,
        // A cached token may simply have been revoked; the one fetched after it is fresh.
        freshOn401: (renewed) => renewed,
        token: () => session.accessToken(),
        send: (url, init) => session.exchange(url, init),
        renew: (token) => session.invalidate(token),
      };
    }
    const secret = await readCredential(
      this.deps.store,
      this.deps.masterKey,
      this.name,
      auth,
      this.deps.env,
    );
    const doFetch = this.deps.fetch ?? fetch;
    return {
      fingerprint: credentialFingerprint(secret),
      // Every attempt mints its own JWT from the credential: a 401 refuses the credential itself.
      freshOn401: () => true,
      // A fresh token per attempt (short-lived).
      token: () => bearerJwt(secret, auth.credentialId, this.config.url, this.now()),
      send: async (url, init) => {
        let res: Response;
        try {
          res = await doFetch(url, {
            ...init,
            body: init.body ?? undefined,
            redirect: "manual",
            signal: AbortSignal.timeout(this.config.timeoutMs),
          });
        } catch (err) {
          const timeout = (err as Error).name === "TimeoutError";
          throw new AttemptFailure(
            timeout ? "timeout" : "network_error",
            null,
            timeout
              ? `no answer within ${this.config.timeoutMs} ms`
              : `network error: ${(err as Error).message}`,
          );
        }
        const retryAfter = res.headers.get("retry-after");
        return {
          status: res.status,
          text: await boundedText(this.name, res),
          location: res.headers.get("location"),
          ...(retryAfter !== null ? { retryAfter } : {}),
        };
      },
    };
  }

  /** Stores the interaction and, in immediate mode, anchors it before the caller sees the data. */
  private async record(
    request: CallRequest,
    url: URL,
    bodyText: string | null,
    response: { status: number; text: string },
    observedAt: number,
  ): Promise<number> {
    const mode = this.config.validation.anchor.intervalMs === 0 ? "immediate" : "batch";
    const id = await recordInteraction(this.deps.store, {
      integration: this.name,
      executionId: request.executionId,
      actionIndex: request.actionIndex,
      method: request.method,
      endpoint: endpointText(request.method, url, bodyText, newInteractionId()),
      response: response.text,
      httpStatus: response.status,
      observedAt,
      mode,
      target: this.deps.target,
    });
    if (mode === "immediate") await anchorImmediate(this.deps.store, this.deps.target, id);
    return id;
  }

  /**
   * The body against the pinned schema version; failing that, against `rollback_version` (spec:
   * "roll back the API version"): accepted under it with an alert, otherwise refused.
   */
  private async validate(
    text: string,
    executionId: string | undefined,
  ): Promise<{ data: unknown; version: string; received: unknown }> {
    const { schema, version, rollbackVersion, strict } = this.config.validation;
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new IntegrationError(
        "INTEGRATION_SCHEMA_MISMATCH",
        this.name,
        "the response is not JSON",
      );
    }
    const parsed = responseSchema(schema, version, strict).safeParse(json);
    if (parsed.success) return { data: parsed.data, version, received: json };
    const issues = parsed.error.issues
      .slice(0, 5)
      .map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`)
      .join("; ");
    if (rollbackVersion !== undefined) {
      const rolledBack = responseSchema(schema, rollbackVersion, strict).safeParse(json);
      if (rolledBack.success) {
        await this.deps.health.raise({
          integration: this.name,
          kind: "schema_rollback",
          detail: `integration ${this.name}: a response off ${schema}@${version} (${issues}) was accepted under the rollback version ${rollbackVersion}; the system serves the older API version`,
          executionId,
        });
        return { data: rolledBack.data, version: rollbackVersion, received: json };
      }
    }
    throw new IntegrationError(
      "INTEGRATION_SCHEMA_MISMATCH",
      this.name,
      `the response does not match ${schema}@${version}${rollbackVersion ? ` nor the rollback version ${rollbackVersion}` : ""}${strict ? " (strict)" : ""}: ${issues}; the data was not used (enable the matching schema version or roll the API version back)`,
    );
  }

  /**
   * `validation.response_hmac`: the response's `hmac` must be HMAC-SHA256(key, JSON of `data`), of
   * `data` as received (its fields in the sender's order, none dropped), not as the schema parsed it.
   */
  private async verifyHmac(value: unknown): Promise<void> {
    const ref = this.config.validation.responseHmac;
    if (!ref) return;
    const { data, hmac } = value as { data: unknown; hmac: string };
    const key = await readCredential(
      this.deps.store,
      this.deps.masterKey,
      this.name,
      ref,
      this.deps.env,
    );
    const expected = responseHmacOf(key, data);
    const given = Buffer.from(hmac, "hex");
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      throw new IntegrationError(
        "INTEGRATION_RESPONSE_SIGNATURE_INVALID",
        this.name,
        "the response HMAC does not verify; the data was not used",
      );
    }
  }
}

/** HMAC-SHA256 of the JSON text of `data` (the CRM's response proof). */
export function responseHmacOf(key: string, data: unknown): Buffer {
  return createHmac("sha256", key).update(JSON.stringify(data)).digest();
}

/**
 * The endpoint text of the proof record: `<METHOD> <URL>`, followed by a space and the request body
 * when there is one, so the record also binds what was asked (the screened address). The URL carries
 * the interaction's id as its fragment ({@link endpointWithId}), which makes the record unique.
 */
export function endpointText(
  method: string,
  url: URL,
  bodyText: string | null,
  interactionId: string,
): string {
  return `${method} ${endpointWithId(url, interactionId)}${bodyText === null ? "" : ` ${bodyText}`}`;
}

/** The body's text, read up to MAX_RESPONSE_BYTES; beyond, the stream is cancelled and refused. */
async function boundedText(integration: string, res: Response): Promise<string> {
  const declared = Number(res.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > MAX_RESPONSE_BYTES) {
    await res.body?.cancel().catch(() => {});
    throw responseTooLarge(integration, "response");
  }
  if (!res.body) return "";
  const bytes = await readBounded(res.body, MAX_RESPONSE_BYTES, () =>
    responseTooLarge(integration, "response"),
  );
  return bytes.toString("utf8");
}
