import { expect } from "chai";
import { verifyAuditChain, type AuditRecord } from "../../../relayer/analysis/audit.ts";
import type { EngineStore } from "../../../relayer/accounts/index.ts";
import {
  claimIdempotencyKeys,
  pruneAnalyses,
  releaseIdempotencyKey,
  storeAnalyses,
  takeTokens,
  type ClaimedKey,
  type FinishedAnalysis,
} from "../../../relayer/analysis/store.ts";
import { openStore, type Store } from "../../../relayer/store/index.ts";
import { openTestStore, type TestStore } from "../../fixtures/platform.ts";

const BACKENDS = ["pglite", "postgres"] as const;
const NOW = 1_800_000_000_000;

/** One claim alone in its batch. */
const claimIdempotencyKey = async (
  store: Store,
  claim: Parameters<typeof claimIdempotencyKeys>[1][number],
  expiresBefore: string,
  abandonedBefore: string,
) => (await claimIdempotencyKeys(store, [claim], expiresBefore, abandonedBefore))[0];
const DAY = 86_400_000;
/** 60 requests per minute: one token a second. */
const LIMIT = { rpm: 60, burst: 5 };

const record = (timestamp: string): AuditRecord => ({
  timestamp,
  model: "standin-general-1",
  input_sha256: "ab".repeat(32),
  output_token_count: 3,
  compliance_checks: { clm_violations: 0, uben_compliance: "passed", pii_leakage: false },
  cost_breakdown: { provider_tokens: 9, platform_units: 0.009 },
});

/** `n` analyses of key_a finished at NOW, labelled `label`. */
function finished(label: string, n: number): FinishedAnalysis[] {
  const timestamp = new Date(NOW).toISOString();
  return Array.from({ length: n }, (_, i) => ({
    record: record(timestamp),
    row: {
      id: `an_${label}_${i}`,
      api_key_id: "key_a",
      workflow_id: null,
      model: "general",
      model_version: "standin-general-1",
      route_reason: "short",
      fallback_reason: null,
      redactions: [{ type: "EMAIL", count: 1 }],
      compliance_checks: record(timestamp).compliance_checks,
      alerts: [],
      output_blob: `v1.out${i}`,
      input_blob: `v1.in${i}`,
      created_at: timestamp,
    },
  }));
}

