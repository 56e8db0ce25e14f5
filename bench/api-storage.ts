/**
 * Parts of `npm run bench:api` that explain its figures:
 *
 * - `cpuMeter()`: the CPU time the server process (the relayer, or the echo server of the
 *   ceiling), PostgreSQL's processes and the load generator used during a measurement, read from /proc (Linux), as cores and as microseconds per request.
 * - `measureStorage()`: the storage's own ceiling: the relayer's two statements of the submission
 *   path (the admission statement: replay record and rate count; the submission batch: execution
 *   row, active count, pg-boss job), run directly against PostgreSQL in batches as the relayer
 *   sends them under load, with no HTTP, no validation and no estimate. How many submissions per
 *   second PostgreSQL can store durably on this machine, and its CPU per submission.
 */
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { admitSignedRequests } from "../relayer/limits/admission.ts";
import { createLogger } from "../relayer/http/logging.ts";
import { JOB_NAMES, openQueue } from "../relayer/queue/index.ts";
import { openStore } from "../relayer/store/index.ts";
import { migrate } from "../relayer/store/migrate.ts";
import type { Workflow } from "../relayer/model/workflow.ts";
import { newExecutionId } from "../relayer/model/ids.ts";
import { insertSubmissionBatch } from "../relayer/executions/index.ts";

const TICKS_PER_SECOND = 100; // USER_HZ on Linux
/** A limit no run reaches (the columns are 32-bit integers). */
const UNLIMITED = 1_000_000_000;

/** utime + stime of a process (all its threads), in seconds; null when unreadable. */
export function processSeconds(pid: number | string): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return null;
  }
}

/** CPU seconds of every process whose name starts with "postgres" (the server and its backends). */
export function postgresSeconds(): Map<string, number> {
  const seconds = new Map<string, number>();
  let pids: string[];
  try {
    pids = readdirSync("/proc").filter((p) => /^[0-9]+$/.test(p));
  } catch {
    return seconds;
  }
  for (const pid of pids) {
    try {
      if (!readFileSync(`/proc/${pid}/comm`, "utf8").startsWith("postgres")) continue;
    } catch {
      continue;
    }
    const s = processSeconds(pid);
    if (s !== null) seconds.set(pid, s);
  }
  return seconds;
}

export interface CpuShare {
  /** Cores used on average during the measurement. */
  cores: { server: number | null; postgres: number | null; load_generator: number };
  /** CPU microseconds per completed request. */
  us_per_request: { server: number | null; postgres: number | null; load_generator: number };
}

/** Starts measuring; `stop(requests)` returns the shares (null where /proc is unreadable). */
export function cpuMeter(serverPid: number | undefined) {
  const started = performance.now();
  const server0 = serverPid ? processSeconds(serverPid) : null;
  const postgres0 = postgresSeconds();
  const own0 = process.cpuUsage();
  return {
    stop(requests: number): CpuShare {
      const elapsed = (performance.now() - started) / 1000;
      const server1 = serverPid ? processSeconds(serverPid) : null;
      let postgres: number | null = null;
      const postgres1 = postgresSeconds();
      if (postgres1.size > 0) {
        postgres = 0;
        // Backends that started during the run count from zero.
        for (const [pid, s] of postgres1) postgres += s - (postgres0.get(pid) ?? 0);
      }
      const own = process.cpuUsage(own0);
      const ownSeconds = (own.user + own.system) / 1e6;
      const server = server0 !== null && server1 !== null ? server1 - server0 : null;
      const cores = (s: number | null) => (s === null ? null : round2(s / elapsed));
      const perRequest = (s: number | null) =>
        s === null || requests === 0 ? null : Math.round((s / requests) * 1e6);
      return {
        cores: {
          server: cores(server),
          postgres: cores(postgres),
          load_generator: round2(ownSeconds / elapsed),
        },
        us_per_request: {
          server: perRequest(server),
          postgres: perRequest(postgres),
          load_generator: perRequest(ownSeconds)!,
        },
      };
    },
  };
}

const round2 = (x: number) => Math.round(x * 100) / 100;

export interface StorageFigures {
  what: string;
  batch_size: number;
  pipelines: number;
  submissions_per_second: number;
  postgres_cores: number | null;
  postgres_us_per_submission: number | null;
}

/**
 * The storage ceiling on `databaseUrl` (a fresh database): `pipelines` loops, each storing
 * `batchSize` submissions of `workflow` at a time with the relayer's admission statement and then
 * its submission batch statement, for `seconds`.
 */
export async function measureStorage(options: {
  databaseUrl: string;
  workflow: Workflow;
  costEstimate: unknown;
  seconds: number;
  batchSize?: number;
  pipelines?: number;
}): Promise<StorageFigures> {
  const batchSize = options.batchSize ?? 20;
  const pipelines = options.pipelines ?? 4;
  const store = await openStore({
    databaseUrl: options.databaseUrl,
    dataDir: "unused",
    maxConnections: pipelines * 2,
  });
  const queue = await openQueue({ store, logger: createLogger("silent"), schedule: false });
  try {
    await migrate(store);
    const insertJobs = await queue.insertStatement(JOB_NAMES.workflowExecute);
    if (!insertJobs) throw new Error("pg-boss's insert cannot be embedded: nothing to measure");
    const keyId = "key_bench_storage";
    const run = async (until: number) => {
      let stored = 0;
      await Promise.all(
        Array.from({ length: pipelines }, async () => {
          while (performance.now() < until) {
            const now = Date.now();
            const admissions = await admitSignedRequests(
              store,
              Array.from({ length: batchSize }, () => ({
                keyId,
                signature: randomBytes(32).toString("hex"),
                timestampMs: now,
                limit: UNLIMITED,
              })),
              now,
            );
            if (!admissions.every((a) => a.fresh)) throw new Error("a fresh signature was refused");
            const rows = await insertSubmissionBatch(
              store,
              insertJobs,
              admissions.map(() => ({
                id: newExecutionId(),
                apiKeyId: keyId,
                workflow: options.workflow,
                deploymentId: null,
                costEstimate: options.costEstimate,
                limit: UNLIMITED,
              })),
            );
            if (!rows.every((r) => r.admitted)) throw new Error("a submission was not admitted");
            stored += rows.length;
          }
        }),
      );
      return stored;
    };
    await run(performance.now() + 2_000); // warm-up: connections, prepared statements, caches
    const meter = cpuMeter(undefined);
    const started = performance.now();
    const stored = await run(started + options.seconds * 1000);
    const elapsed = (performance.now() - started) / 1000;
    const cpu = meter.stop(stored);
    return {
      what: "PostgreSQL alone: the relayer's admission statement (replay record, rate count) and submission batch statement (execution row, active count, pg-boss job), durably committed, driven directly without HTTP",
      batch_size: batchSize,
      pipelines,
      submissions_per_second: Math.round(stored / elapsed),
      postgres_cores: cpu.cores.postgres,
      postgres_us_per_submission: cpu.us_per_request.postgres,
    };
  } finally {
    await queue.stop(2_000);
    await store.close();
  }
}
