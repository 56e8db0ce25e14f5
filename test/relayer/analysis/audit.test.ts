import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import { signedHeaders } from "../../../relayer/auth/hmac.ts";
import type { TextAnalysis } from "../../../relayer/analysis/index.ts";
import {
  auditParams,
  chainAfter,
  insertAuditsStatement,
  type AuditEntry,
} from "../../../relayer/analysis/audit.ts";
import { linkHash, recordDigest } from "../../../relayer/audit/index.ts";
import { anchorIfDue } from "../../../relayer/analysis/worker.ts";
import { createTestDatabase, type TestDatabase } from "../../fixtures/postgres.ts";
import {
  ANALYSIS_PROVIDER_KEY,
  openAnalysisWorld,
  textAnalysisEntry,
  type AnalysisWorld,
} from "../../fixtures/analysis.ts";
import { startChildRelayer, type ChildRelayer } from "../../fixtures/child.ts";
import {
  BIASED_MARKER,
  startAnalysisProvider,
  type AnalysisProviderStandIn,
} from "../../fixtures/standins/analysis-provider.ts";

describe("# text-analysis audit chain", function () {
  this.timeout(120_000);
  let now = Date.parse("2026-01-10T12:00:00Z");
  let world: AnalysisWorld;
  let analysis: TextAnalysis;

  before(async function () {
    world = await openAnalysisWorld({
      label: "analysis-audit",
      clock: () => now,
      textAnalysis: { audit: { data_retention: "1h", anchor_interval: "10m" } },
    });
    // The relayer's own; the tests drive its scheduled work by hand.
    analysis = world.relayer.ctx.analysis!;
  });
  after(async function () {
    await world?.close();
  });

  it("should anchor the chain's head in ProofRegistry on its interval and verify every record from the chain", async function () {
    for (let i = 0; i < 3; i++)
      expect((await world.post({ text: `Memo ${i}` })).status).to.equal(200);
    expect(await anchorIfDue(analysis, now)).to.equal(3);
    // Within the interval nothing more is anchored, even after new records.
    expect((await world.post({ text: "Memo 3" })).status).to.equal(200);
    expect(await anchorIfDue(analysis, now + 60_000)).to.equal(null);
    expect(await anchorIfDue(analysis, now + 11 * 60_000)).to.equal(4);
    const verified = await analysis.verify();
    expect(verified).to.include({ ok: true, checked: 4, anchorsVerified: 2 });
    const [head] = await world.relayer.ctx.store.query<{ hash: string }>(
      "SELECT hash FROM analysis_audit_head",
    );
    const batch = (await analysis.target.registry.getFunction("batchOf")(`0x${head!.hash}`)) as {
      count: bigint;
    };
    expect(batch.count).to.equal(4n);
  });

  it("should refuse to update or delete an audit record", async function () {
    const store = world.relayer.ctx.store;
    let failure = "";
    await store
      .query("UPDATE analysis_audit SET record = '{}' WHERE seq = 1")
      .catch((e: Error) => (failure = e.message));
    expect(failure).to.match(/append-only/);
    await store
      .query("DELETE FROM analysis_audit WHERE seq = 1")
      .catch((e: Error) => (failure = e.message));
    expect(failure).to.match(/only through retention pruning/);
  });

  it("should detect a record altered or removed behind the trigger's back", async function () {
    const store = world.relayer.ctx.store;
    const [original] = await store.query<{ record: unknown }>(
      "SELECT record FROM analysis_audit WHERE seq = 2",
    );
    await store.exec("ALTER TABLE analysis_audit DISABLE TRIGGER analysis_audit_append_only");
    try {
      await store.query(
        "UPDATE analysis_audit SET record = jsonb_set(record, '{output_token_count}', '999') WHERE seq = 2",
      );
      expect(await analysis.verify()).to.include({ ok: false, brokenAt: 2 });
      await store.query("UPDATE analysis_audit SET record = $1 WHERE seq = 2", [
        JSON.stringify(original!.record),
      ]);
      expect((await analysis.verify()).ok).to.equal(true);
      // The digest the links list, changed alone: the content and the hashes no longer agree.
      const [{ digest } = { digest: "" }] = await store.query<{ digest: string }>(
        "SELECT digest FROM analysis_audit WHERE seq = 2",
      );
      await store.query("UPDATE analysis_audit SET digest = $1 WHERE seq = 2", ["ab".repeat(32)]);
      expect(await analysis.verify()).to.include({ ok: false, brokenAt: 2 });
      await store.query("UPDATE analysis_audit SET digest = $1 WHERE seq = 2", [digest]);
      expect((await analysis.verify()).ok).to.equal(true);
      // The time the listing's from/to and the retention pruning go by, outside the digest:
      // backdated, the record would leave a listing by dates and be pruned years early.
      await store.query(
        "UPDATE analysis_audit SET recorded_at = recorded_at - interval '8 years' WHERE seq = 2",
      );
      const backdated = await analysis.verify();
      expect(backdated).to.include({ ok: false, brokenAt: 2 });
      expect(backdated.problem).to.match(/recorded_at is not its timestamp/);
      await store.query(
        "UPDATE analysis_audit SET recorded_at = recorded_at + interval '8 years' WHERE seq = 2",
      );
      expect((await analysis.verify()).ok).to.equal(true);
      const [row] = await store.query<Record<string, unknown>>(
        "SELECT * FROM analysis_audit WHERE seq = 3",
      );
      await store.query("DELETE FROM analysis_audit WHERE seq = 3");
      const removed = await analysis.verify();
      expect(removed).to.include({ ok: false, brokenAt: 3 });
      expect(removed.problem).to.match(/missing/);
      await store.query(
        "INSERT INTO analysis_audit (seq, id, api_key_id, analysis_id, record, prev_hash, digest, hash, recorded_at) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9)",
        [
          row!.seq,
          row!.id,
          row!.api_key_id,
          row!.analysis_id,
          JSON.stringify(row!.record),
          row!.prev_hash,
          row!.digest,
          row!.hash,
          row!.recorded_at,
        ],
      );
      // A record inserted after the head (its digest and hash computed as the relayer would),
      // the head left alone; then the head's hash changed alone.
      const [head] = await store.query<{ seq: string; hash: string }>(
        "SELECT seq, hash FROM analysis_audit_head",
      );
      const [forged] = chainAfter({ seq: Number(head!.seq), hash: head!.hash }, [
        {
          apiKeyId: String(row!.api_key_id),
          analysisId: "an_01JA0000000000000000000000",
          record: row!.record as AuditEntry["record"],
        },
      ]);
      await store.query(insertAuditsStatement(1), auditParams([forged!]));
      const inserted = await analysis.verify();
      expect(inserted).to.include({ ok: false, brokenAt: Number(head!.seq) + 1 });
      expect(inserted.problem).to.match(/beyond the head .*inserted after it/);
      await store.query("DELETE FROM analysis_audit WHERE seq = $1", [forged!.seq]);
      await store.query("UPDATE analysis_audit_head SET hash = $1", ["ab".repeat(32)]);
      const moved = await analysis.verify();
      expect(moved).to.include({ ok: false, brokenAt: Number(head!.seq) });
      expect(moved.problem).to.match(/the head's hash is not record/);
      await store.query("UPDATE analysis_audit_head SET hash = $1", [head!.hash]);
    } finally {
      await store.exec("ALTER TABLE analysis_audit ENABLE TRIGGER analysis_audit_append_only");
    }
    expect((await analysis.verify()).ok).to.equal(true);
  });

  it("should detect from the registry's anchors what the database's own anchor rows no longer show", async function () {
    const store = world.relayer.ctx.store;
    // As stored: seq is a bigint, which the driver reads as a string.
    type Row = Omit<AuditEntry, "seq"> & { seq: string };
    const rows = await store.query<Row>("SELECT * FROM analysis_audit ORDER BY seq");
    const anchors = await store.query<Record<string, unknown>>(
      "SELECT * FROM analysis_audit_anchors",
    );
    const [head] = await store.query<{ seq: string; hash: string }>(
      "SELECT seq, hash FROM analysis_audit_head",
    );
    expect(rows.map((r) => Number(r.seq))).to.deep.equal([1, 2, 3, 4]);
    expect(anchors.map((a) => Number(a.seq)).sort()).to.deep.equal([3, 4]);
    const setHead = (seq: number | string, hash: string) =>
      store.query("UPDATE analysis_audit_head SET seq = $1, hash = $2", [seq, hash]);
    const setCheckpoint = (seq: number | string, hash: string) =>
      store.query("UPDATE analysis_audit_checkpoint SET seq = $1, hash = $2", [seq, hash]);
    const restore = async () => {
      await store.query("DELETE FROM analysis_audit");
      for (const r of rows)
        await store.query(
          "INSERT INTO analysis_audit (seq, id, api_key_id, analysis_id, record, prev_hash, digest, hash, recorded_at) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9)",
          [
            r.seq,
            r.id,
            r.api_key_id,
            r.analysis_id,
            JSON.stringify(r.record),
            r.prev_hash,
            r.digest,
            r.hash,
            r.record.timestamp,
          ],
        );
      await store.query("DELETE FROM analysis_audit_anchors");
      for (const a of anchors)
        await store.query(
          `INSERT INTO analysis_audit_anchors (${Object.keys(a).join(", ")}) VALUES (${Object.keys(
            a,
          )
            .map((_, i) => `$${i + 1}`)
            .join(", ")})`,
          Object.values(a),
        );
      await setHead(head!.seq, head!.hash);
      await setCheckpoint(0, "0".repeat(64));
    };
    await store.exec("ALTER TABLE analysis_audit DISABLE TRIGGER analysis_audit_append_only");
    try {
      // Record 2 altered, every later hash recomputed, the head moved, the anchor rows removed:
      // the database is consistent with itself, the registry's anchored head at 3 is not.
      let prev = rows[0]!.hash;
      for (const r of rows.slice(1)) {
        const record = Number(r.seq) === 2 ? { ...r.record, output_token_count: 999 } : r.record;
        const digest = recordDigest({
          seq: Number(r.seq),
          id: r.id,
          api_key_id: r.api_key_id,
          analysis_id: r.analysis_id,
          record,
        });
        const hash = linkHash(prev, digest);
        await store.query(
          "UPDATE analysis_audit SET record = $1, prev_hash = $2, digest = $3, hash = $4 WHERE seq = $5",
          [JSON.stringify(record), prev, digest, hash, r.seq],
        );
        prev = hash;
      }
      await setHead(4, prev);
      await store.query("DELETE FROM analysis_audit_anchors");
      const rewritten = await analysis.verify();
      expect(rewritten).to.include({ ok: false, brokenAt: 3 });
      expect(rewritten.problem).to.match(/registry at 3 does not match/);
      await restore();
      expect((await analysis.verify()).ok).to.equal(true);

      // The tail removed below the last anchored head, with its anchor row and the head moved back.
      await store.query("DELETE FROM analysis_audit WHERE seq = 4");
      await store.query("DELETE FROM analysis_audit_anchors WHERE seq = 4");
      await setHead(3, rows[2]!.hash);
      const truncated = await analysis.verify();
      expect(truncated).to.include({ ok: false, brokenAt: 4 });
      expect(truncated.problem).to.match(/beyond the last record 3: records were removed/);
      await restore();

      // The first records removed as if pruned, the checkpoint moved to a head never anchored.
      await store.query("SELECT set_config('veriflow.audit_prune', 'on', false)");
      await store.query("DELETE FROM analysis_audit WHERE seq <= 2");
      await setCheckpoint(2, rows[1]!.hash);
      const moved = await analysis.verify();
      expect(moved).to.include({ ok: false, brokenAt: 2 });
      expect(moved.problem).to.match(/checkpoint at 2 is not a head anchored/);
      await restore();
    } finally {
      // Whatever failed above, the next tests find the chain as it was.
      await restore();
      await store.query("SELECT set_config('veriflow.audit_prune', '', false)");
      await store.exec("ALTER TABLE analysis_audit ENABLE TRIGGER analysis_audit_append_only");
    }
    expect(await analysis.verify()).to.include({ ok: true, checked: 4, anchorsVerified: 2 });
  });

  it("should prune records past the retention up to an anchored head and keep the chain verifiable", async function () {
    const incidents = async () =>
      (
        await world.relayer.ctx.store.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM analysis_incidents",
        )
      )[0]!.n;
    expect((await world.post({ text: `${BIASED_MARKER} Old incident.` })).status).to.equal(422);
    expect(await incidents()).to.equal(1);
    now += 2 * 3_600_000;
    expect((await world.post({ text: `${BIASED_MARKER} Fresh incident.` })).status).to.equal(422);
    expect((await world.post({ text: "Fresh memo" })).status).to.equal(200);
    expect(await analysis.prune()).to.equal(4);
    const store = world.relayer.ctx.store;
    const seqs = (
      await store.query<{ seq: string }>("SELECT seq FROM analysis_audit ORDER BY seq")
    ).map((r) => Number(r.seq));
    expect(seqs).to.deep.equal([5]);
    expect(
      (await store.query<{ n: number }>("SELECT count(*)::int AS n FROM analyses"))[0]!.n,
    ).to.equal(1);
    const verified = await analysis.verify();
    expect(verified).to.include({ ok: true, checked: 1 });
    // The pruned prefix stays provable: the checkpoint is the anchored head at 4.
    const [checkpoint] = await store.query<{ seq: string }>(
      "SELECT seq FROM analysis_audit_checkpoint",
    );
    expect(Number(checkpoint!.seq)).to.equal(4);
    // The bias incidents past the retention go too (the SHA-256 of a refused text, kept no longer).
    expect(await incidents()).to.equal(1);
    // Nothing newer than the last anchor is pruned.
    now += 2 * 3_600_000;
    expect(await analysis.prune()).to.equal(0);
  });
});

