import type { Logger } from "pino";
import { countApiKeys, createApiKey, keyFingerprint, listApiKeys } from "../auth/index.ts";
import { openChains, type ChainSet } from "../chains/index.ts";
import { DEVNET_CHAIN_IDS } from "../devnet/index.ts";
import { assertProvingKeysFit } from "../proofs/index.ts";
import type { Config } from "../config/index.ts";
import { closeContext } from "../context/index.ts";
import { createLogger, listen, type RunningServer } from "../http/index.ts";
import { createApp } from "./http.ts";
import { buildServices, type Services } from "./services.ts";
import { startWorkers } from "./workers.ts";

/**
 * A full collection, where Node runs with `--expose-gc` (package.json's `config.node_flags`): the
 * start leaves a heap of garbage (modules' sources, the devnet's deployment, the patterns'
 * compilation) that V8 would otherwise mark and compact within the first minute of serving, its
 * marking steps and final pause landing on requests (docs/platform.md, "Runtime flags").
 */
function collectGarbage(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

export { createApp } from "./http.ts";
export { buildServices, type Services } from "./services.ts";
export { ALL_WORKERS, startWorkers, type WorkerKind } from "./workers.ts";

/**
 * The composition root. Entry points (relayer/main.ts, relayer/worker-main.ts, scripts/, the
 * test fixtures) call only this module: `buildServices` (./services.ts) builds every service from
 * the parsed configuration, `createApp` (./http.ts) mounts every area's routes on them, and
 * `startWorkers` (./workers.ts) starts every background worker.
 */

/**
 * One relayer process: services (storage, queue, chains and every area's), HTTP app, listening
 * server and the background workers. `npm start` (relayer/main.ts) runs it from the environment;
 * tests run it with their own configuration.
 */
export interface RunningService {
  ctx: Services;
  server: RunningServer;
  /** The API key announced at start (bootstrap, or the development key created on first run). */
  apiKey?: string;
  /** Active (not revoked) API keys in the database, for the start banner; never secrets. */
  activeKeys: string[];
  /** Set only when a development key was created by this start: shown once. */
  createdSecret?: string;
  /** Graceful: stop accepting, finish in-flight requests and running jobs, close everything. */
  stop(): Promise<void>;
}

export interface StartServiceOptions {
  logger?: Logger;
  /** Chains to use; by default opened from `config.chains`. */
  chains?: ChainSet | null;
  /** Extra routes or workers (tests), called before the server listens. */
  extend?: (ctx: Services, app: ReturnType<typeof createApp>) => Promise<void> | void;
}

export async function startService(
  config: Config,
  options: StartServiceOptions = {},
): Promise<RunningService> {
  const logger = options.logger ?? createLogger(config.logLevel);
  let chains = options.chains;
  if (chains === undefined) {
    logger.info({ chains: config.chains }, "opening chains");
    chains = await openChains(config.chains);
  }
  if (chains) {
    // The development proving keys make forgeable proofs: never against a real network.
    await assertProvingKeysFit(
      chains.list().map((c) => c.chainId),
      DEVNET_CHAIN_IDS,
    ).catch(async (err: unknown) => {
      if (options.chains === undefined) await chains?.close();
      throw err;
    });
  }
  const ctx = await buildServices(config, { logger, chains });

  // First run with no key at all: a development key so the service is usable at once.
  let apiKey = config.bootstrapKey?.key;
  let createdSecret: string | undefined;
  if (!apiKey && config.env !== "production" && (await countApiKeys(ctx.store)) === 0) {
    const created = await createApiKey(ctx.store, ctx.masterKey, {
      tier: "free",
      label: "development key created on first start",
      source: "dev",
    });
    apiKey = created.record.key;
    createdSecret = created.secret;
  }

  const activeKeys = (await listApiKeys(ctx.store)).filter((k) => !k.revokedAt).map((k) => k.key);

  const app = createApp(ctx);
  // The process serves analyses: their redaction threads load while the rest starts.
  ctx.analysis?.warm();
  await startWorkers(ctx);
  await options.extend?.(ctx, app);

  // The start's garbage collected now, not in the first minute's requests (docs/platform.md).
  collectGarbage();
  const server = await listen(app, config.host, config.port);
  logger.info(
    {
      url: server.url,
      database: config.databaseUrl ? "postgresql" : `pglite (${config.dataDir})`,
      chains: ctx.chains?.list().map((c) => `${c.name} (${c.chainId})`) ?? [],
      // Fingerprints only: the key alone authenticates Bearer requests.
      api_key: apiKey ? keyFingerprint(apiKey) : activeKeys.slice(0, 5).map(keyFingerprint),
    },
    "relayer listening",
  );

  let stopping: Promise<void> | undefined;
  return {
    ctx,
    server,
    apiKey,
    activeKeys,
    createdSecret,
    stop() {
      stopping ??= (async () => {
        ctx.draining = true;
        await server.close(config.shutdownGraceMs);
        await closeContext(ctx);
      })();
      return stopping;
    },
  };
}

/**
 * `npm run worker`: the platform's housekeeping and the engine's `workflow.execute` worker,
 * without the HTTP API. `stop()` waits for running executions, then closes everything.
 */
export async function startWorkerProcess(
  config: Config,
  options: { logger?: Logger } = {},
): Promise<{ services: Services; stop(): Promise<void> }> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const chains = await openChains(config.chains);
  const services = await buildServices(config, { logger, chains });
  await startWorkers(services, ["platform", "engine"]);
  return { services, stop: () => closeContext(services) };
}
