import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import { openStore, type Store } from "../../../relayer/store/index.ts";
import { migrate } from "../../../relayer/store/migrate.ts";
import { lockActiveCounts } from "../../../relayer/executions/store.ts";
import { createTestDatabase } from "../../fixtures/platform.ts";

const BACKENDS = ["pglite", "postgres"] as const;

for (const backend of BACKENDS) {
  describe(`# active executions per key (${backend})`, function () {
    this.timeout(60_000);
    let dataDir: string;
    let databaseUrl: string | undefined;
    let drop: (() => Promise<void>) | undefined;
    let store: Store;

    before(async () => {
      dataDir = await mkdtemp(path.join(os.tmpdir(), "vf-active-"));
      if (backend === "postgres") ({ url: databaseUrl, drop } = await createTestDatabase("active"));
      store = await openStore({ databaseUrl, dataDir });
      await migrate(store);
    });
    after(async () => {
      await store?.close();
      await drop?.();
      await rm(dataDir, { recursive: true, force: true });
    });

    const insert = (rows: Array<[id: string, key: string, state: string]>) =>
      store.query(
        `INSERT INTO workflow_executions (id, api_key_id, name, state, workflow)
         SELECT id, key, 'w', state, '{}'::jsonb FROM unnest($1::text[], $2::text[], $3::text[]) AS r(id, key, state)`,
        [rows.map((r) => r[0]), rows.map((r) => r[1]), rows.map((r) => r[2])],
      );
    /** The triggers' counts beside a count of the executions themselves. */
    const counts = async () => {
      const kept = await store.query<{ api_key_id: string; active: number }>(
        "SELECT api_key_id, active FROM workflow_active_counts WHERE active > 0 ORDER BY api_key_id",
      );
      const counted = await store.query<{ api_key_id: string; active: number }>(
        `SELECT api_key_id, count(*)::int AS active FROM workflow_executions
          WHERE state IN ('queued', 'running') GROUP BY api_key_id ORDER BY api_key_id`,
      );
      expect(kept).to.deep.equal(counted);
      return Object.fromEntries(kept.map((r) => [r.api_key_id, r.active]));
    };

    it("should count queued and running executions per key through inserts, state changes and deletes", async () => {
      await insert([
        ["wf_a1", "k-a", "queued"],
        ["wf_a2", "k-a", "queued"],
        ["wf_a3", "k-a", "completed"],
        ["wf_b1", "k-b", "running"],
      ]);
      expect(await counts()).to.deep.equal({ "k-a": 2, "k-b": 1 });
      // queued → running stays active; running → completed and queued → cancelled leave.
      await store.query("UPDATE workflow_executions SET state = 'running' WHERE id = 'wf_a1'");
      expect(await counts()).to.deep.equal({ "k-a": 2, "k-b": 1 });
      await store.query(
        "UPDATE workflow_executions SET state = CASE id WHEN 'wf_a1' THEN 'completed' ELSE 'cancelled' END WHERE id IN ('wf_a1', 'wf_b1')",
      );
      expect(await counts()).to.deep.equal({ "k-a": 1 });
      // Back into an active state (a retried execution), a stage-only update, and deletes.
      await store.query("UPDATE workflow_executions SET state = 'queued' WHERE id = 'wf_a3'");
      await store.query("UPDATE workflow_executions SET stage = 'route' WHERE id = 'wf_a2'");
      expect(await counts()).to.deep.equal({ "k-a": 2 });
      await store.query("DELETE FROM workflow_executions WHERE id IN ('wf_a2', 'wf_b1')");
      expect(await counts()).to.deep.equal({ "k-a": 1 });
    });

    it("should leave the count unchanged when the statement changing executions rolls back", async () => {
      const before = await counts();
      await store
        .transaction(async (tx) => {
          await tx.query(
            "INSERT INTO workflow_executions (id, api_key_id, name, workflow) VALUES ('wf_x1', 'k-a', 'w', '{}')",
          );
          throw new Error("roll back");
        })
        .catch(() => {});
      expect(await counts()).to.deep.equal(before);
    });

    it("should lock the keys' counts and read them, starting a key without executions at zero", async () => {
      const active = await store.transaction((tx) => lockActiveCounts(tx, ["k-new", "k-a", "k-a"]));
      expect(Object.fromEntries(active)).to.deep.equal({ "k-a": 1, "k-new": 0 });
    });

    if (backend === "postgres") {
      it("should make a second submission transaction wait and read the count the first committed", async () => {
        let releaseFirst!: () => void;
        const firstHolds = new Promise<void>((resolve) => (releaseFirst = resolve));
        let firstLocked!: () => void;
        const locked = new Promise<void>((resolve) => (firstLocked = resolve));
        const first = store.transaction(async (tx) => {
          expect((await lockActiveCounts(tx, ["k-race"])).get("k-race")).to.equal(0);
          firstLocked();
          await firstHolds;
          await tx.query(
            "INSERT INTO workflow_executions (id, api_key_id, name, workflow) VALUES ('wf_r1', 'k-race', 'w', '{}')",
          );
        });
        await locked;
        const order: string[] = [];
        const second = store.transaction(async (tx) => {
          const active = await lockActiveCounts(tx, ["k-race"]);
          order.push("second read");
          return active.get("k-race");
        });
        // The second waits on the first's row lock (seen by the server) until the first commits.
        for (;;) {
          const [waiting] = await store.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM pg_stat_activity
              WHERE datname = current_database() AND wait_event_type = 'Lock'`,
          );
          if (waiting!.n === 1) break;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        order.push("first commits");
        releaseFirst();
        await first;
        expect(await second).to.equal(1);
        expect(order).to.deep.equal(["first commits", "second read"]);
      });
    }
  });
}
