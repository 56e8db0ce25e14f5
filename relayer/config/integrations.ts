import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import path from "node:path";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { isAddress } from "ethers";
import { isSupportedCountry, type CountryCode } from "libphonenumber-js/max";
import { loadRulesFile, type LegalRules } from "./legal-rules.ts";
import { pemCertificates } from "./pem.ts";
import { MONITORED_COLLECTIONS, RESPONSE_SCHEMAS } from "./response-schemas.ts";

/**
 * The integration configuration (spec "Integration configuration keys", "Limits"): a YAML or JSON
 * file named by VERIFLOW_INTEGRATIONS, validated once at start. Every bad value is reported with
 * its path (`integrations.crm.retry.backoff must be one of ...`).
 *
 * ```yaml
 * integrations:
 *   crm:
 *     url: https://crm.example.com/v2
 *     auth: { type: jwt_bearer, key_vault: local, credential_id: crm-jwt }
 *     # or: { type: oauth2_mtls, key_vault: local, credential_id: crm-mtls,
 *     #       token_url: https://auth.example.com/oauth2/token, scope: orders.read, ca: ./crm-ca.pem }
 *     validation:
 *       schema: crm.orders
 *       version: "2.4"
 *       rollback_version: "2.3"         # accepted under 2.3 (with an alert) when 2.4 fails
 *       strict: true
 *       blockchain_anchor: { interval: 1h, contract: ProofRegistry }
 *     rate_limit: { rps: 25, burst: 100 }
 *     retry: { attempts: 5, backoff: fibonacci, max_delay: 10s, conditions: ["status >= 500", network_error] }
 * screening: { integration: screening-provider, required: true }
 * text_analysis:                  # the text-analysis provider (relayer/analysis/, docs/analysis.md)
 *   api_endpoint: https://llm.example.com/v1
 *   models: { ultra: ultra-2025-06-01, general: general-2025-08-01, in_house: inhouse-2025-05-15 }
 *   fallback_model: general-2025-03-01
 *   auth: { type: api_key, key_vault: local, credential_id: analysis-key }
 *   rate_limit: { rpm: 600, burst: 50 }
 *   security: { input_sanitization: strict, output_encryption: aes-256-gcm }
 *   audit: { model_interactions: true, data_retention: 7y, anchor_interval: 1h }
 *   bias_threshold: 0.7
 *   rules: ./legal-rules.yaml
 *   rules_timeout: 1s             # per analysis; the rules run in the redaction threads
 * ```
 */

/** `500ms`, `10s`, `5m`, `1h`, `1d` → milliseconds. */
export function parseDuration(text: string): number | null {
  const m = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)$/.exec(text.trim());
  if (!m) return null;
  const unit = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] as "ms"];
  return Math.round(Number(m[1]) * unit);
}

const duration = (what: string) =>
  z.union([z.string(), z.number()]).transform((value, ctx) => {
    const ms = typeof value === "number" ? value * 1000 : parseDuration(value);
    if (ms === null || !Number.isFinite(ms) || ms < 0) {
      ctx.addIssue({
        code: "custom",
        message: `${what} must be a duration such as 500ms, 10s, 5m or 1h (got ${JSON.stringify(value)})`,
      });
      return z.NEVER;
    }
    return ms;
  });

/** The longest delay a Node timer keeps (2^31 - 1 ms, about 24.8 days). */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * A duration the relayer waits with a timer (a call's timeout, a retry's delay): Node fires a
 * longer one after 1 ms, so `timeout: 30d` would time every call out at once.
 */
const timerDuration = (what: string) =>
  duration(what).refine((ms) => ms <= MAX_TIMER_MS, {
    message: `must be at most ${MAX_TIMER_MS} ms (24d): a longer timer fires at once`,
  });

/** A retry condition: `network_error`, `timeout`, or `status <op> <code>`. */
export type RetryCondition =
  | { kind: "network_error" }
  | { kind: "timeout" }
  | { kind: "status"; op: ">=" | ">" | "==" | "<=" | "<"; value: number };

