/**
 * One fresh process's redaction after start, for bench:analysis: the thread's CPU for the warm-up
 * and for each of the first batches of 50 corpus texts after it. Argument: `compile` (two passes
 * over the every-type texts: each pattern compiled for both string representations, no more) or
 * `full` (the serving threads' warm-up, warmDetectors) or `collected` (that warm-up, then two full
 * garbage collections, as a serving thread meets them: run with the service's Node flags, whose
 * `--expose-gc` allows them). Prints one JSON line.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { findPii } from "../relayer/analysis/redaction.ts";
import { EVERY_TYPE_TEXTS, warmDetectors } from "../relayer/analysis/warm-up.ts";
import type { CorpusText } from "../scripts/analysis-corpus.ts";

const BATCH = 50;
const BATCHES = 4;
const mode = process.argv[2];
if (mode !== "compile" && mode !== "full" && mode !== "collected")
  throw new Error("usage: analysis-warm-up.ts compile|full|collected");
const gc = (globalThis as { gc?: () => void }).gc;
if (mode === "collected" && !gc) throw new Error("collected: run with --expose-gc");

const texts = (
  JSON.parse(
    readFileSync(path.join(import.meta.dirname, "../test/fixtures/analysis-corpus.json"), "utf8"),
  ) as CorpusText[]
).map((d) => d.text);
const threadMs = (run: () => void) => {
  const before = process.threadCpuUsage();
  run();
  const used = process.threadCpuUsage(before);
  return (used.user + used.system) / 1000;
};
const warmUpMs = threadMs(() =>
  mode === "compile"
    ? EVERY_TYPE_TEXTS.forEach((t) => [0, 1].forEach(() => findPii(t)))
    : warmDetectors(),
);
if (mode === "collected") [0, 1].forEach(() => gc!());
const batchesMs = Array.from({ length: BATCHES }, (_, b) =>
  threadMs(() => texts.slice(b * BATCH, (b + 1) * BATCH).forEach((t) => findPii(t))),
);
process.stdout.write(`${JSON.stringify({ warm_up_ms: warmUpMs, batches_ms: batchesMs })}\n`);
