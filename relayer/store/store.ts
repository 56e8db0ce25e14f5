import { createHash } from "node:crypto";
import { chmod, mkdir, readdir } from "node:fs/promises";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";

/**
 * The relayer's storage: PostgreSQL through a `pg` pool, or PGlite (PostgreSQL compiled to WASM)
 * embedded under DATA_DIR. Both speak the same SQL, so every module writes plain PostgreSQL.
 *
 * Rules for callers:
 * - `query` runs ONE statement with `$1` parameters; `exec` runs a parameterless script.
 * - Inside `transaction(fn)` use only the `tx` handed to `fn`. PGlite has a single connection:
 *   a call on the outer store from inside the callback waits for the transaction and deadlocks.
 *   A `transaction` called on a `tx` joins the outer transaction.
 */
export interface Store {
  readonly kind: "pglite" | "postgres";
  query<T = Record<string, unknown>>(
    sql: string,
    params?: unknown[],
    options?: QueryOptions,
  ): Promise<T[]>;
  /**
   * A single-statement write whose commit does not wait for the disk (PostgreSQL
   * `synchronous_commit = off`): visible to every process at once, made durable by the next
   * ordinary commit (WAL is sequential) or within a fraction of a second. For bookkeeping that may
   * be lost in a crash without harm (rate-limit counters, replay records). Inside a transaction it
   * is an ordinary query.
   */
  queryAsyncCommit<T = Record<string, unknown>>(
    sql: string,
    params?: unknown[],
    options?: QueryOptions,
  ): Promise<T[]>;
  exec(sql: string): Promise<void>;
  transaction<T>(fn: (tx: Store) => Promise<T>): Promise<T>;
  /** The same connection (or transaction) as pg-boss's `db` option: jobs sent with it commit atomically. */
  queueDb(): QueueDb;
  /**
   * Calls `onNotify` for every `NOTIFY` on `channel` once its transaction commits: from every
   * process on PostgreSQL (on a connection of its own, outside the pool), from this one on PGlite.
   * Resolves once listening, with the function that stops. A lost PostgreSQL connection is opened
   * again (and `onNotify` called once, for what was missed meanwhile); listeners still poll for
   * anything a notification cannot announce.
   */
  listen(channel: string, onNotify: () => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

export interface QueryOptions {
  /**
   * Run as a named prepared statement on PostgreSQL: each pooled connection parses and plans the
   * text once and then only binds and executes it (the planning of a long statement costs more
   * than running it on a few rows). For the hot statements whose text is fixed; a statement built
   * per call would pile up prepared statements on every connection. No effect on PGlite.
   */
  prepare?: boolean;
}

/** The name a prepared statement is kept under on each connection: derived from its text. */
export function preparedName(sql: string): string {
  let name = preparedNames.get(sql);
  if (name === undefined) {
    name = `vf_${createHash("sha256").update(sql).digest("hex").slice(0, 24)}`;
    if (preparedNames.size >= 256) preparedNames.clear();
    preparedNames.set(sql, name);
  }
  return name;
}
const preparedNames = new Map<string, string>();

/** pg-boss's `IDatabase` shape (kept structural so this module does not import pg-boss). */
export interface QueueDb {
  executeSql(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
}

export interface OpenStoreOptions {
  /** A PostgreSQL URL; without it PGlite is used under `dataDir`. */
  databaseUrl?: string;
  /** Directory for PGlite's files (`<dataDir>/pglite`); `memory://` keeps the database in memory. */
  dataDir: string;
  /** Pool size on PostgreSQL. */
  maxConnections?: number;
}

export async function openStore(options: OpenStoreOptions): Promise<Store> {
  if (options.databaseUrl) return openPostgres(options.databaseUrl, options.maxConnections ?? 16);
  return openPglite(options.dataDir);
}

// ---------------------------------------------------------------------------------------------
// PostgreSQL

type Queryable = pg.Pool | pg.PoolClient;

function postgresStore(
  db: Queryable,
  transaction: Store["transaction"],
  listen: Store["listen"],
  close: () => Promise<void>,
  asyncCommitDb: Queryable = db,
): Store {
  const run = async <T>(on: Queryable, sql: string, params?: unknown[], options?: QueryOptions) => {
    const values = params as unknown[] | undefined;
    const result = options?.prepare
      ? await on.query({ name: preparedName(sql), text: sql, values })
      : await on.query(sql, values);
    return result.rows as T[];
  };
  const store: Store = {
    kind: "postgres",
    query: (sql, params, options) => run(db, sql, params, options),
    queryAsyncCommit: (sql, params, options) => run(asyncCommitDb, sql, params, options),
    async exec(sql: string) {
      await db.query(sql);
    },
    transaction,
    queueDb: () => ({
      executeSql: async (text, values) => {
        const result = await db.query(text, values as unknown[] | undefined);
        // A multi-statement script returns one result per statement (pg-boss unwraps the same way).
        const rows = Array.isArray(result)
          ? (result as pg.QueryResult[]).flatMap((r) => r.rows)
          : result.rows;
        return { rows };
      },
    }),
    listen,
    close,
  };
  return store;
}

/** How long a lost listening connection waits before it connects again. */
const RELISTEN_DELAY_MS = 1_000;

function postgresListener(databaseUrl: string): Store["listen"] {
  return async (channel, onNotify) => {
    let stopped = false;
    let client: pg.Client | null = null;
    let retry: NodeJS.Timeout | undefined;
    const connect = async (): Promise<void> => {
      const c = new pg.Client({
        connectionString: databaseUrl,
        application_name: "veriflow-listen",
      });
      const lost = () => {
        if (client !== c) return;
        client = null;
        c.end().catch(() => {});
        if (!stopped) retry = setTimeout(reconnect, RELISTEN_DELAY_MS);
      };
      c.on("notification", (message) => {
        if (message.channel === channel) onNotify();
      });
      c.on("error", lost);
      c.on("end", lost);
      client = c;
      try {
        await c.connect();
        await c.query(`LISTEN ${c.escapeIdentifier(channel)}`);
      } catch (err) {
        lost();
        throw err;
      }
    };
    const reconnect = () => {
      connect().then(onNotify, () => {});
    };
    try {
      await connect();
    } catch (err) {
      stopped = true;
      clearTimeout(retry);
      throw err;
    }
    return async () => {
      stopped = true;
      clearTimeout(retry);
      const c = client;
      client = null;
      await c?.end().catch(() => {});
    };
  };
}

/**
 * How long a pooled connection may sit idle before it is closed. pg-pool's default of 10 s closes
 * the connections a burst opened before the next burst after a quiet spell: that burst then pays a
 * connection's setup (a server process forked, startup, authentication) for each one, on the
 * server's cores and the event loop, in its requests' latency.
 */
const IDLE_CONNECTION_MS = 5 * 60_000;

async function openPostgres(databaseUrl: string, max: number): Promise<Store> {
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max,
    idleTimeoutMillis: IDLE_CONNECTION_MS,
    application_name: "veriflow",
  });
  const asyncCommitPool = new pg.Pool({
    connectionString: databaseUrl,
    max: Math.max(2, Math.ceil(max / 4)),
    idleTimeoutMillis: IDLE_CONNECTION_MS,
    application_name: "veriflow-bookkeeping",
    options: "-c synchronous_commit=off",
  });
  // An idle client losing its connection must not crash the process; the next query reconnects.
  pool.on("error", () => {});
  asyncCommitPool.on("error", () => {});
  // Fail at start, with the server's message, rather than on the first request.
  const probe = await pool.connect();
  probe.release();
  const listen = postgresListener(databaseUrl);

  const transaction = async <T>(fn: (tx: Store) => Promise<T>): Promise<T> => {
    const client = await pool.connect();
    // A connection lost while checked out (a server restart, a terminated session) makes the
    // client emit `error`: its pending and next queries reject, the process must not crash.
    const onError = () => {};
    client.on("error", onError);
    const txStore: Store = postgresStore(
      client,
      (inner) => inner(txStore),
      listen,
      async () => {
        throw new Error("cannot close a transaction's store");
      },
    );
    try {
      await client.query("BEGIN");
      const result = await fn(txStore);
      await client.query("COMMIT");
      return result;
    } catch (err) {
      await client.query("ROLLBACK").catch(() => {});
      throw err;
    } finally {
      client.off("error", onError);
      client.release();
    }
  };
  return postgresStore(
    pool,
    transaction,
    listen,
    async () => {
      await Promise.all([pool.end(), asyncCommitPool.end()]);
    },
    asyncCommitPool,
  );
}

// ---------------------------------------------------------------------------------------------
// PGlite

interface PgliteLike {
  query<T>(sql: string, params?: unknown[]): Promise<{ rows: T[] }>;
  exec(sql: string): Promise<Array<{ rows: unknown[] }>>;
}

function pgliteStore(
  db: PgliteLike,
  transaction: Store["transaction"],
  listen: Store["listen"],
  close: () => Promise<void>,
): Store {
  return {
    kind: "pglite",
    async query<T>(sql: string, params?: unknown[]) {
      return (await db.query<T>(sql, params ?? [])).rows;
    },
    async queryAsyncCommit<T>(sql: string, params?: unknown[]) {
      return (await db.query<T>(sql, params ?? [])).rows;
    },
    async exec(sql: string) {
      await db.exec(sql);
    },
    transaction,
    queueDb: () => ({
      // PGlite's query() runs one statement; pg-boss's parameterless scripts go through exec().
      executeSql: async (text, values) => {
        if (values?.length) return { rows: (await db.query(text, values)).rows };
        const results = await db.exec(text);
        return { rows: results.flatMap((r) => r.rows ?? []) };
      },
    }),
    listen,
    close,
  };
}

/**
 * The data directory holds the database (API keys' encrypted secrets, executions) and the
 * development master key: directories 0700, files 0600, whatever the umask. Files PGlite creates
 * while running get the umask's mode, inside directories nobody else can enter.
 */
async function privateTree(dir: string): Promise<void> {
  await chmod(dir, 0o700);
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) await privateTree(file);
    else if (entry.isFile()) await chmod(file, 0o600);
  }
}

