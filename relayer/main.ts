import { countApiKeys, createApiKey } from "./auth/keys.ts";
import { ConfigError, loadConfig } from "./config/index.ts";
import { openChains } from "./chains/index.ts";
import { closeContext, createContext } from "./context.ts";
import { createApp } from "./http/app.ts";
import { createLogger } from "./http/logging.ts";
import { listen } from "./http/server.ts";

/**
 * `npm start`: the relayer on its embedded defaults (PGlite under DATA_DIR, the devnet chains
 * in process), or on PostgreSQL / RPC chains / a chains file per the environment (docs/platform.md).
 */
async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  const logger = createLogger(config.logLevel);
  logger.info({ chains: config.chains }, "opening chains");
  const chains = await openChains(config.chains);
  const ctx = await createContext(config, { logger, chains });

  // First run with no key at all: a development key so the service is usable at once.
  let announcedKey = config.bootstrapKey?.key;
  if (!announcedKey && config.env !== "production" && (await countApiKeys(ctx.store)) === 0) {
    const { record, secret } = await createApiKey(ctx.store, ctx.masterKey, {
      tier: "free",
      label: "development key created on first start",
      source: "dev",
    });
    announcedKey = record.key;
    // Printed once, to the terminal only (not the JSON log); it is stored encrypted.
    process.stdout.write(
      `\nCreated a development API key (shown once, keep the secret):\n` +
        `  X-SVC-Key:       ${record.key}\n  signing secret:  ${secret}\n\n`,
    );
  }

  const app = createApp(ctx);
  const server = await listen(app, config.host, config.port);
  logger.info(
    {
      url: server.url,
      database: config.databaseUrl ? "postgresql" : `pglite (${config.dataDir})`,
      chains: chains.list().map((c) => `${c.name} (${c.chainId})`),
      api_key: announcedKey ?? "(keys in the database: npm run keys -- list)",
    },
    "relayer listening",
  );
  process.stdout.write(
    `Veriflow relayer listening on ${server.url}` +
      (announcedKey ? ` (API key ${announcedKey})` : "") +
      `; docs at ${server.url}/docs\n`,
  );

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "shutting down: finishing in-flight requests");
    ctx.draining = true;
    await server.close(config.shutdownGraceMs);
    await closeContext(ctx);
    logger.info("stopped");
    process.exit(0);
  };
  process.on("SIGINT", () => void shutdown("SIGINT"));
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
}

main().catch((err) => {
  process.stderr.write(`relayer failed to start: ${(err as Error).message}\n`);
  process.exit(1);
});
