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
 * PostgreSQL (a fresh database on 127.0.0.1) unless BENCH_PGLITE=1. VERIFLOW_PROVER_THREADS (1) and
 * VERIFLOW_ENGINE_CONCURRENCY (16) pass through. Writes bench/results/e2e.json (BENCH_E2E_OUT).
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
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

const HERE = path.dirname(fileURLToPath(import.meta.url));
const LATENCY_RUNS = Number(process.env.BENCH_RUNS ?? 20);
const DRAIN_WORKFLOWS = Number(process.env.BENCH_DRAIN ?? 100);
const DRAIN_KEYS = 10;
const DRAIN_AMOUNT = "300";

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
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
    VERIFLOW_PROVER_THREADS: process.env.VERIFLOW_PROVER_THREADS ?? "1",
  });
  const chains = await openChains({ mode: "embedded" });
  const ctx = await buildServices(config, {
    logger: createLogger("silent"),
    metrics: createMetrics({ defaultMetrics: false }),
    chains,
  });
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
  const call = async (
    k: { key: string; secret: string },
    method: string,
    p: string,
    body?: string,
  ) => {
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
  ) => {
    for (;;) {
      const res = await call(k, "GET", `/v1/workflows/${id}`);
      const state = String(res.body.state);
      const final = state === "completed" || state === "failed" || state === "cancelled";
      if (final && res.body.report && (state === "completed" || allowFailure)) return res.body;
      if (final && !allowFailure && state !== "completed")
        throw new Error(`execution ${id} ${state}: ${JSON.stringify(res.body.error)}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };

  // Warm-up (loads the circuit, fills caches), not measured.
  await waitForReport(keys[0]!, await submit(keys[0]!));

  const latencies: number[] = [];
  for (let i = 0; i < LATENCY_RUNS; i++) {
    const started = performance.now();
    const id = await submit(keys[0]!);
    await waitForReport(keys[0]!, id);
    latencies.push(performance.now() - started);
  }
  latencies.sort((a, b) => a - b);

  const drainStarted = performance.now();
  const submitted = await Promise.all(
    Array.from({ length: DRAIN_WORKFLOWS }, async (_, i) => {
      const k = keys[i % DRAIN_KEYS]!;
      return { k, id: await submit(k) };
    }),
  );
  const submittedAt = performance.now();
  // Final state of each (the drain time counts every final state). The workflows trade the same
  // pools at once; their swaps are sequenced per pool, so none should fail another.
  const finals = await Promise.all(submitted.map(({ k, id }) => waitForReport(k, id, true)));
  const drainMs = performance.now() - drainStarted;
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
      p50: Math.round(percentile(latencies, 50)),
      p95: Math.round(percentile(latencies, 95)),
      min: Math.round(latencies[0]!),
      max: Math.round(latencies[latencies.length - 1]!),
      target_p50_ms: 1500,
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

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
