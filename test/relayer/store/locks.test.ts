import { expect } from "chai";
import { openStore, type Store } from "../../../relayer/store/index.ts";
import { databaseLocks, processLocks, type NamedLocks } from "../../../relayer/store/locks.ts";
import { createTestDatabase, type TestDatabase } from "../../fixtures/postgres.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Runs `holders` concurrently, each holding `names(i)` for a few event-loop turns, and returns the
 * intervals each held its lock (start, end order of events).
 */
async function overlaps(
  locksOf: (i: number) => NamedLocks,
  names: (i: number) => string[],
  holders: number,
): Promise<{ maxInside: number; order: number[] }> {
  let inside = 0;
  let maxInside = 0;
  const order: number[] = [];
  await Promise.all(
    Array.from({ length: holders }, (_, i) =>
      locksOf(i).hold(names(i), async () => {
        inside++;
        maxInside = Math.max(maxInside, inside);
        order.push(i);
        await sleep(5);
        inside--;
      }),
    ),
  );
  return { maxInside, order };
}

describe("# named locks (pool sequencer)", function () {
  this.timeout(60_000);

  describe("# in one process", function () {
    it("should run holders of one name one at a time, in arrival order", async function () {
      const locks = processLocks();
      const { maxInside, order } = await overlaps(
        () => locks,
        () => ["pool:a"],
        10,
      );
      expect(maxInside).to.equal(1);
      expect(order).to.deep.equal([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    });

    it("should let holders of different names run at the same time", async function () {
      const locks = processLocks();
      const { maxInside } = await overlaps(
        () => locks,
        (i) => [`pool:${i}`],
        5,
      );
      expect(maxInside).to.equal(5);
    });

    it("should not deadlock holders of overlapping sets asked in opposite orders", async function () {
      const locks = processLocks();
      const { maxInside } = await overlaps(
        () => locks,
        (i) => (i % 2 ? ["pool:a", "pool:b"] : ["pool:b", "pool:a"]),
        8,
      );
      expect(maxInside).to.equal(1);
    });

    it("should release the lock when the holder throws", async function () {
      const locks = processLocks();
      let error: unknown;
      await locks
        .hold(["pool:x"], async () => {
          throw new Error("boom");
        })
        .catch((e: unknown) => (error = e));
      expect((error as Error).message).to.equal("boom");
      expect(await locks.hold(["pool:x"], async () => "next")).to.equal("next");
    });
  });

  describe("# across processes on PostgreSQL", function () {
    let database: TestDatabase;
    const stores: Store[] = [];

    before(async function () {
      database = await createTestDatabase("locks");
      // Two stores, two connection pools: two server sessions, as two worker processes have.
      for (let i = 0; i < 2; i++)
        stores.push(await openStore({ databaseUrl: database.url, dataDir: "memory://" }));
    });
    after(async function () {
      for (const store of stores) await store.close();
      await database?.drop();
    });

    it("should make a holder on another connection pool wait for the lock", async function () {
      const [a, b] = stores.map((s) => databaseLocks(s));
      const { maxInside } = await overlaps(
        (i) => (i % 2 ? a! : b!),
        () => ["pool:31337:0xpair"],
        6,
      );
      expect(maxInside).to.equal(1);
    });

    it("should hold the lock on the server while the holder runs, and release it after", async function () {
      const locks = databaseLocks(stores[0]!);
      const key = "pool:31338:0xother";
      const held = () =>
        stores[1]!
          .query<{ n: string }>(
            "SELECT count(*)::text AS n FROM pg_locks WHERE locktype = 'advisory' AND objid = (hashtextextended($1, 0) & 4294967295)::oid",
            [key],
          )
          .then(([r]) => Number(r!.n));
      let during = -1;
      await locks.hold([key], async () => {
        during = await held();
      });
      expect(during).to.equal(1);
      expect(await held()).to.equal(0);
    });

    it("should release a dead session's lock (the server drops it with the connection)", async function () {
      const store = await openStore({ databaseUrl: database.url, dataDir: "memory://" });
      const locks = databaseLocks(store);
      const key = "pool:1:0xdead";
      let entered!: () => void;
      let finish!: () => void;
      const inside = new Promise<void>((r) => (entered = r));
      const holding = locks
        .hold([key], async () => {
          entered();
          await new Promise<void>((r) => (finish = r));
        })
        .catch(() => undefined);
      await inside;
      // The "process" dies: its connections are terminated by the server.
      await stores[1]!.query(
        "SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND objid = (hashtextextended($1, 0) & 4294967295)::oid",
        [key],
      );
      const started = Date.now();
      expect(await databaseLocks(stores[0]!).hold([key], async () => "taken")).to.equal("taken");
      expect(Date.now() - started).to.be.lessThan(10_000);
      finish();
      await holding;
      await store.close().catch(() => undefined);
    });
  });

  it("should use only the process's queues on PGlite", async function () {
    const store = await openStore({ dataDir: "memory://" });
    try {
      const locks = databaseLocks(store);
      const { maxInside } = await overlaps(
        () => locks,
        () => ["pool:p"],
        4,
      );
      expect(maxInside).to.equal(1);
      // The holder can use the store (no transaction is held open on PGlite's one connection).
      expect(
        await locks.hold(
          ["pool:p"],
          async () => (await store.query<{ v: number }>("SELECT 1 AS v"))[0]!.v,
        ),
      ).to.equal(1);
    } finally {
      await store.close();
    }
  });
});