describe("# text-analysis rate limit shared by two relayer processes on one PostgreSQL", function () {
  this.timeout(240_000);
  let db: TestDatabase;
  let provider: AnalysisProviderStandIn;
  const children: ChildRelayer[] = [];
  let dir: string;
  const bootstrap = {
    key: "vfk_bootstrap_analysis",
    secret: `vfs_${randomBytes(24).toString("hex")}`,
  };

  before(async function () {
    db = await createTestDatabase("analysis_limit");
    provider = await startAnalysisProvider({ apiKey: ANALYSIS_PROVIDER_KEY });
    dir = await mkdtemp(path.join(os.tmpdir(), "vf-analysis-limit-"));
    const file = path.join(dir, "integrations.json");
    await writeFile(
      file,
      JSON.stringify({
        text_analysis: textAnalysisEntry(provider.url, {
          rate_limit: { rpm: 60, burst: 5 },
          auth: { type: "api_key", key_vault: "env", credential_id: "STANDIN_ANALYSIS_KEY" },
        }),
      }),
    );
    const masterKey = randomBytes(32).toString("hex");
    const env = (n: number) => ({
      DATABASE_URL: db.url,
      DATA_DIR: path.join(dir, `data-${n}`),
      PORT: "0",
      LOG_LEVEL: "warn",
      NODE_ENV: "test",
      VERIFLOW_MASTER_KEY: masterKey,
      VERIFLOW_API_KEY: bootstrap.key,
      VERIFLOW_SIGNING_SECRET: bootstrap.secret,
      VERIFLOW_TIER: "enterprise",
      VERIFLOW_INTEGRATIONS: file,
      STANDIN_ANALYSIS_KEY: ANALYSIS_PROVIDER_KEY,
    });
    // One after the other: both run the migrations on start.
    children.push(await startChildRelayer(env(1)));
    children.push(await startChildRelayer(env(2)));
  });
  after(async function () {
    for (const child of children) child.process.kill("SIGTERM");
    await Promise.all(children.map((c) => c.exited));
    await provider?.close();
    await db?.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("should let one burst through across both processes, then answer 429 with Retry-After", async function () {
    expect(children[0]!.pid).to.not.equal(children[1]!.pid);
    const post = (child: ChildRelayer, i: number) => {
      const body = JSON.stringify({ text: `Burst ${i}` });
      return fetch(`${child.url}/v1/analysis`, {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          ...signedHeaders(bootstrap.key, bootstrap.secret, body, String(Date.now() + i)),
        },
        body,
      });
    };
    const started = Date.now();
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) => post(children[i % 2]!, i)),
    );
    const seconds = (Date.now() - started) / 1000;
    const ok = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status === 429);
    expect(ok.length + refused.length).to.equal(12);
    // Each process alone would let its own burst of 5 through (10 in all): one bucket lets 5,
    // plus what refilled at 1 per second while the requests ran.
    expect(ok.length).to.be.within(5, 5 + Math.floor(seconds));
    expect(ok.length).to.be.below(10);
    const answeredBy = (r: Response[]) => new Set(r.map((x) => results.indexOf(x) % 2));
    expect(answeredBy(refused).size, "both processes refuse").to.equal(2);
    expect(Number(refused[0]!.headers.get("Retry-After"))).to.be.within(1, 2);
    expect(((await refused[0]!.json()) as { error: string }).error).to.equal("RATE_LIMITED");
    expect(provider.hits.filter((h) => h.path === "/v1/chat/completions")).to.have.length(
      ok.length,
    );
  });
});