export function parseCondition(text: string): RetryCondition | null {
  const t = text.trim();
  if (t === "network_error") return { kind: "network_error" };
  if (t === "timeout") return { kind: "timeout" };
  const m = /^status\s*(>=|>|==|<=|<)\s*(\d{3})$/.exec(t);
  if (!m) return null;
  return { kind: "status", op: m[1] as ">=", value: Number(m[2]) };
}

const condition = z.string().transform((text, ctx) => {
  const parsed = parseCondition(text);
  if (!parsed) {
    ctx.addIssue({
      code: "custom",
      message: `unknown retry condition ${JSON.stringify(text)} (use network_error, timeout, or status >= 500 / status == 429 style comparisons)`,
    });
    return z.NEVER;
  }
  return parsed;
});

export interface RetryPolicy {
  /** Total attempts, the first included. */
  attempts: number;
  backoff: "exponential" | "fibonacci";
  /** Delay before the first retry; later ones grow from it. */
  initialDelayMs: number;
  maxDelayMs: number;
  conditions: RetryCondition[];
}

/** Spec "Limits": default retry 3 attempts exponential, max delay 10 s. */
export const DEFAULT_RETRY: RetryPolicy = {
  attempts: 3,
  backoff: "exponential",
  initialDelayMs: 200,
  maxDelayMs: 10_000,
  conditions: [{ kind: "status", op: ">=", value: 500 }, { kind: "network_error" }],
};

/** Spec "Limits": critical retry 5 attempts Fibonacci on status >= 500 and network errors. */
export const CRITICAL_RETRY: RetryPolicy = { ...DEFAULT_RETRY, attempts: 5, backoff: "fibonacci" };

/** Spec "Limits": payment gateway integration 25 requests per second, burst 100. */
export const PAYMENT_RATE_LIMIT = { rps: 25, burst: 100 } as const;

const retrySchema = z.union([
  z.enum(["default", "critical"]),
  z
    .object({
      attempts: z.number().int().min(1, "must be at least 1").max(20, "must be at most 20"),
      backoff: z.enum(["exponential", "fibonacci"], {
        message: "must be exponential or fibonacci",
      }),
      initial_delay: timerDuration("initial_delay").optional(),
      max_delay: timerDuration("max_delay").optional(),
      conditions: z.array(condition).optional(),
    })
    .strict(),
]);

const anchorSchema = z
  .object({
    interval: z
      .union([z.literal("immediate"), z.string(), z.number()])
      .default("immediate")
      .transform((value, ctx) => {
        if (value === "immediate" || value === 0 || value === "0") return 0;
        const ms = typeof value === "number" ? value * 1000 : parseDuration(value);
        if (ms === null || ms < 1000) {
          ctx.addIssue({
            code: "custom",
            message: `must be "immediate" or a duration of at least 1s such as 1h (got ${JSON.stringify(value)})`,
          });
          return z.NEVER;
        }
        return ms;
      }),
    contract: z
      .string()
      .default("ProofRegistry")
      .refine((c) => c === "ProofRegistry" || isAddress(c), {
        message: "must be ProofRegistry (the chain's deployment) or that contract's address",
      }),
    /** Chain name; default the first configured chain with a ProofRegistry. */
    chain: z.string().min(1).optional(),
  })
  .strict();

const circuitBreakerSchema = z
  .object({
    gateway: z
      .string()
      .refine((a) => isAddress(a), { message: "must be a 0x address" })
      .optional(),
  })
  .strict();

/** Where a credential is kept: the vault and the credential's id in it. */
const credentialRef = {
  key_vault: z.enum(["local", "env"], {
    message:
      "must be local (the relayer's encrypted credential store) or env (an environment variable named by credential_id)",
  }),
  credential_id: z
    .string({ message: "is required: the id of the credential in the key_vault" })
    .regex(/^[A-Za-z0-9_.:-]{1,128}$/, "must be 1-128 characters of A-Z a-z 0-9 _ . : -"),
};

const rateBurst = z.number().int().min(1, "must be at least 1").max(100_000);

