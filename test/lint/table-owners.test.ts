import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect } from "chai";

const REPO = path.resolve(import.meta.dirname, "../..");

/**
 * A write statement's table: INSERT INTO t, DELETE FROM t, UPDATE t (not the DO UPDATE of an
 * upsert nor a FOR [NO KEY] UPDATE lock), MERGE INTO t, TRUNCATE [TABLE] t, each optionally with
 * ONLY. SQL keywords are upper case in this code base, so prose ("update the count") is not a
 * statement. Table names fold to lower case unless quoted, as PostgreSQL reads them, and the
 * default schema `public.` is dropped. A write whose table does not follow its keyword in the
 * same literal (spliced in with `${...}`, concatenated, or the keyword itself spliced into a
 * template holding the table) is reported as `UNSEEN`: a write the scan cannot attribute has no
 * owner either.
 */
const WRITE =
  /\b(?:INSERT\s+INTO|DELETE\s+FROM|MERGE\s+INTO|TRUNCATE(?:\s+TABLE)?|(?<!\b(?:DO|FOR|KEY)\s+)UPDATE)\b(?:\s+ONLY\b)?(?:\s+("[^"]+"(?:\."[^"]+")?|[A-Za-z_][A-Za-z0-9_.]*))?/g;

const UNSEEN = "(table not in the statement's literal)";

function tableName(written: string | undefined): string {
  if (written === undefined) return UNSEEN;
  const name = written.startsWith('"') ? written.replaceAll('"', "") : written.toLowerCase();
  return name.startsWith("public.") ? name.slice("public.".length) : name;
}

/** The text without comments: JS block and line comments, SQL `--` comments. */
function withoutComments(text: string): string {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .replace(/(^|[^:\\])\/\/.*$/gm, "$1")
    .replace(/--.*$/gm, "");
}

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((e) => e.isFile() && e.name.endsWith(".ts") && !e.name.endsWith(".d.ts"))
    .map((e) => path.join(e.parentPath, e.name));
}

/** Every table written by the TypeScript under `root`/relayer, with the files that write it. */
async function tableWriters(root: string): Promise<Map<string, string[]>> {
  const writers = new Map<string, Set<string>>();
  for (const file of await sourceFiles(path.join(root, "relayer"))) {
    const text = withoutComments(await readFile(file, "utf8"));
    for (const match of text.matchAll(WRITE)) {
      const table = tableName(match[1]);
      const files = writers.get(table) ?? new Set<string>();
      files.add(path.relative(root, file));
      writers.set(table, files);
    }
  }
  return new Map([...writers].map(([table, files]) => [table, [...files].sort()]));
}

/** Tables written from more than one file: `table: file, file`. */
const shared = (writers: Map<string, string[]>) =>
  [...writers]
    .filter(([, files]) => files.length > 1)
    .map(([table, files]) => `${table}: ${files.join(", ")}`);

describe("# one owner per table (SQL writes in relayer/)", function () {
  let seeded: string;

  before(async function () {
    seeded = await mkdtemp(path.join(tmpdir(), "vf-owners-"));
    const files: Record<string, string> = {
      "relayer/orders/store.ts":
        "export const add = `INSERT INTO orders (id) VALUES ($1)\n" +
        "  ON CONFLICT (id) DO UPDATE SET id = EXCLUDED.id`;\n" +
        "export const lock = `SELECT * FROM orders FOR UPDATE`;\n" +
        "export const lockKey = `SELECT * FROM orders FOR NO KEY UPDATE`;\n",
      "relayer/billing/service.ts":
        "// UPDATE orders is the store's: this comment is no write\n" +
        "export const paid = `UPDATE orders SET paid = true -- DELETE FROM invoices\n`;\n" +
        "export const note = 'update orders when paid';\n",
      "relayer/billing/archive.ts":
        "const table = 'invoices';\nexport const purge = `DELETE FROM ${table} WHERE old`;\n",
      // The keyword in one piece, the table in the template it is spliced into.
      "relayer/billing/split.ts":
        "const insert = 'INSERT INTO';\n" +
        "export const add = `${insert} invoices (id) VALUES ($1)`;\n" +
        "export const drop = 'DELETE FROM ' + 'invoices';\n",
      // The other spellings of a write to `orders`: ONLY, upper case, schema, quotes, MERGE, TRUNCATE.
      "relayer/ledger/only.ts": "export const settle = `UPDATE ONLY Orders SET paid = true`;\n",
      "relayer/ledger/schema.ts":
        "export const add = `INSERT INTO public.orders (id) VALUES (1)`;\n",
      "relayer/ledger/quoted.ts": 'export const del = `DELETE FROM "orders" WHERE id = 1`;\n',
      "relayer/ledger/merge.ts": "export const sync = `MERGE INTO orders o USING x ON true`;\n",
      "relayer/ledger/truncate.ts": "export const reset = `TRUNCATE TABLE orders`;\n",
    };
    for (const [name, text] of Object.entries(files)) {
      await mkdir(path.dirname(path.join(seeded, name)), { recursive: true });
      await writeFile(path.join(seeded, name), text);
    }
  });

  after(async function () {
    await rm(seeded, { recursive: true, force: true });
  });

  it("should find each table of the relayer written from one file", async function () {
    const writers = await tableWriters(REPO);
    expect(shared(writers)).to.deep.equal([]);
    // The scan sees the repositories' writes (it is not vacuous).
    expect(writers.get("workflow_executions")).to.deep.equal(["relayer/executions/store.ts"]);
    expect(writers.get("workflow_schedules")).to.deep.equal(["relayer/workflows/schedules.ts"]);
    expect(writers.get("auth_replay")).to.deep.equal(["relayer/auth/replay.ts"]);
    expect(writers.has(UNSEEN)).to.equal(false);
  });

  it("should refuse a table written from two files, in any spelling of the write", async function () {
    const writers = await tableWriters(seeded);
    expect(writers.get("orders")).to.deep.equal([
      "relayer/billing/service.ts",
      "relayer/ledger/merge.ts",
      "relayer/ledger/only.ts",
      "relayer/ledger/quoted.ts",
      "relayer/ledger/schema.ts",
      "relayer/ledger/truncate.ts",
      "relayer/orders/store.ts",
    ]);
  });

  it("should refuse a write whose table is not in the statement's literal", async function () {
    const writers = await tableWriters(seeded);
    // Spliced in, concatenated, or the keyword spliced into the template holding the table.
    expect(writers.get(UNSEEN)).to.deep.equal([
      "relayer/billing/archive.ts",
      "relayer/billing/split.ts",
    ]);
    expect(writers.has("invoices")).to.equal(false);
  });
});
