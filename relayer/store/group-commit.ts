import type { Store } from "./store.ts";

export type Outcome<R> = { ok: true; value: R } | { ok: false; error: unknown };

interface Waiting<I, R> {
  item: I;
  resolve: (value: R) => void;
  reject: (error: unknown) => void;
}

/**
 * Coalescing: items that arrive while a batch is running wait and are then run together, by ONE
 * call of `run(items)`, instead of one call each. Each item still gets its own outcome, and only
 * once its batch has finished. Nothing waits on a timer: an item arriving while nothing is in
 * flight runs once the current turn of the event loop has handled what had arrived with it
 * (`setImmediate`), so the items submitted in one turn share a batch and the batch size follows
 * the load (1 when idle, up to `maxBatch` under load). Without that turn, the first item of every
 * burst ran alone, which on PGlite (whose statements run on this thread) meant one statement and
 * one commit per request. `run` returns one outcome per item: an item it refuses gets its error without affecting
 * the others. If `run` itself fails, each item of that batch is retried alone, so one bad item
 * cannot fail the requests it was grouped with.
 */
export class Batcher<I, R> {
  readonly #run: (items: I[]) => Promise<Outcome<R>[]>;
  readonly #maxBatch: number;
  #waiting: Waiting<I, R>[] = [];
  #draining = false;

  constructor(run: (items: I[]) => Promise<Outcome<R>[]>, options: { maxBatch?: number } = {}) {
    this.#run = run;
    this.#maxBatch = options.maxBatch ?? 256;
  }

  /** Resolves with the item's outcome once the batch holding it has finished. */
  submit(item: I): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.#waiting.push({ item, resolve, reject });
      if (!this.#draining) {
        this.#draining = true;
        // Once the requests being handled in this turn of the event loop have come in: they
        // share the first batch too instead of each starting its own.
        setImmediate(() => void this.#drain());
      }
    });
  }

  async #drain(): Promise<void> {
    this.#draining = true;
    try {
      while (this.#waiting.length > 0) {
        const batch = this.#waiting.splice(0, this.#maxBatch);
        await this.#runBatch(batch);
      }
    } finally {
      this.#draining = false;
    }
  }

  async #runBatch(batch: Waiting<I, R>[]): Promise<void> {
    let outcomes: Outcome<R>[];
    try {
      outcomes = await this.#run(batch.map((w) => w.item));
    } catch (err) {
      if (batch.length === 1) {
        batch[0]!.reject(err);
        return;
      }
      for (const one of batch) await this.#runBatch([one]);
      return;
    }
    batch.forEach((w, i) => {
      const outcome = outcomes[i];
      if (!outcome) w.reject(new Error("batch: no outcome for an item"));
      else if (outcome.ok) w.resolve(outcome.value);
      else w.reject(outcome.error);
    });
  }
}

/**
 * Group commit: a Batcher whose batches are transactions. Items arriving while a transaction is
 * committing are written together, in ONE transaction with ONE durable commit; each item is
 * resolved only after the commit that made it durable. `write(tx, items)` returns one outcome per
 * item: an item it refuses (e.g. over a limit) gets an error and writes nothing.
 */
export class GroupCommit<I, R> extends Batcher<I, R> {
  constructor(
    store: Store,
    write: (tx: Store, items: I[]) => Promise<Outcome<R>[]>,
    options: { maxBatch?: number } = {},
  ) {
    super((items) => store.transaction((tx) => write(tx, items)), options);
  }
}
