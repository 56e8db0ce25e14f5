import { AsyncLocalStorage } from "node:async_hooks";
import {
  PgBoss,
  type JobWithMetadata,
  type ScheduleOptions,
  type SendOptions,
  type WorkOptions,
} from "pg-boss";
import type { Logger } from "pino";
import type { QueueDb, Store } from "../store/index.ts";

/**
 * Jobs on pg-boss, in the same database as everything else (PostgreSQL or PGlite): a job sent
 * inside a store transaction commits or rolls back with the rows it refers to, and several
 * relayer processes on one PostgreSQL share the queue (SKIP LOCKED: a job runs in one place).
 */

/** Every job name of the relayer, declared here only; `JobPayloads` gives each one's data. */
export const JOB_NAMES = {
  /** `{executionId}`: sent by intake, worked by the engine. */
  workflowExecute: "workflow.execute",
  /** Schedule firings (pg-boss cron): intake creates an execution and sends workflow.execute. */
  workflowSchedule: "workflow.schedule",
  /** Platform housekeeping: purges expired replay entries and old rate-limit windows. */
  platformMaintenance: "platform.maintenance",
  /** Every minute: anchors the integrations' batches that came due (relayer/integrations). */
  integrationsAnchor: "integrations.anchor",
  /** Every minute: anchors the text-analysis audit chain's head once it is due (relayer/analysis). */
  analysisAuditAnchor: "analysis.audit-anchor",
  /** Daily: prunes text-analysis audit records past their retention. */
  analysisAuditPrune: "analysis.audit-prune",
} as const;

export type JobName = (typeof JOB_NAMES)[keyof typeof JOB_NAMES];

/** The data each job carries (cron jobs carry none). */
export interface JobPayloads {
  "workflow.execute": { executionId: string };
  "workflow.schedule": { scheduleId: string };
  "platform.maintenance": Record<string, never>;
  "integrations.anchor": Record<string, never>;
  "analysis.audit-anchor": Record<string, never>;
  "analysis.audit-prune": Record<string, never>;
}

export interface QueueOptions {
  store: Store;
  logger: Logger;
  /** Whether this process runs pg-boss's cron and maintenance (on by default). */
  schedule?: boolean;
}

export interface SendJobOptions extends SendOptions {
  /** Send inside this store transaction: the job exists only if the transaction commits. */
  tx?: Store;
}

export interface Queue {
  readonly boss: PgBoss;
  /** Creates the queue if needed (idempotent; defaults: 3 attempts, exponential backoff). */
  ensureQueue(name: string, options?: Parameters<PgBoss["createQueue"]>[1]): Promise<void>;
  send<T extends object>(name: string, data: T, options?: SendJobOptions): Promise<string | null>;
  /** Several jobs of one queue in one statement (queue defaults for retries); their ids. */
  sendMany<T extends object>(
    name: string,
    data: readonly T[],
    options?: { tx?: Store },
  ): Promise<string[]>;
  /**
   * pg-boss's own statement inserting jobs into queue `name` (queue defaults for retries), whose
   * `$1` is the JSON array of jobs (`[{data}]`) and which returns the ids inserted: to be embedded
   * in a larger statement that commits the jobs with other rows in one round trip. Null when
   * pg-boss's statement cannot be embedded (then send with `sendMany` in a transaction).
   */
  insertStatement(name: string): Promise<string | null>;
  /**
   * Works jobs one at a time per worker; a throw fails the job, which pg-boss retries. With
   * `localConcurrency` workers, the first polls at `pollingIntervalSeconds` and the others every
   * IDLE_SIBLING_POLLING_SECONDS, woken as jobs are found, sent and finished; a failed job's
   * retry wakes one at its due time when that comes before the first one's poll. The handler gets
   * the job's metadata (its retries among them).
   */
  work<T extends object>(
    name: string,
    handler: (data: T, job: JobWithMetadata<T>) => Promise<unknown>,
    options?: WorkOptions,
  ): Promise<string>;
  /**
   * Tells an idle worker of this process for queue `name` to fetch now instead of at its next poll
   * (a worker that finds a job wakes the next one): call it once jobs sent in a transaction have
   * committed (`send` without `tx` does it itself). Workers in other processes find the jobs at
   * their next poll.
   */
  wake(name: string): void;
  schedule(name: string, cron: string, data: object, options?: ScheduleOptions): Promise<void>;
  unschedule(name: string, key?: string): Promise<void>;
  /** Stops fetching, waits for running handlers (up to `timeoutMs`), then disconnects. */
  stop(timeoutMs?: number): Promise<void>;
}

