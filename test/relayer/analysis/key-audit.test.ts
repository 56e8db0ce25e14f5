import { expect } from "chai";
import { Contract, Wallet, hexlify, randomBytes } from "ethers";
import type { TextAnalysis } from "../../../relayer/analysis/index.ts";
import { anchorIfDue } from "../../../relayer/analysis/worker.ts";
import {
  linkHash,
  readAnchoredHeads,
  recordDigest,
  verifyKeyAudit,
  type AnchoredHead,
  type AuditLink,
  type KeptAudit,
  type KeyAuditInput,
  type KeyAuditResult,
  type ListedAuditRecord,
} from "../../../relayer/audit/index.ts";
import { analysisChecks } from "../../../relayer/audit/analyses.ts";
import { CONTRACT_NAMES } from "../../../relayer/deployments/index.ts";
import { DEVNET_DEPLOYER } from "../../../relayer/devnet/index.ts";
import { DEVNET_FUNDED } from "../../../relayer/devnet/accounts.ts";
import { openAnalysisWorld, type AnalysisWorld } from "../../fixtures/analysis.ts";
import { newApiKey, type Credentials } from "../../fixtures/relayer.ts";

type Trail = Pick<KeyAuditInput, "records" | "links" | "checkpoint">;

const statusOf = (result: KeyAuditResult, id: string) =>
  result.checks.find((c) => c.id === id)?.status;
const reasonOf = (result: KeyAuditResult, id: string) =>
  result.checks.find((c) => c.id === id)?.reason ?? "";

/**
 * A key's auditor, with only what the relayer lists to that key (its records, the chain's links)
 * and the registry's anchors read over JSON-RPC: two keys interleave analyses on one chain, the
 * head is anchored, and each key verifies its own records; every forgery below must fail.
 */
