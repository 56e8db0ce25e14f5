import { availableParallelism } from "node:os";
import path from "node:path";
import {
  IntegrationsConfigError,
  loadIntegrationsFile,
  type IntegrationsConfig,
} from "./integrations.ts";
import { z } from "zod";
import { TIER_NAMES } from "./tiers.ts";
import { SHIPPED_OFAC_SNAPSHOT, snapshotFilesSpec, type SanctionsSnapshot } from "./sanctions.ts";

/**
 * The prover pool's threads unless configured: one per core, at most 16. Proving is most of a
 * workflow's CPU, and one thread on a 2-core machine leaves about a quarter of the cores idle while
 * proofs queue (README, Figures: the drain with one and with two threads). The threads prove off
 * the event loop but share the cores with it: under a saturating load each action's transactions
 * take longer to go out, never queued behind a proof.
 */
export const DEFAULT_PROVER_THREADS = Math.min(16, availableParallelism());

/**
 * The relayer's configuration: every environment variable it reads, parsed once at start.
 * A bad value stops the process with one line per problem naming the variable, the value
 * rule and (never for secrets) what was given.
 */

/** Default cap of one CAR export: 256 MiB (a quarter of the 1,000-CID request's possible 1 GiB). */
export const DEFAULT_CAR_MAX_BYTES = 256 * 1024 * 1024;
/** Default retention of uploaded artifacts and batch manifests (final reports are kept). */
export const DEFAULT_ARTIFACT_RETENTION_DAYS = 90;

const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

/** 32-byte keys are given as 64 hex characters or as base64 (44 characters with padding). */
export function parseKey32(value: string): Buffer | null {
  const trimmed = value.trim();
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) return Buffer.from(trimmed, "hex");
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(trimmed)) {
    const buf = Buffer.from(trimmed.replace(/-/g, "+").replace(/_/g, "/"), "base64");
    if (buf.length === 32) return buf;
  }
  return null;
}

const emptyToUndefined = (v: unknown) => (typeof v === "string" && v.trim() === "" ? undefined : v);

/** An integer setting from `min` to `max`, both allowed; a bad value's message names the range. */
function boundedInteger(min: number, max: number) {
  const range = `must be between ${min} and ${max}`;
  return z.coerce
    .number({ message: "must be a number" })
    .int("must be an integer")
    .min(min, range)
    .max(max, range);
}

