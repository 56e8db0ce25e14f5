import type { Logger } from "pino";
import type { ChainSet } from "../chains/index.ts";
import { ensureBootstrapKey, checkMasterKey } from "../auth/index.ts";
import {
  type Config,
  resolveMasterKey,
  resolveTierLimits,
  type TierLimits,
  type TierName,
} from "../config/index.ts";
import { createLogger, createMetrics, registerQueueMetrics, type Metrics } from "../http/index.ts";
import { openQueue, type Queue } from "../queue/index.ts";
import { openStore, type Store, migrate } from "../store/index.ts";

/** The platform services of a process; relayer/app/services.ts adds the areas' services. */
export interface AppContext {
  config: Config;
  store: Store;
  queue: Queue;
  /** Null when the relayer runs without chains (then /readyz reports them missing). */
  chains: ChainSet | null;
  logger: Logger;
  metrics: Metrics;
  /** Encrypts secrets at rest (relayer/auth/secrets.ts). Never log it. */
  masterKey: Buffer;
  limits: Record<TierName, TierLimits>;
  /** Epoch milliseconds; injectable for tests of time windows. */
  clock: () => number;
  /** True once shutdown began: /readyz answers 503 so traffic moves elsewhere. */
  draining: boolean;
  /** What areas opened on demand for this context (watchers, signal handlers); `closeContext` runs them. */
  closers: Array<() => void | Promise<void>>;
}

export interface CreateContextOptions {
  logger?: Logger;
  chains?: ChainSet | null;
  clock?: () => number;
  /** Run pg-boss cron and maintenance in this process (default true). */
  queueSchedule?: boolean;
  metrics?: Metrics;
}

/** Opens storage (migrated) and the queue: the platform part of the services (relayer/app/). */
export async function createContext(
  config: Config,
  options: CreateContextOptions = {},
): Promise<AppContext> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const limits = resolveTierLimits(config.limitsOverride);
  const master = await resolveMasterKey(config);
  if (master.source === "generated") {
    logger.warn(
      { file: master.file },
      "generated a development master key (set VERIFLOW_MASTER_KEY in production)",
    );
  }
  const store = await openStore({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    maxConnections: config.databasePoolSize,
  });
  try {
    const applied = await migrate(store);
    if (applied.length) logger.info({ applied }, "database migrations applied");
    await checkMasterKey(store, master.key);
    if (config.bootstrapKey) await ensureBootstrapKey(store, master.key, config.bootstrapKey);
    const queue = await openQueue({ store, logger, schedule: options.queueSchedule ?? true });
    const ctx: AppContext = {
      config,
      store,
      queue,
      chains: options.chains ?? null,
      logger,
      metrics: options.metrics ?? createMetrics(),
      masterKey: master.key,
      limits,
      clock: options.clock ?? Date.now,
      draining: false,
      closers: [],
    };
    registerQueueMetrics(ctx);
    return ctx;
  } catch (err) {
    await store.close().catch(() => {});
    throw err;
  }
}

/** Stops the queue (waiting for running jobs), then what areas opened on demand, chains and storage. */
export async function closeContext(
  ctx: AppContext,
  graceMs = ctx.config.shutdownGraceMs,
): Promise<void> {
  ctx.draining = true;
  await ctx.queue.stop(graceMs).catch((err) => ctx.logger.error({ err }, "queue stop failed"));
  for (const close of ctx.closers.splice(0)) {
    await Promise.resolve()
      .then(close)
      .catch((err) => ctx.logger.error({ err }, "close failed"));
  }
  await ctx.chains?.close().catch((err) => ctx.logger.error({ err }, "chains close failed"));
  await ctx.store.close();
}
