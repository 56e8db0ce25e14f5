/**
 * `npm run bench:api`: signed submissions per second and latency at 64 connections against the
 * relayer on PGlite and on PostgreSQL, beside a bare Hono JSON echo (the machine's ceiling) in the
 * same run. Every request is freshly signed (replay protection is on) by autocannon's
 * setupRequest. Writes bench/results/api.json.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import pg from "pg";
import { signPayload } from "../relayer/auth/hmac.ts";
import { SHIPPED_OFAC_SNAPSHOT, snapshotFilesSpec } from "../relayer/config/sanctions.ts";
import type { Workflow } from "../relayer/model/workflow.ts";
import { cpuMeter, measureStorage, type CpuShare, type StorageFigures } from "./api-storage.ts";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const DURATION_S = Number(process.env.BENCH_DURATION ?? 10);
const WARMUP_S = 3;
const ADMIN_URL = "postgres://postgres@127.0.0.1:5432/postgres";
const API_KEY = "vfk_bench_api_key";
const SECRET = `vfs_${randomBytes(24).toString("hex")}`;
/** POST /v1/workflows once the workflow routes exist; until then a signed stand-in route. */
const ROUTE =
  process.env.BENCH_ROUTE ??
  (existsSync(path.join(HERE, "..", "relayer", "workflows", "routes.ts")) ? "workflows" : "probe");

/**
 * `workflows`: POST /v1/workflows as deployed; `unreceipted`: the same route with the attestor
 * hidden from the relayer, so no receipt is signed (its cost is the difference); `probe`: the
 * platform path alone.
 */
type Route = "workflows" | "unreceipted" | "probe";

/** The spec's JSON example (without its schedule): what a client submits. */
const WORKFLOW = {
  name: "weekly-treasury-rebalance",
  actions: [
    {
      type: "convert",
      from: "ETH",
      to: "USDC",
      amount: "1.5",
      route_optimizer: { priority: "cost" },
    },
    { type: "swap", from: "USDC", to: "DAI", amount: "1000", slippage: 0.5, dex: "uniswap" },
    { type: "bridge", destination: "polygon", protocol: "lockmint" },
    {
      type: "multisend",
      recipients: [
        { address: "0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc", amount: "250" },
        { address: "0x976EA74026E726554dB657fA54763abd0C3a0aa9", amount: "50%" },
      ],
    },
  ],
  compliance: { jurisdictions: ["US"], tax_forms: ["1099-DA"] },
};