const envSchema = z
  .object({
    NODE_ENV: z.preprocess(
      emptyToUndefined,
      z.enum(["development", "production", "test"]).default("development"),
    ),
    HOST: z.preprocess(emptyToUndefined, z.string().min(1).default("127.0.0.1")),
    PORT: z.preprocess(emptyToUndefined, boundedInteger(0, 65535).default(8787)),
    DATA_DIR: z.preprocess(emptyToUndefined, z.string().min(1).default("./data")),
    DATABASE_URL: z.preprocess(
      emptyToUndefined,
      z
        .string()
        .regex(/^postgres(ql)?:\/\//, "must be a postgres:// or postgresql:// URL")
        .optional(),
    ),
    /** Connections per process to PostgreSQL (plus a quarter as many for bookkeeping writes). */
    DATABASE_POOL_SIZE: z.preprocess(emptyToUndefined, boundedInteger(2, 200).default(16)),
    VERIFLOW_API_KEY: z.preprocess(
      emptyToUndefined,
      z
        .string()
        .regex(/^[A-Za-z0-9_.-]{8,128}$/, "must be 8-128 characters of A-Z a-z 0-9 _ . -")
        .optional(),
    ),
    VERIFLOW_SIGNING_SECRET: z.preprocess(
      emptyToUndefined,
      z.string().min(16, "must be at least 16 characters").max(512).optional(),
    ),
    VERIFLOW_TIER: z.preprocess(
      emptyToUndefined,
      z.enum(TIER_NAMES, { message: `must be one of ${TIER_NAMES.join(", ")}` }).optional(),
    ),
    VERIFLOW_MASTER_KEY: z.preprocess(
      emptyToUndefined,
      z
        .string()
        .refine((v) => parseKey32(v) !== null, "must be 32 bytes as 64 hex characters or base64")
        .optional(),
    ),
    VERIFLOW_CHAINS: z.preprocess(emptyToUndefined, z.string().min(1).default("embedded")),
    LOG_LEVEL: z.preprocess(
      emptyToUndefined,
      z.enum(LOG_LEVELS, { message: `must be one of ${LOG_LEVELS.join(", ")}` }).default("info"),
    ),
    /** How long shutdown waits for in-flight requests and running jobs before giving up. */
    SHUTDOWN_GRACE_MS: z.preprocess(emptyToUndefined, boundedInteger(0, 600_000).default(15_000)),
    /** Operator override of the tier limits, JSON: {"pro": {"requestsPerMinute": 600}}. */
    VERIFLOW_LIMITS: z.preprocess(emptyToUndefined, z.string().optional()),
    VERIFLOW_INTEGRATIONS: z.preprocess(emptyToUndefined, z.string().optional()),
    /** Sanctions list files: `path` or `list-id=path`, comma-separated (relayer/compliance/sanctions.ts). */
    VERIFLOW_SANCTIONS_FILES: z.preprocess(emptyToUndefined, z.string().optional()),
    /** `off`: an API-only process that queues executions for the worker processes. */
    VERIFLOW_ENGINE_WORKER: z.preprocess(
      emptyToUndefined,
      z.enum(["on", "off"], { message: "must be on or off" }).default("on"),
    ),
    /** Executions run at once by this process's engine worker. */
    VERIFLOW_ENGINE_CONCURRENCY: z.preprocess(emptyToUndefined, boundedInteger(1, 256).default(8)),
    /** Worker threads that compute execution proofs (relayer/proofs/pool.ts). */
    VERIFLOW_PROVER_THREADS: z.preprocess(
      emptyToUndefined,
      boundedInteger(1, 16).default(DEFAULT_PROVER_THREADS),
    ),
    /** The window of a swap quote's reference price (time-weighted pool price), in seconds. */
    VERIFLOW_REFERENCE_WINDOW_SECONDS: z.preprocess(
      emptyToUndefined,
      boundedInteger(60, 86_400).optional(),
    ),
    /** How far (basis points) a pool may be from its reference price when a swap is quoted. */
    VERIFLOW_MAX_REFERENCE_DEVIATION_BPS: z.preprocess(
      emptyToUndefined,
      boundedInteger(1, 5_000).optional(),
    ),
    /** How long a stage of an execution waits for an unreachable chain, in seconds. */
    VERIFLOW_CHAIN_OUTAGE_WINDOW_SECONDS: z.preprocess(
      emptyToUndefined,
      boundedInteger(0, 600).optional(),
    ),
    /** How long a dead worker's execution lease blocks another worker from resuming it, in seconds. */
    VERIFLOW_ENGINE_LEASE_SECONDS: z.preprocess(
      emptyToUndefined,
      boundedInteger(2, 600).optional(),
    ),
    /** Base fee above which an action moves to its next fallback chain, in gwei. */
    VERIFLOW_BASE_FEE_CAP_GWEI: z.preprocess(
      emptyToUndefined,
      z.coerce.number({ message: "must be a number" }).positive("must be positive").optional(),
    ),
    /** Most bytes one CAR export may stream (`POST /artifacts/car`, `GET /artifacts/{cid}/car`). */
    VERIFLOW_CAR_MAX_BYTES: z.preprocess(
      emptyToUndefined,
      z.coerce
        .number({ message: "must be a number" })
        .int("must be an integer")
        .min(1024, "must be at least 1024")
        .default(DEFAULT_CAR_MAX_BYTES),
    ),
    /** Days an uploaded artifact or batch manifest is kept after it was last stored. */
    VERIFLOW_ARTIFACT_RETENTION_DAYS: z.preprocess(
      emptyToUndefined,
      z.coerce
        .number({ message: "must be a number" })
        .positive("must be positive")
        .default(DEFAULT_ARTIFACT_RETENTION_DAYS),
    ),
    /** Fault injection for the crash tests (relayer/transactions/crash.ts); refused in production. */
    VERIFLOW_CRASH_AT: z.preprocess(
      emptyToUndefined,
      z
        .string()
        .regex(/^[a-z]+\.[a-z]+(:[1-9][0-9]*)?$/, "must be <point>[:<n>], e.g. tx.signed:2")
        .optional(),
    ),
  })
  .superRefine((env, ctx) => {
    const bootstrap = [env.VERIFLOW_API_KEY, env.VERIFLOW_SIGNING_SECRET];
    if (bootstrap.some((v) => v !== undefined) && bootstrap.some((v) => v === undefined)) {
      ctx.addIssue({
        code: "custom",
        path: [env.VERIFLOW_API_KEY === undefined ? "VERIFLOW_API_KEY" : "VERIFLOW_SIGNING_SECRET"],
        message: "VERIFLOW_API_KEY and VERIFLOW_SIGNING_SECRET must be set together",
      });
    }
    if (env.VERIFLOW_TIER !== undefined && env.VERIFLOW_API_KEY === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["VERIFLOW_TIER"],
        message: "only meaningful with VERIFLOW_API_KEY and VERIFLOW_SIGNING_SECRET",
      });
    }
    if (env.NODE_ENV === "production" && env.VERIFLOW_CRASH_AT !== undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["VERIFLOW_CRASH_AT"],
        message: "is fault injection for tests and must not be set when NODE_ENV=production",
      });
    }
    if (env.NODE_ENV === "production" && env.VERIFLOW_MASTER_KEY === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["VERIFLOW_MASTER_KEY"],
        message:
          "is required when NODE_ENV=production (generate one with `openssl rand -hex 32` and keep it in your secret manager)",
      });
    }
  });