/** Retry policy for queues we create: the spec's default retry (3 attempts, exponential, max 10 s). */
const DEFAULT_QUEUE_OPTIONS = {
  retryLimit: 2,
  retryDelay: 1,
  retryBackoff: true,
  retryDelayMax: 10,
} as const;

/** pg-boss's idle poll of a worker whose `pollingIntervalSeconds` is not given. */
const PGBOSS_POLLING_SECONDS = 2;

/**
 * The latest a failed attempt's retry comes due, ms: pg-boss starts it after `retryDelay` seconds,
 * or with backoff after a random delay up to `retryDelay` · 2^(attempts) seconds, at most
 * `retryDelayMax`.
 */
function retryDueMs(job: JobWithMetadata<object>): number {
  const seconds = job.retryBackoff
    ? Math.min(
        job.retryDelayMax ?? Infinity,
        Math.max(job.retryDelay, 1) * 2 ** Math.min(16, job.retryCount + 1),
      )
    : job.retryDelay;
  return seconds * 1_000;
}

/**
 * How much later than its computed due time a retry's wake-up fires, ms: the failure is recorded
 * (and its due time taken from the database's clock) after the handler's throw that arms the timer.
 */
const RETRY_WAKE_MARGIN_MS = 100;

/**
 * How often the workers of a `work` call beyond its first poll when idle (seconds): woken by the
 * jobs this process sends and finds and by the retries coming due before the first one's poll, they
 * poll only for what another process sent while the first worker is busy.
 */
const IDLE_SIBLING_POLLING_SECONDS = 10;

const QUEUE_START_LOCK_ID = 7_261_830_416;
const NIL_UUID = "00000000-0000-0000-0000-000000000000";
/** pg-boss's schema (its default; we do not configure another). */
const PGBOSS_SCHEMA = "pgboss";

