import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Store } from "./store.ts";

export const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), "migrations");

/** Lock id for `pg_advisory_xact_lock`: processes starting together apply migrations one at a time. */
const MIGRATION_LOCK_ID = 7_261_830_415;

export interface Migration {
  version: number;
  name: string;
  file: string;
  sql: string;
  checksum: string;
}

const FILE_PATTERN = /^(\d{3})_([a-z0-9_]+)\.sql$/;

export async function readMigrations(dir = MIGRATIONS_DIR): Promise<Migration[]> {
  const files = (await readdir(dir)).filter((f) => f.endsWith(".sql")).sort();
  const migrations: Migration[] = [];
  const seen = new Map<number, string>();
  for (const file of files) {
    const match = FILE_PATTERN.exec(file);
    if (!match) throw new Error(`migration file ${file} must be named NNN_name.sql (lower case)`);
    const version = Number(match[1]);
    const clash = seen.get(version);
    if (clash) throw new Error(`migrations ${clash} and ${file} share the number ${match[1]}`);
    seen.set(version, file);
    const sql = await readFile(path.join(dir, file), "utf8");
    const checksum = createHash("sha256").update(sql).digest("hex");
    migrations.push({ version, name: match[2]!, file, sql, checksum });
  }
  return migrations;
}

/**
 * Applies pending migrations in order, all in one transaction under an advisory lock: several
 * processes starting at once apply each migration exactly once, and a failing migration leaves
 * the schema as it was. A migration edited after it was applied is refused (its checksum).
 * Returns the versions applied by this call.
 */
export async function migrate(store: Store, dir = MIGRATIONS_DIR): Promise<number[]> {
  const migrations = await readMigrations(dir);
  return store.transaction(async (tx) => {
    await tx.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK_ID]);
    await tx.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version    integer PRIMARY KEY,
      name       text NOT NULL,
      checksum   text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    const applied = new Map(
      (
        await tx.query<{ version: number; checksum: string }>(
          "SELECT version, checksum FROM schema_migrations",
        )
      ).map((row) => [row.version, row.checksum]),
    );
    const done: number[] = [];
    for (const migration of migrations) {
      const checksum = applied.get(migration.version);
      if (checksum !== undefined) {
        if (checksum !== migration.checksum) {
          throw new Error(
            `migration ${migration.file} was changed after it was applied; add a new migration instead`,
          );
        }
        continue;
      }
      try {
        await tx.exec(migration.sql);
      } catch (err) {
        throw new Error(`migration ${migration.file} failed: ${(err as Error).message}`, {
          cause: err,
        });
      }
      await tx.query(
        "INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)",
        [migration.version, migration.name, migration.checksum],
      );
      done.push(migration.version);
    }
    return done;
  });
}
