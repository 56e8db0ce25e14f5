import type { ChildExtension } from "../../fixtures/child-service.ts";

const PROBE_QUEUE = "platform.probe";

/**
 * The child relayer of the multi-process test, without chains (the test is about the shared
 * database): a probe route that stores a row and queues a job, and a worker recording each job it
 * runs with this process's id.
 */
const probe: ChildExtension = {
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
};
export default probe;
