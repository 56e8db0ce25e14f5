/**
 * The text analysis, measured (docs/analysis.md "Figures"):
 *
 * 1. Redaction recall and precision per type on the shipped labelled corpus
 *    (test/fixtures/analysis-corpus.json, scripts/analysis-corpus.ts) and on a held-out corpus of
 *    the same generator with another seed (the detectors were tuned on the shipped one); CPU per
 *    corpus text and for one text of the maximum size (`npm run bench:analysis` runs this process
 *    with the service's Node flags, package.json's `config.node_flags`, as a serving thread runs).
 * 2. The relayer's added latency: the relayer runs as its own process (the real service on PGlite
 *    and its embedded chains, redaction in its worker threads), the provider stand-in as another
 *    (bench/analysis-standin.ts: the relayer's calls and the direct ones both cross a process
 *    boundary to reach it, as they would reach a provider), the load generator in this one.
 *    `POST /v1/analysis` over real HTTP against the same three provider
 *    calls made directly to the stand-in, p50/p99 of each and of the difference, in three shapes of
 *    600 requests per minute: paced (one request every 100 ms), random arrivals (independent, at
 *    exponentially distributed gaps of mean 100 ms, seeded: a Poisson process, as independent
 *    clients arrive) and bursts of 50 at once every 5 s (the configured burst), after a warm-up of
 *    sequential requests and one burst that is not measured. Paced and random arrivals go through
 *    each path in turn; bursts are interleaved (each path's every 5 s, a third of that apart), so
 *    that the paths compared share the machine's slower and faster seconds. The relayer process's CPU per request is read from /proc,
 *    in all and by thread (event loop, redaction threads, V8's helper threads, the devnet's, libuv's).
 *    Each shape also goes through a pass-through (bench/analysis-passthrough.ts: the three calls
 *    forwarded by a bare Node server, what forwarding alone costs here), with the CPU of every
 *    process taking part per path (relayer, pass-through, stand-in, this process, PostgreSQL), the
 *    relayer's stage times from its /metrics, and for bursts the CPU a burst takes against what
 *    the machine's cores do within the target (`burst_capacity`), and what one message between
 *    two processes costs this machine hot and after the quiet between paced requests
 *    (bench/idle-wake.ts, `loopback_after_idle`).
 *
 * Writes bench/results/analysis.json (the latency under `by_database`, one database per run; the
 * other's last figures are kept). Run: `npm run bench:analysis [-- --database postgres [--socket
 * /var/run/postgresql] [--processes N]] [--idempotency-keys]`
 * (BENCH_SECONDS, BENCH_BURSTS; BENCH_CPU_PROF=dir writes the relayer's V8 CPU profile there;
 * BENCH_NODE_ARGS adds flags to the relayer's Node, BENCH_CHILD_LOG=file keeps what it prints,
 * BENCH_RECORDS=file keeps every request's latency).
 */
