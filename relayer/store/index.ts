/** The storage platform's public surface: other areas import it from here only. */
export { openStore, preparedName } from "./store.ts";
export type { QueryOptions, QueueDb, Store } from "./store.ts";

export { Batcher, GroupCommit } from "./group-commit.ts";
export type { Outcome } from "./group-commit.ts";
export { migrate } from "./migrate.ts";
export { databaseLocks, processLocks } from "./locks.ts";
export type { NamedLocks } from "./locks.ts";