const integrationSchema = z
  .object({
    url: z
      .string()
      .url("must be an absolute URL such as https://crm.example.com/v2")
      .refine((u) => URL.canParse(u) && /^https?:$/.test(new URL(u).protocol), {
        message: "must be http or https",
      }),
    auth: z
      .object({
        type: z.enum(["jwt_bearer", "oauth2_mtls"], {
          message: "must be jwt_bearer or oauth2_mtls",
        }),
        ...credentialRef,
        /** oauth2_mtls: the authorization server's token endpoint. */
        token_url: z
          .string()
          .refine((u) => URL.canParse(u) && new URL(u).protocol === "https:", {
            message:
              "must be an absolute https URL such as https://auth.example.com/oauth2/token (the client certificate is presented in the TLS handshake)",
          })
          .optional(),
        /** oauth2_mtls: the `scope` of the token request (RFC 6749 §3.3). */
        scope: z
          .string()
          .regex(
            /^[\x21\x23-\x5b\x5d-\x7e]+( [\x21\x23-\x5b\x5d-\x7e]+)*$/,
            "must be space-separated scope tokens (RFC 6749 3.3)",
          )
          .optional(),
        /** oauth2_mtls: the CA(s) the server's certificate must chain to: a PEM file or PEM text. */
        ca: z.string().min(1, "must be a PEM file path or PEM text").optional(),
      })
      .strict()
      .superRefine((auth, ctx) => {
        if (auth.type === "oauth2_mtls" && auth.token_url === undefined) {
          ctx.addIssue({
            code: "custom",
            path: ["token_url"],
            message:
              "is required for oauth2_mtls: the authorization server's token endpoint (https://...)",
          });
        }
        if (auth.type === "jwt_bearer") {
          for (const key of ["token_url", "scope", "ca"] as const) {
            if (auth[key] !== undefined)
              ctx.addIssue({
                code: "custom",
                path: [key],
                message: "applies only to auth.type oauth2_mtls",
              });
          }
        }
      }),
    validation: z
      .object({
        schema: z.string().min(1),
        version: z.string().min(1).optional(),
        /** A response off `version` that matches this one is accepted under it, with an alert. */
        rollback_version: z.string().min(1).optional(),
        strict: z.boolean().default(true),
        /** A response HMAC the client verifies (CRM): field `hmac` over the JSON of `data`. */
        response_hmac: z.object(credentialRef).strict().optional(),
        blockchain_anchor: anchorSchema.prefault({}),
      })
      .strict(),
    rate_limit: z
      .object({
        rps: z.number().positive("must be positive").max(100_000),
        burst: rateBurst,
      })
      .strict()
      .optional(),
    retry: retrySchema.optional(),
    timeout: timerDuration("timeout").default(10_000),
    /** Another integration to call while this one's circuit is open on chain. */
    fallback: z.string().min(1).optional(),
    circuit_breaker: circuitBreakerSchema.optional(),
  })
  .strict();

/** A model pinned to a dated version (spec "Versioning"): `general-2025-08-01`, a real date. */
const datedModel = z
  .string()
  // The provider answers with the model's name, which is refused past 128 characters
  // (relayer/analysis/provider.ts): a longer one here would fail every completion.
  .max(128, "must be at most 128 characters (the name the provider answers with)")
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._:/-]*-\d{4}-\d{2}-\d{2}$/,
    "must be a model pinned to a dated version such as general-2025-08-01",
  )
  .refine(
    (model) => {
      const date = model.slice(-10);
      // Date.parse rolls 2025-02-30 over to March: the date must print back as itself.
      const ms = Date.parse(`${date}T00:00:00Z`);
      return !Number.isNaN(ms) && new Date(ms).toISOString().slice(0, 10) === date;
    },
    { message: "must end in a calendar date (YYYY-MM-DD) such as general-2025-08-01" },
  );

/** The longest retention: its cutoff (now minus the retention) must stay a date. */
const MAX_RETENTION_YEARS = 100;
const YEAR_MS = 365 * 86_400_000;

