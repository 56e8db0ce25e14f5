import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { createApiKey } from "../../../relayer/auth/keys.ts";
import { signedHeaders } from "../../../relayer/auth/hmac.ts";
import { loadConfig } from "../../../relayer/config/index.ts";
import { closeContext, createContext, type AppContext } from "../../../relayer/context.ts";
import { createApp } from "../../../relayer/http/app.ts";
import { createLogger } from "../../../relayer/http/logging.ts";
import { createMetrics } from "../../../relayer/http/metrics.ts";
import type { TierName } from "../../../relayer/limits/tiers.ts";

export const POSTGRES_ADMIN_URL = "postgres://postgres@127.0.0.1:5432/postgres";

/** A fresh, uniquely named PostgreSQL database; `drop()` removes it (forcing out connections). */
export async function createTestDatabase(
  label: string,
): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `vf_${label}_${process.pid}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 7)}`;
  const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  return {
    url: `postgres://postgres@127.0.0.1:5432/${name}`,
    drop: async () => {
      const c = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

export interface TestService {
  ctx: AppContext;
  app: ReturnType<typeof createApp>;
  dataDir: string;
  /** A controllable clock (epoch ms) used by auth and limits. */
  clock: { now: number };
  close(): Promise<void>;
}

export async function startTestService(
  options: {
    databaseUrl?: string;
    env?: Record<string, string>;
    mount?: (svc: TestService) => void;
  } = {},
): Promise<TestService> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "vf-platform-"));
  const config = loadConfig({
    DATA_DIR: dataDir,
    LOG_LEVEL: "silent",
    NODE_ENV: "test",
    ...(options.databaseUrl ? { DATABASE_URL: options.databaseUrl } : {}),
    ...options.env,
  });
  const clock = { now: Date.now() };
  const ctx = await createContext(config, {
    logger: createLogger("silent"),
    clock: () => clock.now,
    metrics: createMetrics({ defaultMetrics: false }),
    queueSchedule: false,
  });
  const app = createApp(ctx);
  const service: TestService = {
    ctx,
    app,
    dataDir,
    clock,
    close: async () => {
      await closeContext(ctx, 1_000);
      await rm(dataDir, { recursive: true, force: true });
    },
  };
  options.mount?.(service);
  return service;
}

export async function newKey(svc: TestService, tier: TierName = "free", label = "test") {
  const { record, secret } = await createApiKey(svc.ctx.store, svc.ctx.masterKey, { tier, label });
  return { key: record.key, id: record.id, secret };
}

/** A signed request through `app.request()` (no network). */
export function signedRequest(
  svc: TestService,
  credentials: { key: string; secret: string },
  method: string,
  path: string,
  body?: string,
  extraHeaders: Record<string, string> = {},
  timestamp = String(svc.clock.now),
) {
  const headers = {
    ...(body !== undefined ? { "Content-Type": "application/json" } : {}),
    ...signedHeaders(credentials.key, credentials.secret, body ?? "", timestamp),
    ...extraHeaders,
  };
  return svc.app.request(path, { method, headers, body });
}