import { execFile, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { Agent, request } from "node:http";
import { appendFileSync, readdirSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { promisify } from "node:util";
import { signedHeaders } from "../relayer/auth/hmac.ts";
import { ANALYSIS_STAGES } from "../relayer/analysis/index.ts";
import { redact } from "../relayer/analysis/redaction.ts";
import { warmDetectors } from "../relayer/analysis/warm-up.ts";
import { generateCorpus, scoreCorpus, type CorpusText } from "../scripts/analysis-corpus.ts";
import { ANALYSIS_PROVIDER_KEY, MODELS, textAnalysisEntry } from "../test/fixtures/analysis.ts";
import { startChildRelayer } from "../test/fixtures/child.ts";
import { createTestDatabase, type TestDatabase } from "../test/fixtures/postgres.ts";
import { seededRandom } from "../test/fixtures/seeded.ts";
import { SERVICE_NODE_FLAGS } from "../test/fixtures/service-flags.ts";
import { postgresSeconds, processSeconds } from "./api-storage.ts";
import { loopbackAfterIdle } from "./idle-wake.ts";
import { median, quantile, rounded } from "./stats.ts";

const root = path.resolve(import.meta.dirname, "..");
const PACED_SECONDS = Number(process.env.BENCH_SECONDS ?? 30);
const BURSTS = Number(process.env.BENCH_BURSTS ?? 6);
const BURST = 50;
const BURST_EVERY_MS = 5_000;
const PACED_EVERY_MS = 100;
const args = process.argv.slice(2);
const DATABASE = args.includes("--database") ? args[args.indexOf("--database") + 1] : "pglite";
if (DATABASE !== "pglite" && DATABASE !== "postgres")
  throw new Error(`--database pglite|postgres, not ${DATABASE}`);
/** Relayer processes sharing the load (PostgreSQL only: PGlite is one process's database). */
const PROCESSES = args.includes("--processes") ? Number(args[args.indexOf("--processes") + 1]) : 1;
if (!Number.isInteger(PROCESSES) || PROCESSES < 1 || (PROCESSES > 1 && DATABASE !== "postgres"))
  throw new Error("--processes N: a positive integer, more than 1 only with --database postgres");
/**
 * `--socket DIR` (PostgreSQL only): the relayer reaches the database through its Unix socket in DIR
 * (a database on the same host) instead of TCP on 127.0.0.1.
 */
const SOCKET_DIR = args.includes("--socket") ? args[args.indexOf("--socket") + 1] : undefined;
if (SOCKET_DIR !== undefined && (DATABASE !== "postgres" || !SOCKET_DIR.startsWith("/")))
  throw new Error("--socket DIR: an absolute directory, only with --database postgres");
/**
 * `--idempotency-keys`: every request to the relayer carries a new `Idempotency-Key`, as the SDK
 * sends one (the key's claim and mark are then on the path).
 */
const IDEMPOTENCY_KEYS = args.includes("--idempotency-keys");
/** A directory for the relayer process's V8 CPU profile (`--cpu-prof`), when set. */
const CPU_PROF_DIR = process.env.BENCH_CPU_PROF;
/** More flags for the relayer processes' Node, white-space separated (`--trace-gc`), when set. */
const NODE_ARGS = (process.env.BENCH_NODE_ARGS ?? "").split(" ").filter(Boolean);
/** A file to append what the relayer processes print after their ready line to, when set. */
const CHILD_LOG = process.env.BENCH_CHILD_LOG;
/**
 * A file to append each shape's requests to, when set: one JSON line per shape with its arrivals
 * and each path's answers in request order (the same text for the same index on every path), and
 * its start on the monotonic clock V8's profiles and traces use (microseconds).
 */
const RECORDS = process.env.BENCH_RECORDS;

const quantiles = (samples: number[]) => {
  const q = (p: number) => rounded(quantile(samples, p), 2);
  return { count: samples.length, p50_ms: q(0.5), p99_ms: q(0.99), max_ms: q(1) };
};

/** CPU milliseconds of this thread while `run` runs. */
function cpuMs(run: () => void): number {
  const before = process.cpuUsage();
  run();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

const shipped = JSON.parse(
  await readFile(path.join(root, "test/fixtures/analysis-corpus.json"), "utf8"),
) as CorpusText[];
const heldOut = generateCorpus(15_000);
const texts = shipped.map((d) => d.text);
// As a serving thread scans: its detectors compiled at start, its code warm from earlier texts.
warmDetectors();
texts.forEach((t) => redact(t));
const redactionCpuMsPerText = cpuMs(() => texts.forEach((t) => redact(t))) / texts.length;
let largest = "";
for (let i = 0; largest.length < 256 * 1024 - 2_000; i++) largest += `${texts[i % texts.length]}\n`;
const largestCpuMs = cpuMs(() => redact(largest));

/**
 * A fresh process's first corpus texts after each warm-up (bench/analysis-warm-up.ts), three rounds
 * alternating them, the median per figure; with the service's Node flags, as a serving thread.
 */
const AFTER_START_ROUNDS = 3;
interface AfterStart {
  warm_up_ms: number;
  batches_ms: number[];
}
async function redactionAfterStart() {
  const modes = ["compile", "full", "collected"] as const;
  const run = async (mode: (typeof modes)[number]) => {
    const { stdout } = await promisify(execFile)(process.execPath, [
      ...SERVICE_NODE_FLAGS,
      path.join(root, "bench/analysis-warm-up.ts"),
      mode,
    ]);
    return JSON.parse(stdout) as AfterStart;
  };
  const runs: Record<(typeof modes)[number], AfterStart[]> = {
    compile: [],
    full: [],
    collected: [],
  };
  for (let round = 0; round < AFTER_START_ROUNDS; round++)
    for (const mode of modes) runs[mode].push(await run(mode));
  const summary = (rs: AfterStart[]) => ({
    warm_up_cpu_ms: rounded(median(rs.map((r) => r.warm_up_ms)), 1),
    cpu_ms_per_50_texts_after_it: rs[0]!.batches_ms.map((_, b) =>
      rounded(median(rs.map((r) => r.batches_ms[b]!)), 1),
    ),
  });
  return {
    patterns_compiled_only: summary(runs.compile),
    warm_detectors: summary(runs.full),
    warm_detectors_then_two_full_collections: summary(runs.collected),
    explanation: `thread CPU in a fresh process: the warm-up, then each of the corpus's first four batches of 50 texts in turn (median of ${AFTER_START_ROUNDS} runs); patterns_compiled_only is two passes over the every-type texts, warm_detectors the serving threads' warm-up, warm_detectors_then_two_full_collections that warm-up and two full garbage collections before the texts (the service's Node flags), as a serving thread meets them: a pattern copied at each use (matchAll, split, new RegExp in a function) is compiled again after them (relayer/analysis/patterns.ts)`,
  };
}
const afterStart = await redactionAfterStart();

/** The stand-in in its own process (bench/analysis-standin.ts), once it listens. */
async function startStandIn(): Promise<{ url: string; pid: number; close(): Promise<void> }> {
  const child = spawn(
    process.execPath,
    [path.join(root, "bench/analysis-standin.ts"), ANALYSIS_PROVIDER_KEY],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const [line] = (await once(createInterface({ input: child.stdout! }), "line")) as [string];
  return {
    url: (JSON.parse(line) as { url: string }).url,
    pid: child.pid!,
    close: async () => {
      child.kill("SIGTERM");
      await exited;
    },
  };
}
const provider = await startStandIn();

/** The pass-through (bench/analysis-passthrough.ts) in its own process, once it listens. */
async function startPassThrough() {
  const child = spawn(
    process.execPath,
    [
      ...SERVICE_NODE_FLAGS,
      path.join(root, "bench/analysis-passthrough.ts"),
      provider.url,
      ANALYSIS_PROVIDER_KEY,
      MODELS.general,
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const [line] = (await once(createInterface({ input: child.stdout! }), "line")) as [string];
  const ready = JSON.parse(line) as { ready: string; pid: number };
  return {
    url: ready.ready,
    pid: ready.pid,
    close: async () => {
      child.kill("SIGTERM");
      await exited;
    },
  };
}
const passThrough = await startPassThrough();
const dir = await mkdtemp(path.join(os.tmpdir(), "vf-bench-analysis-"));
const integrations = path.join(dir, "integrations.json");
await writeFile(
  integrations,
  JSON.stringify({
    text_analysis: textAnalysisEntry(provider.url, {
      auth: { type: "api_key", key_vault: "env", credential_id: "STANDIN_ANALYSIS_KEY" },
    }),
  }),
);
const key = { key: "vfk_bench_analysis", secret: `vfs_${randomBytes(24).toString("hex")}` };
const database: TestDatabase | null =
  DATABASE === "postgres" ? await createTestDatabase("bench_analysis") : null;
const masterKey = randomBytes(32).toString("hex");
/** The database's URL as the relayer gets it: over the Unix socket with `--socket`. */
function databaseUrl(tcp: string): string {
  if (!SOCKET_DIR) return tcp;
  const url = new URL(tcp);
  return `postgres://${url.username}@${encodeURIComponent(SOCKET_DIR)}${url.pathname}`;
}
const relayerEnv = (i: number) => ({
  DATA_DIR: path.join(dir, `data-${i}`),
  ...(database ? { DATABASE_URL: databaseUrl(database.url) } : {}),
  PORT: "0",
  LOG_LEVEL: "warn",
  NODE_ENV: "test",
  VERIFLOW_MASTER_KEY: masterKey,
  VERIFLOW_API_KEY: key.key,
  VERIFLOW_SIGNING_SECRET: key.secret,
  VERIFLOW_TIER: "enterprise",
  VERIFLOW_INTEGRATIONS: integrations,
  STANDIN_ANALYSIS_KEY: ANALYSIS_PROVIDER_KEY,
});
// Started at once, as a deployment's processes would be (migrations and the key must not collide).
const relayerProcesses = await Promise.all(
  Array.from({ length: PROCESSES }, (_, i) =>
    startChildRelayer(relayerEnv(i), {
      nodeArgs: [
        ...(CPU_PROF_DIR ? ["--cpu-prof", "--cpu-prof-dir", CPU_PROF_DIR] : []),
        ...NODE_ARGS,
      ],
      onLine: CHILD_LOG ? (line) => appendFileSync(CHILD_LOG, `${i} ${line}\n`) : undefined,
    }),
  ),
);

/**
 * The load generator's client for both paths: node:http over kept-alive connections, the client the
 * relayer itself uses for the provider. fetch costs ~0.25 ms of CPU per call here against ~0.07:
 * with it, the direct path's three calls per request would queue more in this process than the
 * relayer path's one and flatter the difference.
 */
const agent = new Agent({ keepAlive: true });
function post(url: string, headers: Record<string, string>, body: string) {
  return new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = request(url, { method: "POST", agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () =>
        resolve({ status: res.statusCode!, text: Buffer.concat(chunks).toString("utf8") }),
      );
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}

/** The `i`th request goes to process `i mod N`, as a round-robin balancer in front would send it. */
async function viaRelayer(text: string, i = 0): Promise<{ ms: number; status: number }> {
  const relayer = relayerProcesses[i % relayerProcesses.length]!;
  const body = JSON.stringify({ text });
  const headers = {
    "Content-Type": "application/json",
    ...signedHeaders(key.key, key.secret, body, String(Date.now())),
    ...(IDEMPOTENCY_KEYS ? { "Idempotency-Key": randomBytes(16).toString("hex") } : {}),
  };
  const t = performance.now();
  const res = await post(`${relayer.url}/v1/analysis`, headers, body);
  return { ms: performance.now() - t, status: res.status };
}

/** The same request to the pass-through: what forwarding alone adds. */
async function viaPassThrough(text: string): Promise<{ ms: number; status: number }> {
  const body = JSON.stringify({ text });
  const t = performance.now();
  const res = await post(
    `${passThrough.url}/v1/analysis`,
    { "Content-Type": "application/json" },
    body,
  );
  return { ms: performance.now() - t, status: res.status };
}

async function direct(text: string): Promise<number> {
  const redacted = redact(text).text; // what the relayer sends; computed outside the timing
  const call = async (p: string, payload: unknown) =>
    JSON.parse(
      (
        await post(
          `${provider.url}${p}`,
          {
            "Content-Type": "application/json",
            Authorization: `Bearer ${ANALYSIS_PROVIDER_KEY}`,
          },
          JSON.stringify(payload),
        )
      ).text,
    ) as { choices?: Array<{ message: { content: string } }> };
  const t = performance.now();
  await call("/moderations", { input: redacted });
  const answer = await call("/chat/completions", {
    model: MODELS.general,
    messages: [{ role: "user", content: redacted }],
  });
  await call("/moderations", { input: answer.choices![0]!.message.content });
  return performance.now() - t;
}

/**
 * Arrival times (ms) within `spanMs` of a Poisson process with mean gap `meanGapMs`: exponential
 * gaps from a seeded generator, so every run sends the same schedule.
 */
function poissonArrivals(spanMs: number, meanGapMs: number, seed: number): number[] {
  const uniform = seededRandom(seed);
  const gap = () => -meanGapMs * Math.log(1 - uniform());
  const at: number[] = [];
  for (let t = gap(); t < spanMs; t += gap()) at.push(t);
  return at;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Sends `count` requests on `schedule` (ms after start of each), through `call`. */
async function drive<T>(count: number, at: (i: number) => number, call: (i: number) => Promise<T>) {
  const started = performance.now();
  return Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const wait = at(i) - (performance.now() - started);
      if (wait > 0) await sleep(wait);
      return call(i);
    }),
  );
}

/**
 * CPU seconds of the relayer processes' threads by kind, from /proc/<pid>/task: the event loop, the
 * redaction threads (Node's worker threads), V8's helpers (its concurrent compilers and garbage
 * collector's threads), the embedded devnet's (EDR's native threads), libuv's pool, and the rest.
 * A thread that ends between two readings takes its time with it (none does in a bench run).
 */
const THREAD_KINDS = [
  ["event_loop", (name: string, main: boolean) => main],
  ["redaction_threads", (name: string) => name === "WorkerThread"],
  ["v8_helpers", (name: string) => name.startsWith("V8Worker")],
  ["devnet", (name: string) => name.startsWith("edr")],
  ["libuv_pool", (name: string) => name.startsWith("libuv-worker")],
  ["other", () => true],
] as const;
type ThreadKind = (typeof THREAD_KINDS)[number][0];
function relayerThreadsCpu(): Record<ThreadKind, number> {
  const by = Object.fromEntries(THREAD_KINDS.map(([k]) => [k, 0])) as Record<ThreadKind, number>;
  for (const { pid } of relayerProcesses) {
    let tids: string[];
    try {
      tids = readdirSync(`/proc/${pid}/task`);
    } catch {
      continue;
    }
    for (const tid of tids) {
      let name: string;
      try {
        name = readFileSync(`/proc/${pid}/task/${tid}/comm`, "utf8").trim();
      } catch {
        continue;
      }
      const seconds = processSeconds(`${pid}/task/${tid}`);
      if (seconds === null) continue;
      const [kind] = THREAD_KINDS.find(([, is]) => is(name, tid === String(pid)))!;
      by[kind] += seconds;
    }
  }
  return by;
}
/** CPU ms per unit (request, second) between two readings. */
const cpuMsPer = (before: number | null, after: number | null, count: number) =>
  before === null || after === null ? null : Math.round(((after - before) * 100_000) / count) / 100;

const threadCpuMsPer = (
  before: Record<ThreadKind, number>,
  after: Record<ThreadKind, number>,
  count: number,
) =>
  Object.fromEntries(
    THREAD_KINDS.map(([k]) => [k, cpuMsPer(before[k], after[k], count)]),
  ) as Record<ThreadKind, number | null>;

/**
 * CPU seconds of the relayer process (all threads), of its main thread (its event loop) and of its
 * threads by kind.
 */
const relayerCpu = () => {
  const sum = (readings: Array<number | null>) =>
    readings.some((r) => r === null) ? null : readings.reduce<number>((a, r) => a + r!, 0);
  return {
    process: sum(relayerProcesses.map((r) => processSeconds(r.pid))),
    main: sum(relayerProcesses.map((r) => processSeconds(`${r.pid}/task/${r.pid}`))),
    threads: relayerThreadsCpu(),
  };
};

/**
 * CPU seconds of every process on the machine that takes part in a shape: the relayer (all
 * threads), the pass-through, the stand-in, this process (the load generator and the direct
 * calls) and PostgreSQL's server and backends (zero on PGlite, whose statements run in the
 * relayer). Read from /proc at 10 ms resolution: summed over a shape's requests.
 */
function machineCpu() {
  const own = process.cpuUsage();
  return {
    relayer: relayerCpu().process,
    pass_through: processSeconds(passThrough.pid),
    stand_in: processSeconds(provider.pid),
    load_generator: (own.user + own.system) / 1e6,
    postgres: postgresSeconds(),
  };
}
type MachineCpu = ReturnType<typeof machineCpu>;
/** The processes whose CPU a path's windows read (PostgreSQL: its server and backends, summed). */
const CPU_PROCESSES = [
  "relayer",
  "pass_through",
  "stand_in",
  "load_generator",
  "postgres",
] as const;
type CpuProcess = (typeof CPU_PROCESSES)[number];
type CpuSeconds = Record<CpuProcess, number | null>;
const eachProcess = (f: (p: CpuProcess) => number | null) =>
  Object.fromEntries(CPU_PROCESSES.map((p) => [p, f(p)])) as CpuSeconds;
/** CPU seconds of each process between two readings. */
function cpuBetween(before: MachineCpu, after: MachineCpu): CpuSeconds {
  let postgres = 0;
  // Backends that started in between count from zero.
  for (const [pid, s] of after.postgres) postgres += s - (before.postgres.get(pid) ?? 0);
  return eachProcess((p) => {
    if (p === "postgres") return postgres;
    const [b, a] = [before[p], after[p]];
    return b === null || a === null ? null : a - b;
  });
}
/** The CPU of several windows of one path, summed. */
const cpuSum = (windows: readonly CpuSeconds[]) =>
  eachProcess((p) =>
    windows.some((w) => w[p] === null) ? null : windows.reduce((sum, w) => sum + w[p]!, 0),
  );
/** CPU ms per request of each process over a path's windows. */
const cpuPerRequest = (seconds: CpuSeconds, count: number) =>
  eachProcess((p) => cpuMsPer(0, seconds[p], count));
type RelayerCpu = ReturnType<typeof relayerCpu>;
/** The relayer's CPU (process, event loop, threads by kind) between readings, summed over windows. */
function relayerCpuBetween(windows: ReadonlyArray<readonly [RelayerCpu, RelayerCpu]>) {
  const add = (f: (r: RelayerCpu) => number | null) =>
    windows.some(([b, a]) => f(b) === null || f(a) === null)
      ? null
      : windows.reduce((sum, [b, a]) => sum + f(a)! - f(b)!, 0);
  return {
    process: add((r) => r.process),
    main: add((r) => r.main),
    threads: Object.fromEntries(THREAD_KINDS.map(([k]) => [k, add((r) => r.threads[k])])) as Record<
      ThreadKind,
      number | null
    >,
  };
}

/**
 * The relayer's own timing of each stage (`veriflow_analysis_stage_seconds` on /metrics), summed
 * over its processes: per stage, the cumulative bucket counts by upper bound, the sum and the count.
 */
type StageTimes = Map<string, { buckets: Map<number, number>; sum: number; count: number }>;
async function stageTimes(): Promise<StageTimes> {
  const times: StageTimes = new Map();
  for (const relayer of relayerProcesses) {
    const text = await (await fetch(`${relayer.url}/metrics`)).text();
    for (const m of text.matchAll(
      /^veriflow_analysis_stage_seconds_(bucket|sum|count)\{([^}]*)\} (\S+)$/gm,
    )) {
      const stage = /stage="([^"]+)"/.exec(m[2]!)![1]!;
      const entry = times.get(stage) ?? { buckets: new Map(), sum: 0, count: 0 };
      times.set(stage, entry);
      const value = Number(m[3]);
      if (m[1] === "sum") entry.sum += value;
      else if (m[1] === "count") entry.count += value;
      else {
        const le = /le="([^"]+)"/.exec(m[2]!)![1]!;
        const bound = le === "+Inf" ? Infinity : Number(le) * 1000;
        entry.buckets.set(bound, (entry.buckets.get(bound) ?? 0) + value);
      }
    }
  }
  return times;
}
/**
 * Each stage between two readings: its mean, and the bucket bounds its p50 and p99 fall under
 * (the histogram's resolution: "at most"), in ms.
 */
