/**
 * `npm run bench:e2e`: end to end on the embedded devnet, through the HTTP API and the real worker.
 * - latency: submit-to-report of the JSON example workflow (convert by cost, swap, lockmint bridge,
 *   multisend with a percentage), one at a time: from the POST /v1/workflows request to the moment
 *   GET /v1/workflows/{id} returns the final report (proof attested, report stored); p50/p95.
 * - drain: 100 workflows submitted at once (10 API keys × 10), time until all completed; each
 *   failure's reason (error code, `cause`), and whether running alone would have failed it too:
 *   every failed workflow is submitted again, one at a time, after the drain; one that completes
 *   alone is a self-inflicted failure (the relayer's concurrency failed it, not the workflow or the
 *   market). Nobody else trades the devnet's pools during the bench.
 * - where the time goes: the latency runs' phases (`latencyPhases`), and the drain's CPU by thread
 *   of this process and by PostgreSQL backend of its database (from /proc: Linux only).
 * PostgreSQL (a fresh database on 127.0.0.1) unless BENCH_PGLITE=1. VERIFLOW_PROVER_THREADS (the
 * relayer's default unless set) and VERIFLOW_ENGINE_CONCURRENCY (16) pass through; BENCH_RUNS (20),
 * BENCH_DRAIN (100) and BENCH_DRAIN_POLL_MS (500) size it. Writes bench/results/e2e.json
 * (BENCH_E2E_OUT).
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import { monitorEventLoopDelay } from "node:perf_hooks";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Wallet } from "ethers";
import { createApiKey } from "../relayer/auth/keys.ts";
import { signedHeaders } from "../relayer/auth/hmac.ts";
import { openChains } from "../relayer/chains/index.ts";
import { loadConfig } from "../relayer/config/index.ts";
import { buildServices, createApp, startWorkers } from "../relayer/app/index.ts";
import { closeContext } from "../relayer/context/index.ts";
import { createLogger } from "../relayer/http/logging.ts";
import { createMetrics } from "../relayer/http/metrics.ts";
import { createTestDatabase } from "../test/fixtures/postgres.ts";
import { treasuryRebalanceWorkflow } from "../test/fixtures/workflows.ts";
import { median, quantile } from "./stats.ts";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const LATENCY_RUNS = Number(process.env.BENCH_RUNS ?? 20);
const DRAIN_WORKFLOWS = Number(process.env.BENCH_DRAIN ?? 100);
const DRAIN_KEYS = 10;
const DRAIN_AMOUNT = "300";
/**
 * How often a client asks for its workflow's state: one client timing one workflow asks every
 * 20 ms (the latency figure's resolution); each of the drain's clients every 500 ms, as a client of
 * many workflows would. The polls are answered by the process under test: 100 clients at 20 ms
 * are served as fast as its event loop allows, and the drain then measures the status route more
 * than the engine (`status_polls` in the result; README, Figures).
 */
const LATENCY_POLL_MS = 20;
const DRAIN_POLL_MS = Number(process.env.BENCH_DRAIN_POLL_MS ?? 500);

const CLOCK_TICKS = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim());

