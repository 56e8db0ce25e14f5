/**
 * `npm run worker`: an execution worker without the HTTP API. It works `workflow.execute` jobs and
 * resumes executions that a stopped worker left running, on the same configuration as `npm start`
 * (DATABASE_URL, VERIFLOW_CHAINS, VERIFLOW_MASTER_KEY, ...). Run several next to the API processes
 * on one PostgreSQL to scale execution separately from intake.
 */
import { startWorkerProcess } from "./app/index.ts";
import { loadConfigOrExit } from "./config/index.ts";
import { createLogger } from "./http/index.ts";

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const logger = createLogger(config.logLevel);
  const worker = await startWorkerProcess(config, { logger });
  process.stdout.write(
    `Veriflow execution worker ready (${(worker.services.chains?.list() ?? [])
      .map((c) => c.name)
      .join(", ")})\n`,
  );
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "worker stopping: finishing running executions");
    await worker.stop();
    process.exit(0);
  };
  process.on("SIGINT", () => void shutdown("SIGINT"));
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
}

main().catch((err) => {
  process.stderr.write(`worker failed to start: ${(err as Error).message}\n`);
  process.exit(1);
});