/** `7y`, `90d`, `12h`: years are 365 days. */
const retention = z.union([z.string(), z.number()]).transform((value, ctx) => {
  const text = String(value).trim();
  const years = /^(\d+)\s*y$/.exec(text);
  const ms = years ? Number(years[1]) * YEAR_MS : parseDuration(text);
  if (ms === null || ms < 1000 || ms > MAX_RETENTION_YEARS * YEAR_MS) {
    ctx.addIssue({
      code: "custom",
      message: `must be a duration from 1s to ${MAX_RETENTION_YEARS}y such as 7y, 90d or 1h (got ${JSON.stringify(value)})`,
    });
    return z.NEVER;
  }
  return ms;
});

/** Spec "Limits": text-analysis integration 600 requests per minute, burst 50; bias above 0.7. */
export const TEXT_ANALYSIS_RATE_LIMIT = { rpm: 600, burst: 50 } as const;
export const BIAS_THRESHOLD = 0.7;
/** Each region is read once per national number that no earlier region read whole. */
const MAX_PHONE_REGIONS = 16;
const isPhoneRegion = (r: string): r is CountryCode =>
  /^[A-Z]{2}$/.test(r) && isSupportedCountry(r);
/** Redaction threads: one per core but the event loop's, at least one. */
export const DEFAULT_REDACTION_THREADS = Math.max(1, availableParallelism() - 1);

const textAnalysisSchema = z
  .object({
    api_endpoint: z
      .string()
      .refine((u) => URL.canParse(u) && /^https?:$/.test(new URL(u).protocol), {
        message: "must be an absolute http(s) URL such as https://llm.example.com/v1",
      })
      // The protocol's paths are appended to it, and the key goes in a header, never in the URL.
      .refine(
        (u) => {
          if (!URL.canParse(u)) return true;
          const url = new URL(u);
          return !u.includes("?") && !u.includes("#") && !url.username && !url.password;
        },
        {
          message:
            "must be a base URL without a query, a fragment or credentials (the API key is auth.credential_id's, sent as a bearer header)",
          abort: true,
        },
      )
      // The paths are appended to the text as written: a blank, a backslash or a dot segment
      // the parser reads away would send every call elsewhere (`/v1 ` + `/chat/completions`).
      .superRefine((u, ctx) => {
        if (!URL.canParse(u)) return;
        const normal = new URL(u).href.replace(/\/+$/, "");
        if (normal !== u.replace(/\/+$/, ""))
          ctx.addIssue({
            code: "custom",
            message: `must be written as the URL parser reads it (${JSON.stringify(normal)}, got ${JSON.stringify(u)})`,
          });
      }),
    models: z.object({ ultra: datedModel, general: datedModel, in_house: datedModel }).strict(),
    fallback_model: datedModel,
    auth: z
      .object({
        type: z.literal("api_key", { message: "must be api_key (a bearer key)" }),
        ...credentialRef,
      })
      .strict(),
    rate_limit: z
      .object({
        rpm: z.number().positive("must be positive").max(1_000_000),
        burst: rateBurst,
      })
      .strict()
      .prefault({ ...TEXT_ANALYSIS_RATE_LIMIT }),
    security: z
      .object({
        input_sanitization: z
          .literal("strict", { message: "must be strict (personal data redacted, fail closed)" })
          .default("strict"),
        output_encryption: z
          .literal("aes-256-gcm", { message: "must be aes-256-gcm" })
          .default("aes-256-gcm"),
        /** Put the redacted values back into the output returned to the owner. */
        restore_placeholders: z.boolean().default(false),
        /** Crypto addresses count as personal data. */
        redact_crypto_addresses: z.boolean().default(true),
        /**
         * Regions whose national phone numbers are redacted without a phone label (absent: the
         * redaction's own list, the labelled corpus's six locales).
         */
        phone_regions: z
          .array(
            z.string().refine(isPhoneRegion, {
              message:
                "must be a region libphonenumber knows, as its ISO 3166-1 alpha-2 code in capitals (BR, IN, JP)",
            }),
          )
          .min(1, "must name at least one region")
          .max(MAX_PHONE_REGIONS, `must name at most ${MAX_PHONE_REGIONS} regions`)
          .refine((list) => new Set(list).size === list.length, "must not name a region twice")
          .optional(),
      })
      .strict()
      .prefault({}),
    audit: z
      .object({
        model_interactions: z
          .literal(true, { message: "must be true: every analysis writes an audit record" })
          .default(true),
        data_retention: retention.prefault("7y"),
        /** How often the audit chain's head is anchored in ProofRegistry. */
        anchor_interval: duration("anchor_interval").default(3_600_000),
        /** Chain name; default the first configured chain with a ProofRegistry. */
        chain: z.string().min(1).optional(),
      })
      .strict()
      .prefault({}),
    bias_threshold: z
      .number()
      .min(0, "must be between 0 and 1")
      .max(1, "must be between 0 and 1")
      .default(BIAS_THRESHOLD),
    retry: retrySchema.optional(),
    timeout: timerDuration("timeout")
      .refine((ms) => ms > 0, { message: "must be more than 0 (every call would time out)" })
      .default(30_000),
    /** The legal rule sets (relayer/config/legal-rules.ts): a YAML or JSON file. */
    rules: z.string().min(1).optional(),
    /** How long the rules may run on one analysis before their thread is stopped. */
    rules_timeout: duration("rules_timeout")
      .refine((ms) => ms > 0, { message: "must be more than 0 (every check would time out)" })
      .default(1_000),
    /** Worker threads that scan for personal data; 0 scans on the event loop. */
    redaction_threads: z
      .number()
      .int("must be a whole number")
      .min(0, "must be 0 (the event loop) or more")
      .max(64, "must be at most 64")
      .default(DEFAULT_REDACTION_THREADS),
    circuit_breaker: circuitBreakerSchema.optional(),
  })
  .strict();

