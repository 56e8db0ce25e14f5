import { describeSnapshot, loadConfigOrExit } from "./config/index.ts";
import { createLogger } from "./http/index.ts";
import { startService } from "./app/index.ts";
import { keyFingerprint } from "./auth/index.ts";

/**
 * `npm start`: the relayer on its embedded defaults (PGlite under DATA_DIR, the devnet chains
 * in process), or on PostgreSQL / RPC chains / a chains file per the environment (docs/platform.md).
 */
async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const logger = createLogger(config.logLevel);
  const service = await startService(config, { logger });

  // The banner is for the person at the terminal, never the JSON log stream (stdout when that is
  // not a terminal): the secret must not end up in a log collector.
  const terminal = process.stdout.isTTY ? process.stdout : process.stderr;
  if (config.sanctionsSnapshot) terminal.write(`${describeSnapshot(config.sanctionsSnapshot)}\n`);
  if (service.createdSecret) {
    // Printed once; it is stored encrypted. The CLI asks for the secret at a prompt so it stays
    // out of argv and shell history.
    terminal.write(
      `\nCreated a development API key (the secret is shown only now):\n` +
        `  X-SVC-Key:       ${service.apiKey}\n  signing secret:  ${service.createdSecret}\n` +
        `Use it from the CLI (paste the secret at the prompt):\n` +
        `  npx veriflow login --url ${service.server.url} --key ${service.apiKey}\n\n`,
    );
  }
  // A key the operator did not just receive is shown as its fingerprint (npm run keys -- list).
  const keys = service.apiKey
    ? `API key ${service.createdSecret ? service.apiKey : keyFingerprint(service.apiKey)}`
    : service.activeKeys.length === 0
      ? "no active API key: create one with npm run keys -- create"
      : `API key${service.activeKeys.length > 1 ? "s" : ""} ${service.activeKeys.slice(0, 3).map(keyFingerprint).join(", ")}` +
        (service.activeKeys.length > 3 ? ` and ${service.activeKeys.length - 3} more` : "");
  terminal.write(
    `Veriflow relayer listening on ${service.server.url} (${keys}); docs at ${service.server.url}/docs\n`,
  );

  const shutdown = (signal: string) => {
    logger.info({ signal }, "shutting down: finishing in-flight requests and jobs");
    service.stop().then(
      () => {
        logger.info("stopped");
        process.exit(0);
      },
      (err: Error) => {
        logger.error({ err }, "shutdown failed");
        process.exit(1);
      },
    );
  };
  process.once("SIGINT", () => shutdown("SIGINT"));
  process.once("SIGTERM", () => shutdown("SIGTERM"));
}

main().catch((err) => {
  process.stderr.write(`relayer failed to start: ${(err as Error).message}\n`);
  process.exit(1);
});
