import { Worker } from "node:worker_threads";
import type { ClmViolation, LegalRules } from "../config/index.ts";
import {
  findPii,
  redact,
  RedactionError,
  type PiiSpan,
  type Redaction,
  type RedactionOptions,
} from "./redaction.ts";
import { warmDetectors } from "./warm-up.ts";
import { describeRule, RULES_PROGRESS, ruleAt, RulesError, type RuleAt } from "./rules.ts";

/** What the output checks found: the output's personal data and its legal-rule violations. */
export interface OutputCheck {
  leaks: PiiSpan[];
  violations: ClmViolation[];
}

/**
 * Where redaction runs. A text of 256 KiB costs most of a CPU-second to scan, and a burst of
 * requests queues its scans: on the event loop that would stall every other request of the
 * process (workflow submissions, health checks), so the relayer scans in worker threads.
 */
export interface Redactor {
  redact(text: string, options: RedactionOptions, start?: Map<string, string>): Promise<Redaction>;
  /**
   * The output's personal data and, when `checksRules`, its violations of the legal rules of the
   * input's kinds (RulesError when the check does not finish).
   */
  checkOutput(output: string, input: string, options: RedactionOptions): Promise<OutputCheck>;
  /** Whether checkOutput checks legal rules (then it runs in a thread, under a time limit). */
  readonly checksRules: boolean;
  /** Readies what the first scans would otherwise wait for (threads loading the detectors). */
  warm(): void;
  close(): Promise<void>;
}

/** Scans on the caller's thread, without legal rules (configuration `redaction_threads: 0`, and tests). */
export const inlineRedactor: Redactor = {
  redact: async (text, options, start) => redact(text, options, start),
  checkOutput: async (output, _input, options) => {
    try {
      return { leaks: findPii(output, options), violations: [] };
    } catch (err) {
      throw new RedactionError("a personal-data detector failed", { cause: err });
    }
  },
  checksRules: false,
  warm: warmDetectors,
  close: async () => {},
};

export type RedactionJob =
  | {
      id: number;
      op: "redact";
      text: string;
      options: RedactionOptions;
      start: Map<string, string> | undefined;
    }
  | { id: number; op: "checkOutput"; text: string; input: string; options: RedactionOptions };

export type RedactionAnswer =
  | { id: number; ok: true; value: Redaction | OutputCheck }
  | { id: number; ok: false; message: string; rules: boolean };

/** What a thread starts with when the pool checks legal rules. */
export interface RulesThreadData {
  rules: LegalRules;
  /** RULES_PROGRESS slots, written by the thread, read by the pool's watchdog. */
  progress: SharedArrayBuffer;
}

/** The legal rules a pool checks, and how long one analysis's check may run. */
export interface PoolRules {
  rules: LegalRules;
  timeoutMs: number;
}

interface Pending {
  job: RedactionJob;
  resolve(value: unknown): void;
  reject(err: Error): void;
}

interface Thread {
  worker: Worker;
  pending: Map<number, Pending>;
  progress: BigInt64Array | null;
}

/**
 * A fixed set of worker threads (relayer/analysis/redaction-worker.ts), started by `warm()` or on
 * first use; each job goes to the thread with the fewest jobs in flight. Fail closed: a detector
 * that throws, or a thread that dies, rejects the job with a RedactionError (the caller then sends
 * nothing), and a dead thread is replaced on the next job.
 *
 * With `rules`, the output check also runs the legal rules, in the same job (no message more per
 * analysis). While any thread has jobs, a watchdog reads each thread's progress every tenth of the
 * time limit (5-100 ms): a check running past `timeoutMs` gets a RulesError naming its pattern,
 * its thread is terminated (JavaScript cannot interrupt a running regular expression otherwise)
 * and replaced, and the thread's other jobs go to the threads left. A thread that dies during a
 * check fails that job with a RulesError too.
 */
export class RedactionPool implements Redactor {
  private readonly threads: Array<Thread | null>;
  private readonly rules: PoolRules | null;
  private watchdog: NodeJS.Timeout | null = null;
  private nextId = 1;
  private closed = false;

  constructor(size: number, rules?: PoolRules) {
    if (!Number.isInteger(size) || size < 1) throw new RangeError("a pool needs 1 thread or more");
    this.threads = Array.from({ length: size }, () => null);
    this.rules = rules ?? null;
  }

  get checksRules(): boolean {
    return this.rules !== null;
  }

  redact(text: string, options: RedactionOptions, start?: Map<string, string>) {
    return this.run<Redaction>({ id: this.nextId++, op: "redact", text, options, start });
  }

  checkOutput(output: string, input: string, options: RedactionOptions) {
    return this.run<OutputCheck>({
      id: this.nextId++,
      op: "checkOutput",
      text: output,
      // Only the rules read the input: without them it is not copied to the thread.
      input: this.rules ? input : "",
      options,
    });
  }

  /** Threads started and not stopped. */
  get running(): number {
    return this.threads.filter((t) => t !== null).length;
  }

  /** Threads running a legal-rule check at this moment. */
  get checking(): number {
    return this.threads.filter(
      (t) => t?.progress && Atomics.load(t.progress, RULES_PROGRESS.job) !== 0n,
    ).length;
  }