export interface TextAnalysisConfig {
  apiEndpoint: string;
  models: { ultra: string; general: string; inHouse: string };
  fallbackModel: string;
  auth: { type: "api_key"; keyVault: "local" | "env"; credentialId: string };
  rateLimit: { rpm: number; burst: number };
  security: {
    restorePlaceholders: boolean;
    redactCryptoAddresses: boolean;
    /** Absent: the redaction's default regions. */
    phoneRegions?: readonly CountryCode[];
  };
  audit: { retentionMs: number; anchorIntervalMs: number; chain?: string };
  biasThreshold: number;
  retry: RetryPolicy;
  timeoutMs: number;
  rules: LegalRules | null;
  rulesTimeoutMs: number;
  redactionThreads: number;
  gateway?: string;
}

const fileSchema = z
  .object({
    integrations: z
      .record(
        z.string().regex(/^[a-z][a-z0-9_-]{0,63}$/, "names are lower-case a-z 0-9 _ -"),
        integrationSchema,
      )
      .default({}),
    text_analysis: textAnalysisSchema.optional(),
    screening: z
      .object({ integration: z.string().min(1), required: z.boolean().default(true) })
      .strict()
      .optional(),
    /** Service fee of each completed execution, settled through a payments.* integration. */
    payments: z
      .object({
        integration: z.string().min(1),
        service_fee: z
          .string()
          .regex(/^\d{1,12}(\.\d{1,6})?$/, "must be a decimal amount such as 2.50")
          .refine((v) => Number(v) > 0, { message: "must be greater than 0" }),
        currency: z.string().regex(/^[A-Z]{3,8}$/, "must be an upper-case currency code"),
      })
      .strict()
      .optional(),
    /** Integration paths polled on an interval, each change recorded and anchored (monitors/). */
    monitors: z
      .record(
        z.string().regex(/^[a-z][a-z0-9_-]{0,63}$/, "ids are lower-case a-z 0-9 _ -"),
        z
          .object({
            integration: z.string().min(1),
            path: z.string().regex(/^\/[A-Za-z0-9._~/-]*$/, "must be a path such as /inventory"),
            query: z.record(z.string(), z.string()).optional(),
            interval: duration("interval")
              .default(60_000)
              .refine((ms) => ms >= 1000, { message: "must be at least 1s" }),
          })
          .strict(),
      )
      .optional(),
  })
  .strict();

/** A monitored integration path (`monitors.<id>`). */
export interface MonitorConfig {
  id: string;
  integration: string;
  path: string;
  query: Record<string, string>;
  intervalMs: number;
}

