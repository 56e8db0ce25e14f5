import { parentPort } from "node:worker_threads";
import { findPii, redact } from "./redaction.ts";
import type { RedactionAnswer, RedactionJob } from "./redaction-pool.ts";

/** A redaction thread of RedactionPool: answers each job with its result or the failure's text. */
parentPort!.on("message", (job: RedactionJob) => {
  let answer: RedactionAnswer;
  try {
    const value =
      job.op === "redact"
        ? redact(job.text, job.options, job.start)
        : findPii(job.text, job.options);
    answer = { id: job.id, ok: true, value };
  } catch (err) {
    answer = {
      id: job.id,
      ok: false,
      message: err instanceof Error ? err.message : "a personal-data detector failed",
    };
  }
  parentPort!.postMessage(answer);
});