function stagesBetween(before: StageTimes, after: StageTimes) {
  return Object.fromEntries(
    ANALYSIS_STAGES.map((stage) => {
      const a = after.get(stage);
      const b = before.get(stage);
      const count = (a?.count ?? 0) - (b?.count ?? 0);
      const under = (q: number) => {
        for (const [bound, n] of [...(a?.buckets ?? [])].sort(([x], [y]) => x - y))
          if (n - (b?.buckets.get(bound) ?? 0) >= q * count) return bound;
        return null;
      };
      return [
        stage,
        {
          count,
          mean_ms:
            count === 0
              ? null
              : Math.round((((a?.sum ?? 0) - (b?.sum ?? 0)) * 1000 * 100) / count) / 100,
          p50_at_most_ms: count === 0 ? null : under(0.5),
          p99_at_most_ms: count === 0 ? null : under(0.99),
        },
      ];
    }),
  );
}

/** The three paths a shape goes through, in the order they take their turns. */
const PATHS = ["relayer", "direct", "pass_through"] as const;
type PathName = (typeof PATHS)[number];
const send: Record<PathName, (i: number) => Promise<{ ms: number; status: number }>> = {
  relayer: (i) => viaRelayer(texts[i % texts.length]!, i),
  direct: async (i) => ({ ms: await direct(texts[i % texts.length]!), status: 200 }),
  pass_through: (i) => viaPassThrough(texts[i % texts.length]!),
};
/** What one path of a shape gave: its answers in request order and the CPU of its windows. */
interface PathResults {
  answers: Array<{ ms: number; status: number }>;
  cpu: CpuSeconds[];
  relayerCpu: Array<[RelayerCpu, RelayerCpu]>;
}
const newResults = (): PathResults => ({ answers: [], cpu: [], relayerCpu: [] });
/**
 * Runs `requests` (indices) of one path from now on `at` (ms after now), its window's CPU read
 * from their start until they are answered, or until `until` when given.
 */
