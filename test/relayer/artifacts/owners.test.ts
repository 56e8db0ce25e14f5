import { readdir } from "node:fs/promises";
import path from "node:path";
import { CarReader } from "@ipld/car";
import { expect } from "chai";
import {
  newApiKey,
  signedRequest,
  SIGNED_V2,
  startInProcessRelayer,
  type Credentials,
  type InProcessRelayer,
} from "../../fixtures/relayer.ts";

/**
 * Artifact owners, publication, quota and retention through the relayer's HTTP API (PGlite, no
 * chains): what one key stores another cannot read, export or learn exists until its owner
 * publishes it; uploads stop at the tier's quota with nothing stored; pruning drops what is past
 * the retention, and a block only once no key holds it.
 */
describe("# artifact owners, quota and retention (HTTP)", function () {
  this.timeout(120_000);
  const DAY = 86_400_000;
  let now = Date.now();
  let relayer: InProcessRelayer;
  let alice: Credentials & { id: string };
  let bob: Credentials & { id: string };

  // The relayer's clock moves by days here: each request is signed at its time, 1 ms apart (a
  // signature is accepted once).
  const req = (who: Credentials, method: string, target: string, body?: unknown) =>
    signedRequest(
      relayer.app,
      who,
      method,
      target,
      body === undefined ? undefined : JSON.stringify(body),
      // Explicitly version 2: the bodyless DELETEs and publishes below need it.
      { ...SIGNED_V2, timestamp: String(++now) },
    );
  const store = async (who: Credentials, value: unknown) => {
    const res = await req(who, "POST", "/artifacts", value);
    expect(res.status, await res.clone().text()).to.equal(201);
    return ((await res.json()) as { cid: string }).cid;
  };
  const blockFiles = async () => {
    const root = path.join(relayer.dataDir, "artifacts", "blocks");
    const shards = await readdir(root).catch(() => [] as string[]);
    const files = await Promise.all(shards.map((s) => readdir(path.join(root, s))));
    return files
      .flat()
      .filter((f) => !f.endsWith(".tmp"))
      .sort();
  };
  const ownerRows = async () =>
    (
      await relayer.ctx.store.query<{ n: number }>("SELECT count(*)::int AS n FROM artifact_owners")
    )[0]!.n;

  before(async function () {
    relayer = await startInProcessRelayer({
      label: "owners",
      clock: () => now,
      env: {
        VERIFLOW_LIMITS: JSON.stringify({ pro: { artifactCount: 3, artifactBytes: 400 } }),
        VERIFLOW_ARTIFACT_RETENTION_DAYS: "30",
      },
    });
    alice = await newApiKey(relayer.ctx, "pro", "alice");
    bob = await newApiKey(relayer.ctx, "enterprise", "bob");
  });
  after(async function () {
    await relayer?.close();
  });

  it("should serve an artifact to its owner only: another key gets the 404 of a CID nobody stores, for reads, CAR exports, publication and deletion", async function () {
    const cid = await store(alice, { owner: "alice", n: 1 });
    const own = await req(alice, "GET", `/artifacts/${cid}`);
    expect(own.status).to.equal(200);
    expect(own.headers.get("cache-control")).to.match(/^private,/);

    const nobody = (await (await req(bob, "POST", "/artifacts", { only: "bob" })).json()) as {
      cid: string;
    };
    await req(bob, "DELETE", `/artifacts/${nobody.cid}`);
    const unknownBody = await (await req(alice, "GET", `/artifacts/${nobody.cid}`)).json();

    for (const [method, target, body] of [
      ["GET", `/artifacts/${cid}`, undefined],
      ["GET", `/artifacts/${cid}/car`, undefined],
      ["POST", "/artifacts/car", { cids: [cid] }],
      ["POST", `/artifacts/${cid}/publish`, undefined],
      ["DELETE", `/artifacts/${cid}/publish`, undefined],
      ["DELETE", `/artifacts/${cid}`, undefined],
    ] as const) {
      const res = await req(bob, method, target, body);
      expect(res.status, `${method} ${target}`).to.equal(404);
      const answer = (await res.json()) as { error: string; detail: string; cid: string };
      expect(answer.error).to.equal("ARTIFACT_NOT_FOUND");
      expect(answer.cid).to.equal(cid);
      // The same shape as for a CID that nobody stores: nothing tells the two apart.
      expect(Object.keys(answer).sort()).to.deep.equal(Object.keys(unknownBody as object).sort());
    }
    // Bob's refused calls changed nothing: Alice still reads it, privately.
    expect((await req(alice, "GET", `/artifacts/${cid}`)).status).to.equal(200);

    // A multi-CID export naming one of another key's artifacts is refused as a whole, naming it.
    const bobs = await store(bob, { owner: "bob" });
    const mixed = await req(bob, "POST", "/artifacts/car", { cids: [bobs, cid] });
    expect(mixed.status).to.equal(404);
    expect(((await mixed.json()) as { detail: string }).detail)
      .to.include("cids[1]")
      .and.include(cid);
  });

  it("should let the owner publish an artifact to every key and withdraw it again", async function () {
    const cid = await store(alice, { owner: "alice", published: true });
    const published = await req(alice, "POST", `/artifacts/${cid}/publish`);
    expect(published.status).to.equal(200);
    const answer = (await published.json()) as { published: boolean; published_at: string };
    expect(answer.published).to.equal(true);
    expect(Date.parse(answer.published_at)).to.equal(now);

    const read = await req(bob, "GET", `/artifacts/${cid}`);
    expect(read.status).to.equal(200);
    expect(read.headers.get("cache-control")).to.match(/^public,/);
    const car = await req(bob, "POST", "/artifacts/car", { cids: [cid] });
    expect(car.status).to.equal(200);
    expect(car.headers.get("content-length")).to.equal(
      String((await car.clone().arrayBuffer()).byteLength),
    );
    const reader = await CarReader.fromBytes(new Uint8Array(await car.arrayBuffer()));
    expect((await reader.getRoots()).map(String)).to.deep.equal([cid]);
    // A reader is not an owner: it cannot withdraw or delete what it may read.
    expect((await req(bob, "DELETE", `/artifacts/${cid}/publish`)).status).to.equal(404);
    expect((await req(bob, "DELETE", `/artifacts/${cid}`)).status).to.equal(404);

    const withdrawn = await req(alice, "DELETE", `/artifacts/${cid}/publish`);
    expect(((await withdrawn.json()) as { published: boolean }).published).to.equal(false);
    expect((await req(bob, "GET", `/artifacts/${cid}`)).status).to.equal(404);
  });

  it("should refuse an upload past the key's quota with 403 ARTIFACT_QUOTA_EXCEEDED, storing nothing, and accept it once an artifact is deleted", async function () {
    const key = await newApiKey(relayer.ctx, "pro", "quota");
    const first = await store(key, { q: 1 });
    await store(key, { q: 2 });
    await store(key, { q: 3 });
    // Storing again what the key holds is never refused (it renews the retention).
    expect((await req(key, "POST", "/artifacts", { q: 1 })).status).to.equal(201);

    const [files, rows] = [await blockFiles(), await ownerRows()];
    const refused = await req(key, "POST", "/artifacts", { q: 4 });
    expect(refused.status).to.equal(403);
    const body = (await refused.json()) as Record<string, unknown>;
    expect(body.error).to.equal("ARTIFACT_QUOTA_EXCEEDED");
    expect(body.detail).to.match(/3\/3 artifacts/);
    expect(body.usage).to.deep.equal({
      count: 3,
      bytes: body.usage && (body.usage as { bytes: number }).bytes,
    });
    expect(body.limits).to.deep.equal({ count: 3, bytes: 400 });
    expect(body.retention_days).to.equal(30);
    expect([await blockFiles(), await ownerRows()]).to.deep.equal([files, rows]);

    const quota = (await (await req(key, "GET", "/artifacts/quota")).json()) as {
      usage: { count: number };
      limits: { count: number };
    };
    expect(quota.usage.count).to.equal(3);
    expect(quota.limits.count).to.equal(3);

    expect((await req(key, "DELETE", `/artifacts/${first}`)).status).to.equal(204);
    expect((await req(key, "GET", `/artifacts/${first}`)).status).to.equal(404);
    expect(await blockFiles()).to.not.include(first);
    expect((await req(key, "POST", "/artifacts", { q: 4 })).status).to.equal(201);
  });

  it("should count bytes too: an upload that would pass the byte limit is refused", async function () {
    const key = await newApiKey(relayer.ctx, "pro", "bytes");
    await store(key, { pad: "a".repeat(250) });
    const refused = await req(key, "POST", "/artifacts", { pad: "b".repeat(200) });
    expect(refused.status).to.equal(403);
    const body = (await refused.json()) as { error: string; artifact_bytes: number };
    expect(body.error).to.equal("ARTIFACT_QUOTA_EXCEEDED");
    expect(body.artifact_bytes).to.equal('{"pad":""}'.length + 200);
  });

  it("should keep one block for content two keys stored, and delete it only with its last owner", async function () {
    const cid = await store(alice, { shared: true });
    expect(await store(bob, { shared: true })).to.equal(cid);
    expect((await req(alice, "DELETE", `/artifacts/${cid}`)).status).to.equal(204);
    expect((await req(alice, "GET", `/artifacts/${cid}`)).status).to.equal(404);
    expect((await req(bob, "GET", `/artifacts/${cid}`)).status).to.equal(200);
    expect(await blockFiles()).to.include(cid);
    expect((await req(bob, "DELETE", `/artifacts/${cid}`)).status).to.equal(204);
    expect(await blockFiles()).to.not.include(cid);
  });

  it("should keep a final report (409 ARTIFACT_RETAINED on delete, never pruned) and serve it to its execution's key only", async function () {
    const report = { artifact: "report", execution: "wf_test" };
    const cid = await relayer.ctx.artifacts.putArtifact(report, {
      apiKeyId: alice.id,
      kind: "report",
    });
    expect(await (await req(alice, "GET", `/artifacts/${cid}`)).json()).to.deep.equal(report);
    expect((await req(bob, "GET", `/artifacts/${cid}`)).status).to.equal(404);
    const kept = await req(alice, "DELETE", `/artifacts/${cid}`);
    expect(kept.status).to.equal(409);
    expect(((await kept.json()) as { error: string }).error).to.equal("ARTIFACT_RETAINED");
    // Uploading the report's bytes does not turn it into a prunable upload.
    expect(await store(alice, report)).to.equal(cid);
    await relayer.ctx.artifacts.prune(now + 365 * DAY);
    expect((await req(alice, "GET", `/artifacts/${cid}`)).status).to.equal(200);
  });

  it("should prune uploads past the retention (renewed by storing again), and their blocks once no key holds them", async function () {
    const key = await newApiKey(relayer.ctx, "enterprise", "retention");
    const old = await store(key, { age: "old" });
    const renewed = await store(key, { age: "renewed" });
    const shared = await store(key, { age: "shared" });
    now += 20 * DAY;
    await store(key, { age: "renewed" });
    await store(bob, { age: "shared" });
    now += 11 * DAY; // 31 days after the first uploads, 11 after the renewals
    const pruned = await relayer.ctx.artifacts.prune(now);
    expect(pruned.owners).to.be.greaterThanOrEqual(2);

    expect((await req(key, "GET", `/artifacts/${old}`)).status).to.equal(404);
    expect(await blockFiles()).to.not.include(old);
    expect((await req(key, "GET", `/artifacts/${renewed}`)).status).to.equal(200);
    // The key's copy of the shared content expired; Bob's fresher copy keeps the block.
    expect((await req(key, "GET", `/artifacts/${shared}`)).status).to.equal(404);
    expect((await req(bob, "GET", `/artifacts/${shared}`)).status).to.equal(200);
    expect(await blockFiles()).to.include(shared);
    // Pruning again finds nothing left to prune.
    expect(await relayer.ctx.artifacts.prune(now)).to.deep.equal({ owners: 0, blocks: 0 });
  });

  it("should refuse a CAR export past VERIFLOW_CAR_MAX_BYTES with 400 CAR_TOO_LARGE naming size and limit", async function () {
    const small = await startInProcessRelayer({
      label: "car-cap",
      env: { VERIFLOW_CAR_MAX_BYTES: "2048" },
    });
    try {
      const key = await newApiKey(small.ctx, "enterprise", "cap");
      const put = async (value: unknown) =>
        (
          (await (
            await signedRequest(small.app, key, "POST", "/artifacts", JSON.stringify(value))
          ).json()) as { cid: string }
        ).cid;
      const cids = [await put({ pad: "a".repeat(1000) }), await put({ pad: "b".repeat(1000) })];
      const one = await signedRequest(small.app, key, "GET", `/artifacts/${cids[0]}/car`);
      expect(one.status).to.equal(200);
      const both = await signedRequest(
        small.app,
        key,
        "POST",
        "/artifacts/car",
        JSON.stringify({ cids }),
      );
      expect(both.status).to.equal(400);
      const body = (await both.json()) as {
        error: string;
        size: number;
        limit: number;
        detail: string;
      };
      expect(body.error).to.equal("CAR_TOO_LARGE");
      expect(body.limit).to.equal(2048);
      expect(body.size).to.be.greaterThan(2048);
      expect(body.detail).to.match(/split the CIDs/);
    } finally {
      await small.close();
    }
  });
});
