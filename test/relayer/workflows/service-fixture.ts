import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { createApiKey } from "../../../relayer/auth/keys.ts";
import { signedHeaders } from "../../../relayer/auth/hmac.ts";
import { openChains, type ChainSet } from "../../../relayer/chains/index.ts";
import { loadConfig } from "../../../relayer/config/index.ts";
import { closeContext, createContext, type AppContext } from "../../../relayer/context.ts";
import { createApp } from "../../../relayer/http/app.ts";
import { createLogger } from "../../../relayer/http/logging.ts";
import { createMetrics } from "../../../relayer/http/metrics.ts";
import type { TierName } from "../../../relayer/limits/tiers.ts";
import { startWorkflowJobs } from "../../../relayer/workflows/service.ts";
import { complianceFor } from "../../../relayer/compliance/routes.ts";

/** The published OFAC SDN ETH addresses (test/fixtures/reference/README.md), as list `ofac-sdn`. */
export const OFAC_LIST = `ofac-sdn=${path.resolve(import.meta.dirname, "../../fixtures/reference/ofac-sanctioned-eth.txt")}`;

/**
 * The real relayer for workflow tests: the embedded devnet chains (deployed in process), PGlite
 * in a temporary directory (or a PostgreSQL URL), the app from `createApp`, API keys created in
 * the store, and requests signed exactly as clients sign them (HMAC over timestamp + body).
 */
export interface WorkflowService {
  ctx: AppContext;
  app: ReturnType<typeof createApp>;
  chains: ChainSet;
  close(): Promise<void>;
}

export async function startWorkflowService(
  chains: ChainSet,
  databaseUrl?: string,
  options: {
    engine?: boolean;
    /** `VERIFLOW_SANCTIONS_FILES` for this relayer (default: the published OFAC ETH list; null: none). */
    sanctionsFiles?: string | null;
  } = {},
): Promise<WorkflowService> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "vf-workflows-"));
  const config = loadConfig({
    DATA_DIR: dataDir,
    LOG_LEVEL: "silent",
    NODE_ENV: "test",
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
  });
  const ctx = await createContext(config, {
    logger: createLogger("silent"),
    chains,
    metrics: createMetrics({ defaultMetrics: false }),
    queueSchedule: false,
  });
  // Load the sanctions lists now, under this relayer's own setting (read once per context).
  const sanctionsFiles = process.env.VERIFLOW_SANCTIONS_FILES;
  const wanted = options.sanctionsFiles === undefined ? OFAC_LIST : options.sanctionsFiles;
  if (wanted === null) delete process.env.VERIFLOW_SANCTIONS_FILES;
  else process.env.VERIFLOW_SANCTIONS_FILES = wanted;
  try {
    await complianceFor(ctx);
  } finally {
    if (sanctionsFiles === undefined) delete process.env.VERIFLOW_SANCTIONS_FILES;
    else process.env.VERIFLOW_SANCTIONS_FILES = sanctionsFiles;
  }
  // Unless asked for, the engine's workflow.execute worker stays off: most tests observe
  // executions as intake leaves them (queued), without an engine racing to run them.
  const engineWorker = process.env.VERIFLOW_ENGINE_WORKER;
  if (!options.engine) process.env.VERIFLOW_ENGINE_WORKER = "off";
  let app: ReturnType<typeof createApp>;
  try {
    app = createApp(ctx);
  } finally {
    if (engineWorker === undefined) delete process.env.VERIFLOW_ENGINE_WORKER;
    else process.env.VERIFLOW_ENGINE_WORKER = engineWorker;
  }
  await startWorkflowJobs(ctx);
  return {
    ctx,
    app,
    chains,
    close: async () => {
      await closeContext(ctx, 1_000).catch(() => {});
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

export async function openDevnetChains(): Promise<ChainSet> {
  return openChains({ mode: "embedded" });
}

export interface Client {
  id: string;
  key: string;
  secret: string;
  request(
    method: string,
    path: string,
    body?: string,
    options?: { contentType?: string; headers?: Record<string, string> },
  ): Promise<Response>;
}

let lastTimestamp = 0;
/** Strictly increasing timestamps: two identical bodies never share a signature (replay check). */
function timestamp(): string {
  lastTimestamp = Math.max(Date.now(), lastTimestamp + 1);
  return String(lastTimestamp);
}

export async function newClient(
  svc: WorkflowService,
  tier: TierName = "enterprise",
): Promise<Client> {
  const { record, secret } = await createApiKey(svc.ctx.store, svc.ctx.masterKey, {
    tier,
    label: "workflow tests",
  });
  return {
    id: record.id,
    key: record.key,
    secret,
    request: async (method, path, body, options = {}) =>
      svc.app.request(path, {
        method,
        headers: {
          ...(body !== undefined
            ? { "Content-Type": options.contentType ?? "application/json" }
            : {}),
          ...signedHeaders(record.key, secret, body ?? "", timestamp()),
          ...options.headers,
        },
        body,
      }),
  };
}

export interface RowCounts {
  executions: number;
  schedules: number;
  deployments: number;
  idempotency: number;
  executeJobs: number;
}

/** What a refused request must leave unchanged: stored rows and queued jobs. */
export async function rowCounts(svc: WorkflowService): Promise<RowCounts> {
  const count = async (sql: string) =>
    Number((await svc.ctx.store.query<{ n: string }>(sql))[0]!.n);
  return {
    executions: await count("SELECT count(*) AS n FROM workflow_executions"),
    schedules: await count("SELECT count(*) AS n FROM workflow_schedules"),
    deployments: await count("SELECT count(*) AS n FROM workflow_deployments"),
    idempotency: await count("SELECT count(*) AS n FROM workflow_idempotency"),
    executeJobs: await count(
      "SELECT count(*) AS n FROM pgboss.job WHERE name = 'workflow.execute'",
    ),
  };
}

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

const POSTGRES_ADMIN_URL = "postgres://postgres@127.0.0.1:5432/postgres";

/** A uniquely named database on the machine's PostgreSQL (shared with other suites), dropped after. */
export async function createTestDatabase(label: string): Promise<TestDatabase> {
  const name = `vf_${label}_${process.pid}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 7)}`;
  const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  return {
    url: `postgres://postgres@127.0.0.1:5432/${name}`,
    drop: async () => {
      const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}
