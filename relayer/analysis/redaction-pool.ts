import { Worker } from "node:worker_threads";
import {
  DEFAULT_REDACTION,
  findPii,
  redact,
  RedactionError,
  type PiiSpan,
  type Redaction,
  type RedactionOptions,
} from "./redaction.ts";

/**
 * Where redaction runs. A text of 256 KiB costs most of a CPU-second to scan, and a burst of
 * requests queues its scans: on the event loop that would stall every other request of the
 * process (workflow submissions, health checks), so the relayer scans in worker threads.
 */
export interface Redactor {
  redact(text: string, options: RedactionOptions, start?: Map<string, string>): Promise<Redaction>;
  findPii(text: string, options: RedactionOptions): Promise<PiiSpan[]>;
  /** Readies what the first scans would otherwise wait for (threads loading the detectors). */
  warm(): void;
  close(): Promise<void>;
}

/** Scans on the caller's thread (configuration `redaction_threads: 0`, and tests). */
export const inlineRedactor: Redactor = {
  redact: async (text, options, start) => redact(text, options, start),
  findPii: async (text, options) => {
    try {
      return findPii(text, options);
    } catch (err) {
      throw new RedactionError("a personal-data detector failed", { cause: err });
    }
  },
  warm: () => {},
  close: async () => {},
};

/**
 * Small texts on the caller's thread while it has nothing else to do, the others in `threads`.
 * Handing a text to a sleeping thread and back costs its wake-up, about 0.8 ms on this kind of
 * machine, while scanning costs about 0.2 ms plus 0.3 ms per 1,000 characters: below `maxChars`
 * the event loop answers sooner. When the event loop has other work (`idle()` false: analyses
 * being handled together, as in a burst), every text goes to the threads, which keeps the event
 * loop's CPU per request what it is with the threads alone.
 */
export class SmallTextsInline implements Redactor {
  readonly #threads: Redactor;
  readonly #maxChars: number;
  readonly #idle: () => boolean;

  constructor(threads: Redactor, maxChars: number, idle: () => boolean) {
    this.#threads = threads;
    this.#maxChars = maxChars;
    this.#idle = idle;
  }

  #here(text: string): boolean {
    return text.length <= this.#maxChars && this.#idle();
  }

  redact(text: string, options: RedactionOptions, start?: Map<string, string>) {
    return this.#here(text)
      ? inlineRedactor.redact(text, options, start)
      : this.#threads.redact(text, options, start);
  }

  findPii(text: string, options: RedactionOptions) {
    return this.#here(text)
      ? inlineRedactor.findPii(text, options)
      : this.#threads.findPii(text, options);
  }

  warm() {
    this.#threads.warm();
  }

  close() {
    return this.#threads.close();
  }
}

export type RedactionJob =
  | {
      id: number;
      op: "redact";
      text: string;
      options: RedactionOptions;
      start: Map<string, string> | undefined;
    }
  | { id: number; op: "findPii"; text: string; options: RedactionOptions };

export type RedactionAnswer =
  | { id: number; ok: true; value: Redaction | PiiSpan[] }
  | { id: number; ok: false; message: string };

interface Thread {
  worker: Worker;
  pending: Map<number, { resolve(value: unknown): void; reject(err: Error): void }>;
}

/** One text that runs every detector, so a thread that scanned it has loaded and compiled them. */
const WARM_UP_TEXT =
  "Jane Doe (born 12 March 1980, jane.doe@example.com, +44 20 7946 0958) pays IBAN DE89 3704 0044 0532 0130 00 by card 4111 1111 1111 1111 from 192.0.2.1; SSN 123-45-6789; 10 Downing Street, London SW1A 2AA.";

/**
 * A fixed set of worker threads (relayer/analysis/redaction-worker.ts), started by `warm()` or on
 * first use; each
 * job goes to the thread with the fewest jobs in flight. Fail closed: a detector that throws, or a
 * thread that dies, rejects the job with a RedactionError (the caller then sends nothing), and a
 * dead thread is replaced on the next job.
 */
export class RedactionPool implements Redactor {
  private readonly threads: Array<Thread | null>;
  private nextId = 1;
  private closed = false;

  constructor(size: number) {
    if (!Number.isInteger(size) || size < 1) throw new RangeError("a pool needs 1 thread or more");
    this.threads = Array.from({ length: size }, () => null);
  }

  redact(text: string, options: RedactionOptions, start?: Map<string, string>) {
    return this.run<Redaction>({ id: this.nextId++, op: "redact", text, options, start });
  }

  findPii(text: string, options: RedactionOptions) {
    return this.run<PiiSpan[]>({ id: this.nextId++, op: "findPii", text, options });
  }

  /** Threads started and not stopped. */
  get running(): number {
    return this.threads.filter((t) => t !== null).length;
  }

  /**
   * Starts every thread and has each scan WARM_UP_TEXT: a thread takes a few hundred milliseconds
   * to load the detectors, which the first burst of requests would otherwise wait for.
   */
  warm(): void {
    if (this.closed) return;
    for (let i = 0; i < this.threads.length; i++) {
      this.threads[i] ??= this.start(i);
      this.post<PiiSpan[]>(this.threads[i]!, {
        id: this.nextId++,
        op: "findPii",
        text: WARM_UP_TEXT,
        options: DEFAULT_REDACTION,
      }).catch(() => {});
    }
  }

  async close(): Promise<void> {
    this.closed = true;
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
      thread.pending.set(job.id, { resolve: resolve as (v: unknown) => void, reject });
      try {
        thread.worker.postMessage(job);
      } catch (err) {
        thread.pending.delete(job.id);
        if (thread.pending.size === 0) thread.worker.unref();
        reject(
          new RedactionError("the text could not be handed to a redaction thread", { cause: err }),
        );
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

  private start(slot: number): Thread {
    const worker = new Worker(new URL("./redaction-worker.ts", import.meta.url));
    const thread: Thread = { worker, pending: new Map() };
    const fail = (reason: string) => {
      if (this.threads[slot] === thread) this.threads[slot] = null;
      for (const p of thread.pending.values())
        p.reject(new RedactionError(`the redaction thread stopped (${reason}); nothing was sent`));
      thread.pending.clear();
    };
    worker.on("message", (answer: RedactionAnswer) => {
      const p = thread.pending.get(answer.id);
      if (!p) return;
      thread.pending.delete(answer.id);
      if (thread.pending.size === 0) worker.unref();
      if (answer.ok) p.resolve(answer.value);
      else p.reject(new RedactionError(answer.message));
    });
    worker.on("error", (err) => fail(err.message));
    worker.on("exit", (code) => fail(`exit code ${code}`));
    worker.unref();
    return thread;
  }
}
