/**
 * The text analysis, measured (docs/analysis.md "Figures"):
 *
 * 1. Redaction recall and precision per type on the shipped labelled corpus
 *    (test/fixtures/analysis-corpus.json, scripts/analysis-corpus.ts) and on a held-out corpus of
 *    the same generator with another seed (the detectors were tuned on the shipped one).
 * 2. The relayer's added latency: `POST /v1/analysis` over real HTTP (redaction, bias pre-check,
 *    completion, output checks, encryption, audit record, shared rate bucket on PGlite) against the
 *    same three provider calls made directly to the stand-in, at 600 requests per minute in bursts
 *    of 50 (one burst every 5 s), p50/p99 of each and of the difference.
 *
 * Writes bench/results/analysis.json. Run: `npm run bench:analysis`.
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { signedHeaders } from "../relayer/auth/hmac.ts";
import { findPii, PII_TYPES, redact } from "../relayer/analysis/redaction.ts";
import { listen } from "../relayer/http/server.ts";
import { generateCorpus, type CorpusText } from "../scripts/analysis-corpus.ts";
import { ANALYSIS_PROVIDER_KEY, openAnalysisWorld } from "../test/fixtures/analysis.ts";

const root = path.resolve(import.meta.dirname, "..");
const BURSTS = Number(process.env.BENCH_BURSTS ?? 4);
const BURST = 50;
const BURST_EVERY_MS = 5_000;

function score(corpus: CorpusText[]) {
  const byType = Object.fromEntries(
    PII_TYPES.map((t) => [t, { labelled: 0, found: 0, detected: 0, correct: 0 }]),
  );
  for (const doc of corpus) {
    const found = findPii(doc.text);
    for (const l of doc.labels) {
      byType[l.type]!.labelled++;
      if (found.some((f) => f.type === l.type && f.start <= l.start && f.end >= l.end))
        byType[l.type]!.found++;
    }
    for (const f of found) {
      byType[f.type]!.detected++;
      if (doc.labels.some((l) => l.type === f.type && f.start < l.end && l.start < f.end))
        byType[f.type]!.correct++;
    }
  }
  const round = (x: number) => Math.round(x * 10_000) / 10_000;
  return Object.fromEntries(
    Object.entries(byType).map(([type, c]) => [
      type,
      {
        labelled: c.labelled,
        recall: c.labelled ? round(c.found / c.labelled) : null,
        precision: c.detected ? round(c.correct / c.detected) : null,
      },
    ]),
  );
}

const quantiles = (samples: number[]) => {
  const sorted = [...samples].sort((a, b) => a - b);
  const q = (p: number) =>
    Math.round(sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)]! * 100) / 100;
  return { count: samples.length, p50_ms: q(0.5), p99_ms: q(0.99), max_ms: q(1) };
};

const shipped = JSON.parse(
  await readFile(path.join(root, "test/fixtures/analysis-corpus.json"), "utf8"),
) as CorpusText[];
const heldOut = generateCorpus(15_000);
const redactStarted = performance.now();
for (const doc of shipped) redact(doc.text);
const redactionMsPerText = (performance.now() - redactStarted) / shipped.length;

const world = await openAnalysisWorld({ label: "bench-analysis" });
const server = await listen(world.relayer.app, "127.0.0.1", 0);
const texts = shipped.map((d) => d.text);

async function viaRelayer(text: string): Promise<{ ms: number; status: number }> {
  const body = JSON.stringify({ text });
  const t = performance.now();
  const res = await fetch(`${server.url}/v1/analysis`, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      ...signedHeaders(world.key.key, world.key.secret, body),
    },
    body,
  });
  await res.arrayBuffer();
  return { ms: performance.now() - t, status: res.status };
}

async function direct(text: string): Promise<number> {
  const redacted = redact(text).text; // what the relayer sends; computed outside the timing
  const post = (p: string, payload: unknown) =>
    fetch(`${world.provider.url}${p}`, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        Authorization: `Bearer ${ANALYSIS_PROVIDER_KEY}`,
      },
      body: JSON.stringify(payload),
    }).then((r) => r.json() as Promise<{ choices?: Array<{ message: { content: string } }> }>);
  const t = performance.now();
  await post("/moderations", { input: redacted });
  const answer = await post("/chat/completions", {
    model: "general-2025-08-01",
    messages: [{ role: "user", content: redacted }],
  });
  await post("/moderations", { input: answer.choices![0]!.message.content });
  return performance.now() - t;
}

// Warm-up (JIT, connections, prepared statements), then the paced bursts.
for (let i = 0; i < 5; i++) await viaRelayer(texts[i]!);
await new Promise((r) => setTimeout(r, BURST_EVERY_MS));
const relayerMs: number[] = [];
const directMs: number[] = [];
const statuses: Record<string, number> = {};
for (let b = 0; b < BURSTS; b++) {
  const started = performance.now();
  const slice = Array.from({ length: BURST }, (_, i) => texts[(b * BURST + i) % texts.length]!);
  for (const r of await Promise.all(slice.map(viaRelayer))) {
    statuses[r.status] = (statuses[r.status] ?? 0) + 1;
    if (r.status === 200) relayerMs.push(r.ms);
  }
  directMs.push(...(await Promise.all(slice.map(direct))));
  const wait = BURST_EVERY_MS - (performance.now() - started);
  if (wait > 0 && b < BURSTS - 1) await new Promise((r) => setTimeout(r, wait));
}
await server.close(1_000);
await world.close();

const relayer = quantiles(relayerMs);
const directQ = quantiles(directMs);
const result = {
  measured_at: new Date().toISOString(),
  machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, load_average: os.loadavg() },
  conditions:
    "2-core machine shared with seven other engineers' builds and tests while measuring; PGlite; embedded devnet; stand-in provider on 127.0.0.1",
  corpus: {
    shipped: {
      texts: shipped.length,
      locales: [...new Set(shipped.map((d) => d.locale))],
      per_type: score(shipped),
    },
    held_out_seed_15000: { texts: heldOut.length, per_type: score(heldOut) },
    redaction_ms_per_text: Math.round(redactionMsPerText * 100) / 100,
  },
  latency: {
    rate: "600 requests/min as bursts of 50 every 5 s",
    bursts: BURSTS,
    statuses,
    relayer,
    direct: directQ,
    overhead_ms: {
      p50: Math.round((relayer.p50_ms - directQ.p50_ms) * 100) / 100,
      p99: Math.round((relayer.p99_ms - directQ.p99_ms) * 100) / 100,
    },
    target_p99_overhead_ms: 10,
  },
};
await mkdir(path.join(root, "bench/results"), { recursive: true });
await writeFile(
  path.join(root, "bench/results/analysis.json"),
  `${JSON.stringify(result, null, 2)}\n`,
);
console.log(JSON.stringify(result, null, 2));
