import type { Store } from "./index.ts";

/**
 * Group commit: items that arrive while a transaction is committing wait and are then written
 * together, in ONE transaction with ONE durable commit, instead of one transaction each. Each item
 * still gets its own outcome, and only after the commit that made it durable. Nothing waits on a
 * timer: an item arriving while nothing is in flight starts its transaction at once, so the batch
 * size follows the load (1 when idle, up to `maxBatch` under load).
 *
 * `write(tx, items)` returns one outcome per item: an item it refuses (e.g. over a limit) gets an
 * error and writes nothing, without affecting the others. If the whole transaction fails, each item
 * of that batch is retried alone, so one bad item cannot fail the requests it was grouped with.
 */
export type Outcome<R> = { ok: true; value: R } | { ok: false; error: unknown };

interface Waiting<I, R> {
  item: I;
  resolve: (value: R) => void;
  reject: (error: unknown) => void;
}

export class GroupCommit<I, R> {
  readonly #store: Store;
  readonly #write: (tx: Store, items: I[]) => Promise<Outcome<R>[]>;
  readonly #maxBatch: number;
  #waiting: Waiting<I, R>[] = [];
  #draining = false;

  constructor(
    store: Store,
    write: (tx: Store, items: I[]) => Promise<Outcome<R>[]>,
    options: { maxBatch?: number } = {},
  ) {
    this.#store = store;
    this.#write = write;
    this.#maxBatch = options.maxBatch ?? 256;
  }

  /** Resolves with the item's outcome once the transaction holding it has committed. */
  submit(item: I): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.#waiting.push({ item, resolve, reject });
      if (!this.#draining) void this.#drain();
    });
  }

  async #drain(): Promise<void> {
    this.#draining = true;
    try {
      while (this.#waiting.length > 0) {
        const batch = this.#waiting.splice(0, this.#maxBatch);
        await this.#commit(batch);
      }
    } finally {
      this.#draining = false;
    }
  }

  async #commit(batch: Waiting<I, R>[]): Promise<void> {
    let outcomes: Outcome<R>[];
    try {
      outcomes = await this.#store.transaction((tx) =>
        this.#write(
          tx,
          batch.map((w) => w.item),
        ),
      );
    } catch (err) {
      if (batch.length === 1) {
        batch[0]!.reject(err);
        return;
      }
      for (const one of batch) await this.#commit([one]);
      return;
    }
    batch.forEach((w, i) => {
      const outcome = outcomes[i];
      if (!outcome) w.reject(new Error("group commit: no outcome for an item"));
      else if (outcome.ok) w.resolve(outcome.value);
      else w.reject(outcome.error);
    });
  }
}