async function window(
  path: PathName,
  requests: readonly number[],
  at: (i: number) => number,
  results: PathResults,
  until?: () => Promise<unknown>,
) {
  const machineBefore = machineCpu();
  const relayerBefore = relayerCpu();
  const answers = await drive(
    requests.length,
    (j) => at(requests[j]!),
    (j) => send[path](requests[j]!),
  );
  await until?.();
  results.answers.push(...answers);
  results.cpu.push(cpuBetween(machineBefore, machineCpu()));
  results.relayerCpu.push([relayerBefore, relayerCpu()]);
}

/**
 * One shape through the three paths. Paced and random arrivals: each path in turn over the whole
 * shape, a second apart (their arrivals are continuous: run together, the paths would change the
 * quiet each one's requests see). Bursts: interleaved, each path's burst every BURST_EVERY_MS as alone, the direct path's a
 * third of that after the relayer's and the pass-through's two thirds, so that the paths'
 * bursts fall in the same seconds and a slower spell of the machine reaches all three, not the
 * one that ran then; a burst's window (its CPU) lasts until the next path's burst starts.
 */
async function measure(
  name: string,
  count: number,
  at: (i: number) => number,
  burst?: (i: number) => number,
) {
  const results = Object.fromEntries(PATHS.map((p) => [p, newResults()])) as Record<
    PathName,
    PathResults
  >;
  const stagesBefore = await stageTimes();
  const startedUs = Number(process.hrtime.bigint() / 1000n);
  const all = Array.from({ length: count }, (_, i) => i);
  if (!burst) {
    for (const [p, path] of PATHS.entries()) {
      if (p > 0) await sleep(1_000);
      await window(path, all, at, results[path]);
    }
  } else {
    const bursts = Math.max(...all.map(burst)) + 1;
    const started = performance.now();
    const turn = BURST_EVERY_MS / PATHS.length;
    const until = (ms: number) => () => sleep(ms - (performance.now() - started));
    // A burst that outlasts its turn delays the next path's, never overlaps it.
    for (let b = 0; b < bursts; b++)
      for (const [p, path] of PATHS.entries()) {
        const start = b * BURST_EVERY_MS + p * turn;
        await sleep(start - (performance.now() - started));
        const offset = performance.now() - started - start;
        await window(
          path,
          all.filter((i) => burst(i) === b),
          (i) => at(i) - b * BURST_EVERY_MS - offset,
          results[path],
          until(start + turn),
        );
      }
  }
  const stages = stagesBetween(stagesBefore, await stageTimes());
  if (RECORDS)
    appendFileSync(
      RECORDS,
      `${JSON.stringify({
        shape: name,
        started_monotonic_us: startedUs,
        arrivals_ms: all.map(at),
        relayer: results.relayer.answers,
        direct: results.direct.answers,
        pass_through: results.pass_through.answers,
      })}\n`,
    );
  const ok = (r: PathResults) => r.answers.filter((a) => a.status === 200).map((a) => a.ms);
  const statuses = (r: PathResults) => {
    const by: Record<string, number> = {};
    for (const a of r.answers) by[a.status] = (by[a.status] ?? 0) + 1;
    return by;
  };
  const relayer = quantiles(ok(results.relayer));
  const directQ = quantiles(ok(results.direct));
  const pass = quantiles(ok(results.pass_through));
  const perPath = (p: PathName) => cpuPerRequest(cpuSum(results[p].cpu), count);
  const relayerPath = perPath("relayer");
  const own = relayerCpuBetween(results.relayer.relayerCpu);
  const ms = (s: number | null) => cpuMsPer(0, s, count);
  const only = <K extends keyof typeof relayerPath>(c: typeof relayerPath, keys: K[]) =>
    Object.fromEntries(keys.map((k) => [k, c[k]])) as Pick<typeof relayerPath, K>;
  const byBurst = (r: PathResults) => {
    const groups: number[][] = [];
    r.answers.forEach((a, i) => {
      if (a.status === 200) (groups[Math.floor(i / BURST)] ??= []).push(a.ms);
    });
    return groups.map((g) => {
      const q = quantiles(g);
      return { p50_ms: q.p50_ms, max_ms: q.max_ms };
    });
  };
  return {
    shape: name,
    schedule: burst
      ? `interleaved: each path's burst every ${BURST_EVERY_MS / 1000} s, relayer then direct then pass-through ${BURST_EVERY_MS / PATHS.length / 1000} s apart`
      : "each path in turn over the whole shape, 1 s apart",
    requests: count,
    statuses: statuses(results.relayer),
    relayer,
    direct: directQ,
    overhead_ms: {
      p50: Math.round((relayer.p50_ms - directQ.p50_ms) * 100) / 100,
      p99: Math.round((relayer.p99_ms - directQ.p99_ms) * 100) / 100,
    },
    relayer_process_cpu_ms_per_request: ms(own.process),
    relayer_event_loop_cpu_ms_per_request: ms(own.main),
    relayer_cpu_ms_per_request_by_thread: Object.fromEntries(
      THREAD_KINDS.map(([k]) => [k, ms(own.threads[k])]),
    ) as Record<ThreadKind, number | null>,
    relayer_stages: stages,
    pass_through: {
      statuses: statuses(results.pass_through),
      latency: pass,
      overhead_ms: {
        p50: Math.round((pass.p50_ms - directQ.p50_ms) * 100) / 100,
        p99: Math.round((pass.p99_ms - directQ.p99_ms) * 100) / 100,
      },
    },
    cpu_ms_per_request_by_process: {
      relayer_path: only(relayerPath, ["relayer", "stand_in", "load_generator", "postgres"]),
      // The relayer's CPU in the other paths' windows: its rest, unless its work spills into them.
      direct_path: only(perPath("direct"), ["relayer", "stand_in", "load_generator", "postgres"]),
      pass_through_path: only(perPath("pass_through"), [
        "relayer",
        "pass_through",
        "stand_in",
        "load_generator",
        "postgres",
      ]),
    },
    ...(burst
      ? {
          relayer_by_burst: byBurst(results.relayer),
          direct_by_burst: byBurst(results.direct),
        }
      : {}),
  };
}