for (const backend of BACKENDS) {
  describe(`# text-analysis storage (${backend})`, function () {
    this.timeout(60_000);
    let opened: TestStore;
    let store: Store;

    before(async () => {
      opened = await openTestStore(backend, "analysis_store");
      store = opened.store;
    });
    after(async () => {
      await opened?.close();
    });

    it("should grant a batch of requests only the tokens the bucket holds, and refill at the rate", async function () {
      const bucket = `bucket_${backend}_refill`;
      // A full bucket of 5 for 7 requests: the first 5 go, 2 wait a second.
      expect(await takeTokens(store, bucket, LIMIT, 7, NOW)).to.deep.equal({
        granted: 5,
        retryAfterSeconds: 1,
      });
      expect(await takeTokens(store, bucket, LIMIT, 1, NOW + 500)).to.deep.equal({
        granted: 0,
        retryAfterSeconds: 1,
      });
      // 2.5 s after the burst: 2 tokens, and half of the third.
      expect(await takeTokens(store, bucket, LIMIT, 3, NOW + 2_500)).to.deep.equal({
        granted: 2,
        retryAfterSeconds: 1,
      });
      // A process whose clock is behind the stored one refills nothing.
      expect((await takeTokens(store, bucket, LIMIT, 1, NOW + 1_000)).granted).to.equal(0);
      // Never more than the burst, however long the bucket rested.
      expect((await takeTokens(store, bucket, LIMIT, 9, NOW + 3_600_000)).granted).to.equal(5);
    });

    it("should answer a Retry-After of at most a day, in whole seconds, however slowly the bucket refills", async function () {
      for (const rpm of [1e-9, 1e-300, 5e-324]) {
        const bucket = `bucket_${backend}_slow_${rpm}`;
        expect((await takeTokens(store, bucket, { rpm, burst: 1 }, 1, NOW)).granted).to.equal(1);
        expect(
          await takeTokens(store, bucket, { rpm, burst: 1 }, 1, NOW),
          String(rpm),
        ).to.deep.equal({ granted: 0, retryAfterSeconds: 86_400 });
      }
    });

    it("should chain the records of batches of analyses in one sequence, each analysis naming its own record", async function () {
      // Without a head: the locking transaction; with the head it wrote: the single statement.
      const first = await storeAnalyses(store, null, finished("a", 3));
      expect(first.head.seq).to.equal(3);
      const second = await storeAnalyses(store, first.head, finished("b", 2));
      expect(second.head.seq).to.equal(5);
      // A head another writer has moved since: nothing is written on it, the records follow the
      // real head.
      const third = await storeAnalyses(store, first.head, finished("c", 2));
      expect(third.head.seq).to.equal(7);
      const rows = [...first.rows, ...second.rows, ...third.rows];
      expect(rows.map((r) => r.audit_id)).to.deep.equal(
        Array.from({ length: 7 }, (_, i) => `aud_${i + 1}`),
      );
      const audit = await store.query<{ seq: string; analysis_id: string }>(
        "SELECT seq, analysis_id FROM analysis_audit ORDER BY seq",
      );
      expect(audit.map((r) => [Number(r.seq), r.analysis_id])).to.deep.equal(
        rows.map((row, i) => [i + 1, row.id]),
      );
      const stored = await store.query<{ id: string; audit_id: string }>(
        "SELECT id, audit_id FROM analyses ORDER BY audit_id",
      );
      expect(stored.map((r) => [r.id, r.audit_id])).to.deep.equal(
        rows.map((r) => [r.id, r.audit_id]),
      );
      expect(await verifyAuditChain(store)).to.include({ ok: true, checked: 7 });
    });

    describe("## Idempotency-Key claims", () => {
      const iso = (ms: number) => new Date(ms).toISOString();
      /** Claims `key` for key_a at `at` (24 h replay window, claims abandoned after 10 min). */
      const claimAt = (key: string, requestHash: string, at: number, token = `t-${at}`) => {
        const claim: ClaimedKey = { apiKeyId: "key_a", key, claim: token };
        return {
          claim,
          holder: claimIdempotencyKey(
            store,
            { ...claim, requestHash, at: iso(at) },
            iso(at - DAY),
            iso(at - 600_000),
          ),
        };
      };
      const keyRow = async (key: string) =>
        (
          await store.query<{ analysis_id: string | null; claim: string }>(
            "SELECT analysis_id, claim FROM analysis_idempotency WHERE api_key_id = 'key_a' AND key = $1",
            [key],
          )
        )[0];

      it("should claim a new key once: the second claim sees it running, another body sees its hash", async function () {
        expect(await claimAt("k-run", "h1", NOW).holder).to.equal(null);
        expect(await claimAt("k-run", "h1", NOW + 1, "other").holder).to.deep.include({
          state: "running",
          requestHash: "h1",
        });
        expect(await claimAt("k-run", "h2", NOW + 1, "other").holder).to.deep.include({
          requestHash: "h1",
        });
        // Keys are the API key's: another key's same name is its own.
        expect(
          await claimIdempotencyKey(
            store,
            { apiKeyId: "key_b", key: "k-run", claim: "b", requestHash: "h9", at: iso(NOW) },
            iso(NOW - DAY),
            iso(NOW - 600_000),
          ),
        ).to.equal(null);
      });

      it("should claim a batch in one go: the first of a key twice wins, the other finds it running", async function () {
        expect(await claimAt("b-held", "hh", NOW, "earlier").holder).to.equal(null);
        const answered = claimAt("b-done", "hd", NOW, "done");
        expect(await answered.holder).to.equal(null);
        const [row] = finished("batch", 1);
        await storeAnalyses(store, null, [{ ...row!, idempotency: answered.claim }]);
        const claim = (key: string, requestHash: string, token: string) => ({
          apiKeyId: "key_a",
          key,
          claim: token,
          requestHash,
          at: iso(NOW + 1),
        });
        const holders = await claimIdempotencyKeys(
          store,
          [
            claim("b-new", "h1", "n1"),
            claim("b-new", "h1", "n2"),
            claim("b-new", "h2", "n3"),
            claim("b-held", "hh", "n4"),
            claim("b-done", "hd", "n5"),
            claim("b-other", "h9", "n6"),
          ],
          iso(NOW + 1 - DAY),
          iso(NOW + 1 - 600_000),
        );
        expect(holders[0]).to.equal(null);
        expect(holders[1]).to.deep.include({ state: "running", requestHash: "h1" });
        expect(holders[2]).to.deep.include({ state: "running", requestHash: "h1" });
        expect(holders[3]).to.deep.include({ state: "running", requestHash: "hh" });
        expect(holders[4]).to.deep.include({ state: "answered", requestHash: "hd" });
        expect(holders[4] && holders[4].state === "answered" && holders[4].analysis.id).to.equal(
          row!.row.id,
        );
        expect(holders[5]).to.equal(null);
        expect((await keyRow("b-new"))!.claim).to.equal("n1");
      });

      it("should mark the key with its analysis in the storing statement and in the locking transaction", async function () {
        const [a, b] = ["k-mark-1", "k-mark-2"].map((key) => claimAt(key, "h", NOW));
        expect(await a!.holder).to.equal(null);
        expect(await b!.holder).to.equal(null);
        const [one] = finished("key1", 1);
        const [two, plain] = finished("key2", 2);
        // Without a head: the transaction; with the head it wrote: the single statement.
        const first = await storeAnalyses(store, null, [{ ...one!, idempotency: a!.claim }]);
        await storeAnalyses(store, first.head, [{ ...two!, idempotency: b!.claim }, plain!]);
        expect((await keyRow("k-mark-1"))!.analysis_id).to.equal(one!.row.id);
        expect((await keyRow("k-mark-2"))!.analysis_id).to.equal(two!.row.id);
        // A repeat is answered by the analysis, read with the key.
        const replay = await claimAt("k-mark-2", "h", NOW + 5, "late").holder;
        expect(replay).to.have.property("state", "answered");
        expect(replay && replay.state === "answered" && replay.analysis.id).to.equal(two!.row.id);
        expect(replay && replay.state === "answered" && replay.analysis.audit_id).to.match(
          /^aud_\d+$/,
        );
      });

      it("should mark nothing for a claim that was taken over, and release only its own claim", async function () {
        const taken = claimAt("k-own", "h", NOW, "first");
        expect(await taken.holder).to.equal(null);
        // Abandoned (11 min later): another request takes it over.
        const over = claimAt("k-own", "h", NOW + 660_000, "second");
        expect(await over.holder).to.equal(null);
        // The first one's late release and late store do not touch the second's claim.
        await releaseIdempotencyKey(store, taken.claim);
        expect((await keyRow("k-own"))!.claim).to.equal("second");
        const [late] = finished("own-late", 1);
        await storeAnalyses(store, null, [{ ...late!, idempotency: taken.claim }]);
        expect(await keyRow("k-own")).to.deep.include({ claim: "second", analysis_id: null });
        await releaseIdempotencyKey(store, over.claim);
        expect(await keyRow("k-own")).to.equal(undefined);
        // Released: claimed again at once.
        expect(await claimAt("k-own", "h2", NOW + 660_001).holder).to.equal(null);
      });

      it("should keep a running claim until it is abandoned, and an answered key for 24 hours", async function () {
        expect(await claimAt("k-age", "h", NOW).holder).to.equal(null);
        expect(await claimAt("k-age", "h", NOW + 599_000, "x").holder).to.have.property(
          "state",
          "running",
        );
        const answered = claimAt("k-day", "h", NOW);
        expect(await answered.holder).to.equal(null);
        const [row] = finished("day", 1);
        await storeAnalyses(store, null, [{ ...row!, idempotency: answered.claim }]);
        // An answered key is never abandoned: 23 h later it still replays, past 24 h it is new.
        expect(await claimAt("k-day", "h2", NOW + 23 * 3_600_000, "y").holder).to.deep.include({
          state: "answered",
          requestHash: "h",
        });
        expect(await claimAt("k-day", "h2", NOW + DAY + 1, "z").holder).to.equal(null);
        expect(await keyRow("k-day")).to.deep.include({ claim: "z", analysis_id: null });
      });

      it("should prune the keys of pruned analyses and those past their window, with the analyses", async function () {
        const kept = claimAt("k-prune-new", "h", NOW);
        const old = claimAt("k-prune-old", "h", NOW - 2 * DAY);
        expect(await kept.holder).to.equal(null);
        expect(await old.holder).to.equal(null);
        const [row] = finished("prune", 1);
        await storeAnalyses(store, null, [{ ...row!, idempotency: kept.claim }]);
        const [head] = await store.query<{ seq: string; hash: string }>(
          "SELECT seq, hash FROM analysis_audit_head",
        );
        await store.query(
          `INSERT INTO analysis_audit_anchors (seq, hash, chain_id, registry, tx_hash, block_number, batch_id, anchored_at)
           VALUES ($1, $2, 1, '0x0', '0x0', 1, '2', $3)`,
          [head!.seq, head!.hash, iso(NOW)],
        );
        // A cutoff before the analysis: its key stays, the two-day-old claim goes.
        await pruneAnalyses(store, new Date(NOW - 1), new Date(NOW - DAY));
        expect(await keyRow("k-prune-old")).to.equal(undefined);
        expect((await keyRow("k-prune-new"))!.analysis_id).to.equal(row!.row.id);
        // A cutoff after it: the analysis goes, and its key with it.
        expect(await pruneAnalyses(store, new Date(NOW + 1), new Date(NOW - DAY))).to.be.above(0);
        expect(await keyRow("k-prune-new")).to.equal(undefined);
        expect(await verifyAuditChain(store)).to.include({ ok: true });
      });
    });

    if (backend === "postgres") {
      it("should share the bucket and the chain between processes writing at the same moment", async function () {
        const others = await Promise.all(
          [1, 2, 3].map(() =>
            openStore({ databaseUrl: opened.databaseUrl, dataDir: opened.dataDir }),
          ),
        );
        try {
          const stores = [store, ...others];
          // 4 processes, each a batch of 3 at the same instant, on a full bucket of 5.
          const taken = await Promise.all(
            stores.map((s) => takeTokens(s, "bucket_shared", LIMIT, 3, NOW)),
          );
          expect(taken.reduce((sum, t) => sum + t.granted, 0)).to.equal(5);
          // Each with the head as it last saw it: all but one find it moved.
          const [seen] = await store.query<{ seq: string; hash: string }>(
            "SELECT seq, hash FROM analysis_audit_head",
          );
          const last = { seq: Number(seen!.seq), hash: seen!.hash };
          await Promise.all(stores.map((s, i) => storeAnalyses(s, last, finished(`p${i}`, 4))));
          const verified = await verifyAuditChain(store);
          expect(verified).to.include({ ok: true });
          expect(verified.head.seq).to.equal(last.seq + 16);
        } finally {
          await Promise.all(others.map((s) => s.close()));
        }
      });

      it("should give a key racing in from several processes to exactly one of them", async function () {
        const others = await Promise.all(
          [1, 2, 3].map(() =>
            openStore({ databaseUrl: opened.databaseUrl, dataDir: opened.dataDir }),
          ),
        );
        try {
          const at = new Date(NOW).toISOString();
          for (let round = 0; round < 5; round++) {
            const holders = await Promise.all(
              [store, ...others].map((s, i) =>
                claimIdempotencyKey(
                  s,
                  {
                    apiKeyId: "key_race",
                    key: `race-${round}`,
                    claim: `p${i}`,
                    requestHash: "h",
                    at,
                  },
                  new Date(NOW - DAY).toISOString(),
                  new Date(NOW - 600_000).toISOString(),
                ),
              ),
            );
            expect(
              holders.filter((h) => h === null),
              `round ${round}`,
            ).to.have.length(1);
            for (const h of holders.filter((h) => h !== null))
              expect(h).to.deep.include({ state: "running", requestHash: "h" });
          }
        } finally {
          await Promise.all(others.map((s) => s.close()));
        }
      });

      it("should verify the chain from one snapshot while another connection appends and prunes", async function () {
        // The verification's store, on which another connection writes right after a read (what a
        // live relayer's requests and its daily pruning do at any moment).
        const interleaved = (after: RegExp, write: () => Promise<unknown>): EngineStore => {
          let done = false;
          const wrap = (s: EngineStore): EngineStore => ({
            query: async <T>(sql: string, params?: unknown[]) => {
              const rows = await s.query<T>(sql, params);
              if (!done && after.test(sql)) {
                done = true;
                await write();
              }
              return rows;
            },
            transaction: (fn) => s.transaction((tx) => fn(wrap(tx))),
          });
          return wrap(store);
        };
        const appended = await verifyAuditChain(
          interleaved(/FROM analysis_audit_head/, () =>
            storeAnalyses(store, null, finished("live", 2)),
          ),
        );
        expect(appended, appended.problem ?? "").to.include({ ok: true });
        // Anchored at the head, every record older than the cutoff: the pruning removes them all.
        const [head] = await store.query<{ seq: string; hash: string }>(
          "SELECT seq, hash FROM analysis_audit_head",
        );
        await store.query(
          `INSERT INTO analysis_audit_anchors (seq, hash, chain_id, registry, tx_hash, block_number, batch_id, anchored_at)
           VALUES ($1, $2, 1, '0x0', '0x0', 1, '1', $3)`,
          [head!.seq, head!.hash, new Date(NOW).toISOString()],
        );
        const pruned = await verifyAuditChain(
          interleaved(/FROM analysis_audit_checkpoint/, () =>
            pruneAnalyses(store, new Date(NOW + 1), new Date(NOW - DAY)),
          ),
        );
        expect(pruned, pruned.problem ?? "").to.include({ ok: true });
        expect(pruned.checked).to.be.above(0);
        // After both, the chain holds from its new checkpoint.
        expect(await verifyAuditChain(store)).to.include({ ok: true, checked: 0 });
      });
    }
  });
}