/** `auth.type: jwt_bearer`: the credential is the JWT signing secret. */
export interface JwtBearerAuth {
  type: "jwt_bearer";
  keyVault: "local" | "env";
  credentialId: string;
}

/** `auth.type: oauth2_mtls`: the credential holds client_id, certificate chain and key. */
export interface MtlsAuth {
  type: "oauth2_mtls";
  keyVault: "local" | "env";
  credentialId: string;
  tokenUrl: string;
  scope?: string;
  /** PEM of the CA(s) trusted for the server's certificate, instead of the default roots. */
  caPem?: string;
}

export interface IntegrationConfig {
  name: string;
  url: string;
  auth: JwtBearerAuth | MtlsAuth;
  validation: {
    schema: string;
    version: string;
    /** `validation.rollback_version`: the API version a mismatching response may fall back to. */
    rollbackVersion?: string;
    strict: boolean;
    responseHmac?: { keyVault: "local" | "env"; credentialId: string };
    anchor: { intervalMs: number; contract: string; chain?: string };
  };
  rateLimit: { rps: number; burst: number } | null;
  retry: RetryPolicy;
  timeoutMs: number;
  fallback?: string;
  gateway?: string;
}

export interface IntegrationsConfig {
  integrations: Record<string, IntegrationConfig>;
  screening: { integration: string; required: boolean } | null;
  payments: { integration: string; serviceFee: string; currency: string } | null;
  monitors: MonitorConfig[];
  textAnalysis: TextAnalysisConfig | null;
}

export class IntegrationsConfigError extends Error {
  readonly problems: string[];
  constructor(source: string, problems: string[]) {
    super(`invalid integration configuration (${source}):\n  - ${problems.join("\n  - ")}`);
    this.name = "IntegrationsConfigError";
    this.problems = problems;
  }
}

/**
 * Validates a parsed configuration document. `baseDir` resolves relative file paths (`auth.ca`):
 * the configuration file's folder.
 */
