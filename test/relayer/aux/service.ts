import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createApiKey } from "../../../relayer/auth/keys.ts";
import { signedHeaders } from "../../../relayer/auth/hmac.ts";
import { openChains, type ChainSet } from "../../../relayer/chains/index.ts";
import { loadConfig } from "../../../relayer/config/index.ts";
import { closeContext, createContext, type AppContext } from "../../../relayer/context.ts";
import { createApp } from "../../../relayer/http/app.ts";
import { createLogger } from "../../../relayer/http/logging.ts";
import { createMetrics } from "../../../relayer/http/metrics.ts";

/**
 * The whole relayer app (platform context on PGlite, the embedded devnet's ethereum chain) for the
 * aux endpoints' tests and benchmark, with one API key.
 */
export interface AuxService {
  ctx: AppContext;
  app: ReturnType<typeof createApp>;
  chains: ChainSet;
  credentials: { key: string; secret: string };
  /** A signed request through `app.request()`. */
  signed(method: string, path: string, body?: unknown): Promise<Response>;
  /** A request with `Authorization: Bearer <API_KEY>`. */
  bearer(method: string, path: string, body?: unknown): Promise<Response>;
  close(): Promise<void>;
}

export async function startAuxService(env: Record<string, string> = {}): Promise<AuxService> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "vf-aux-"));
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: "silent", NODE_ENV: "test", ...env });
  const chains = await openChains({ mode: "embedded", chains: ["ethereum"] });
  const ctx = await createContext(config, {
    logger: createLogger("silent"),
    chains,
    metrics: createMetrics({ defaultMetrics: false }),
    queueSchedule: false,
  });
  const app = createApp(ctx);
  const { record, secret } = await createApiKey(ctx.store, ctx.masterKey, {
    tier: "enterprise",
    label: "aux",
  });
  const credentials = { key: record.key, secret };
  const encode = (body: unknown) => (body === undefined ? undefined : JSON.stringify(body));
  return {
    ctx,
    app,
    chains,
    credentials,
    signed(method, target, body) {
      const text = encode(body);
      const headers = {
        ...(text !== undefined ? { "Content-Type": "application/json" } : {}),
        ...signedHeaders(credentials.key, credentials.secret, text ?? "", String(Date.now())),
      };
      return Promise.resolve(app.request(target, { method, headers, body: text }));
    },
    bearer(method, target, body) {
      const text = encode(body);
      const headers: Record<string, string> = { Authorization: `Bearer ${credentials.key}` };
      if (text !== undefined) headers["Content-Type"] = "application/json";
      return Promise.resolve(app.request(target, { method, headers, body: text }));
    },
    async close() {
      await closeContext(ctx, 1_000);
      await chains.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