async function openPglite(dataDir: string): Promise<Store> {
  let pglite: PGlite;
  if (dataDir === "memory://") {
    pglite = new PGlite();
  } else {
    const dir = path.join(path.resolve(dataDir), "pglite");
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await chmod(path.resolve(dataDir), 0o700);
    await chmod(dir, 0o700);
    pglite = new PGlite(dir);
  }
  await pglite.waitReady;
  if (dataDir !== "memory://") await privateTree(path.resolve(dataDir));

  const listen: Store["listen"] = async (channel, onNotify) => {
    const unlisten = await pglite.listen(channel, () => onNotify());
    return () => unlisten();
  };
  const transaction = <T>(fn: (tx: Store) => Promise<T>): Promise<T> =>
    pglite.transaction(async (tx) => {
      const txStore: Store = pgliteStore(
        tx as unknown as PgliteLike,
        (inner) => inner(txStore),
        listen,
        async () => {
          throw new Error("cannot close a transaction's store");
        },
      );
      return fn(txStore);
    });
  const store = pgliteStore(pglite as unknown as PgliteLike, transaction, listen, async () => {
    if (!pglite.closed) await pglite.close();
    if (dataDir !== "memory://") await privateTree(path.resolve(dataDir));
  });
  return Object.assign(store, { pglite });
}

/** The PGlite instance behind a store (pg-boss's adapter needs it), or undefined on PostgreSQL. */
export function pgliteOf(store: Store): PGlite | undefined {
  return (store as Store & { pglite?: PGlite }).pglite;
}