export function parseIntegrations(
  doc: unknown,
  source = "document",
  baseDir = process.cwd(),
): IntegrationsConfig {
  const parsed = fileSchema.safeParse(doc);
  if (!parsed.success) {
    throw new IntegrationsConfigError(
      source,
      parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"} ${i.message}`),
    );
  }
  const problems: string[] = [];
  const integrations: Record<string, IntegrationConfig> = {};
  for (const [name, raw] of Object.entries(parsed.data.integrations)) {
    const family = raw.validation.schema;
    const versions = RESPONSE_SCHEMAS[family];
    const version = raw.validation.version ?? (versions ? Object.keys(versions).at(-1) : undefined);
    if (!versions) {
      problems.push(
        `integrations.${name}.validation.schema ${JSON.stringify(family)} is not a known schema (known: ${Object.keys(RESPONSE_SCHEMAS).join(", ")})`,
      );
    } else if (!version || !versions[version]) {
      problems.push(
        `integrations.${name}.validation.version ${JSON.stringify(version)} is not a version of ${family} (known: ${Object.keys(versions).join(", ")})`,
      );
    }
    const rollback = raw.validation.rollback_version;
    if (versions && rollback !== undefined && (!versions[rollback] || rollback === version)) {
      problems.push(
        `integrations.${name}.validation.rollback_version ${JSON.stringify(rollback)} must be another version of ${family} (known: ${Object.keys(versions).join(", ")})`,
      );
    }
    if (raw.fallback !== undefined && !(raw.fallback in parsed.data.integrations)) {
      problems.push(
        `integrations.${name}.fallback names ${JSON.stringify(raw.fallback)}, which is not configured`,
      );
    }
    if (raw.fallback === name)
      problems.push(`integrations.${name}.fallback must name another integration`);
    const payments = family.startsWith("payments.");
    const vault = { keyVault: raw.auth.key_vault, credentialId: raw.auth.credential_id };
    let auth: IntegrationConfig["auth"] = { type: "jwt_bearer", ...vault };
    if (raw.auth.type === "oauth2_mtls") {
      if (new URL(raw.url).protocol !== "https:")
        problems.push(
          `integrations.${name}.url must be https for auth.type oauth2_mtls (the client certificate is presented in the TLS handshake)`,
        );
      const ca = raw.auth.ca === undefined ? undefined : readCa(raw.auth.ca, baseDir);
      if (typeof ca === "object") problems.push(`integrations.${name}.auth.ca ${ca.problem}`);
      auth = {
        type: "oauth2_mtls",
        ...vault,
        tokenUrl: raw.auth.token_url!,
        ...(raw.auth.scope ? { scope: raw.auth.scope } : {}),
        ...(typeof ca === "string" ? { caPem: ca } : {}),
      };
    }
    integrations[name] = {
      name,
      url: raw.url.replace(/\/+$/, ""),
      auth,
      validation: {
        schema: family,
        version: version ?? "",
        strict: raw.validation.strict,
        ...(rollback !== undefined ? { rollbackVersion: rollback } : {}),
        ...(raw.validation.response_hmac
          ? {
              responseHmac: {
                keyVault: raw.validation.response_hmac.key_vault,
                credentialId: raw.validation.response_hmac.credential_id,
              },
            }
          : {}),
        anchor: {
          intervalMs: raw.validation.blockchain_anchor.interval,
          contract: raw.validation.blockchain_anchor.contract,
          chain: raw.validation.blockchain_anchor.chain,
        },
      },
      rateLimit: raw.rate_limit ?? (payments ? { ...PAYMENT_RATE_LIMIT } : null),
      retry: retryPolicy(raw.retry, payments),
      timeoutMs: raw.timeout,
      fallback: raw.fallback,
      gateway: raw.circuit_breaker?.gateway,
    };
  }
  for (const name of Object.keys(integrations)) {
    const seen = [name];
    for (let next = integrations[name]!.fallback; next; next = integrations[next]?.fallback) {
      if (seen.includes(next)) {
        if (next === name && seen.length > 1)
          problems.push(
            `integrations.${name}.fallback forms a cycle: ${[...seen, next].join(" → ")}`,
          );
        break;
      }
      seen.push(next);
    }
  }
  const screening = parsed.data.screening ?? null;
  if (screening) {
    const target = integrations[screening.integration];
    if (!target) {
      problems.push(
        `screening.integration names ${JSON.stringify(screening.integration)}, which is not configured`,
      );
    } else if (target.validation.schema !== "compliance.screening") {
      problems.push(
        `screening.integration ${screening.integration} must validate with schema compliance.screening (has ${target.validation.schema})`,
      );
    }
  }
  const payments = parsed.data.payments ?? null;
  if (payments && !integrations[payments.integration]?.validation.schema.startsWith("payments.")) {
    problems.push(
      `payments.integration ${JSON.stringify(payments.integration)} must name an integration with a payments.* schema`,
    );
  }
  const monitors: MonitorConfig[] = [];
  for (const [id, raw] of Object.entries(parsed.data.monitors ?? {})) {
    const family = integrations[raw.integration]?.validation.schema;
    if (family === undefined) {
      problems.push(
        `monitors.${id}.integration names ${JSON.stringify(raw.integration)}, which is not configured`,
      );
    } else if (!MONITORED_COLLECTIONS[family]) {
      problems.push(
        `monitors.${id}.integration ${raw.integration} validates with ${family}, which cannot be monitored (monitored schemas: ${Object.keys(MONITORED_COLLECTIONS).join(", ")})`,
      );
    }
    monitors.push({
      id,
      integration: raw.integration,
      path: raw.path,
      query: raw.query ?? {},
      intervalMs: raw.interval,
    });
  }
  const textAnalysis = parsed.data.text_analysis
    ? toTextAnalysis(parsed.data.text_analysis, baseDir, problems)
    : null;
  if (problems.length) throw new IntegrationsConfigError(source, problems);
  return {
    monitors,
    textAnalysis,
    integrations,
    screening,
    payments: payments
      ? {
          integration: payments.integration,
          serviceFee: payments.service_fee,
          currency: payments.currency,
        }
      : null,
  };
}