async function startServer(
  env: Record<string, string>,
): Promise<{ child: ChildProcess; url: string }> {
  const profile = process.env.BENCH_CPU_PROF
    ? ["--cpu-prof", `--cpu-prof-dir=${path.resolve(process.env.BENCH_CPU_PROF)}`]
    : [];
  const child = spawn(process.execPath, [...profile, path.join(HERE, "api-server.ts")], {
    env: { ...process.env, LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const lines = createInterface({ input: child.stdout! });
  const url = await new Promise<string>((resolve, reject) => {
    lines.on("line", (line) => {
      if (line.startsWith('{"ready"')) resolve((JSON.parse(line) as { ready: string }).ready);
    });
    child.once("exit", (code) => reject(new Error(`bench server exited with ${code}`)));
  });
  return { child, url };
}

async function stopServer(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await exited;
}

interface Figures {
  requests_per_second: number;
  latency_ms: { p50: number; p90: number; p99: number; max: number };
  requests: number;
  non_2xx: number;
  errors: number;
  /** Where the CPU went during the measurement. */
  cpu?: CpuShare;
}

async function load(
  url: string,
  pathName: string,
  signed: boolean,
  seconds: number,
): Promise<Figures> {
  let counter = 0;
  const result = await autocannon({
    url: `${url}${pathName}`,
    connections: CONNECTIONS,
    duration: seconds,
    requests: [
      {
        method: "POST",
        setupRequest: (req) => {
          const body = JSON.stringify({ ...WORKFLOW, name: `bench-${process.pid}-${counter++}` });
          const headers: Record<string, string> = { "content-type": "application/json" };
          if (signed) {
            const timestamp = String(Date.now());
            headers["x-svc-key"] = API_KEY;
            headers["x-svc-timestamp"] = timestamp;
            headers["x-svc-signature"] = signPayload(SECRET, timestamp, body);
          }
          return { ...req, body, headers };
        },
      },
    ],
  });
  return {
    requests_per_second: Math.round(result.requests.average),
    latency_ms: {
      p50: result.latency.p50,
      p90: result.latency.p90,
      p99: result.latency.p99,
      max: result.latency.max,
    },
    requests: result.requests.total,
    non_2xx: result.non2xx,
    errors: result.errors,
  };
}

/** One signed request first: a refused submission fails the run instead of being measured. */
async function checkAccepted(url: string, pathName: string, route: Route): Promise<void> {
  const body = JSON.stringify({ ...WORKFLOW, name: "bench-check" });
  const timestamp = String(Date.now());
  const response = await fetch(`${url}${pathName}`, {
    method: "POST",
    body,
    headers: {
      "content-type": "application/json",
      "x-svc-key": API_KEY,
      "x-svc-timestamp": timestamp,
      "x-svc-signature": signPayload(SECRET, timestamp, body),
    },
  });
  if (response.status !== 202) {
    throw new Error(`${pathName} answered ${response.status}: ${await response.text()}`);
  }
  if (route === "probe") return;
  const { receipt } = (await response.json()) as { receipt?: unknown };
  if ((route === "workflows") !== Boolean(receipt)) {
    throw new Error(`${route}: the 202 ${receipt ? "carries" : "lacks"} a submission receipt`);
  }
}

async function measure(
  url: string,
  pathName: string,
  signed: boolean,
  serverPid?: number,
): Promise<Figures> {
  await load(url, pathName, signed, WARMUP_S); // JIT, pools, caches
  if (serverPid === undefined) return load(url, pathName, signed, DURATION_S);
  const meter = cpuMeter(serverPid);
  const figures = await load(url, pathName, signed, DURATION_S);
  return { ...figures, cpu: meter.stop(figures.requests) };
}

async function createDatabase(label: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const dbName = `vf_bench_${Date.now().toString(36)}_${label}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  await admin.end();
  return {
    url: `postgres://postgres@127.0.0.1:5432/${dbName}`,
    drop: async () => {
      const c = new pg.Client({ connectionString: ADMIN_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
      await c.end();
    },
  };
}

/** A stored submission of the run (its normalised workflow and estimate), for measureStorage. */
interface StoredSample {
  workflow: Workflow;
  costEstimate: unknown;
}
let sample: StoredSample | undefined;

async function readSample(databaseUrl: string): Promise<StoredSample | undefined> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ workflow: Workflow; cost_estimate: unknown }>(
      "SELECT workflow, cost_estimate FROM workflow_executions ORDER BY id DESC LIMIT 1",
    );
    return rows[0]
      ? { workflow: rows[0].workflow, costEstimate: rows[0].cost_estimate }
      : undefined;
  } finally {
    await client.end();
  }
}

/** The storage ceiling, on a fresh database, with a workflow the relayer stored in this run. */
async function measureStorageCeiling(): Promise<StorageFigures> {
  if (!sample) throw new Error("no stored submission to measure the storage with");
  const db = await createDatabase("storage");
  try {
    const figures = await measureStorage({
      databaseUrl: db.url,
      workflow: sample.workflow,
      costEstimate: sample.costEstimate,
      seconds: DURATION_S,
      batchSize: Number(process.env.BENCH_STORAGE_BATCH ?? 20),
      pipelines: Number(process.env.BENCH_STORAGE_PIPELINES ?? 4),
    });
    process.stdout.write(`storage ceiling: ${JSON.stringify(figures)}\n`);
    return figures;
  } finally {
    await db.drop();
  }
}

function relayerEnv(dataDir: string, databaseUrl?: string): Record<string, string> {
  return {
    BENCH_TARGET: "relayer",
    // An API-only process: submissions are queued, not executed, during the measurement.
    VERIFLOW_ENGINE_WORKER: "off",
    DATA_DIR: dataDir,
    PORT: "0",
    NODE_ENV: "test",
    VERIFLOW_MASTER_KEY: randomBytes(32).toString("hex"),
    VERIFLOW_API_KEY: API_KEY,
    VERIFLOW_SIGNING_SECRET: SECRET,
    VERIFLOW_TIER: "enterprise",
    // The workflow's jurisdictions (US) require the OFAC SDN list: the relayer refuses (503) without it.
    VERIFLOW_SANCTIONS_FILES: snapshotFilesSpec(SHIPPED_OFAC_SNAPSHOT),
    // The limits still run on every request; they are raised so the load is not refused.
    VERIFLOW_LIMITS: JSON.stringify({
      enterprise: { requestsPerMinute: 100_000_000, concurrentWorkflows: 100_000_000 },
    }),
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
  };
}

/** One relayer run: start a server on the backend, measure the route, stop it. */
async function measureRelayer(route: Route, backend: "pglite" | "postgres"): Promise<Figures> {
  const submitPath = route === "probe" ? "/bench/submit" : "/v1/workflows";
  const dir = await mkdtemp(path.join(os.tmpdir(), `vf-bench-${backend}-`));
  const db = backend === "postgres" ? await createDatabase(route) : undefined;
  try {
    const server = await startServer({ ...relayerEnv(dir, db?.url), BENCH_ROUTE: route });
    try {
      await checkAccepted(server.url, submitPath, route);
      const figures = await measure(server.url, submitPath, true, server.child.pid);
      process.stdout.write(`${route} on ${backend}: ${JSON.stringify(figures)}\n`);
      if (db && route === "workflows") sample = await readSample(db.url);
      return figures;
    } finally {
      await stopServer(server.child);
    }
  } finally {
    await db?.drop();
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * BENCH_ONLY=route:backend[,...] (e.g. `workflows:postgres`, `workflows:postgres,storage`):
 * measure just those, print the figures and write nothing (for profiling with BENCH_CPU_PROF=dir).
 * `storage` needs a `workflows:postgres` before it (it stores the workflow that run stored).
 */
async function only(spec: string): Promise<void> {
  for (const item of spec.split(",")) {
    if (item === "storage") {
      await measureStorageCeiling();
      continue;
    }
    const [route, backend] = item.split(":") as [Route, "pglite" | "postgres"];
    await measureRelayer(route, backend);
  }
}

async function main(): Promise<void> {
  if (process.env.BENCH_ONLY) return only(process.env.BENCH_ONLY);
  const loadAtStart = os.loadavg();
  const ceilingServer = await startServer({ BENCH_TARGET: "ceiling" });
  const ceiling = await measure(ceilingServer.url, "/echo", false, ceilingServer.child.pid);
  await stopServer(ceilingServer.child);
  process.stdout.write(`ceiling: ${JSON.stringify(ceiling)}\n`);

  const ratio = (x: Figures) => round3(x.requests_per_second / ceiling.requests_per_second);
  const routes: Record<
    string,
    { route: string; what: string; pglite: Figures; postgres: Figures }
  > = {};
  const plan: Array<[Route, string, string]> = [
    [
      "probe",
      "POST /bench/submit",
      "the platform path alone: signed request through the full middleware chain, then one row and one pg-boss job stored durably in one transaction",
    ],
  ];
  if (ROUTE === "workflows") {
    plan.unshift(
      [
        "workflows",
        "POST /v1/workflows",
        "the real submission: validation, cost estimate from the chains, signed submission receipt, execution row and workflow.execute job",
      ],
      [
        "unreceipted",
        "POST /v1/workflows (attestor hidden: no receipt)",
        "the same submission on chains whose attestor the relayer does not see, so no receipt is signed: the difference to `workflows` is the receipt's cost",
      ],
    );
  }
  for (const [route, label, what] of plan) {
    routes[route] = {
      route: label,
      what,
      pglite: await measureRelayer(route, "pglite"),
      postgres: await measureRelayer(route, "postgres"),
    };
  }
  const headline = routes.workflows ?? routes.probe!;
  const storage = sample ? await measureStorageCeiling() : undefined;
  const report = {
    benchmark: "api",
    date: new Date().toISOString(),
    machine: {
      cpus: os.cpus().length,
      cpu: os.cpus()[0]?.model,
      node: process.version,
      // 1, 5 and 15 minute load averages when the run started and when it ended (the run itself
      // keeps both cores busy); other work on the machine shows in the first.
      load_average_at_start: loadAtStart.map((x) => Math.round(x * 100) / 100),
      load_average: os.loadavg().map((x) => Math.round(x * 100) / 100),
    },
    connections: CONNECTIONS,
    duration_seconds: DURATION_S,
    ceiling: { route: "POST /echo (bare Hono, JSON echo)", ...ceiling },
    routes: Object.fromEntries(
      Object.entries(routes).map(([name, r]) => [
        name,
        {
          ...r,
          fraction_of_ceiling: { pglite: ratio(r.pglite), postgres: ratio(r.postgres) },
        },
      ]),
    ),
    ...(storage
      ? {
          storage_ceiling: {
            ...storage,
            fraction_of_ceiling: round3(
              storage.submissions_per_second / ceiling.requests_per_second,
            ),
          },
        }
      : {}),
    targets: {
      route: headline.route,
      postgres_fraction_of_ceiling: { wanted: 0.35, measured: ratio(headline.postgres) },
      postgres_p99_ms: { wanted_below: 25, measured: headline.postgres.latency_ms.p99 },
      met:
        ratio(headline.postgres) >= 0.35 &&
        headline.postgres.latency_ms.p99 < 25 &&
        headline.postgres.non_2xx === 0,
      cpu_at_target: cpuAtTarget(0.35 * ceiling.requests_per_second, headline.postgres.cpu),
    },
  };
  await mkdir(path.join(HERE, "results"), { recursive: true });
  await writeFile(path.join(HERE, "results", "api.json"), JSON.stringify(report, null, 2) + "\n");
  process.stdout.write(`${JSON.stringify(report.targets)}\n`);
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;

/**
 * The cores the headline route would need at `rate` submissions per second with the CPU it used
 * per submission in this run (relayer, PostgreSQL, load generator), beside the machine's cores.
 */
function cpuAtTarget(rate: number, cpu: CpuShare | undefined) {
  const us = cpu?.us_per_request;
  if (!us || us.server === null || us.postgres === null) return undefined;
  const need = (micros: number) => Math.round(((rate * micros) / 1e6) * 100) / 100;
  return {
    submissions_per_second: Math.round(rate),
    cores_needed: {
      relayer: need(us.server),
      postgres: need(us.postgres),
      load_generator: need(us.load_generator),
      total: need(us.server + us.postgres + us.load_generator),
    },
    cores_on_machine: os.cpus().length,
  };
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