  /**
   * Starts every thread: a thread takes a few hundred milliseconds to load and compile the
   * detectors (redaction-worker.ts), which the first burst of requests would otherwise wait for.
   */
  warm(): void {
    if (this.closed) return;
    for (let i = 0; i < this.threads.length; i++) this.threads[i] ??= this.start(i);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.watchdog) clearInterval(this.watchdog);
    this.watchdog = null;
    const running = this.threads.filter((t): t is Thread => t !== null);
    this.threads.fill(null);
    await Promise.all(running.map((t) => t.worker.terminate()));
  }

  private run<T>(job: RedactionJob): Promise<T> {
    if (this.closed) return Promise.reject(new RedactionError("the redaction pool is closed"));
    return this.post<T>(this.pick(), job);
  }

  private post<T>(thread: Thread, job: RedactionJob): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      // A thread with work keeps the process alive; an idle one does not.
      if (thread.pending.size === 0) thread.worker.ref();
      thread.pending.set(job.id, { job, resolve: resolve as (v: unknown) => void, reject });
      try {
        thread.worker.postMessage(job);
      } catch (err) {
        thread.pending.delete(job.id);
        if (thread.pending.size === 0) thread.worker.unref();
        reject(
          new RedactionError("the text could not be handed to a redaction thread", { cause: err }),
        );
        return;
      }
      if (thread.progress && !this.watchdog) {
        const every = Math.min(100, Math.max(5, this.rules!.timeoutMs / 10));
        this.watchdog = setInterval(() => this.watch(), every).unref();
      }
    });
  }

  private pick(): Thread {
    let best = -1;
    for (let i = 0; i < this.threads.length; i++) {
      const t = this.threads[i];
      if (!t) {
        this.threads[i] = this.start(i);
        return this.threads[i]!;
      }
      if (best < 0 || t.pending.size < this.threads[best]!.pending.size) best = i;
    }
    return this.threads[best]!;
  }

  /** The pattern a thread reports running, if any. */
  private runningRule(thread: Thread): RuleAt | null {
    const p = thread.progress;
    if (!p || !this.rules) return null;
    return ruleAt(
      this.rules.rules,
      Number(Atomics.load(p, RULES_PROGRESS.kind)),
      Number(Atomics.load(p, RULES_PROGRESS.list)),
      Number(Atomics.load(p, RULES_PROGRESS.pattern)),
    );
  }

  /** Stops the threads whose rule check runs past the limit; ends when no thread has jobs. */
  private watch(): void {
    let busy = false;
    this.threads.forEach((thread, slot) => {
      if (!thread?.progress || thread.pending.size === 0) return;
      busy = true;
      const job = Number(Atomics.load(thread.progress, RULES_PROGRESS.job));
      const startedAt = Number(Atomics.load(thread.progress, RULES_PROGRESS.startedAt));
      if (job !== 0 && Date.now() - startedAt > this.rules!.timeoutMs)
        this.stopStuck(slot, thread, job);
    });
    if (!busy && this.watchdog) {
      clearInterval(this.watchdog);
      this.watchdog = null;
    }
  }

  private stopStuck(slot: number, thread: Thread, job: number): void {
    const at = this.runningRule(thread);
    const pending = [...thread.pending];
    // Taken from the thread first: its exit then fails nothing.
    thread.pending.clear();
    this.threads[slot] = null;
    void thread.worker.terminate();
    for (const [id, p] of pending) {
      if (id === job)
        p.reject(
          new RulesError(
            "timeout",
            at,
            `the legal rules ran past text_analysis.rules_timeout (${this.rules!.timeoutMs} ms)${at ? ` at ${describeRule(at)}` : ""}; the check was stopped`,
          ),
        );
      else if (this.closed) p.reject(new RedactionError("the redaction pool is closed"));
      else this.post(this.pick(), p.job).then(p.resolve, p.reject);
    }
  }

  private start(slot: number): Thread {
    const progress = this.rules
      ? new SharedArrayBuffer(RULES_PROGRESS.length * BigInt64Array.BYTES_PER_ELEMENT)
      : null;
    const workerData: RulesThreadData | undefined =
      this.rules && progress ? { rules: this.rules.rules, progress } : undefined;
    const worker = new Worker(new URL("./redaction-worker.ts", import.meta.url), { workerData });
    const thread: Thread = {
      worker,
      pending: new Map(),
      progress: progress ? new BigInt64Array(progress) : null,
    };
    const fail = (reason: string) => {
      if (this.threads[slot] === thread) this.threads[slot] = null;
      const checking = thread.progress
        ? Number(Atomics.load(thread.progress, RULES_PROGRESS.job))
        : 0;
      const at = checking ? this.runningRule(thread) : null;
      for (const [id, p] of thread.pending)
        p.reject(
          id === checking
            ? new RulesError(
                "failed",
                at,
                `the thread checking the legal rules stopped (${reason})${at ? ` at ${describeRule(at)}` : ""}`,
              )
            : new RedactionError(`the redaction thread stopped (${reason}); nothing was sent`),
        );
      thread.pending.clear();
    };
    worker.on("message", (answer: RedactionAnswer) => {
      const p = thread.pending.get(answer.id);
      if (!p) return;
      thread.pending.delete(answer.id);
      if (thread.pending.size === 0) worker.unref();
      if (answer.ok) p.resolve(answer.value);
      else if (answer.rules)
        p.reject(new RulesError("failed", null, `the legal rules failed: ${answer.message}`));
      else p.reject(new RedactionError(answer.message));
    });
    worker.on("error", (err) => fail(err.message));
    worker.on("exit", (code) => fail(`exit code ${code}`));
    worker.unref();
    return thread;
  }
}
