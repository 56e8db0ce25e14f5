import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect } from "chai";

const REPO = path.resolve(import.meta.dirname, "../..");

/**
 * A write statement's table: INSERT INTO t, DELETE FROM t, UPDATE t (not the DO UPDATE of an
 * upsert nor a FOR [NO KEY] UPDATE lock). SQL keywords are upper case in this code base, so prose
 * ("update the count") is not a statement. A table spliced in (`${...}`) is reported as such: a
 * write whose table the scan cannot see has no owner either.
 */
const WRITE =
  /\b(?:INSERT\s+INTO|DELETE\s+FROM|(?<!\b(?:DO|FOR|KEY)\s+)UPDATE)\s+(\$\{|[a-z_][a-z0-9_.]*)/g;

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
      const table = match[1] === "${" ? "(spliced table name)" : match[1]!;
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
    expect(writers.has("(spliced table name)")).to.equal(false);
  });

  it("should refuse a table written from two files and a spliced table name", async function () {
    const writers = await tableWriters(seeded);
    expect(shared(writers)).to.deep.equal([
      "orders: relayer/billing/service.ts, relayer/orders/store.ts",
    ]);
    expect(writers.get("(spliced table name)")).to.deep.equal(["relayer/billing/archive.ts"]);
    expect(writers.has("invoices")).to.equal(false);
  });
});
