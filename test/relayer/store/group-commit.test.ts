import { expect } from "chai";
import { GroupCommit, type Outcome } from "../../../relayer/store/group-commit.ts";
import { openStore, type Store } from "../../../relayer/store/index.ts";

describe("# group commit", function () {
  this.timeout(60_000);
  let store: Store;

  before(async () => {
    store = await openStore({ dataDir: "memory://" });
    await store.exec("CREATE TABLE gc_items (n int PRIMARY KEY)");
    // A deferred foreign key: an insert without its parent fails at COMMIT, not before.
    await store.exec(`CREATE TABLE gc_parents (n int PRIMARY KEY);
      CREATE TABLE gc_children (n int PRIMARY KEY
        REFERENCES gc_parents DEFERRABLE INITIALLY DEFERRED)`);
  });
  after(async () => {
    await store?.close();
  });

  const rows = async () =>
    (await store.query<{ n: number }>("SELECT n FROM gc_items ORDER BY n")).map((r) => r.n);

  it("should write the items arriving during a commit together, each resolved after its commit", async () => {
    const batches: number[][] = [];
    const group = new GroupCommit<number, number>(store, async (tx, items) => {
      batches.push(items);
      for (const n of items) await tx.query("INSERT INTO gc_items VALUES ($1)", [n]);
      return items.map((n): Outcome<number> => ({ ok: true, value: n * 10 }));
    });
    // Two submitted in one turn of the event loop share the first transaction; the four
    // submitted while it commits share the next.
    const first = [1, 2].map((n) => group.submit(n));
    await new Promise((resolve) => setImmediate(resolve));
    expect(batches).to.deep.equal([[1, 2]]);
    const later = [3, 4, 5, 6].map((n) => group.submit(n));
    const results = await Promise.all([...first, ...later]);
    expect(results).to.deep.equal([10, 20, 30, 40, 50, 60]);
    expect(batches).to.deep.equal([
      [1, 2],
      [3, 4, 5, 6],
    ]);
    expect(await rows()).to.deep.equal([1, 2, 3, 4, 5, 6]);
  });

  it("should run an item submitted alone without waiting for anything else", async () => {
    const batches: number[][] = [];
    const group = new GroupCommit<number, number>(store, async (tx, items) => {
      batches.push(items);
      for (const n of items) await tx.query("INSERT INTO gc_items VALUES ($1)", [n]);
      return items.map((n): Outcome<number> => ({ ok: true, value: n }));
    });
    expect(await group.submit(7)).to.equal(7);
    expect(await group.submit(8)).to.equal(8);
    expect(batches).to.deep.equal([[7], [8]]);
    await store.exec("DELETE FROM gc_items WHERE n IN (7, 8)");
  });

  it("should refuse one item alone and keep the others of its batch", async () => {
    const group = new GroupCommit<number, number>(store, async (tx, items) =>
      Promise.all(
        items.map(async (n): Promise<Outcome<number>> => {
          if (n === 13) return { ok: false, error: new Error("refused 13") };
          await tx.query("INSERT INTO gc_items VALUES ($1)", [n]);
          return { ok: true, value: n };
        }),
      ),
    );
    const settled = await Promise.allSettled([11, 12, 13, 14].map((n) => group.submit(n)));
    expect(settled.map((s) => s.status)).to.deep.equal([
      "fulfilled",
      "fulfilled",
      "rejected",
      "fulfilled",
    ]);
    expect((settled[2] as PromiseRejectedResult).reason.message).to.equal("refused 13");
    expect(await rows()).to.deep.equal([1, 2, 3, 4, 5, 6, 11, 12, 14]);
  });

  it("should retry each item alone when its batch's transaction fails, so one bad item fails alone", async () => {
    const group = new GroupCommit<number, number>(store, async (tx, items) => {
      for (const n of items) await tx.query("INSERT INTO gc_items VALUES ($1)", [n]);
      return items.map((n): Outcome<number> => ({ ok: true, value: n }));
    });
    // 1 already exists: its insert fails the batch [21, 1, 22] (after 20 committed alone).
    const settled = await Promise.allSettled([20, 21, 1, 22].map((n) => group.submit(n)));
    expect(settled.map((s) => s.status)).to.deep.equal([
      "fulfilled",
      "fulfilled",
      "rejected",
      "fulfilled",
    ]);
    expect(await rows()).to.deep.equal([1, 2, 3, 4, 5, 6, 11, 12, 14, 20, 21, 22]);
  });

  it("should fail every item of a batch whose commit fails, storing nothing of it", async () => {
    const group = new GroupCommit<number, number>(store, async (tx, items) => {
      for (const n of items) await tx.query("INSERT INTO gc_children VALUES ($1)", [n]);
      return items.map((n): Outcome<number> => ({ ok: true, value: n }));
    });
    await store.query("INSERT INTO gc_parents VALUES (30)");
    // 30 commits alone; [31, 32, 33] fails at COMMIT (no parents), then each fails alone too.
    const settled = await Promise.allSettled([30, 31, 32, 33].map((n) => group.submit(n)));
    expect(settled.map((s) => s.status)).to.deep.equal([
      "fulfilled",
      "rejected",
      "rejected",
      "rejected",
    ]);
    for (const s of settled.slice(1)) {
      expect((s as PromiseRejectedResult).reason.message).to.match(/foreign key/);
    }
    const children = await store.query<{ n: number }>("SELECT n FROM gc_children ORDER BY n");
    expect(children.map((r) => r.n)).to.deep.equal([30]);
  });
});
