import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import { startChildRelayer, type ChildRelayer } from "../../fixtures/child.ts";
import { createApiKey } from "../../../relayer/auth/keys.ts";
import { signedHeaders } from "../../../relayer/auth/hmac.ts";
import { openStore, type Store } from "../../../relayer/store/index.ts";
import { migrate } from "../../../relayer/store/migrate.ts";
import { createTestDatabase } from "../../fixtures/platform.ts";

const PROBE = path.join(import.meta.dirname, "probe-extension.ts");

describe("# two relayer processes on one PostgreSQL", function () {
  this.timeout(120_000);
  let drop: () => Promise<void>;
  let store: Store;
  let children: ChildRelayer[] = [];
  const dataDirs: string[] = [];
  const masterKey = randomBytes(32);
  const bootstrap = {
    key: "vfk_bootstrap_multi",
    secret: `vfs_${randomBytes(24).toString("hex")}`,
  };

  before(async () => {
    const db = await createTestDatabase("multi");
    drop = db.drop;
    store = await openStore({ databaseUrl: db.url, dataDir: "unused" });
    await store.exec(
      "CREATE TABLE probe_submissions (id serial PRIMARY KEY, name text, pid int);" +
        "CREATE TABLE probe_runs (job_id uuid NOT NULL, pid int NOT NULL);",
    );
    const env = async () => {
      const dataDir = await mkdtemp(path.join(os.tmpdir(), "vf-multi-"));
      dataDirs.push(dataDir);
      return {
        DATABASE_URL: db.url,
        DATA_DIR: dataDir,
        PORT: "0",
        LOG_LEVEL: "warn",
        NODE_ENV: "test",
        VERIFLOW_MASTER_KEY: masterKey.toString("hex"),
        VERIFLOW_API_KEY: bootstrap.key,
        VERIFLOW_SIGNING_SECRET: bootstrap.secret,
        VERIFLOW_TIER: "enterprise",
      };
    };
    // Both start at once: migrations and the bootstrap key must not collide.
    children = await Promise.all([
      startChildRelayer(await env(), { extension: PROBE }),
      startChildRelayer(await env(), { extension: PROBE }),
    ]);
    await migrate(store); // already applied by the children: nothing left to do
  });

  after(async () => {
    for (const child of children) child.process.kill("SIGTERM");
    await Promise.all(children.map((c) => c.exited));
    await store?.close();
    await drop?.();
    for (const dir of dataDirs) await rm(dir, { recursive: true, force: true });
  });

  function submit(child: ChildRelayer, headers: Record<string, string>, body: string) {
    return fetch(`${child.url}/probe/submit`, {
      method: "POST",
      headers: { "Content-Type": "application/json", ...headers },
      body,
    });
  }

  it("should have applied each migration once and the bootstrap key once", async () => {
    const migrations = await store.query<{ version: number; n: number }>(
      "SELECT version, count(*)::int AS n FROM schema_migrations GROUP BY version",
    );
    expect(migrations.length).to.be.greaterThan(0);
    expect(migrations.every((m) => m.n === 1)).to.equal(true);
    const keys = await store.query("SELECT key FROM api_keys WHERE key = $1", [bootstrap.key]);
    expect(keys).to.have.length(1);
  });

  it("should refuse in one process a signature already accepted by the other", async () => {
    const body = JSON.stringify({ name: "replay" });
    const headers = signedHeaders(bootstrap.key, bootstrap.secret, body);
    const first = await submit(children[0]!, headers, body);
    expect(first.status).to.equal(202);
    const second = await submit(children[1]!, headers, body);
    expect(second.status).to.equal(401);
    expect(((await second.json()) as { error: string }).error).to.equal("AUTH_REPLAYED_SIGNATURE");

    // Sent to both at the same moment: exactly one is accepted.
    const again = signedHeaders(bootstrap.key, bootstrap.secret, body);
    const racing = await Promise.all(children.map((c) => submit(c, again, body)));
    expect(racing.map((r) => r.status).sort()).to.deep.equal([202, 401]);
    const rows = await store.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM probe_submissions WHERE name = 'replay'",
    );
    expect(rows[0]!.n).to.equal(2);
  });

  it("should share one rate limit between the processes", async () => {
    const { record, secret } = await createApiKey(store, masterKey, { tier: "free" });
    // Keep the 30 requests inside one rate window (waiting, not asserting on time).
    while (Date.now() % 60_000 > 50_000) await new Promise((r) => setTimeout(r, 500));
    const body = JSON.stringify({ name: "rate" });
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    const responses = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        submit(
          children[i % 2]!,
          signedHeaders(record.key, secret, body, String(Date.now() + i)),
          body,
        ),
      ),
    );
    for (const res of responses) {
      statuses.push(res.status);
      if (res.status === 429) {
        retryAfter = res.headers.get("retry-after");
        expect(((await res.json()) as { error: string }).error).to.equal("RATE_LIMITED");
      }
    }
    expect(statuses.filter((s) => s === 202)).to.have.length(20);
    expect(statuses.filter((s) => s === 429)).to.have.length(10);
    expect(Number(retryAfter)).to.be.within(1, 60);
    const rows = await store.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM probe_submissions WHERE name = 'rate'",
    );
    expect(rows[0]!.n).to.equal(20);
  });

  it("should run every queued job exactly once across both processes", async () => {
    const body = (i: number) => JSON.stringify({ name: `job-${i}` });
    const total = 120;
    const responses = await Promise.all(
      Array.from({ length: total }, (_, i) =>
        submit(
          children[i % 2]!,
          signedHeaders(bootstrap.key, bootstrap.secret, body(i), String(Date.now() + i)),
          body(i),
        ),
      ),
    );
    expect(responses.map((r) => r.status).every((s) => s === 202)).to.equal(true);
    const jobIds = await Promise.all(
      responses.map(async (r) => ((await r.json()) as { job_id: string }).job_id),
    );
    // Wait until pg-boss reports every job completed.
    for (let i = 0; i < 600; i++) {
      const [done] = await store.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM pgboss.job WHERE id = ANY($1::uuid[]) AND state = 'completed'",
        [jobIds],
      );
      if (done!.n === total) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const runs = await store.query<{ job_id: string; pid: number }>(
      "SELECT job_id, pid FROM probe_runs WHERE job_id = ANY($1::uuid[])",
      [jobIds],
    );
    expect(runs).to.have.length(total);
    expect(new Set(runs.map((r) => r.job_id)).size).to.equal(total);
    const pids = new Set(runs.map((r) => r.pid));
    expect([...pids].every((pid) => children.some((c) => c.pid === pid))).to.equal(true);
  });

  it("should stop gracefully on SIGTERM", async () => {
    const child = children.pop()!;
    child.process.kill("SIGTERM");
    expect(await child.exited).to.equal(0);
    // The other process keeps serving.
    const res = await fetch(`${children[0]!.url}/healthz`);
    expect(res.status).to.equal(200);
  });
});