// Warm-up, not measured: sequential requests and one burst (JIT of both paths, connections,
// prepared statements), then the three shapes, each starting with a full bucket.
for (let i = 0; i < 10 * PROCESSES; i++) await viaRelayer(texts[i % texts.length]!, i);
await drive(
  BURST,
  () => 0,
  (i) => viaRelayer(texts[i % texts.length]!, i),
);
for (let i = 0; i < 10; i++) await viaPassThrough(texts[i]!);
await drive(
  BURST,
  () => 0,
  (i) => viaPassThrough(texts[i % texts.length]!),
);
// At rest: the relayer's background work (job queue polling, scheduled jobs) on its event loop,
// which every shape's CPU per request includes at its rate.
const restBefore = relayerCpu();
await sleep(BURST_EVERY_MS);
const restAfter = relayerCpu();
const atRest = {
  process_cpu_ms_per_second: cpuMsPer(restBefore.process, restAfter.process, BURST_EVERY_MS / 1000),
  event_loop_cpu_ms_per_second: cpuMsPer(restBefore.main, restAfter.main, BURST_EVERY_MS / 1000),
  cpu_ms_per_second_by_thread: threadCpuMsPer(
    restBefore.threads,
    restAfter.threads,
    BURST_EVERY_MS / 1000,
  ),
};
const paced = await measure(
  "paced: one request every 100 ms",
  (PACED_SECONDS * 1000) / PACED_EVERY_MS,
  (i) => i * PACED_EVERY_MS,
);
await sleep(BURST_EVERY_MS);
const arrivals = poissonArrivals(PACED_SECONDS * 1000, PACED_EVERY_MS, 600);
const random = await measure(
  `random: independent arrivals, mean gap ${PACED_EVERY_MS} ms (Poisson, seeded)`,
  arrivals.length,
  (i) => arrivals[i]!,
);
await sleep(BURST_EVERY_MS);
const bursts = await measure(
  `bursts: ${BURST} at once every ${BURST_EVERY_MS / 1000} s`,
  BURSTS * BURST,
  (i) => Math.floor(i / BURST) * BURST_EVERY_MS,
  (i) => Math.floor(i / BURST),
);
for (const relayer of relayerProcesses) relayer.process.kill("SIGTERM");
await Promise.all(relayerProcesses.map((r) => r.exited));
await passThrough.close();
await provider.close();
await database?.drop();
await rm(dir, { recursive: true, force: true });
agent.destroy();