function toTextAnalysis(
  raw: z.infer<typeof textAnalysisSchema>,
  baseDir: string,
  problems: string[],
): TextAnalysisConfig {
  let rules: LegalRules | null = null;
  if (raw.rules !== undefined) {
    const loaded = loadRulesFile(path.resolve(baseDir, raw.rules));
    if ("problems" in loaded)
      problems.push(...loaded.problems.map((p) => `text_analysis.rules ${p}`));
    else rules = loaded;
    if (raw.redaction_threads === 0)
      problems.push(
        "text_analysis.rules needs text_analysis.redaction_threads of 1 or more (it is 0): the rules run in the redaction threads, where a check that runs past text_analysis.rules_timeout is stopped",
      );
  }
  return {
    apiEndpoint: raw.api_endpoint.replace(/\/+$/, ""),
    models: { ultra: raw.models.ultra, general: raw.models.general, inHouse: raw.models.in_house },
    fallbackModel: raw.fallback_model,
    auth: { type: "api_key", keyVault: raw.auth.key_vault, credentialId: raw.auth.credential_id },
    rateLimit: raw.rate_limit,
    security: {
      restorePlaceholders: raw.security.restore_placeholders,
      redactCryptoAddresses: raw.security.redact_crypto_addresses,
      ...(raw.security.phone_regions ? { phoneRegions: raw.security.phone_regions } : {}),
    },
    audit: {
      retentionMs: raw.audit.data_retention,
      anchorIntervalMs: raw.audit.anchor_interval,
      ...(raw.audit.chain ? { chain: raw.audit.chain } : {}),
    },
    biasThreshold: raw.bias_threshold,
    retry: retryPolicy(raw.retry, false),
    timeoutMs: raw.timeout,
    rules,
    rulesTimeoutMs: raw.rules_timeout,
    redactionThreads: raw.redaction_threads,
    ...(raw.circuit_breaker?.gateway ? { gateway: raw.circuit_breaker.gateway } : {}),
  };
}

/** `auth.ca`: PEM text, or a PEM file (relative to `baseDir`); every certificate must parse. */
function readCa(value: string, baseDir: string): string | { problem: string } {
  let text = value;
  let where = "the PEM text";
  if (!value.includes("-----BEGIN")) {
    const file = path.resolve(baseDir, value);
    where = file;
    try {
      text = readFileSync(file, "utf8");
    } catch (err) {
      return { problem: `cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? "error"}` };
    }
  }
  try {
    if (pemCertificates(text)) return text;
  } catch {
    return { problem: `${where} holds a certificate that does not parse` };
  }
  return { problem: `${where} holds no PEM certificate (-----BEGIN CERTIFICATE-----)` };
}

function retryPolicy(raw: z.infer<typeof retrySchema> | undefined, critical: boolean): RetryPolicy {
  if (raw === undefined) return critical ? CRITICAL_RETRY : DEFAULT_RETRY;
  if (raw === "default") return DEFAULT_RETRY;
  if (raw === "critical") return CRITICAL_RETRY;
  const base = raw.backoff === "fibonacci" ? CRITICAL_RETRY : DEFAULT_RETRY;
  return {
    attempts: raw.attempts,
    backoff: raw.backoff,
    initialDelayMs: raw.initial_delay ?? base.initialDelayMs,
    maxDelayMs: raw.max_delay ?? base.maxDelayMs,
    conditions: raw.conditions ?? base.conditions,
  };
}

/** Reads and validates the file (YAML, or JSON by its `.json` extension). */
export function loadIntegrationsFile(file: string): IntegrationsConfig {
  const resolved = path.resolve(file);
  let text: string;
  try {
    text = readFileSync(resolved, "utf8");
  } catch (err) {
    throw new IntegrationsConfigError(resolved, [
      `cannot read the file: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    ]);
  }
  let doc: unknown;
  try {
    doc = resolved.endsWith(".json") ? JSON.parse(text) : parseYaml(text);
  } catch (err) {
    throw new IntegrationsConfigError(resolved, [
      `not valid ${resolved.endsWith(".json") ? "JSON" : "YAML"}: ${(err as Error).message.split("\n")[0]}`,
    ]);
  }
  return parseIntegrations(doc, resolved, path.dirname(resolved));
}
