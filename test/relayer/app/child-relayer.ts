/**
 * A relayer process for the multi-process test: the real service (startService) from the
 * environment, without chains (the test is about the shared database), plus a probe route that
 * stores a row and queues a job, and a worker recording each job it runs with this process's id.
 * `hardhat test` loads every file under test/, this one included: it starts a relayer only when
 * run as a program (otherwise a full run starts one on the default port and DATA_DIR).
 */
import { loadConfig } from "../../../relayer/config/index.ts";
import { startService } from "../../../relayer/app/index.ts";

if (import.meta.main) await main();

async function main(): Promise<void> {
  const PROBE_QUEUE = "platform.probe";

  const service = await startService(loadConfig(), {
    chains: null,
    extend: async (ctx, app) => {
      app.post("/probe/submit", async (c) => {
        const body = (await c.req.json()) as { name: string };
        const jobId = await ctx.store.transaction(async (tx) => {
          await tx.query("INSERT INTO probe_submissions (name, pid) VALUES ($1, $2)", [
            body.name,
            process.pid,
          ]);
          return ctx.queue.send(PROBE_QUEUE, { name: body.name }, { tx });
        });
        return c.json({ status: "queued", job_id: jobId, pid: process.pid }, 202);
      });
      await ctx.queue.work<{ name: string }>(
        PROBE_QUEUE,
        async (_data, job) => {
          await ctx.store.query("INSERT INTO probe_runs (job_id, pid) VALUES ($1, $2)", [
            job.id,
            process.pid,
          ]);
          // Hold the job a little so both processes are busy at once.
          await new Promise((resolve) => setTimeout(resolve, 10));
        },
        { localConcurrency: 4, pollingIntervalSeconds: 0.5 },
      );
    },
  });

  process.stdout.write(`${JSON.stringify({ ready: service.server.url, pid: process.pid })}\n`);
  process.once("SIGTERM", () => {
    service.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}