export async function openQueue(options: QueueOptions): Promise<Queue> {
  const { store, logger } = options;
  const schedule = options.schedule ?? true;
  // PGlite has ONE connection, which an open transaction holds. pg-boss runs its own lookups (the
  // queue's table and policy, the first time this process uses a queue, or after its queue cache
  // was refreshed) on its `db`: during a `send(…, {tx})` such a lookup would wait for the very
  // transaction that waits for it, forever. While such a send runs, pg-boss's `db` is that
  // transaction (AsyncLocalStorage: only the calls made on behalf of that send).
  const outerDb = store.queueDb();
  const sendingIn = new AsyncLocalStorage<QueueDb>();
  const db: QueueDb =
    store.kind === "pglite"
      ? { executeSql: (text, values) => (sendingIn.getStore() ?? outerDb).executeSql(text, values) }
      : outerDb;
  const boss = new PgBoss({
    db,
    backend: store.kind === "pglite" ? "pglite" : "postgres",
    schedule,
    supervise: schedule,
    migrate: true,
  });
  boss.on("error", (err) => logger.error({ err }, "queue error"));
  boss.on("warning", (warning) => logger.warn({ warning }, "queue warning"));
  if (store.kind === "postgres") {
    // pg-boss's first installation is not safe against processes starting at the same moment
    // (CREATE SCHEMA races): hold an advisory lock, in a transaction on another connection of
    // the pool, while it starts. (PGlite is one process: nothing to serialise, and its single
    // connection would be held by the transaction.)
    await store.transaction(async (tx) => {
      await tx.query("SELECT pg_advisory_xact_lock($1)", [QUEUE_START_LOCK_ID]);
      await boss.start();
    });
  } else {
    await boss.start();
  }

  const known = new Set<string>();
  const ensureQueue: Queue["ensureQueue"] = async (name, queueOptions) => {
    if (known.has(name)) return;
    const merged = { ...DEFAULT_QUEUE_OPTIONS, ...queueOptions };
    // pg-boss accepts a maximum delay only with backoff.
    if (!merged.retryBackoff) delete (merged as { retryDelayMax?: number }).retryDelayMax;
    // Sending inside a PGlite transaction (see above): lookups run in that transaction.
    const tx = sendingIn.getStore();
    if (!(await boss.getQueue(name))) {
      if (tx) {
        // pg-boss's createQueue script commits (it carries its own BEGIN/COMMIT), which would
        // end the caller's transaction half-way: call the function it installs instead, so the
        // queue is created with the caller's transaction or not at all. (One connection: no
        // other process to serialise with.)
        await tx.executeSql(`SELECT ${PGBOSS_SCHEMA}.create_queue($1, $2::jsonb)`, [
          name,
          JSON.stringify({ policy: "standard", ...merged }),
        ]);
      } else {
        try {
          await boss.createQueue(name, merged);
        } catch (err) {
          // Another process created it between our check and create.
          if (!(await boss.getQueue(name))) throw err;
        }
      }
    }
    // Fill pg-boss's queue cache, so later sends do not look the queue up at all.
    await boss.deleteJob(name, NIL_UUID);
    // A queue created inside a transaction is remembered only once seen outside one: if the
    // transaction rolls back, the next send creates it again (and refreshes pg-boss's cache).
    if (!tx) known.add(name);
  };
  for (const name of Object.values(JOB_NAMES)) await ensureQueue(name);

  /** Runs `fn` with the transaction's pg-boss `db` (on PGlite, pg-boss's own lookups included). */
  const inTransaction = <T>(tx: Store, fn: (txDb: QueueDb) => Promise<T>): Promise<T> => {
    const txDb = tx.queueDb();
    return store.kind === "pglite" ? sendingIn.run(txDb, () => fn(txDb)) : fn(txDb);
  };

  const insertStatements = new Map<string, string | null>();
  /** Tells one of this process's idle workers of queue `name` (no job in hand) to fetch now. */
  const wake = (name: string) => {
    const idle = boss
      .getWipData()
      .find((w) => w.name === name && w.state === "active" && w.count === 0);
    if (idle) boss.notifyWorker(idle.id);
  };
  const retryWakes = new Set<NodeJS.Timeout>();
  let stopping = false;
  /**
   * The handler threw for `jobs` (pg-boss fails them all): nothing announces their retries coming
   * due, so a worker polling less often than a retry's backoff is woken at its latest due time
   * instead of stretching the backoff to its poll.
   */
  const wakeAtRetry = (name: string, jobs: JobWithMetadata<object>[], pollMs: number) => {
    const retried = jobs.filter((job) => job.retryCount < job.retryLimit);
    if (stopping || retried.length === 0) return;
    const dueMs = Math.max(...retried.map(retryDueMs));
    if (dueMs >= pollMs) return;
    const timer = setTimeout(() => {
      retryWakes.delete(timer);
      wake(name);
    }, dueMs + RETRY_WAKE_MARGIN_MS);
    timer.unref();
    retryWakes.add(timer);
  };

  return {
    boss,
    ensureQueue,
    async send(name, data, sendOptions = {}) {
      const { tx, ...rest } = sendOptions;
      if (!tx) {
        await ensureQueue(name);
        const id = await boss.send(name, data, rest);
        if (!rest.startAfter) wake(name);
        return id;
      }
      return inTransaction(tx, async (txDb) => {
        await ensureQueue(name);
        return boss.send(name, data, { ...rest, db: txDb });
      });
    },
    async sendMany(name, data, sendOptions = {}) {
      if (data.length === 0) return [];
      const jobs = data.map((d) => ({ data: d as object }));
      const insert = async (txDb?: QueueDb) => {
        await ensureQueue(name);
        const ids = await boss.insert(name, jobs, {
          returnId: true,
          ...(txDb ? { db: txDb } : {}),
        });
        return ids ?? [];
      };
      return sendOptions.tx ? inTransaction(sendOptions.tx, insert) : insert();
    },
    async insertStatement(name) {
      let statement = insertStatements.get(name);
      if (statement === undefined) {
        await ensureQueue(name);
        // pg-boss builds the statement for this queue (its table, policy) and hands it to its
        // `db`; this one keeps it instead of running it.
        let captured: string | null = null;
        await boss.insert(name, [{ data: {} }], {
          returnId: true,
          db: {
            executeSql: async (text) => {
              captured = captured === null ? text : "";
              return { rows: [] };
            },
          },
        });
        statement = embeddable(captured);
        insertStatements.set(name, statement);
      }
      return statement;
    },
    async work(name, handler, workOptions = {}) {
      await ensureQueue(name);
      const { localConcurrency = 1, ...options } = workOptions;
      const pollMs = (options.pollingIntervalSeconds ?? PGBOSS_POLLING_SECONDS) * 1_000;
      const run = async (jobs: JobWithMetadata<object>[]) => {
        // While this worker works, an idle one looks for the next job, and every busy one (this
        // one among them) fetches again as soon as its job is done instead of sleeping out its
        // poll: a backlog keeps all the workers busy. (Finding one's own worker would need
        // pg-boss's internals; a busy worker told twice still fetches once.)
        const workers = boss.getWipData().filter((w) => w.name === name && w.state === "active");
        for (const w of workers) if (w.count > 0) boss.notifyWorker(w.id);
        const idle = workers.find((w) => w.count === 0);
        if (idle) boss.notifyWorker(idle.id);
        const results: unknown[] = [];
        try {
          for (const job of jobs) {
            const typed = job as unknown as JobWithMetadata<never>;
            results.push(await handler(typed.data, typed));
          }
        } catch (err) {
          wakeAtRetry(name, jobs, pollMs);
          throw err;
        }
        return results.length === 1 ? results[0] : results;
      };
      // One worker polls at the requested interval; the others of the same call poll rarely,
      // because every job found, sent from this process or finished wakes them (each poll of an
      // idle worker is a query: on PGlite, on the event loop).
      const workerOptions = { batchSize: 1, ...options, includeMetadata: true as const };
      const id = await boss.work(name, workerOptions, run);
      if (localConcurrency > 1)
        await boss.work(
          name,
          {
            ...workerOptions,
            localConcurrency: localConcurrency - 1,
            pollingIntervalSeconds: Math.max(pollMs / 1_000, IDLE_SIBLING_POLLING_SECONDS),
          },
          run,
        );
      return id;
    },
    wake,
    async schedule(name, cron, data, scheduleOptions) {
      await ensureQueue(name);
      await boss.schedule(name, cron, data, scheduleOptions);
    },
    unschedule: (name, key) => boss.unschedule(name, key),
    async stop(timeoutMs = 15_000) {
      stopping = true;
      for (const timer of retryWakes) clearTimeout(timer);
      retryWakes.clear();
      await boss.stop({ graceful: true, timeout: timeoutMs, close: true });
    },
  };
}

/**
 * A captured pg-boss insert, if it can be a data-modifying CTE: one plain `INSERT ... RETURNING`
 * (not pg-boss's NOTIFY form, which has its own WITH) reading its jobs from `$1` once.
 */
function embeddable(sql: string | null): string | null {
  if (!sql) return null;
  const text = sql.trim();
  if (!/^INSERT\s+INTO\s/i.test(text) || !/RETURNING id$/i.test(text)) return null;
  if (text.split("$1").length !== 2 || /\$[2-9]/.test(text)) return null;
  if (text.includes(";")) return null;
  return text;
}