/** CPU seconds (user + system) of a process or thread from its `stat` file, with its name. */
function statCpu(file: string): { name: string; seconds: number } | null {
  try {
    const stat = readFileSync(file, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return {
      name: stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")),
      seconds: (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS,
    };
  } catch {
    return null; // exited meanwhile
  }
}

/** CPU seconds by thread of this process (keyed by thread id: name, seconds). */
function threadCpu(): Map<string, { name: string; seconds: number }> {
  const threads = new Map<string, { name: string; seconds: number }>();
  for (const tid of readdirSync("/proc/self/task")) {
    const cpu = statCpu(`/proc/self/task/${tid}/stat`);
    if (cpu) threads.set(tid, cpu);
  }
  return threads;
}

/** CPU used between two `threadCpu` snapshots, summed by thread name (threads started in between count whole). */
function cpuByThreadName(
  before: Map<string, { name: string; seconds: number }>,
  after: Map<string, { name: string; seconds: number }>,
): Record<string, number> {
  const byName: Record<string, number> = {};
  for (const [tid, { name, seconds }] of after) {
    const used = seconds - (before.get(tid)?.seconds ?? 0);
    byName[name] = (byName[name] ?? 0) + used;
  }
  return Object.fromEntries(
    Object.entries(byName)
      .filter(([, s]) => s > 0)
      .sort((a, b) => b[1] - a[1])
      .map(([n, s]) => [n, Math.round(s * 100) / 100]),
  );
}

async function main(): Promise<void> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "vf-bench-e2e-"));
  const database = process.env.BENCH_PGLITE ? null : await createTestDatabase("bench_e2e");
  const config = loadConfig({
    DATA_DIR: dataDir,
    LOG_LEVEL: "silent",
    NODE_ENV: "test",
    ...(database ? { DATABASE_URL: database.url } : {}),
    VERIFLOW_ENGINE_CONCURRENCY: process.env.VERIFLOW_ENGINE_CONCURRENCY ?? "16",
    ...(process.env.VERIFLOW_PROVER_THREADS
      ? { VERIFLOW_PROVER_THREADS: process.env.VERIFLOW_PROVER_THREADS }
      : {}),
  });
  const chains = await openChains({ mode: "embedded" });
  const ctx = await buildServices(config, {
    logger: createLogger("silent"),
    metrics: createMetrics({ defaultMetrics: false }),
    chains,
  });
  // Each proof's wall time (the pool's queue wait included), for the latency breakdown.
  const proofs = new Map<string, { started: number; ended: number }>();
  const prover = ctx.engine?.prover;
  if (prover) {
    const prove = prover.prove.bind(prover);
    prover.prove = async (input) => {
      const started = Date.now();
      try {
        return await prove(input);
      } finally {
        proofs.set(input.executionId, { started, ended: Date.now() });
      }
    };
  }
  /** CPU seconds by PostgreSQL backend of the bench database (pid: seconds). */
  const databaseCpu = async (): Promise<Map<number, number>> => {
    const rows = database
      ? await ctx.store.query<{ pid: number }>(
          "SELECT pid FROM pg_stat_activity WHERE datname = current_database()",
        )
      : [];
    const byPid = new Map<number, number>();
    for (const { pid } of rows) {
      const cpu = statCpu(`/proc/${pid}/stat`);
      if (cpu) byPid.set(pid, cpu.seconds);
    }
    return byPid;
  };
  const app = createApp(ctx);
  await startWorkers(ctx);
  const keys = await Promise.all(
    Array.from({ length: DRAIN_KEYS }, async () => {
      const { record, secret } = await createApiKey(ctx.store, ctx.masterKey, {
        tier: "enterprise",
        label: "bench",
      });
      return { key: record.key, secret };
    }),
  );
  let statusPolls = 0;
  const call = async (
    k: { key: string; secret: string },
    method: string,
    p: string,
    body?: string,
  ) => {
    if (method === "GET") statusPolls++;
    const res = await app.request(p, {
      method,
      headers: {
        ...(body ? { "Content-Type": "application/json" } : {}),
        ...signedHeaders(k.key, k.secret, body ?? "", undefined, { method, target: p }),
      },
      body,
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  // Accounts are created and funded by the devnet faucet on first use.
  for (const k of keys) await call(k, "GET", "/v1/account");

  const submit = async (k: { key: string; secret: string }) => {
    const res = await call(
      k,
      "POST",
      "/v1/workflows",
      JSON.stringify(
        treasuryRebalanceWorkflow("bench-treasury", DRAIN_AMOUNT, [
          { address: Wallet.createRandom().address, amount: "50%" },
        ]),
      ),
    );
    if (res.status !== 202)
      throw new Error(`submission refused: ${res.status} ${JSON.stringify(res.body)}`);
    return String(res.body.execution_id);
  };
  const waitForReport = async (
    k: { key: string; secret: string },
    id: string,
    allowFailure = false,
    pollMs = LATENCY_POLL_MS,
  ) => {
    for (;;) {
      const res = await call(k, "GET", `/v1/workflows/${id}`);
      const state = String(res.body.state);
      const final = state === "completed" || state === "failed" || state === "cancelled";
      if (final && res.body.report && (state === "completed" || allowFailure)) return res.body;
      if (final && !allowFailure && state !== "completed")
        throw new Error(`execution ${id} ${state}: ${JSON.stringify(res.body.error)}`);
      await new Promise((r) => setTimeout(r, pollMs));
    }
  };

  // Warm-up (loads the circuit, fills caches), not measured.
  await waitForReport(keys[0]!, await submit(keys[0]!));

  const latencies: number[] = [];
  const latencyRuns: Array<{ id: string; submitted: number; accepted: number; seen: number }> = [];
  for (let i = 0; i < LATENCY_RUNS; i++) {
    const started = performance.now();
    const submitted = Date.now();
    const id = await submit(keys[0]!);
    const accepted = Date.now();
    await waitForReport(keys[0]!, id);
    latencies.push(performance.now() - started);
    latencyRuns.push({ id, submitted, accepted, seen: Date.now() });
  }
  latencies.sort((a, b) => a - b);
  const phases = await latencyPhases(ctx.store, latencyRuns, proofs);

  const drainPollsBefore = statusPolls;
  const drainCpuBefore = threadCpu();
  const drainDbBefore = await databaseCpu();
  // How long the event loop (HTTP, engine, broadcasting) waited to run while the drain proved.
  const loopDelay = monitorEventLoopDelay({ resolution: 10 });
  loopDelay.enable();
  const drainStarted = performance.now();
  const drainStartedAt = Date.now();
  const submitted = await Promise.all(
    Array.from({ length: DRAIN_WORKFLOWS }, async (_, i) => {
      const k = keys[i % DRAIN_KEYS]!;
      const id = await submit(k);
      return { k, id, accepted: Date.now() };
    }),
  );
  const submittedAt = performance.now();
  // Final state of each (the drain time counts every final state). The workflows trade the same
  // pools at once; their swaps are sequenced per pool, so none should fail another.
  const drainRuns: Array<{ id: string; submitted: number; accepted: number; seen: number }> = [];
  const finals = await Promise.all(
    submitted.map(async ({ k, id, accepted }) => {
      const final = await waitForReport(k, id, true, DRAIN_POLL_MS);
      drainRuns.push({ id, submitted: drainStartedAt, accepted, seen: Date.now() });
      return final;
    }),
  );
  const drainMs = performance.now() - drainStarted;
  loopDelay.disable();
  const drainPhases = await latencyPhases(ctx.store, drainRuns, proofs);
  const drainThreads = cpuByThreadName(drainCpuBefore, threadCpu());
  const drainDbAfter = await databaseCpu();
  const drainPolls = statusPolls - drainPollsBefore;
  let databaseSeconds = 0;
  for (const [pid, seconds] of drainDbAfter)
    databaseSeconds += seconds - (drainDbBefore.get(pid) ?? 0);
  const processSeconds = Object.values(drainThreads).reduce((a, b) => a + b, 0);
  const byState: Record<string, number> = {};
  for (const f of finals) byState[String(f.state)] = (byState[String(f.state)] ?? 0) + 1;

  // Each failure's reason, then the failed workflows again, alone: those that complete alone were
  // failed by the drain's concurrency.
  const failures = submitted
    .map(({ k }, i) => ({ k, final: finals[i]! }))
    .filter(({ final }) => final.state !== "completed");
  const byReason: Record<string, number> = {};
  for (const { final } of failures) {
    const error = (final.error ?? {}) as { error?: string; cause?: string };
    const reason = `${error.error ?? "UNKNOWN"}${error.cause ? ` (${error.cause})` : ""}`;
    byReason[reason] = (byReason[reason] ?? 0) + 1;
  }
  let completeAlone = 0;
  for (const { k } of failures) {
    const alone = await waitForReport(k, await submit(k), true);
    if (alone.state === "completed") completeAlone++;
  }

  const result = {
    generated_at: new Date().toISOString(),
    machine: { cpus: os.cpus().length, node: process.version },
    database: database ? "postgresql" : "pglite",
    chains: "embedded devnet (ethereum, arbitrum, polygon)",
    workflow:
      "convert 300 USDC→WETH (priority cost), swap →DAI (1%), bridge lockmint →polygon, multisend 50%",
    latency_submit_to_report_ms: {
      runs: LATENCY_RUNS,
      p50: Math.round(quantile(latencies, 0.5)),
      p95: Math.round(quantile(latencies, 0.95)),
      min: Math.round(latencies[0]!),
      max: Math.round(latencies[latencies.length - 1]!),
      target_p50_ms: 1500,
      /** Medians over the runs, ms: where the time from submission to the report goes. */
      phases_median_ms: phases,
    },
    drain: {
      workflows: DRAIN_WORKFLOWS,
      api_keys: DRAIN_KEYS,
      worker_concurrency: config.engine.concurrency,
      prover_threads: config.engine.proverThreads,
      submit_ms: Math.round(submittedAt - drainStarted),
      total_ms: Math.round(drainMs),
      workflows_per_second: Math.round((DRAIN_WORKFLOWS / (drainMs / 1000)) * 100) / 100,
      final_states: byState,
      /**
       * CPU of the drain, seconds: this process by thread name (MainThread: the HTTP API, the
       * engine and the clients' polls; the prover pool's threads; EDR's chains and V8's helpers)
       * and the PostgreSQL backends of the bench database; per workflow, both together.
       */
      cpu_seconds: {
        process: Math.round(processSeconds * 100) / 100,
        by_thread: drainThreads,
        postgres_backends: Math.round(databaseSeconds * 100) / 100,
        per_workflow:
          Math.round(((processSeconds + databaseSeconds) / DRAIN_WORKFLOWS) * 1000) / 1000,
        load_average_1m_after: Math.round(os.loadavg()[0]! * 100) / 100,
      },
      /** The event loop's scheduling delay over the drain, ms (10 ms resolution). */
      event_loop_delay_ms: {
        p50: Math.round(loopDelay.percentile(50) / 1e4) / 100,
        p99: Math.round(loopDelay.percentile(99) / 1e4) / 100,
        max: Math.round(loopDelay.max / 1e4) / 100,
      },
      /**
       * Medians over the drain's workflows, ms (as the latency runs'; `pickup` includes the wait
       * for a free worker slot, `seen` the clients' 500 ms polls; the proofs' durations include
       * the prover pool's queue).
       */
      phases_median_ms: drainPhases,
      status_polls: drainPolls,
      status_poll_interval_ms: DRAIN_POLL_MS,
      failures_by_reason: byReason,
      /** Failed in the drain, completed when submitted again alone afterwards. */
      self_inflicted_failures: completeAlone,
      targets: { workflows_per_second: 1.5, self_inflicted_failures: 0 },
    },
  };
  await mkdir(path.join(HERE, "results"), { recursive: true });
  const out = process.env.BENCH_E2E_OUT ?? path.join(HERE, "results", "e2e.json");
  await writeFile(out, JSON.stringify(result, null, 2) + "\n");
  console.log(JSON.stringify(result, null, 2));

  await closeContext(ctx, 5_000);
  await rm(dataDir, { recursive: true, force: true });
  await database?.drop();
  process.exit(0);
}

/**
 * The latency runs' phases from the engine's own timestamps (execution, steps, report rows) and the
 * proof's wall time: accepted (the POST answered), pickup (202 to the engine starting it), each
 * action, before and between the actions (planning, bookkeeping), between the actions and the proof (the chains' re-check), proof (the prover pool, its
 * queue included), attestation (the proof to the attest transaction final), report (attestation
 * to the stored report), seen (stored report to the client's poll returning it).
 */
async function latencyPhases(
  store: { query<T>(sql: string, params?: unknown[]): Promise<T[]> },
  runs: ReadonlyArray<{ id: string; submitted: number; accepted: number; seen: number }>,
  proofs: ReadonlyMap<string, { started: number; ended: number }>,
): Promise<Record<string, number>> {
  const ids = runs.map((r) => r.id);
  const executions = await store.query<{ id: string; started_at: Date; reported_at: Date }>(
    `SELECT e.id, e.started_at, r.created_at AS reported_at
       FROM workflow_executions e JOIN engine_reports r ON r.execution_id = e.id WHERE e.id = ANY($1)`,
    [ids],
  );
  const steps = await store.query<{
    execution_id: string;
    action_index: number;
    started_at: Date;
    finished_at: Date;
  }>(
    "SELECT execution_id, action_index, started_at, finished_at FROM engine_steps WHERE execution_id = ANY($1)",
    [ids],
  );
  const samples: Record<string, number[]> = {};
  const add = (name: string, ms: number) => (samples[name] ??= []).push(ms);
  for (const run of runs) {
    const execution = executions.find((e) => e.id === run.id);
    const proof = proofs.get(run.id);
    if (!execution || !proof) continue;
    const own = steps
      .filter((s) => s.execution_id === run.id)
      .sort((a, b) => a.action_index - b.action_index);
    const actions = own.filter((s) => s.action_index >= 0);
    const final = own.find((s) => s.action_index < 0);
    add("accepted", run.accepted - run.submitted);
    add("pickup", execution.started_at.getTime() - run.accepted);
    let last = execution.started_at.getTime();
    let between = 0;
    for (const step of actions) {
      add(`action_${step.action_index}`, step.finished_at.getTime() - step.started_at.getTime());
      between += step.started_at.getTime() - last;
      last = step.finished_at.getTime();
    }
    add("between_actions", between);
    add("before_proof", proof.started - last);
    add("proof", proof.ended - proof.started);
    if (final?.finished_at) {
      add("attestation", final.finished_at.getTime() - proof.ended);
      add("report", execution.reported_at.getTime() - final.finished_at.getTime());
    }
    add("seen", run.seen - execution.reported_at.getTime());
    add("total", run.seen - run.submitted);
  }
  return Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, Math.round(median(v))]));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
