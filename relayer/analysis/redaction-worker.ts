import { parentPort, workerData } from "node:worker_threads";
import { findPii, redact } from "./redaction.ts";
import type { RedactionAnswer, RedactionJob, RulesThreadData } from "./redaction-pool.ts";
import { checkRules, RULES_PROGRESS } from "./rules.ts";
import { warmDetectors } from "./warm-up.ts";

/**
 * A redaction thread of RedactionPool: answers each job with its result or the failure's text.
 * With legal rules, it publishes the pattern it is running in `progress` before each one, for the
 * pool's watchdog, which stops the thread when a check runs past the time limit.
 */
const data = workerData as RulesThreadData | undefined;
const progress = data ? new BigInt64Array(data.progress) : null;

function checkOutput(job: Extract<RedactionJob, { op: "checkOutput" }>): RedactionAnswer {
  let leaks;
  try {
    leaks = findPii(job.text, job.options);
  } catch (err) {
    return { id: job.id, ok: false, message: failure(err), rules: false };
  }
  if (!data || !progress) return { id: job.id, ok: true, value: { leaks, violations: [] } };
  Atomics.store(progress, RULES_PROGRESS.startedAt, BigInt(Date.now()));
  Atomics.store(progress, RULES_PROGRESS.job, BigInt(job.id));
  try {
    const violations = checkRules(data.rules, job.input, job.text, (kind, list, pattern) => {
      Atomics.store(progress, RULES_PROGRESS.kind, BigInt(kind));
      Atomics.store(progress, RULES_PROGRESS.list, BigInt(list));
      Atomics.store(progress, RULES_PROGRESS.pattern, BigInt(pattern));
    });
    return { id: job.id, ok: true, value: { leaks, violations } };
  } catch (err) {
    return { id: job.id, ok: false, message: failure(err), rules: true };
  } finally {
    Atomics.store(progress, RULES_PROGRESS.job, 0n);
  }
}

function failure(err: unknown): string {
  return err instanceof Error ? err.message : "a personal-data detector failed";
}

// Jobs that arrive meanwhile wait for it: a thread answers only with its detectors compiled.
warmDetectors();

parentPort!.on("message", (job: RedactionJob) => {
  let answer: RedactionAnswer;
  if (job.op === "checkOutput") answer = checkOutput(job);
  else {
    try {
      answer = { id: job.id, ok: true, value: redact(job.text, job.options, job.start) };
    } catch (err) {
      answer = { id: job.id, ok: false, message: failure(err), rules: false };
    }
  }
  parentPort!.postMessage(answer);
});
