import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import type { EngineDeps } from "../../../relayer/execution/orchestrator.ts";
import { startEngineWorker, type EngineWorker } from "../../../relayer/execution/worker.ts";
import { createLogger } from "../../../relayer/http/logging.ts";
import { JOB_NAMES, openQueue, type Queue } from "../../../relayer/queue/index.ts";
import { openStore, type Store } from "../../../relayer/store/index.ts";
import { migrate } from "../../../relayer/store/migrate.ts";
import { newExecutionId } from "../../../relayer/model/index.ts";
import { createTestDatabase, eventually } from "../../fixtures/platform.ts";

const BACKENDS = ["pglite", "postgres"] as const;

/**
 * The engine worker fetches a `workflow.execute` job when the database notifies its execution
 * (migration 203_engine_job_wakeup.sql), not at its poll; a job no notification announced is found
 * by the slow poll. The executions are cancelled before they are picked up: the worker reads
 * them and returns (nothing of the engine runs, so its chains and prover are not needed).
 */
for (const backend of BACKENDS) {
  describe(`# engine worker wake-up (${backend})`, function () {
    this.timeout(60_000);
    let dataDir: string;
    let databaseUrl: string | undefined;
    let drop: (() => Promise<void>) | undefined;
    const opened: Array<{ store: Store; queue: Queue; worker?: EngineWorker }> = [];

    before(async () => {
      dataDir = await mkdtemp(path.join(os.tmpdir(), "vf-engine-worker-"));
      if (backend === "postgres") {
        const db = await createTestDatabase("engine_worker");
        databaseUrl = db.url;
        drop = db.drop;
      }
    });

    afterEach(async () => {
      for (const { store, queue, worker } of opened.splice(0).reverse()) {
        await worker?.stop();
        await queue.stop(2_000);
        await store.close();
      }
    });

    after(async () => {
      await drop?.();
      await rm(dataDir, { recursive: true, force: true });
    });

    /** A relayer process's store and queue, with an engine worker polling every `poll` seconds. */
    async function relayerProcess(poll: number | null) {
      const store = await openStore({ databaseUrl, dataDir: path.join(dataDir, "db") });
      await migrate(store);
      const queue = await openQueue({ store, logger: createLogger("silent"), schedule: false });
      const deps = { store, logger: createLogger("silent") } as unknown as EngineDeps;
      const worker =
        poll === null
          ? undefined
          : await startEngineWorker(queue, deps, store, { pollingIntervalSeconds: poll });
      opened.push({ store, queue, ...(worker ? { worker } : {}) });
      return { store, queue };
    }

    /** Inserts an execution already cancelled (its insertion `queued` notifies, or not). */
    async function cancelledExecution(tx: Store, notify: boolean): Promise<string> {
      const id = newExecutionId();
      await tx.query(
        "INSERT INTO workflow_executions (id, api_key_id, name, state, workflow) VALUES ($1, 'key_wake', 'wake', $2, $3::jsonb)",
        [id, notify ? "queued" : "cancelled", JSON.stringify({ name: "wake", actions: [] })],
      );
      await tx.query("UPDATE workflow_executions SET state = 'cancelled' WHERE id = $1", [id]);
      return id;
    }

    async function worked(queue: Queue, jobId: string): Promise<boolean | undefined> {
      const job = await queue.boss.getJobById(JOB_NAMES.workflowExecute, jobId);
      return job?.state === "completed" ? true : undefined;
    }

    it("should fetch a job sent by another connection when notified, long before its poll", async function () {
      // A poll far beyond this test's timeout: only the notification can get the job worked.
      this.timeout(15_000);
      const { queue } = await relayerProcess(120);
      // The sender: on PostgreSQL another process's pool and queue (no worker, so no wake-up of
      // its own reaches this worker); on PGlite (one process) the same store, without `wake`.
      const sender = backend === "postgres" ? await relayerProcess(null) : opened[0]!;
      const jobId = await sender.store.transaction(async (tx) => {
        const executionId = await cancelledExecution(tx, true);
        return sender.queue.send(JOB_NAMES.workflowExecute, { executionId }, { tx });
      });
      expect(jobId).to.be.a("string");
      await eventually(() => worked(queue, jobId!), "the notified worker");
    });

    it("should try a failed attempt again at its backoff, not at the slow poll", async function () {
      // A poll far beyond this test's timeout: only the wake-ups at the retries' due times can
      // get the three attempts made.
      this.timeout(20_000);
      const { queue } = await relayerProcess(120);
      // No such execution: each attempt fails, the last one gives up.
      const jobId = await queue.send(JOB_NAMES.workflowExecute, { executionId: newExecutionId() });
      const job = await eventually(async () => {
        const found = await queue.boss.getJobById(JOB_NAMES.workflowExecute, jobId!);
        return found?.state === "failed" ? found : undefined;
      }, "the third attempt");
      expect(job.retryCount).to.equal(2);
    });

    it("should still fetch a job no notification announced, at its slow poll", async function () {
      const { store, queue } = await relayerProcess(1);
      const executionId = await cancelledExecution(store, false);
      // Sent by pg-boss itself: no execution inserted `queued` with it, no wake-up.
      const jobId = await queue.boss.send(JOB_NAMES.workflowExecute, { executionId });
      expect(jobId).to.be.a("string");
      await eventually(() => worked(queue, jobId!), "the polling worker");
    });
  });
}
