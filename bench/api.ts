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
  const child = spawn(process.execPath, [path.join(HERE, "api-server.ts")], {
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

async function measure(url: string, pathName: string, signed: boolean): Promise<Figures> {
  await load(url, pathName, signed, WARMUP_S); // JIT, pools, caches
  return load(url, pathName, signed, DURATION_S);
}

function relayerEnv(dataDir: string, databaseUrl?: string): Record<string, string> {
  return {
    BENCH_TARGET: "relayer",
    BENCH_ROUTE: ROUTE,
    // An API-only process: submissions are queued, not executed, during the measurement.
    VERIFLOW_ENGINE_WORKER: "off",
    DATA_DIR: dataDir,
    PORT: "0",
    NODE_ENV: "test",
    VERIFLOW_MASTER_KEY: randomBytes(32).toString("hex"),
    VERIFLOW_API_KEY: API_KEY,
    VERIFLOW_SIGNING_SECRET: SECRET,
    VERIFLOW_TIER: "enterprise",
    // The limits still run on every request; they are raised so the load is not refused.
    VERIFLOW_LIMITS: JSON.stringify({
      enterprise: { requestsPerMinute: 100_000_000, concurrentWorkflows: 100_000_000 },
    }),
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
  };
}

async function main(): Promise<void> {
  const submitPath = ROUTE === "workflows" ? "/v1/workflows" : "/bench/submit";
  const results: Record<string, Figures> = {};

  const ceiling = await startServer({ BENCH_TARGET: "ceiling" });
  results.ceiling = await measure(ceiling.url, "/echo", false);
  await stopServer(ceiling.child);
  process.stdout.write(`ceiling: ${JSON.stringify(results.ceiling)}\n`);

  const pgliteDir = await mkdtemp(path.join(os.tmpdir(), "vf-bench-pglite-"));
  const pglite = await startServer(relayerEnv(pgliteDir));
  results.pglite = await measure(pglite.url, submitPath, true);
  await stopServer(pglite.child);
  await rm(pgliteDir, { recursive: true, force: true });
  process.stdout.write(`pglite: ${JSON.stringify(results.pglite)}\n`);

  const dbName = `vf_bench_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  const pgDir = await mkdtemp(path.join(os.tmpdir(), "vf-bench-pg-"));
  try {
    const postgres = await startServer(
      relayerEnv(pgDir, `postgres://postgres@127.0.0.1:5432/${dbName}`),
    );
    results.postgres = await measure(postgres.url, submitPath, true);
    await stopServer(postgres.child);
    process.stdout.write(`postgres: ${JSON.stringify(results.postgres)}\n`);
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await admin.end();
    await rm(pgDir, { recursive: true, force: true });
  }

  const ratio = (x: Figures) =>
    Math.round((x.requests_per_second / results.ceiling!.requests_per_second) * 1000) / 1000;
  const report = {
    benchmark: "api",
    date: new Date().toISOString(),
    machine: { cpus: os.cpus().length, cpu: os.cpus()[0]?.model, node: process.version },
    connections: CONNECTIONS,
    duration_seconds: DURATION_S,
    route: `POST ${submitPath}`,
    ceiling_route: "POST /echo (bare Hono, JSON echo)",
    results,
    fraction_of_ceiling: { pglite: ratio(results.pglite!), postgres: ratio(results.postgres!) },
    targets: {
      postgres_fraction_of_ceiling: 0.35,
      postgres_p99_ms: 25,
      met:
        ratio(results.postgres!) >= 0.35 &&
        results.postgres!.latency_ms.p99 < 25 &&
        results.postgres!.non_2xx === 0,
    },
  };
  await mkdir(path.join(HERE, "results"), { recursive: true });
  await writeFile(path.join(HERE, "results", "api.json"), JSON.stringify(report, null, 2) + "\n");
  process.stdout.write(
    `${JSON.stringify(report.fraction_of_ceiling)} targets met: ${report.targets.met}\n`,
  );
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