/**
 * The queueing floor of a burst: a request's work that is not the provider's (HTTP in and out,
 * storage, checks) runs on its process's one event loop, so the last of the burst's requests that
 * one process receives waits for the event-loop work of the others it received.
 */
const eventLoopMs = bursts.relayer_event_loop_cpu_ms_per_request;
const perProcess = Math.ceil(BURST / PROCESSES);
const floor = {
  event_loop_cpu_ms_per_request: eventLoopMs,
  burst_requests_per_process: perProcess,
  burst_queueing_floor_ms: eventLoopMs === null ? null : Math.round(eventLoopMs * (perProcess - 1)),
  largest_burst_per_process_within_target:
    eventLoopMs === null ? null : Math.max(1, Math.floor(10 / eventLoopMs) + 1),
  explanation: `the last request a process receives of a burst waits for the event-loop work of the ${perProcess - 1} before it in that process: (requests per process - 1) x event-loop CPU per request, whatever the provider's latency; on one core per process, a p99 overhead of 10 ms needs at most largest_burst_per_process_within_target requests of a burst per process (relayer processes share the bucket and the audit chain through PostgreSQL)`,
};

/**
 * The core time a burst takes against what the target leaves: in [0, p99] of a burst the machine's
 * cores do at most cores × p99 of work, and every request of the burst that finishes by then has
 * had all of its work done, on every process. So a relayer path's p99 within the direct path's p99
 * + 10 ms needs its burst's work (relayer, stand-in, load generator, database) to fit in
 * cores × (direct p99 + 10 ms). The least that work can be for a relayer that does what the issue
 * asks: the pass-through's forwarding and the input's redaction for each request (warm, as measured
 * above; the output's scan, the signature, the encryption and the statements' client side counted
 * at nothing), with the stand-in's, the load generator's and the database's work as measured on the
 * relayer path.
 */