describe("# a key's auditor verifies its analysis audit records from the chain", function () {
  this.timeout(120_000);
  let now = Date.parse("2026-02-01T12:00:00Z");
  let world: AnalysisWorld;
  let analysis: TextAnalysis;
  let keyB: Credentials & { id: string };
  let operator: string;
  /** The analyses each key kept (audit id, analysis id), from the responses. */
  const kept: Record<"a" | "b", KeptAudit[]> = { a: [], b: [] };

  const trail = async (key?: Credentials): Promise<Trail> => {
    const records = (await (await world.get("/v1/analysis/audit?limit=500", key)).json()) as {
      records: ListedAuditRecord[];
    };
    const links = (await (await world.get("/v1/analysis/audit/links", key)).json()) as {
      links: AuditLink[];
      checkpoint: { seq: number; hash: string };
    };
    return { records: records.records, links: links.links, checkpoint: links.checkpoint };
  };
  const anchors = async (): Promise<AnchoredHead[]> => {
    const { registry, chain } = analysis.target;
    return readAnchoredHeads(
      registry,
      chain.deployment.contracts[CONTRACT_NAMES.proofRegistry]!.blockNumber,
    );
  };
  const verify = async (t: Trail, keptAudits: readonly KeptAudit[], as = operator) =>
    verifyKeyAudit({ ...t, anchors: await anchors(), operator: as, kept: keptAudits });

  before(async function () {
    world = await openAnalysisWorld({
      label: "key-audit",
      // A millisecond per reading: two identical signed reads are then not one replayed.
      clock: () => (now += 1),
      textAnalysis: { audit: { anchor_interval: "10m" } },
    });
    analysis = world.relayer.ctx.analysis!;
    operator = await analysis.target.chain.operator!.getAddress();
    keyB = await newApiKey(world.relayer.ctx);
    // Interleaved: a owns seqs 1, 3, 6; b owns 2, 4, 5. Then the head (6) is anchored, and a
    // seventh analysis (a's) comes after the anchor.
    for (const [who, text] of [
      ["a", "Lease for the warehouse."],
      ["b", "Supplier agreement, clause 4."],
      ["a", "Loan facility letter."],
      ["b", "Payment terms memo."],
      ["b", "Purchase order 1182."],
      ["a", "Board minutes, item 3."],
    ] as const) {
      const res = await world.post({ text }, who === "a" ? world.key : keyB);
      expect(res.status).to.equal(200);
      const body = (await res.json()) as KeptAudit;
      kept[who].push({ audit_id: body.audit_id, analysis_id: body.analysis_id });
    }
    expect(await anchorIfDue(analysis, now)).to.equal(6);
    const late = (await (
      await world.post({ text: "Addendum, after the anchor." })
    ).json()) as KeptAudit;
    kept.a.push({ audit_id: late.audit_id, analysis_id: late.analysis_id });
  });
  after(async function () {
    await world?.close();
  });

  it("should pass every check of each key's records, and report a record after the last anchor as not anchored", async function () {
    expect(kept.a.map((k) => k.audit_id)).to.deep.equal(["aud_1", "aud_3", "aud_6", "aud_7"]);
    const a = await verify(await trail(), kept.a);
    expect(statusOf(a, "links")).to.equal("pass");
    expect(statusOf(a, "anchors")).to.equal("pass");
    for (const id of ["aud_1", "aud_3", "aud_6"]) {
      expect(statusOf(a, `record[${id}]`), reasonOf(a, `record[${id}]`)).to.equal("pass");
      expect(statusOf(a, `kept[${id}]`)).to.equal("pass");
    }
    expect(reasonOf(a, "record[aud_1]")).to.match(/covered by the head anchored at 6/);
    expect(statusOf(a, "record[aud_7]")).to.equal("not-anchored");
    expect(reasonOf(a, "record[aud_7]")).to.match(/no anchored head covers 7 yet/);
    expect(statusOf(a, "kept[aud_7]")).to.equal("not-anchored");
    expect(a.ok, "a record not yet anchored is not a pass").to.equal(false);

    const b = await verify(await trail(keyB), kept.b);
    expect(b.checks.map((c) => [c.id, c.status])).to.deep.equal([
      ["links", "pass"],
      ["anchors", "pass"],
      ["record[aud_2]", "pass"],
      ["record[aud_4]", "pass"],
      ["record[aud_5]", "pass"],
      ["kept[aud_2]", "pass"],
      ["kept[aud_4]", "pass"],
      ["kept[aud_5]", "pass"],
    ]);
    expect(b.ok).to.equal(true);
    // The operator's own verification agrees.
    expect(await analysis.verify()).to.include({ ok: true, checked: 7, anchorsVerified: 1 });
  });

  it("should list the links with no key, analysis or content, in bounded pages", async function () {
    const res = await world.get("/v1/analysis/audit/links", keyB);
    expect(res.status).to.equal(200);
    const text = await res.text();
    const page = JSON.parse(text) as {
      checkpoint: unknown;
      head: { seq: number };
      links: AuditLink[];
      next_from_seq: number | null;
    };
    expect(page.checkpoint).to.deep.equal({ seq: 0, hash: "0".repeat(64) });
    expect(page.head.seq).to.equal(7);
    expect(page.next_from_seq).to.equal(null);
    expect(page.links.map((l) => l.seq)).to.deep.equal([1, 2, 3, 4, 5, 6, 7]);
    for (const link of page.links)
      expect(Object.keys(link).sort()).to.deep.equal(["digest", "hash", "seq"]);
    const { records } = await trail();
    for (const secret of [
      world.key.id,
      keyB.id,
      ...kept.a.map((k) => k.analysis_id),
      ...kept.b.map((k) => k.analysis_id),
      ...records.map((r) => r.input_sha256),
      records[0]!.model,
      records[0]!.timestamp,
    ])
      expect(text, `the links page names ${secret}`).to.not.include(secret);

    const window = (await (
      await world.get("/v1/analysis/audit/links?from_seq=2&to_seq=3")
    ).json()) as typeof page;
    expect(window.links.map((l) => l.seq)).to.deep.equal([2, 3]);
    expect(window.next_from_seq).to.equal(4);
  });

  it("should answer 400 {error, detail} for a bad range", async function () {
    for (const query of [
      "from_seq=0",
      "from_seq=-3",
      "from_seq=abc",
      "from_seq=1.5",
      "from_seq=0x2",
      "from_seq=2e0",
      "from_seq=",
      "from_seq=1&to_seq=1e2",
      "from_seq=5&to_seq=4",
      "from_seq=1&to_seq=1001",
      "to_seq=10",
      `from_seq=${"9".repeat(30)}`,
    ]) {
      const res = await world.get(`/v1/analysis/audit/links?${query}`);
      const body = (await res.json()) as { error: string; detail: string };
      expect(res.status, query).to.equal(400);
      expect(body.error, query).to.equal("VALIDATION_FAILED");
      expect(body.detail, query).to.be.a("string").and.not.equal("");
    }
    const widest = await world.get("/v1/analysis/audit/links?from_seq=1&to_seq=1000");
    expect(widest.status).to.equal(200);
  });

  it("should fail an own record altered in its content or its digest", async function () {
    const genuine = await trail();
    const altered = structuredClone(genuine) as Trail & { records: ListedAuditRecord[] };
    altered.records[1]!.output_token_count += 1;
    const content = await verify(altered, kept.a);
    expect(statusOf(content, "record[aud_3]")).to.equal("fail");
    expect(reasonOf(content, "record[aud_3]")).to.match(
      /does not hash to the digest of link 3: it was altered/,
    );
    expect(statusOf(content, "kept[aud_3]")).to.equal("fail");
    expect(statusOf(content, "links")).to.equal("pass");

    // The listing's digest changed to the altered content's: it no longer is the link's.
    const redigested = structuredClone(altered);
    const r = redigested.records[1]!;
    r.digest = recordDigest({
      seq: r.seq,
      id: r.audit_id,
      api_key_id: r.api_key_id,
      analysis_id: r.analysis_id,
      record: {
        timestamp: r.timestamp,
        model: r.model,
        input_sha256: r.input_sha256,
        output_token_count: r.output_token_count,
        compliance_checks: r.compliance_checks,
        cost_breakdown: r.cost_breakdown,
      },
    });
    const digest = await verify(redigested, kept.a);
    expect(reasonOf(digest, "record[aud_3]")).to.match(
      /digest, hash or prev_hash differs from the links at 3/,
    );
  });

  it("should fail a link whose digest changed, and a link removed", async function () {
    const genuine = await trail();
    const changed = structuredClone(genuine) as Trail & { links: AuditLink[] };
    changed.links[3]!.digest = "ab".repeat(32);
    const result = await verify(changed, kept.a);
    expect(statusOf(result, "links")).to.equal("fail");
    expect(reasonOf(result, "links")).to.match(
      /link 4's hash is not sha256\(hash 3 \|\| its digest\)/,
    );
    expect(statusOf(result, "anchors")).to.equal("fail");
    expect(statusOf(result, "record[aud_1]"), "nothing passes on a broken chain").to.equal("fail");

    // Not a hash at all: a failure, not an exception out of the verifier.
    const garbled = structuredClone(genuine) as Trail & { links: AuditLink[] };
    garbled.links[3]!.digest = "zz";
    expect(reasonOf(await verify(garbled, kept.a), "links")).to.equal(
      "link 4 or its predecessor is not a 32-byte hex hash",
    );

    const removed = structuredClone(genuine) as Trail & { links: AuditLink[] };
    removed.links.splice(3, 1);
    const gap = await verify(removed, kept.a);
    expect(reasonOf(gap, "links")).to.match(/link 4 is missing/);
    expect(gap.checks.filter((c) => c.status === "pass")).to.deep.equal([]);
  });

  /**
   * What the operator could list after removing a's record 3 from its database: the later records
   * renumbered and every digest and hash recomputed (it holds every key's content), consistent
   * with itself; only the registry's anchor at 6 tells.
   */
  async function withoutRecord3(): Promise<Trail> {
    const rows = await world.relayer.ctx.store.query<{
      seq: string;
      id: string;
      api_key_id: string;
      analysis_id: string;
      record: Record<string, unknown>;
    }>("SELECT seq, id, api_key_id, analysis_id, record FROM analysis_audit ORDER BY seq");
    let prev = "0".repeat(64);
    const links: AuditLink[] = [];
    const records: ListedAuditRecord[] = [];
    for (const [i, row] of rows.filter((r) => Number(r.seq) !== 3).entries()) {
      const seq = i + 1;
      const content = {
        seq,
        id: `aud_${seq}`,
        api_key_id: row.api_key_id,
        analysis_id: row.analysis_id,
        record: row.record,
      };
      const digest = recordDigest(content);
      const hash = linkHash(prev, digest);
      links.push({ seq, digest, hash });
      if (row.api_key_id === world.key.id)
        records.push({
          audit_id: content.id,
          analysis_id: row.analysis_id,
          api_key_id: row.api_key_id,
          seq,
          prev_hash: prev,
          digest,
          hash,
          ...(row.record as Omit<
            ListedAuditRecord,
            "audit_id" | "analysis_id" | "api_key_id" | "seq" | "prev_hash" | "digest" | "hash"
          >),
        });
      prev = hash;
    }
    return { records, links, checkpoint: { seq: 0, hash: "0".repeat(64) } };
  }

  it("should fail an own record removed with every later hash recomputed: the anchored head tells", async function () {
    const forged = await withoutRecord3();
    // Without the kept ids, the records and links agree with each other: the anchor catches it.
    const result = await verify(forged, []);
    expect(statusOf(result, "links")).to.equal("pass");
    expect(statusOf(result, "anchors")).to.equal("fail");
    expect(reasonOf(result, "anchors")).to.match(
      /the head anchored at 6 is not the links' hash at 6/,
    );
    expect(result.ok).to.equal(false);
  });

  it("should fail a kept audit id that is missing or that audits another analysis", async function () {
    const genuine = await trail();
    const missing = await verify(genuine, [
      { audit_id: "aud_2", analysis_id: kept.a[0]!.analysis_id },
    ]);
    expect(statusOf(missing, "kept[aud_2]")).to.equal("fail");
    expect(reasonOf(missing, "kept[aud_2]")).to.match(/aud_2 is not among the key's records/);
    const beyond = await verify(genuine, [
      { audit_id: "aud_99", analysis_id: kept.a[0]!.analysis_id },
    ]);
    expect(statusOf(beyond, "kept[aud_99]")).to.equal("fail");
    const other = await verify(genuine, [
      { audit_id: "aud_3", analysis_id: kept.a[0]!.analysis_id },
    ]);
    expect(statusOf(other, "kept[aud_3]")).to.equal("fail");
    expect(reasonOf(other, "kept[aud_3]")).to.match(
      new RegExp(`aud_3 audits ${kept.a[1]!.analysis_id}, not ${kept.a[0]!.analysis_id}`),
    );
    // The operator's listing without the record: the kept id shows it.
    const withheld = structuredClone(genuine) as Trail & { records: ListedAuditRecord[] };
    withheld.records.splice(1, 1);
    expect(statusOf(await verify(withheld, kept.a), "kept[aud_3]")).to.equal("fail");
  });

  it("should fail a kept entry (a report's) whose compliance_checks or created_at are not the audit record's", async function () {
    const genuine = await trail();
    const record = genuine.records.find((r) => r.audit_id === "aud_1")!;
    const entry = {
      ...kept.a[0]!,
      compliance_checks: structuredClone(record.compliance_checks),
      created_at: record.timestamp,
    };
    expect(statusOf(await verify(genuine, [entry]), "kept[aud_1]")).to.equal("pass");
    // The analyses row a report is built from is not chained: an altered one must not pass.
    const passed = {
      ...entry,
      compliance_checks: { ...(entry.compliance_checks as object), uben_compliance: "failed" },
    };
    const leak = {
      ...entry,
      compliance_checks: { ...(entry.compliance_checks as object), pii_leakage: true },
    };
    const moved = {
      ...entry,
      created_at: new Date(Date.parse(record.timestamp) + 1).toISOString(),
    };
    for (const [what, forged] of [
      ["uben", passed],
      ["leak", leak],
      ["created_at", moved],
    ] as const) {
      const result = await verify(genuine, [forged]);
      expect(statusOf(result, "kept[aud_1]"), what).to.equal("fail");
      expect(reasonOf(result, "kept[aud_1]"), what).to.match(
        /is not the audit record's|are not the audit record's/,
      );
    }
  });

  it("should call records pruned between the listing and the links unverifiable, not forged", async function () {
    // What the links list once the daily pruning has moved the checkpoint to the head anchored at
    // 6, read just after the records were listed.
    const listed = await trail();
    const six = listed.links.find((l) => l.seq === 6)!;
    const pruned: Trail = {
      records: listed.records,
      links: listed.links.filter((l) => l.seq > 6),
      checkpoint: { seq: 6, hash: six.hash },
    };
    const result = await verify(pruned, kept.a);
    expect(statusOf(result, "links")).to.equal("pass");
    expect(statusOf(result, "anchors"), reasonOf(result, "anchors")).to.equal("pass");
    for (const id of ["aud_1", "aud_3", "aud_6"]) {
      expect(statusOf(result, `record[${id}]`), id).to.equal("unverifiable");
      expect(reasonOf(result, `record[${id}]`)).to.match(/pruned since it was listed/);
      expect(statusOf(result, `kept[${id}]`), id).to.equal("unverifiable");
    }
    expect(statusOf(result, "record[aud_7]")).to.equal("not-anchored");
    expect(result.checks.filter((c) => c.status === "fail")).to.deep.equal([]);
  });

  it("should check each analysis a report lists on its own, one audit id listed twice included (npm run audit)", async function () {
    const genuine = await trail();
    // A second analysis claimed under the first one's audit record: the analyses table the
    // report is built from is not chained.
    const listed = [kept.a[0]!, { ...kept.a[0]!, analysis_id: "an_01JA0000000000000000000000" }];
    const checks = await analysisChecks(
      listed,
      async () => genuine,
      [
        {
          ...analysis.target.chain,
          abi: () => analysis.target.registry.interface.fragments,
        },
      ],
      operator,
    );
    expect(checks.map((c) => [c.id, c.status])).to.deep.equal([
      ["analyses", "pass"],
      ["analysis[0]", "pass"],
      ["analysis[1]", "fail"],
    ]);
    expect(checks[2]!.reason).to.match(/aud_1 audits an_\w+, not an_01JA0000000000000000000000/);
  });

  it("should count only the operator's anchors: a forged chain anchored from another account fails", async function () {
    const forged = await withoutRecord3();
    const { chain, registry } = analysis.target;
    // Another account with the registry's LOGGER_ROLE (granted by the devnet's admin) anchors the
    // forged chain's head.
    const admin = new Wallet(DEVNET_DEPLOYER.privateKey, chain.provider);
    const stranger = new Wallet(DEVNET_FUNDED[7]!.privateKey, chain.provider);
    const asAdmin = registry.connect(admin) as Contract;
    const role = (await registry.getFunction("LOGGER_ROLE")()) as string;
    await (await asAdmin.getFunction("grantRole")(role, stranger.address)).wait();
    const head = forged.links.at(-1)!;
    await (
      await (registry.connect(stranger) as Contract).getFunction("anchorBatch")(
        `0x${head.hash}`,
        head.seq,
        `veriflow:analysis-audit:${head.seq}`,
      )
    ).wait();
    expect((await anchors()).map((a) => a.anchoredBy)).to.include(stranger.address);

    const result = await verify(forged, []);
    expect(statusOf(result, "anchors")).to.equal("fail");
    expect(reasonOf(result, "anchors")).to.match(/the head anchored at 6 is not/);
    // Taken as the operator, the stranger's anchors would vouch for the forgery: the operator
    // filter is what refuses it.
    const trusting = await verify(forged, [], stranger.address);
    expect(statusOf(trusting, "anchors")).to.equal("pass");
    // The genuine trail still passes, the stranger's anchor ignored.
    const genuine = await verify(await trail(keyB), kept.b);
    expect(genuine.ok).to.equal(true);
    expect(reasonOf(genuine, "anchors")).to.match(/1 anchors by other accounts ignored/);
  });

  it("should fail when the operator anchored a head that the links do not reproduce", async function () {
    const { chain, registry } = analysis.target;
    const signer = chain.operator!.connect(chain.provider);
    await (
      await (registry.connect(signer) as Contract).getFunction("anchorBatch")(
        hexlify(randomBytes(32)),
        5,
        "veriflow:analysis-audit:5",
      )
    ).wait();
    const result = await verify(await trail(keyB), kept.b);
    expect(statusOf(result, "anchors")).to.equal("fail");
    expect(reasonOf(result, "anchors")).to.match(
      /the head anchored at 5 is not the links' hash at 5/,
    );
    expect(statusOf(result, "record[aud_2]")).to.equal("fail");
    expect(result.ok).to.equal(false);
    // The operator's own verification sees the same anchor.
    expect((await analysis.verify()).ok).to.equal(false);
  });
});
