import { cp, mkdtemp, readdir, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import { Wallet } from "ethers";
import {
  listAudit,
  listedRecord,
  listLinks,
  pruneAuditRecords,
  verifyAuditChain,
  type AuditRecord,
} from "../../../relayer/analysis/audit.ts";
import { storeAnalyses, type FinishedAnalysis } from "../../../relayer/analysis/store.ts";
import {
  legacyEntryHash,
  verifyKeyAudit,
  type AnchoredHead,
} from "../../../relayer/audit/index.ts";
import { migrate, openStore, type Store } from "../../../relayer/store/index.ts";
import { MIGRATIONS_DIR } from "../../../relayer/store/migrate.ts";

const T0 = Date.parse("2026-01-01T00:00:00Z");

const record = (at: number): AuditRecord => ({
  timestamp: new Date(at).toISOString(),
  model: "standin-general-1",
  input_sha256: "cd".repeat(32),
  output_token_count: 5,
  compliance_checks: { clm_violations: 0, uben_compliance: "passed", pii_leakage: false },
  cost_breakdown: { provider_tokens: 12, platform_units: 0.012 },
});

function finished(apiKeyId: string, id: string, at: number): FinishedAnalysis {
  return {
    record: record(at),
    row: {
      id,
      api_key_id: apiKeyId,
      workflow_id: null,
      model: "general",
      model_version: "standin-general-1",
      route_reason: "short",
      fallback_reason: null,
      redactions: [],
      compliance_checks: record(at).compliance_checks,
      alerts: [],
      output_blob: "v1.out",
      input_blob: "v1.in",
      created_at: new Date(at).toISOString(),
    },
  };
}

/**
 * A database whose audit chain began before migration 402: its records keep their v1 hashes
 * (anchors commit to them; rows are append-only), carry no digest, and only precede the records
 * written after it. The operator's verification, pruning and the key's auditor handle both.
 */
describe("# text-analysis audit records written before the digest (v1)", function () {
  this.timeout(60_000);
  const operator = Wallet.createRandom().address;
  let dir: string;
  let store: Store;
  const legacyHashes: string[] = [];

  before(async function () {
    dir = await mkdtemp(path.join(os.tmpdir(), "vf-audit-legacy-"));
    const before402 = path.join(dir, "migrations");
    await cp(MIGRATIONS_DIR, before402, { recursive: true });
    for (const file of await readdir(before402))
      if (Number(file.slice(0, 3)) >= 402) await rm(path.join(before402, file));
    store = await openStore({ dataDir: path.join(dir, "data") });
    await migrate(store, before402);
    // Three records as the v1 writer chained them: key_a, key_b, key_a.
    let prev = "0".repeat(64);
    for (const [i, key] of ["key_a", "key_b", "key_a"].entries()) {
      const seq = i + 1;
      const content = {
        seq,
        id: `aud_${seq}`,
        api_key_id: key,
        analysis_id: `an_legacy_${seq}`,
        record: record(T0 + seq * 1000),
      };
      const hash = legacyEntryHash(prev, content);
      await store.query(
        `INSERT INTO analysis_audit (seq, id, api_key_id, analysis_id, record, prev_hash, hash, recorded_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
        [
          seq,
          content.id,
          key,
          content.analysis_id,
          JSON.stringify(content.record),
          prev,
          hash,
          content.record.timestamp,
        ],
      );
      legacyHashes.push(hash);
      prev = hash;
    }
    await store.query("UPDATE analysis_audit_head SET seq = 3, hash = $1", [prev]);
    expect(await migrate(store)).to.include(402);
    // Two records after the migration, chained through digests from the v1 head.
    await storeAnalyses(store, null, [
      finished("key_a", "an_new_4", T0 + 4000),
      finished("key_b", "an_new_5", T0 + 5000),
    ]);
  });
  after(async function () {
    await store?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const anchorsAt = async (...seqs: number[]): Promise<AnchoredHead[]> => {
    const { links } = await listLinks(store, { max: 1000, fromSeq: 1 });
    return seqs.map((seq) => ({
      seq,
      hash: links.find((l) => l.seq === seq)!.hash,
      anchoredBy: operator,
      blockNumber: seq,
    }));
  };

  it("should keep the v1 hashes, chain the new records through digests, and verify both", async function () {
    const page = await listLinks(store, { max: 1000 });
    expect(page.links.map((l) => [l.seq, l.digest === null])).to.deep.equal([
      [1, true],
      [2, true],
      [3, true],
      [4, false],
      [5, false],
    ]);
    expect(page.links.slice(0, 3).map((l) => l.hash)).to.deep.equal(legacyHashes);
    expect(await verifyAuditChain(store)).to.include({ ok: true, checked: 5 });
  });

  it("should tell a key's auditor what the links show of v1 records, and what they cannot", async function () {
    const { links, checkpoint } = await listLinks(store, { max: 1000 });
    const records = (await listAudit(store, { apiKeyId: "key_a", limit: 100 })).map(listedRecord);
    const result = verifyKeyAudit({
      records,
      links,
      checkpoint,
      anchors: await anchorsAt(3, 5),
      operator,
      kept: [{ audit_id: "aud_1", analysis_id: "an_legacy_1" }],
    });
    const status = Object.fromEntries(result.checks.map((c) => [c.id, c.status]));
    expect(status).to.deep.equal({
      links: "pass",
      anchors: "pass",
      // Anchored itself: the v1 hash recomputes from the record and is the anchored head.
      "record[aud_3]": "pass",
      // The v1 links after it cannot be recomputed without the other key's content.
      "record[aud_1]": "unverifiable",
      "record[aud_4]": "pass",
      "kept[aud_1]": "unverifiable",
    });
    expect(result.checks.find((c) => c.id === "links")!.reason).to.match(/3 v1 links/);

    // A v1 record altered: its content no longer hashes to its v1 hash.
    const altered = records.map((r) => (r.seq === 3 ? { ...r, output_token_count: 6 } : r));
    const forged = verifyKeyAudit({
      records: altered,
      links,
      checkpoint,
      anchors: await anchorsAt(3, 5),
      operator,
    });
    expect(forged.checks.find((c) => c.id === "record[aud_3]")).to.deep.include({
      status: "fail",
      reason: "the record's content does not hash to its v1 hash: it was altered",
    });
  });

  it("should refuse a record without a digest after the migration, and catch one slipped in", async function () {
    let refused = "";
    await store
      .query(
        `INSERT INTO analysis_audit (seq, id, api_key_id, analysis_id, record, prev_hash, hash, recorded_at)
         VALUES (6, 'aud_6', 'key_a', 'an_x', '{}', 'x', 'y', now())`,
      )
      .catch((err: Error) => (refused = err.message));
    expect(refused).to.match(/analysis_audit_digest/);

    const [head] = await store.query<{ seq: string; hash: string }>(
      "SELECT seq, hash FROM analysis_audit_head",
    );
    const content = {
      seq: 6,
      id: "aud_6",
      api_key_id: "key_a",
      analysis_id: "an_x",
      record: record(T0 + 6000),
    };
    const hash = legacyEntryHash(head!.hash, content);
    await store.exec("ALTER TABLE analysis_audit DROP CONSTRAINT analysis_audit_digest");
    try {
      await store.query(
        `INSERT INTO analysis_audit (seq, id, api_key_id, analysis_id, record, prev_hash, hash, recorded_at)
         VALUES (6, 'aud_6', 'key_a', 'an_x', $1, $2, $3, now())`,
        [JSON.stringify(content.record), head!.hash, hash],
      );
      await store.query("UPDATE analysis_audit_head SET seq = 6, hash = $1", [hash]);
      expect(await verifyAuditChain(store)).to.deep.include({
        ok: false,
        brokenAt: 6,
        problem: "record 6 has no digest after records that have one",
      });
      const { links, checkpoint } = await listLinks(store, { max: 1000 });
      const key = verifyKeyAudit({ records: [], links, checkpoint, anchors: [], operator });
      expect(key.checks[0]).to.deep.equal({
        id: "links",
        status: "fail",
        reason: "link 6 has no digest after links that have one",
      });
    } finally {
      await store.query("SELECT set_config('veriflow.audit_prune', 'on', false)");
      await store.query("DELETE FROM analysis_audit WHERE seq = 6");
      await store.query("SELECT set_config('veriflow.audit_prune', '', false)");
      await store.query("UPDATE analysis_audit_head SET seq = $1, hash = $2", [
        head!.seq,
        head!.hash,
      ]);
    }
    expect((await verifyAuditChain(store)).ok).to.equal(true);
  });

  it("should prune v1 records up to an anchored head and keep the rest verifiable from the checkpoint", async function () {
    await store.query(
      `INSERT INTO analysis_audit_anchors (seq, hash, chain_id, registry, tx_hash, block_number, batch_id)
       VALUES (3, $1, 1, '0x0', '0x0', 1, 1)`,
      [legacyHashes[2]],
    );
    const removed = await store.transaction((tx) => pruneAuditRecords(tx, new Date(T0 + 3500)));
    expect(removed).to.deep.equal(["aud_1", "aud_2", "aud_3"]);
    expect(await verifyAuditChain(store)).to.include({ ok: true, checked: 2 });
    const { links, checkpoint } = await listLinks(store, { max: 1000 });
    expect(checkpoint).to.deep.equal({ seq: 3, hash: legacyHashes[2] });
    expect(links.map((l) => l.seq)).to.deep.equal([4, 5]);
    const records = (await listAudit(store, { apiKeyId: "key_a", limit: 100 })).map(listedRecord);
    const result = verifyKeyAudit({
      records,
      links,
      checkpoint,
      anchors: [
        { seq: 3, hash: legacyHashes[2]!, anchoredBy: operator, blockNumber: 1 },
        ...(await anchorsAt(5)),
      ],
      operator,
      kept: [
        { audit_id: "aud_1", analysis_id: "an_legacy_1" },
        { audit_id: "aud_4", analysis_id: "an_new_4" },
      ],
    });
    expect(result.checks.map((c) => [c.id, c.status])).to.deep.equal([
      ["links", "pass"],
      ["anchors", "pass"],
      ["record[aud_4]", "pass"],
      ["kept[aud_1]", "unverifiable"],
      ["kept[aud_4]", "pass"],
    ]);
    // A checkpoint the operator never anchored is refused.
    const moved = verifyKeyAudit({
      records,
      links,
      checkpoint,
      anchors: await anchorsAt(5),
      operator,
    });
    expect(moved.checks.find((c) => c.id === "anchors")!.reason).to.match(
      /the checkpoint at 3 is not a head the operator anchored/,
    );
  });
});