const SECRET_VARIABLES = new Set([
  "VERIFLOW_SIGNING_SECRET",
  "VERIFLOW_MASTER_KEY",
  "DATABASE_URL",
]);

export type ChainsSelection =
  { mode: "embedded" } | { mode: "rpc" } | { mode: "file"; file: string };

export interface BootstrapKey {
  key: string;
  secret: string;
  tier: (typeof TIER_NAMES)[number];
}

export interface Config {
  env: "development" | "production" | "test";
  host: string;
  port: number;
  dataDir: string;
  databaseUrl?: string;
  databasePoolSize: number;
  bootstrapKey?: BootstrapKey;
  /** From the environment; when absent (not production) the key file under dataDir is used. */
  masterKey?: Buffer;
  chains: ChainsSelection;
  logLevel: (typeof LOG_LEVELS)[number];
  shutdownGraceMs: number;
  limitsOverride?: string;
  /** External REST integrations (VERIFLOW_INTEGRATIONS file, relayer/config/integrations.ts). */
  integrations: IntegrationsConfig | null;
  /**
   * VERIFLOW_SANCTIONS_FILES as given (parsed by relayer/compliance/sanctions.ts when loaded); on
   * the embedded development relayer without it, the shipped snapshot (`sanctionsSnapshot`).
   */
  sanctionsFiles?: string;
  /**
   * The shipped sanctions snapshot, used only by the embedded development relayer when no list is
   * configured (VERIFLOW_SANCTIONS_FILES unset); null everywhere else, so production fails closed.
   */
  sanctionsSnapshot: SanctionsSnapshot | null;
  engine: EngineSettings;
  artifacts: ArtifactSettings;
}

export interface ArtifactSettings {
  /** Most bytes one CAR export streams; a larger export is refused before the first byte. */
  carMaxBytes: number;
  /** Uploads and batch manifests not stored again for this long are pruned. */
  retentionMs: number;
}

export interface EngineSettings {
  /** Whether this process works `workflow.execute` jobs (false: API only). */
  worker: boolean;
  concurrency: number;
  /** Worker threads of the prover pool (`VERIFLOW_PROVER_THREADS`, default one per core). */
  proverThreads: number;
  baseFeeCapGwei?: number;
  /**
   * How long a stage of an execution (an action with no fallback left, the funding, the re-check
   * before the proof, the proof, attestation and report) waits for an unreachable chain before it fails with CHAIN_UNAVAILABLE
   * (`VERIFLOW_CHAIN_OUTAGE_WINDOW_SECONDS`); unset keeps the engine's default.
   */
  chainOutageWindowSeconds?: number;
  /**
   * The execution lease (`VERIFLOW_ENGINE_LEASE_SECONDS`): how long an execution whose worker died
   * waits before another worker's recovery sweep (every half lease) resumes it; the holder renews
   * it every third. Unset keeps the engine's default.
   */
  leaseSeconds?: number;
  /**
   * Swap quotes' reference price check (`VERIFLOW_REFERENCE_WINDOW_SECONDS`,
   * `VERIFLOW_MAX_REFERENCE_DEVIATION_BPS`); what is unset keeps the routing library's default.
   */
  referencePolicy: { windowSeconds?: number; maxDeviationBps?: number };
  /** `<point>[:<n>]`: the crash tests' fault injection. */
  crashAt?: string;
}

