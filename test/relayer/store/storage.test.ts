import { mkdtemp, rm, writeFile, mkdir } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import { createLogger } from "../../../relayer/http/logging.ts";
import { openQueue, type Queue } from "../../../relayer/queue/index.ts";
import { openStore, preparedName, type Store } from "../../../relayer/store/index.ts";
import { MIGRATIONS_DIR, migrate, readMigrations } from "../../../relayer/store/migrate.ts";
import { purgeExpiredSignatures, recordSignature } from "../../../relayer/auth/replay.ts";
import { consumeRateLimit, purgeRateLimitWindows } from "../../../relayer/limits/rate-limit.ts";
import { createTestDatabase, eventually } from "../../fixtures/platform.ts";

const BACKENDS = ["pglite", "postgres"] as const;

for (const backend of BACKENDS) {
  describe(`# storage and queue (${backend})`, function () {
    this.timeout(60_000);
    let dataDir: string;
    let databaseUrl: string | undefined;
    let drop: (() => Promise<void>) | undefined;
    let store: Store;
    let queue: Queue;

    before(async () => {
      dataDir = await mkdtemp(path.join(os.tmpdir(), "vf-storage-"));
      if (backend === "postgres") {
        const db = await createTestDatabase("storage");
        databaseUrl = db.url;
        drop = db.drop;
      }
      store = await openStore({ databaseUrl, dataDir });
      await migrate(store);
      queue = await openQueue({ store, logger: createLogger("silent"), schedule: true });
    });

    after(async () => {
      await queue?.stop(2_000);
      await store?.close();
      await drop?.();
      await rm(dataDir, { recursive: true, force: true });
    });

    it("should report its backend", () => {
      expect(store.kind).to.equal(backend);
    });

    it("should run parameterised queries and parameterless scripts", async () => {
      await store.exec(
        "CREATE TABLE t_basic (id serial PRIMARY KEY, name text NOT NULL); CREATE INDEX ON t_basic (name);",
      );
      const inserted = await store.query<{ id: number; name: string }>(
        "INSERT INTO t_basic (name) VALUES ($1), ($2) RETURNING id, name",
        ["a", "b"],
      );
      expect(inserted.map((r) => r.name)).to.deep.equal(["a", "b"]);
      const rows = await store.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM t_basic WHERE name = $1",
        ["b"],
      );
      expect(rows).to.deep.equal([{ n: 1 }]);
    });

    it("should run a fixed statement as a prepared statement, in and out of transactions", async () => {
      await store.exec("CREATE TABLE t_prepared (id serial PRIMARY KEY, name text NOT NULL)");
      const insert = "INSERT INTO t_prepared (name) VALUES ($1) RETURNING id, name";
      const count = "SELECT count(*)::int AS n FROM t_prepared WHERE name LIKE $1";
      for (const name of ["p1", "p2", "p3"]) {
        const [row] = await store.query<{ name: string }>(insert, [name], { prepare: true });
        expect(row!.name).to.equal(name);
      }
      await store.queryAsyncCommit(insert, ["p4"], { prepare: true });
      await store.transaction(async (tx) => {
        await tx.query(insert, ["p5"], { prepare: true });
        expect(await tx.query(count, ["p%"], { prepare: true })).to.deep.equal([{ n: 5 }]);
      });
      await store
        .transaction(async (tx) => {
          await tx.query(insert, ["rolled-back"], { prepare: true });
          throw new Error("roll back");
        })
        .catch(() => {});
      expect(await store.query(count, ["%"], { prepare: true })).to.deep.equal([{ n: 5 }]);
    });

    if (backend === "postgres") {
      it("should parse a prepared statement once per connection and keep it under a name derived from its text", async () => {
        const single = await openStore({ databaseUrl, dataDir, maxConnections: 1 });
        try {
          const sql = "SELECT $1::int + 1 AS n";
          for (let i = 0; i < 3; i++) {
            expect(await single.query(sql, [i], { prepare: true })).to.deep.equal([{ n: i + 1 }]);
          }
          const prepared = await single.query<{ name: string; statement: string }>(
            "SELECT name, statement FROM pg_prepared_statements",
          );
          expect(prepared).to.deep.equal([{ name: preparedName(sql), statement: sql }]);
          expect(preparedName(sql)).to.not.equal(preparedName("SELECT $1::int + 2 AS n"));
        } finally {
          await single.close();
        }
      });
    }

    it("should commit a transaction and roll back a failed one completely", async () => {
      await store.exec("CREATE TABLE t_tx (id int PRIMARY KEY)");
      const result = await store.transaction(async (tx) => {
        await tx.query("INSERT INTO t_tx VALUES (1)");
        // A nested transaction joins the outer one.
        await tx.transaction((inner) => inner.query("INSERT INTO t_tx VALUES (2)"));
        return "done";
      });
      expect(result).to.equal("done");
      let failure: Error | undefined;
      await store
        .transaction(async (tx) => {
          await tx.query("INSERT INTO t_tx VALUES (3)");
          await tx.query("INSERT INTO t_tx VALUES (1)"); // duplicate key
        })
        .catch((err: Error) => (failure = err));
      expect(failure?.message).to.match(/duplicate key/);
      const rows = await store.query<{ id: number }>("SELECT id FROM t_tx ORDER BY id");
      expect(rows.map((r) => r.id)).to.deep.equal([1, 2]);
      // The connection is usable after the failure.
      expect(await store.query("SELECT 1 AS one")).to.deep.equal([{ one: 1 }]);
    });

    it("should call a listener once per committed transaction that notifies, never for a rolled-back one", async () => {
      let calls = 0;
      const stop = await store.listen("vf_test_channel", () => calls++);
      await store.transaction(async (tx) => {
        await tx.query("SELECT pg_notify('vf_test_channel', '')");
        await tx.query("SELECT pg_notify('vf_test_channel', '')");
      });
      await eventually(async () => (calls === 1 ? true : undefined), "the notification");
      await store
        .transaction(async (tx) => {
          await tx.query("SELECT pg_notify('vf_test_channel', '')");
          throw new Error("rolled back");
        })
        .catch(() => {});
      await store.query("SELECT pg_notify('vf_other_channel', '')");
      await stop();
      await store.query("SELECT pg_notify('vf_test_channel', '')");
      // A round trip after each: a notification would have been delivered by now.
      await store.query("SELECT 1");
      expect(calls).to.equal(1);
    });

    it("should record applied migrations once and apply nothing the second time", async () => {
      const files = await readMigrations(MIGRATIONS_DIR);
      const applied = await store.query<{ version: number }>(
        "SELECT version FROM schema_migrations ORDER BY version",
      );
      expect(applied.map((r) => r.version)).to.deep.equal(files.map((f) => f.version));
      expect(await migrate(store)).to.deep.equal([]);
    });

    it("should apply concurrent migration runs exactly once", async () => {
      const dir = await mkdtemp(path.join(os.tmpdir(), "vf-migrations-"));
      await mkdir(dir, { recursive: true });
      await writeFile(
        path.join(dir, "900_counter.sql"),
        "CREATE TABLE t_once (id int); INSERT INTO t_once VALUES (1);",
      );
      const runs = await Promise.all([
        migrate(store, dir),
        migrate(store, dir),
        migrate(store, dir),
      ]);
      expect(runs.flat()).to.deep.equal([900]);
      expect(await store.query("SELECT count(*)::int AS n FROM t_once")).to.deep.equal([{ n: 1 }]);
      // An applied migration edited afterwards is refused.
      await writeFile(path.join(dir, "900_counter.sql"), "CREATE TABLE t_once (id bigint);");
      let refused: Error | undefined;
      await migrate(store, dir).catch((err: Error) => (refused = err));
      expect(refused?.message).to.match(/900_counter\.sql was changed after it was applied/);
      await rm(dir, { recursive: true, force: true });
    });

    it("should roll back a failing migration and name the file", async () => {
      const dir = await mkdtemp(path.join(os.tmpdir(), "vf-migrations-"));
      await writeFile(path.join(dir, "910_good.sql"), "CREATE TABLE t_good (id int);");
      await writeFile(
        path.join(dir, "911_bad.sql"),
        "CREATE TABLE t_bad (id int); SELECT nonsense FROM nowhere;",
      );
      let failure: Error | undefined;
      await migrate(store, dir).catch((err: Error) => (failure = err));
      expect(failure?.message).to.match(/migration 911_bad\.sql failed/);
      const tables = await store.query(
        "SELECT table_name FROM information_schema.tables WHERE table_name IN ('t_good', 't_bad')",
      );
      expect(tables).to.deep.equal([]);
      await rm(dir, { recursive: true, force: true });
    });

    it("should refuse two migrations sharing a number", async () => {
      const dir = await mkdtemp(path.join(os.tmpdir(), "vf-migrations-"));
      await writeFile(path.join(dir, "120_a.sql"), "SELECT 1;");
      await writeFile(path.join(dir, "120_b.sql"), "SELECT 1;");
      let failure: Error | undefined;
      await readMigrations(dir).catch((err: Error) => (failure = err));
      expect(failure?.message).to.match(/share the number 120/);
      await rm(dir, { recursive: true, force: true });
    });

    it("should queue a job sent inside a transaction only when it commits", async () => {
      await store.exec("CREATE TABLE t_jobs (id int PRIMARY KEY)");
      await queue.ensureQueue("test.tx");
      const count = async () =>
        (
          await store.query<{ n: number }>(
            "SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'test.tx'",
          )
        )[0]!.n;
      await store.transaction(async (tx) => {
        await tx.query("INSERT INTO t_jobs VALUES (1)");
        await queue.send("test.tx", { id: 1 }, { tx });
      });
      expect(await count()).to.equal(1);
      await store
        .transaction(async (tx) => {
          await queue.send("test.tx", { id: 2 }, { tx });
          throw new Error("abandon");
        })
        .catch(() => {});
      expect(await count()).to.equal(1);
    });

    it("should send inside a transaction to a queue this process has not used yet", async () => {
      // On PGlite the transaction holds the only connection: pg-boss must not look the new queue
      // up on its own connection (it used to wait for the transaction forever).
      const count = async (name: string) =>
        (
          await store.query<{ n: number }>(
            "SELECT count(*)::int AS n FROM pgboss.job WHERE name = $1",
            [name],
          )
        )[0]!.n;
      await store
        .transaction(async (tx) => {
          await queue.send("test.fresh", { id: 1 }, { tx });
          throw new Error("abandon");
        })
        .catch(() => {});
      expect(await count("test.fresh")).to.equal(0);
      const id = await store.transaction((tx) => queue.send("test.fresh", { id: 2 }, { tx }));
      expect(await count("test.fresh")).to.equal(1);
      const [job] = await queue.boss.findJobs<{ id: number }>("test.fresh", { id: id! });
      expect(job?.data).to.deep.equal({ id: 2 });
      // And outside a transaction afterwards (the queue exists, pg-boss's cache knows it).
      await queue.send("test.fresh", { id: 3 });
      expect(await count("test.fresh")).to.equal(2);
    });

    it("should hand out pg-boss's own insert for embedding, inserting jobs exactly as sendMany does", async () => {
      const name = "test.embedded";
      await queue.ensureQueue(name);
      const statement = await queue.insertStatement(name);
      expect(statement, "pg-boss's insert is embeddable").to.be.a("string");
      const viaBoss = await queue.sendMany(name, [{ n: 1 }]);
      const [viaStatement] = await store.query<{ id: string }>(
        `WITH jobs AS (${statement}) SELECT id FROM jobs`,
        [JSON.stringify([{ data: { n: 2 } }])],
      );
      const columns = `name, priority, state, retry_limit, retry_delay, retry_backoff,
        retry_delay_max, expire_seconds, deletion_seconds, policy, dead_letter,
        (keep_until - start_after) AS retention, data`;
      const [a] = await store.query(`SELECT ${columns} FROM pgboss.job WHERE id = $1`, [
        viaBoss[0],
      ]);
      const [b] = await store.query(`SELECT ${columns} FROM pgboss.job WHERE id = $1`, [
        viaStatement!.id,
      ]);
      expect({ ...b, data: a!.data }).to.deep.equal(a);
      expect(b!.data).to.deep.equal({ n: 2 });
      // Both are worked like any job.
      const seen: number[] = [];
      await queue.work<{ n: number }>(name, async (data) => {
        seen.push(data.n);
      });
      await eventually(async () => (seen.length === 2 ? true : undefined), "both jobs worked");
      expect(seen.sort()).to.deep.equal([1, 2]);
    });

    it("should wake this process's idle worker when told jobs committed, instead of waiting for its next poll", async function () {
      // A poll interval far beyond this test's timeout: only the wake-up can get the jobs worked.
      this.timeout(15_000);
      const name = "test.wake";
      const seen: string[] = [];
      await queue.work<{ via: string }>(
        name,
        async (data) => {
          seen.push(data.via);
        },
        { pollingIntervalSeconds: 120 },
      );
      await store.transaction(async (tx) => {
        await queue.send(name, { via: "transaction" }, { tx });
      });
      queue.wake(name);
      await eventually(async () => (seen.length === 1 ? true : undefined), "the woken worker");
      // `send` outside a transaction wakes the worker itself.
      await queue.send(name, { via: "send" });
      await eventually(async () => (seen.length === 2 ? true : undefined), "the second job");
      expect(seen).to.deep.equal(["transaction", "send"]);
    });

    it("should put every worker of a work call on a backlog at once, woken by the jobs found, not by their polls", async function () {
      // Polls far beyond this test's timeout: one wake-up, then only the workers waking each other.
      this.timeout(15_000);
      const name = "test.backlog";
      let running = 0;
      let most = 0;
      const done: number[] = [];
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      await queue.work<{ n: number }>(
        name,
        async (data) => {
          most = Math.max(most, ++running);
          await gate;
          running--;
          done.push(data.n);
        },
        { localConcurrency: 3, pollingIntervalSeconds: 120 },
      );
      await store.transaction(async (tx) => {
        await queue.sendMany(
          name,
          [1, 2, 3, 4, 5].map((n) => ({ n })),
          { tx },
        );
      });
      queue.wake(name);
      await eventually(async () => (running === 3 ? true : undefined), "three jobs at once");
      release();
      // The two left are picked up as the first three finish.
      await eventually(async () => (done.length === 5 ? true : undefined), "the whole backlog");
      expect(most).to.equal(3);
      expect(done.sort()).to.deep.equal([1, 2, 3, 4, 5]);
    });

    it("should poll an idle work call with its first worker only, the others rarely", async () => {
      const name = "test.idle";
      await queue.work(name, async () => {}, { localConcurrency: 4, pollingIntervalSeconds: 0.5 });
      const polls = queue.boss
        .getWipData()
        .filter((w) => w.name === name)
        .map((w) => w.options.pollingIntervalSeconds);
      expect(polls.sort((a, b) => a! - b!)).to.deep.equal([0.5, 10, 10, 10]);
    });

    it("should work a job, retry it after a failure and record its output", async () => {
      const attempts: number[] = [];
      await queue.ensureQueue("test.retry", { retryLimit: 2, retryDelay: 0, retryBackoff: false });
      await queue.work<{ n: number }>(
        "test.retry",
        async (data) => {
          attempts.push(data.n);
          if (attempts.length === 1) throw new Error("transient");
          return { doubled: data.n * 2 };
        },
        { pollingIntervalSeconds: 0.5 },
      );
      const id = (await queue.send("test.retry", { n: 21 }))!;
      const job = await eventually(async () => {
        const [found] = await queue.boss.findJobs<{ n: number }>("test.retry", { id });
        return found?.state === "completed" ? found : undefined;
      }, "the job to complete");
      expect(attempts).to.deep.equal([21, 21]);
      expect(job.retryCount).to.equal(1);
      expect(job.output).to.deep.equal({ doubled: 42 });
    });

    /**
     * Counts the wake-ups of each queue's idle workers (a worker told to fetch with no job in
     * hand; a worker that found a job telling itself to fetch again once done is not one).
     */
    function countWakeUps(): { readonly counts: Map<string, number>; restore(): void } {
      const { boss } = queue;
      const notify = boss.notifyWorker.bind(boss);
      const counts = new Map<string, number>();
      boss.notifyWorker = (id: string) => {
        const worker = boss.getWipData().find((w) => w.id === id);
        if (worker?.count === 0) counts.set(worker.name, (counts.get(worker.name) ?? 0) + 1);
        notify(id);
      };
      return {
        counts,
        restore: () => {
          boss.notifyWorker = notify;
        },
      };
    }

    /** Runs a worker of queue `name` whose every attempt fails; the attempts' start times. */
    async function failingWorker(name: string, pollingIntervalSeconds: number): Promise<number[]> {
      const attempts: number[] = [];
      await queue.work(
        name,
        async () => {
          attempts.push(Date.now());
          throw new Error("fails every time");
        },
        { pollingIntervalSeconds },
      );
      return attempts;
    }

    const failedJob = (name: string, id: string) =>
      eventually(async () => {
        const job = await queue.boss.getJobById(name, id);
        return job?.state === "failed" ? job : undefined;
      }, `job ${id} to fail for good`);

    it("should try a failed job of a slowly polling worker again at its backoff's due time, not at its poll", async function () {
      // A poll far beyond this test's timeout: only the wake-ups at the retries' due times can
      // get the three attempts made.
      this.timeout(20_000);
      const name = "test.retry-wake";
      await queue.ensureQueue(name); // the default policy: 3 attempts, backoff from 1 s
      const attempts = await failingWorker(name, 120);
      const wakeUps = countWakeUps();
      try {
        const id = (await queue.boss.send(name, {}))!;
        queue.wake(name);
        const job = await failedJob(name, id);
        expect(job.retryCount).to.equal(2);
        expect(attempts).to.have.length(3);
        // Each retry by its latest due time (2 s, then 4 s after the failure) and a fetch.
        expect(attempts[1]! - attempts[0]!).to.be.below(2_000 + 1_500);
        expect(attempts[2]! - attempts[1]!).to.be.below(4_000 + 1_500);
        // The first wake-up is this test's; then one per retry.
        expect(wakeUps.counts.get(name)).to.equal(3);
      } finally {
        wakeUps.restore();
      }
    });

    it("should leave to the poll a retry due no sooner than it, and wake nothing after a job's last attempt", async function () {
      this.timeout(20_000);
      const options = { retryLimit: 1, retryDelay: 1, retryBackoff: false };
      // Due 1 s after the failure, polled every second: the poll finds it.
      const polled = "test.retry-polled";
      await queue.ensureQueue(polled, options);
      const polledAttempts = await failingWorker(polled, 1);
      // Polled every 120 s: woken once for its retry, not after its last attempt.
      const woken = "test.retry-last";
      await queue.ensureQueue(woken, options);
      const wokenAttempts = await failingWorker(woken, 120);
      const wakeUps = countWakeUps();
      try {
        const polledId = (await queue.boss.send(polled, {}))!;
        const wokenId = (await queue.boss.send(woken, {}))!;
        queue.wake(woken);
        await failedJob(polled, polledId);
        await failedJob(woken, wokenId);
        expect(polledAttempts).to.have.length(2);
        expect(wokenAttempts).to.have.length(2);
        // Past the due time a wake-up armed by the last attempt would have had.
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        expect(wakeUps.counts.get(polled) ?? 0).to.equal(0);
        // This test's, then the retry's.
        expect(wakeUps.counts.get(woken)).to.equal(2);
      } finally {
        wakeUps.restore();
      }
    });

    it("should purge replay records past their window and rate windows older than the last", async () => {
      const now = Date.UTC(2030, 0, 1, 12, 0, 30);
      expect(await recordSignature(store, "key_purge", "a".repeat(64), now - 400_000)).to.equal(
        true,
      );
      expect(await recordSignature(store, "key_purge", "b".repeat(64), now)).to.equal(true);
      expect(await recordSignature(store, "key_purge", "b".repeat(64), now)).to.equal(false);
      await consumeRateLimit(store, "key_purge", 10, now - 120_000);
      await consumeRateLimit(store, "key_purge", 10, now - 60_000);
      await consumeRateLimit(store, "key_purge", 10, now);
      expect(await purgeExpiredSignatures(store, now)).to.equal(1);
      expect(await purgeRateLimitWindows(store, now)).to.equal(1);
      const left = await store.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM rate_limit_counters WHERE key_id = 'key_purge'",
      );
      expect(left[0]!.n).to.equal(2);
    });

    it("should keep a cron schedule in the database", async () => {
      await queue.schedule(
        "test.cron",
        "0 9 * * 1",
        { workflow: "payroll" },
        { tz: "America/New_York", key: "payroll" },
      );
      const schedules = await queue.boss.getSchedules("test.cron");
      expect(schedules).to.have.length(1);
      expect(schedules[0]).to.include({
        name: "test.cron",
        key: "payroll",
        cron: "0 9 * * 1",
        timezone: "America/New_York",
      });
      await queue.unschedule("test.cron", "payroll");
      expect(await queue.boss.getSchedules("test.cron")).to.deep.equal([]);
    });
  });
}

