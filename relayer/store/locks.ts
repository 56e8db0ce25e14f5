import type { Store } from "./store.ts";

/**
 * Named locks shared by every process on one database: `hold(names, fn)` runs `fn` while holding
 * every named lock; holders of a common name run one after another, in arrival order within a
 * process.
 *
 * - In the process: one queue per name (so at most one task per name and process waits on the
 *   database, and a lock never ties up more than one connection).
 * - On PostgreSQL, across processes: a transaction-scoped advisory lock per name
 *   (`pg_advisory_xact_lock` on a 64-bit hash of the name) in a transaction kept open while `fn`
 *   runs. A process that dies mid-hold loses its connection and the server releases its locks.
 * - On PGlite the database belongs to one process, so the in-process queues are the whole lock.
 *
 * Several names are taken in sorted order (in the process and on the server), so two holders
 * asking for overlapping sets cannot wait on each other in a cycle.
 */
export interface NamedLocks {
  hold<T>(names: readonly string[], fn: () => Promise<T>): Promise<T>;
}

/** Locks of one process only (PGlite; tests without a database). */
export function processLocks(): NamedLocks {
  const tails = new Map<string, Promise<void>>();
  const acquire = async (name: string): Promise<() => void> => {
    const previous = tails.get(name) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    const tail = previous.then(() => mine);
    tails.set(name, tail);
    await previous;
    return () => {
      release();
      // Last in line: forget the name (the map holds only names someone is holding or awaiting).
      if (tails.get(name) === tail) tails.delete(name);
    };
  };
  return {
    async hold<T>(names: readonly string[], fn: () => Promise<T>): Promise<T> {
      const releases: Array<() => void> = [];
      try {
        for (const name of sortedUnique(names)) releases.push(await acquire(name));
        return await fn();
      } finally {
        for (const release of releases.reverse()) release();
      }
    },
  };
}

/** The locks of `store`'s database (see {@link NamedLocks}). */
export function databaseLocks(store: Pick<Store, "kind" | "transaction">): NamedLocks {
  const local = processLocks();
  if (store.kind === "pglite") return local;
  return {
    hold<T>(names: readonly string[], fn: () => Promise<T>): Promise<T> {
      const sorted = sortedUnique(names);
      return local.hold(sorted, () =>
        store.transaction(async (tx) => {
          for (const name of sorted)
            await tx.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [name]);
          // `fn` uses the outer store (its own connections): this transaction only holds the locks.
          return fn();
        }),
      );
    },
  };
}

function sortedUnique(names: readonly string[]): string[] {
  return [...new Set(names)].sort();
}