export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`invalid configuration:\n  - ${problems.join("\n  - ")}`);
    this.name = "ConfigError";
    this.problems = problems;
  }
}

/** Parses the environment; throws ConfigError listing every bad variable (secret values never echoed). */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      const name = String(issue.path[0] ?? "environment");
      const given = env[name];
      const shown =
        given === undefined || SECRET_VARIABLES.has(name) ? "" : ` (got ${JSON.stringify(given)})`;
      return `${name} ${issue.message}${shown}`;
    });
    throw new ConfigError(problems);
  }
  const e = parsed.data;
  let integrations: IntegrationsConfig | null = null;
  if (e.VERIFLOW_INTEGRATIONS) {
    try {
      integrations = loadIntegrationsFile(e.VERIFLOW_INTEGRATIONS);
    } catch (err) {
      if (!(err instanceof IntegrationsConfigError)) throw err;
      throw new ConfigError(err.problems.map((p) => `VERIFLOW_INTEGRATIONS: ${p}`));
    }
  }
  const chainsValue = e.VERIFLOW_CHAINS;
  const chains: ChainsSelection =
    chainsValue === "embedded" || chainsValue === "rpc"
      ? { mode: chainsValue }
      : { mode: "file", file: path.resolve(chainsValue) };
  // The embedded devnet without configured lists runs on the shipped snapshot; production and
  // real chains fail closed until the operator names the lists.
  const sanctionsSnapshot =
    e.NODE_ENV === "development" &&
    chains.mode === "embedded" &&
    e.VERIFLOW_SANCTIONS_FILES === undefined
      ? SHIPPED_OFAC_SNAPSHOT
      : null;
  return {
    env: e.NODE_ENV,
    host: e.HOST,
    port: e.PORT,
    dataDir: path.resolve(e.DATA_DIR),
    databaseUrl: e.DATABASE_URL,
    databasePoolSize: e.DATABASE_POOL_SIZE,
    bootstrapKey:
      e.VERIFLOW_API_KEY && e.VERIFLOW_SIGNING_SECRET
        ? {
            key: e.VERIFLOW_API_KEY,
            secret: e.VERIFLOW_SIGNING_SECRET,
            tier: e.VERIFLOW_TIER ?? "free",
          }
        : undefined,
    masterKey: e.VERIFLOW_MASTER_KEY ? (parseKey32(e.VERIFLOW_MASTER_KEY) ?? undefined) : undefined,
    chains,
    logLevel: e.LOG_LEVEL,
    shutdownGraceMs: e.SHUTDOWN_GRACE_MS,
    limitsOverride: e.VERIFLOW_LIMITS,
    integrations,
    sanctionsFiles:
      e.VERIFLOW_SANCTIONS_FILES ??
      (sanctionsSnapshot ? snapshotFilesSpec(sanctionsSnapshot) : undefined),
    sanctionsSnapshot,
    engine: {
      worker: e.VERIFLOW_ENGINE_WORKER === "on",
      concurrency: e.VERIFLOW_ENGINE_CONCURRENCY,
      proverThreads: e.VERIFLOW_PROVER_THREADS,
      baseFeeCapGwei: e.VERIFLOW_BASE_FEE_CAP_GWEI,
      chainOutageWindowSeconds: e.VERIFLOW_CHAIN_OUTAGE_WINDOW_SECONDS,
      leaseSeconds: e.VERIFLOW_ENGINE_LEASE_SECONDS,
      referencePolicy: {
        ...(e.VERIFLOW_REFERENCE_WINDOW_SECONDS !== undefined
          ? { windowSeconds: e.VERIFLOW_REFERENCE_WINDOW_SECONDS }
          : {}),
        ...(e.VERIFLOW_MAX_REFERENCE_DEVIATION_BPS !== undefined
          ? { maxDeviationBps: e.VERIFLOW_MAX_REFERENCE_DEVIATION_BPS }
          : {}),
      },
      crashAt: e.VERIFLOW_CRASH_AT,
    },
    artifacts: {
      carMaxBytes: e.VERIFLOW_CAR_MAX_BYTES,
      retentionMs: Math.round(e.VERIFLOW_ARTIFACT_RETENTION_DAYS * 86_400_000),
    },
  };
}

/** For entry points: the configuration, or each problem on stderr and exit status 2. */
export function loadConfigOrExit(): Config {
  try {
    return loadConfig();
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`${err.message}\n`);
    process.exit(2);
  }
}