describe("# storage on PGlite across restarts", function () {
  this.timeout(60_000);

  it("should keep data under DATA_DIR after closing and reopening", async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), "vf-persist-"));
    const first = await openStore({ dataDir });
    await migrate(first);
    await first.exec("CREATE TABLE t_persist (v text); INSERT INTO t_persist VALUES ('kept');");
    await first.close();
    const second = await openStore({ dataDir });
    expect(await migrate(second)).to.deep.equal([]);
    expect(await second.query("SELECT v FROM t_persist")).to.deep.equal([{ v: "kept" }]);
    await second.close();
    await rm(dataDir, { recursive: true, force: true });
  });
});

describe("# listening on PostgreSQL across a lost connection", function () {
  this.timeout(60_000);

  it("should listen again after its connection was lost and call the listener for what it missed", async () => {
    const database = await createTestDatabase("listen");
    const store = await openStore({ databaseUrl: database.url, dataDir: "memory://" });
    try {
      let calls = 0;
      const stop = await store.listen("vf_lost", () => calls++);
      const listening = () =>
        store.query<{ pid: number }>(
          "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'veriflow-listen'",
        );
      const [first] = await listening();
      await store.query("SELECT pg_terminate_backend($1)", [first!.pid]);
      // Once connected again it reports what it may have missed, and hears new notifications.
      await eventually(async () => (calls === 1 ? true : undefined), "the catch-up call");
      const [second] = await listening();
      expect(second!.pid).to.not.equal(first!.pid);
      await store.query("SELECT pg_notify('vf_lost', '')");
      await eventually(async () => (calls === 2 ? true : undefined), "the next notification");
      await stop();
      expect(await listening()).to.deep.equal([]);
    } finally {
      await store.close();
      await database.drop();
    }
  });

  it("should refuse to listen when the database cannot be reached", async () => {
    const database = await createTestDatabase("listen_gone");
    const store = await openStore({ databaseUrl: database.url, dataDir: "memory://" });
    await database.drop();
    let failure: Error | undefined;
    await store.listen("vf_gone", () => {}).catch((err: Error) => (failure = err));
    expect(failure?.message).to.match(/does not exist/);
    await store.close();
  });
});
