import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import {
  admissionBatcher,
  admitSignedRequests,
  type AdmissionRequest,
} from "../../../relayer/limits/admission.ts";
import { RATE_WINDOW_MS } from "../../../relayer/limits/rate-limit.ts";
import { openStore, type QueryOptions, type Store } from "../../../relayer/store/index.ts";
import { migrate } from "../../../relayer/store/migrate.ts";
import { createTestDatabase } from "../../fixtures/platform.ts";

const BACKENDS = ["pglite", "postgres"] as const;
/** 30 s into a rate window: Retry-After is 30. */
const NOW = 1_800_000_000_000 - (1_800_000_000_000 % RATE_WINDOW_MS) + 30_000;

for (const backend of BACKENDS) {
  describe(`# batched admission of signed requests (${backend})`, function () {
    this.timeout(60_000);
    let dataDir: string;
    let drop: (() => Promise<void>) | undefined;
    let store: Store;

    before(async () => {
      dataDir = await mkdtemp(path.join(os.tmpdir(), "vf-admission-"));
      let databaseUrl: string | undefined;
      if (backend === "postgres") ({ url: databaseUrl, drop } = await createTestDatabase("admit"));
      store = await openStore({ databaseUrl, dataDir });
      await migrate(store);
    });
    after(async () => {
      await store?.close();
      await drop?.();
      await rm(dataDir, { recursive: true, force: true });
    });

    let n = 0;
    const request = (keyId: string, limit: number, signature = `sig-${n++}`): AdmissionRequest => ({
      keyId,
      signature,
      timestampMs: NOW,
      limit,
    });
    const replayRecords = async (keyId: string) =>
      (
        await store.query<{ signature: string }>(
          "SELECT signature FROM auth_replay WHERE key_id = $1 ORDER BY signature",
          [keyId],
        )
      ).map((r) => r.signature);
    const counter = async (keyId: string) =>
      (
        await store.query<{ count: number }>(
          "SELECT count FROM rate_limit_counters WHERE key_id = $1",
          [keyId],
        )
      )[0]?.count;

    it("should admit every fresh request of a batch with its own remaining count, in arrival order", async () => {
      const admissions = await admitSignedRequests(
        store,
        [request("k-a", 10), request("k-b", 5), request("k-a", 10), request("k-a", 10)],
        NOW,
      );
      expect(admissions).to.deep.equal([
        ...[9, 4, 8, 7].map((remaining, i) => ({
          fresh: true,
          rate: {
            allowed: true,
            limit: i === 1 ? 5 : 10,
            remaining,
            resetAt: NOW - 30_000 + RATE_WINDOW_MS,
            retryAfterSeconds: 30,
          },
        })),
      ]);
      expect(await counter("k-a")).to.equal(3);
      expect(await counter("k-b")).to.equal(1);
      // The next batch continues the same window's count.
      const [next] = await admitSignedRequests(store, [request("k-a", 10)], NOW);
      expect(next).to.deep.include({ fresh: true });
      expect(next!.fresh && next!.rate.remaining).to.equal(6);
    });

    it("should refuse a replay inside a batch and one recorded earlier, writing nothing for them", async () => {
      await admitSignedRequests(store, [request("k-r", 10, "used")], NOW);
      const admissions = await admitSignedRequests(
        store,
        [request("k-r", 10, "twice"), request("k-r", 10, "used"), request("k-r", 10, "twice")],
        NOW,
      );
      expect(admissions.map((a) => a.fresh)).to.deep.equal([true, false, false]);
      expect(await replayRecords("k-r")).to.deep.equal(["twice", "used"]);
      // Only the two fresh signatures were counted.
      expect(await counter("k-r")).to.equal(2);
    });

    it("should refuse the requests of a batch beyond the key's limit and keep no replay record for them", async () => {
      const admissions = await admitSignedRequests(
        store,
        [
          request("k-l", 2, "l1"),
          request("k-l", 2, "l2"),
          request("k-other", 2, "o1"),
          request("k-l", 2, "l3"),
        ],
        NOW,
      );
      expect(admissions.map((a) => a.fresh && a.rate.allowed)).to.deep.equal([
        true,
        true,
        true,
        false,
      ]);
      expect(admissions[3]).to.deep.equal({
        fresh: true,
        rate: {
          allowed: false,
          limit: 2,
          remaining: 0,
          resetAt: NOW - 30_000 + RATE_WINDOW_MS,
          retryAfterSeconds: 30,
        },
      });
      expect(await counter("k-l")).to.equal(2);
      expect(await replayRecords("k-l")).to.deep.equal(["l1", "l2"]);
      // A full window refuses a whole batch; the refused signature is accepted once the window turns.
      const full = await admitSignedRequests(store, [request("k-l", 2, "l3")], NOW);
      expect(full[0]).to.deep.include({ fresh: true });
      expect(full[0]!.fresh && full[0]!.rate.allowed).to.equal(false);
      expect(await replayRecords("k-l")).to.deep.equal(["l1", "l2"]);
      const later = await admitSignedRequests(
        store,
        [request("k-l", 2, "l3")],
        NOW + RATE_WINDOW_MS,
      );
      expect(later[0]!.fresh && later[0]!.rate.allowed).to.equal(true);
      expect(await replayRecords("k-l")).to.deep.equal(["l1", "l2", "l3"]);
    });

    it("should coalesce the admissions arriving while one is in flight into one batch", async () => {
      const batches: number[] = [];
      const counting: Store = {
        ...store,
        queryAsyncCommit: async <T>(sql: string, params?: unknown[], options?: QueryOptions) => {
          if (sql.includes("INSERT INTO auth_replay"))
            batches.push((params![0] as string[]).length);
          return store.queryAsyncCommit<T>(sql, params, options);
        },
      };
      const admissions = admissionBatcher(counting, () => NOW);
      // Two arrive in one turn of the event loop and share the first statement; four arrive
      // while it runs and share the next.
      const first = [0, 1].map((i) => admissions.submit(request("k-c", 5, `c${i}`)));
      await new Promise((resolve) => setImmediate(resolve));
      const later = [2, 3, 4, 5].map((i) => admissions.submit(request("k-c", 5, `c${i}`)));
      const results = await Promise.all([...first, ...later]);
      expect(batches).to.deep.equal([2, 4]);
      expect(results.map((a) => a.fresh && a.rate.allowed)).to.deep.equal([
        true,
        true,
        true,
        true,
        true,
        false,
      ]);
      expect(await counter("k-c")).to.equal(5);
      expect(await replayRecords("k-c")).to.deep.equal(["c0", "c1", "c2", "c3", "c4"]);
    });
  });
}