const CPUS = os.cpus().length;
const perBurst = (msPerRequest: number | null) =>
  msPerRequest === null ? null : Math.round(msPerRequest * BURST);
const relayerPath = bursts.cpu_ms_per_request_by_process.relayer_path;
const passPath = bursts.cpu_ms_per_request_by_process.pass_through_path;
const sum = (values: Array<number | null>) =>
  values.some((v) => v === null) ? null : values.reduce<number>((a, v) => a + v!, 0);
const others = sum([relayerPath.stand_in, relayerPath.load_generator, relayerPath.postgres]);
const capacity = {
  cores: CPUS,
  core_ms_per_burst: {
    relayer_path: {
      relayer: perBurst(relayerPath.relayer),
      stand_in: perBurst(relayerPath.stand_in),
      load_generator: perBurst(relayerPath.load_generator),
      postgres: perBurst(relayerPath.postgres),
      total: perBurst(sum(Object.values(relayerPath))),
    },
    pass_through_path: {
      pass_through: perBurst(passPath.pass_through),
      total: perBurst(
        sum([passPath.pass_through, passPath.stand_in, passPath.load_generator, passPath.postgres]),
      ),
    },
  },
  core_ms_within_target: Math.round(CPUS * (bursts.direct.p99_ms + 10)),
  least_core_ms_for_the_relayer_work:
    passPath.pass_through === null || others === null
      ? null
      : Math.round(BURST * (passPath.pass_through + redactionCpuMsPerText) + BURST * others),
  explanation:
    "a burst's requests finish by its p99 only once all of their work is done: relayer_path.total must fit in core_ms_within_target (cores x (direct p99 + 10 ms)) for the target; least_core_ms_for_the_relayer_work is forwarding (the pass-through's CPU) plus the input's redaction for each request, with the stand-in's, load generator's and database's CPU as on the relayer path",
};

