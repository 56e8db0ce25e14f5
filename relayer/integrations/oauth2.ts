import type { Agent } from "node:https";
import { z } from "zod";
import type { MtlsAuth } from "../config/index.ts";
import { IntegrationError } from "./errors.ts";
import { exchange, type Exchange } from "./exchange.ts";
import { mtlsAgent, parseMtlsCredential, type MtlsCredential } from "./mtls.ts";
import { AttemptFailure } from "./retry.ts";

/**
 * `auth.type: oauth2_mtls`: OAuth 2.0 client credentials grant (RFC 6749 §4.4) with mutual-TLS
 * client authentication and certificate-bound access tokens (RFC 8705). The token request and
 * every API call go over TLS presenting the same client certificate, so the token the server
 * binds to that certificate (`cnf.x5t#S256`) is accepted.
 *
 * Tokens are cached per integration until shortly before `expires_in` (without `expires_in`,
 * until the API answers 401); concurrent calls wait for one token request. The credential is read
 * from the vault on every call, as for jwt_bearer: a rotated certificate is used by the next call,
 * with a fresh token (the old one is bound to the old certificate).
 */
const tokenResponseSchema = z.looseObject({
  access_token: z.string().min(1, "must be a non-empty string"),
  token_type: z
    .string()
    .refine((t) => t.toLowerCase() === "bearer", { message: "must be Bearer (RFC 6750)" }),
  expires_in: z
    .union([z.number(), z.string().regex(/^\d+$/).transform(Number)])
    .pipe(z.number().int().positive("must be a positive number of seconds"))
    .optional(),
});

const tokenErrorSchema = z.looseObject({
  error: z.string().regex(/^[\x20-\x21\x23-\x5b\x5d-\x7e]{1,64}$/),
  error_description: z.string().optional(),
});

/** Refresh this long before expiry (or at half the lifetime of a shorter-lived token). */
export const TOKEN_REFRESH_MARGIN_MS = 30_000;

interface CachedToken {
  value: string;
  refreshAt: number;
}

/** One credential's connection pool and its access token. */
export class MtlsSession {
  private readonly credential: MtlsCredential;
  private readonly agent: Agent;
  private readonly integration: string;
  private readonly auth: MtlsAuth;
  private readonly timeoutMs: number;
  private readonly now: () => number;
  private token: CachedToken | null = null;
  private pending: Promise<string> | null = null;

  constructor(
    integration: string,
    credential: MtlsCredential,
    auth: MtlsAuth,
    options: { timeoutMs: number; now: () => number },
  ) {
    this.integration = integration;
    this.credential = credential;
    this.auth = auth;
    this.agent = mtlsAgent(credential, auth.caPem);
    this.timeoutMs = options.timeoutMs;
    this.now = options.now;
  }

  /** The client certificate's `x5t#S256` (names the credential in alerts, never its key). */
  get thumbprint(): string {
    return this.credential.thumbprint;
  }

  /** The cached token, or the one a single shared token request brings. */
  accessToken(): Promise<string> {
    if (this.token && this.now() < this.token.refreshAt) return Promise.resolve(this.token.value);
    this.pending ??= this.requestToken().finally(() => {
      this.pending = null;
    });
    return this.pending;
  }

  /** Drops `token` (the API refused it); a newer token another call fetched is kept. */
  invalidate(token: string): void {
    if (this.token?.value === token) this.token = null;
  }

  exchange(
    url: URL,
    init: { method: string; headers: Record<string, string>; body: Uint8Array | null },
  ): Promise<Exchange> {
    return exchange(this.integration, this.agent, url, {
      ...init,
      timeoutMs: this.timeoutMs,
      what: "API",
    });
  }

  private async requestToken(): Promise<string> {
    const form = new URLSearchParams({
      grant_type: "client_credentials",
      client_id: this.credential.clientId,
    });
    if (this.auth.scope) form.set("scope", this.auth.scope);
    const requestedAt = this.now();
    // Transport failures stay AttemptFailures: the call's retry policy applies to them too.
    const res = await exchange(this.integration, this.agent, new URL(this.auth.tokenUrl), {
      method: "POST",
      headers: {
        "Content-Type": "application/x-www-form-urlencoded",
        Accept: "application/json",
      },
      body: form.toString(),
      timeoutMs: this.timeoutMs,
      what: "token endpoint",
    });
    if (res.status >= 500)
      throw new AttemptFailure("status", res.status, `token endpoint: HTTP ${res.status}`);
    if (res.status !== 200) throw this.refused(res);
    const parsed = tokenResponseSchema.safeParse(jsonOrUndefined(res.text));
    if (!parsed.success) {
      // Paths and rules only: the answer may hold a token.
      const issues = parsed.error.issues
        .map((i) => `${i.path.join(".") || "(root)"} ${i.message}`)
        .join("; ");
      throw new IntegrationError(
        "INTEGRATION_TOKEN_REFUSED",
        this.integration,
        `the token endpoint's answer is not an OAuth 2.0 token response (${issues})`,
        res.status,
      );
    }
    const lifetimeMs =
      parsed.data.expires_in === undefined ? Infinity : parsed.data.expires_in * 1000;
    this.token = {
      value: parsed.data.access_token,
      refreshAt: requestedAt + lifetimeMs - Math.min(TOKEN_REFRESH_MARGIN_MS, lifetimeMs / 2),
    };
    return this.token.value;
  }

  /** RFC 6749 §5.2: `{error, error_description}`; the operator's next step. */
  private refused(res: Exchange): IntegrationError {
    const oauth = tokenErrorSchema.safeParse(jsonOrUndefined(res.text));
    const reason = oauth.success
      ? `${oauth.data.error}${oauth.data.error_description ? ` (${oauth.data.error_description.slice(0, 200)})` : ""}`
      : "no OAuth error body";
    const hint =
      oauth.success && oauth.data.error === "invalid_scope"
        ? "check auth.scope"
        : `rotate or re-register the credential ${this.auth.credentialId}: its client_id and client certificate must be registered with the authorization server`;
    return new IntegrationError(
      "INTEGRATION_TOKEN_REFUSED",
      this.integration,
      `the token endpoint answered ${res.status} ${reason}: ${hint}`,
      res.status,
    );
  }
}

/**
 * The oauth2_mtls state of one integration: the session of the credential currently in the vault.
 */
export class OAuthMtls {
  private readonly integration: string;
  private readonly auth: MtlsAuth;
  private readonly readCredential: () => Promise<string>;
  private readonly options: { timeoutMs: number; now: () => number };
  private current: { text: string; session: MtlsSession } | null = null;

  constructor(
    integration: string,
    auth: MtlsAuth,
    readCredential: () => Promise<string>,
    options: { timeoutMs: number; now: () => number },
  ) {
    this.integration = integration;
    this.auth = auth;
    this.readCredential = readCredential;
    this.options = options;
  }

  async session(): Promise<MtlsSession> {
    const text = await this.readCredential();
    if (this.current?.text === text) return this.current.session;
    let credential: MtlsCredential;
    try {
      credential = parseMtlsCredential(text);
    } catch (err) {
      throw new IntegrationError(
        "INTEGRATION_CREDENTIAL_UNAVAILABLE",
        this.integration,
        `credential ${this.auth.credentialId} is not an oauth2_mtls credential: ${(err as Error).message} (npm run integrations -- set-mtls-credential ${this.auth.credentialId})`,
      );
    }
    const session = new MtlsSession(this.integration, credential, this.auth, this.options);
    this.current = { text, session };
    return session;
  }
}

/** The JSON a token endpoint answered, or undefined when its body is not JSON. */
function jsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