// What a message between two processes costs this machine hot and after a paced request's quiet.
const loopback = await loopbackAfterIdle();

const previous = await readFile(path.join(root, "bench/results/analysis.json"), "utf8")
  .then((t) => JSON.parse(t) as { latency?: { by_database?: Record<string, unknown> } })
  .catch(() => null);
const result = {
  measured_at: new Date().toISOString(),
  machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, load_average: os.loadavg() },
  conditions:
    "relayer in its own process (embedded devnet, redaction worker threads), on PGlite or PostgreSQL (127.0.0.1); stand-in provider in a process of its own; load generator and direct calls in the bench process; all on 127.0.0.1",
  corpus: {
    shipped: {
      texts: shipped.length,
      locales: [...new Set(shipped.map((d) => d.locale))],
      per_type: scoreCorpus(shipped),
    },
    held_out_seed_15000: { texts: heldOut.length, per_type: scoreCorpus(heldOut) },
    redaction_cpu_ms_per_text: Math.round(redactionCpuMsPerText * 1000) / 1000,
    redaction_cpu_ms_256kib_text: Math.round(largestCpuMs),
    redaction_after_start: afterStart,
  },
  latency: {
    rate: "600 requests/min",
    target_p99_overhead_ms: 10,
    // One run measures one database; the other's last figures are kept.
    by_database: {
      ...previous?.latency?.by_database,
      [`${DATABASE}${SOCKET_DIR ? "_unix_socket" : ""}${PROCESSES > 1 ? `_${PROCESSES}_processes` : ""}${IDEMPOTENCY_KEYS ? "_idempotency_keys" : ""}`]:
        {
          measured_at: new Date().toISOString(),
          relayer_processes: PROCESSES,
          ...(SOCKET_DIR ? { database_connection: `Unix socket in ${SOCKET_DIR}` } : {}),
          load_average: os.loadavg(),
          at_rest: atRest,
          shapes: [paced, random, bursts],
          burst_floor: floor,
          burst_capacity: capacity,
          loopback_after_idle: loopback,
        },
    },
  },
};
await mkdir(path.join(root, "bench/results"), { recursive: true });
await writeFile(
  path.join(root, "bench/results/analysis.json"),
  `${JSON.stringify(result, null, 2)}\n`,
);
console.log(JSON.stringify(result.latency, null, 2));
