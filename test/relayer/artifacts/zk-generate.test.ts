import path from "node:path";
import { expect } from "chai";
import { toBeHex } from "ethers";
import { encodeArtifact } from "../../../relayer/artifacts/store.ts";
import { verifyArtifactInclusion, verifyArtifactsProof } from "../../../relayer/proofs/index.ts";
import { startAuxService, type AuxService } from "../../fixtures/aux-service.ts";
import { newApiKey, signedRequest } from "../../fixtures/relayer.ts";

interface ZkResult {
  root: string;
  count: number;
  proof: never;
  public_signals: string[];
  verified_on_chain: boolean | null;
  anchor_tx: {
    chain_id: number;
    hash: string;
    block_number: number;
    batch_id: number;
    uri: string;
    registry: string;
  };
  inclusion: Record<string, { index: number; leaf: string; siblings: string[] }>;
  manifest: string;
}

describe("# /zk/generate", function () {
  this.timeout(600_000);
  let svc: AuxService;
  const cids: string[] = [];

  before(async function () {
    svc = await startAuxService({
      VERIFLOW_SANCTIONS_FILES: path.join(
        import.meta.dirname,
        "../../fixtures/sanctions",
        "sdn-sample.xml",
      ),
      VERIFLOW_LIMITS: JSON.stringify({ free: { zkProofsPerDay: 1, requestsPerMinute: 100 } }),
    });
    for (const n of [1, 2, 3]) {
      const res = await svc.signed("POST", "/artifacts", {
        artifact_id: `report-${n}`,
        tx_hashes: [toBeHex(n, 32)],
      });
      cids.push(((await res.json()) as { cid: string }).cid);
    }
  });

  after(async function () {
    await svc?.close();
  });

  it("should prove stored artifacts, verify the proof, anchor the root on chain and give inclusion paths", async function () {
    const res = await svc.signed("POST", "/zk/generate", { artifacts: cids });
    expect(res.status, await res.clone().text()).to.equal(200);
    const result = (await res.json()) as ZkResult;
    expect(result.count).to.equal(3);
    expect(result.public_signals).to.deep.equal([BigInt(result.root).toString(), "3"]);
    expect(await verifyArtifactsProof(result.proof, result.public_signals)).to.equal(true);

    // The anchor is on chain: the registry knows the root, with its count, from the reported transaction.
    const chain = svc.chains.byId(result.anchor_tx.chain_id);
    const registry = chain.contract("ProofRegistry");
    const batch = (await registry.getFunction("batchOf")(result.root)) as {
      batchId: bigint;
      count: bigint;
    };
    expect(batch.batchId).to.equal(BigInt(result.anchor_tx.batch_id));
    expect(batch.count).to.equal(3n);
    const receipt = await chain.provider.getTransactionReceipt(result.anchor_tx.hash);
    expect(receipt!.status).to.equal(1);
    expect(receipt!.blockNumber).to.equal(result.anchor_tx.block_number);
    // No pointer on chain: the event's URI is empty, the manifest is the caller's artifact only.
    expect(result.anchor_tx.uri).to.equal("");
    const [event] = await registry.queryFilter(
      registry.filters.BatchAnchored!(result.anchor_tx.batch_id),
      result.anchor_tx.block_number,
      result.anchor_tx.block_number,
    );
    expect((event as unknown as { args: { uri: string } }).args.uri).to.equal("");
    expect(JSON.stringify(receipt!.logs)).to.not.include(result.manifest);

    // One artifact's inclusion path recomputes the anchored root from its CID alone.
    const one = cids[1]!;
    expect(
      await verifyArtifactInclusion(result.root, { cid: one, ...result.inclusion[one]! }),
    ).to.equal(true);
    // A path checked against another artifact's CID does not.
    expect(
      await verifyArtifactInclusion(result.root, { cid: cids[0]!, ...result.inclusion[one]! }),
    ).to.equal(false);

    // The manifest names the artifacts in tree order.
    const manifest = (await (await svc.signed("GET", `/artifacts/${result.manifest}`)).json()) as {
      artifacts: string[];
      root: string;
    };
    expect(manifest.artifacts).to.deep.equal(cids);
    expect(BigInt(manifest.root)).to.equal(BigInt(result.root));

    // The spec's sample name `cids` proves the same set and finds the existing anchor.
    const again = (await (await svc.signed("POST", "/zk/generate", { cids })).json()) as ZkResult;
    expect(again.root).to.equal(result.root);
    expect(again.anchor_tx.hash).to.equal(result.anchor_tx.hash);
  });

  it("should answer 400 naming a malformed CID and 404 naming one the relayer does not store", async function () {
    const bad = await svc.signed("POST", "/zk/generate", { artifacts: [cids[0], "not-a-cid"] });
    expect(bad.status).to.equal(400);
    const badBody = (await bad.json()) as { error: string; detail: string };
    expect(badBody.error).to.equal("INVALID_CID");
    expect(badBody.detail).to.include("artifacts[1]");

    const absent = (await encodeArtifact({ never: "stored" })).cid.toString();
    const missing = await svc.signed("POST", "/zk/generate", { cids: [absent] });
    expect(missing.status).to.equal(404);
    const missingBody = (await missing.json()) as { error: string; detail: string };
    expect(missingBody.error).to.equal("ARTIFACT_NOT_FOUND");
    expect(missingBody.detail).to.include("cids[0]").and.include(absent);
  });

  it("should answer another key 404 for artifacts it may not read, and serve it neither the manifest nor the proof's inputs", async function () {
    const other = await newApiKey(svc.ctx, "enterprise", "other");
    const res = await signedRequest(
      svc.app,
      other,
      "POST",
      "/zk/generate",
      JSON.stringify({ artifacts: [cids[0]] }),
    );
    expect(res.status).to.equal(404);
    const body = (await res.json()) as { error: string; detail: string };
    expect(body.error).to.equal("ARTIFACT_NOT_FOUND");
    expect(body.detail).to.include("artifacts[0]");
    const mine = (await (
      await svc.signed("POST", "/zk/generate", { artifacts: cids })
    ).json()) as ZkResult;
    const manifest = await signedRequest(svc.app, other, "GET", `/artifacts/${mine.manifest}`);
    expect(manifest.status).to.equal(404);
  });

  it("should charge each proof to the key's daily quota and answer 429 ZK_QUOTA_EXCEEDED with its reset once spent, without proving", async function () {
    const free = await newApiKey(svc.ctx, "free", "zk-free");
    const own = (await (
      await signedRequest(svc.app, free, "POST", "/artifacts", JSON.stringify({ free: 1 }))
    ).json()) as { cid: string };
    // Refused input is not charged.
    const invalid = await signedRequest(
      svc.app,
      free,
      "POST",
      "/zk/generate",
      JSON.stringify({ artifacts: ["bad"] }),
    );
    expect(invalid.status).to.equal(400);
    const first = await signedRequest(
      svc.app,
      free,
      "POST",
      "/zk/generate",
      JSON.stringify({ artifacts: [own.cid] }),
    );
    expect(first.status, await first.clone().text()).to.equal(200);

    const chain = svc.chains.list()[0]!;
    const blockBefore = await chain.provider.getBlockNumber();
    const second = await signedRequest(
      svc.app,
      free,
      "POST",
      "/zk/generate",
      JSON.stringify({ artifacts: [own.cid] }),
    );
    expect(second.status).to.equal(429);
    const body = (await second.json()) as {
      error: string;
      detail: string;
      limit: number;
      resets_at: string;
      retry_in: number;
    };
    expect(body.error).to.equal("ZK_QUOTA_EXCEEDED");
    expect(body.limit).to.equal(1);
    const midnight = new Date();
    midnight.setUTCHours(24, 0, 0, 0);
    expect(body.resets_at).to.equal(midnight.toISOString());
    expect(body.detail).to.include(body.resets_at);
    expect(Number(second.headers.get("retry-after"))).to.equal(body.retry_in);
    expect(body.retry_in).to.be.within(1, 86_400);
    // Nothing was sent for the refused call.
    expect(await chain.provider.getBlockNumber()).to.equal(blockBefore);
    // The quota is the key's: an enterprise key in the same day still proves.
    expect((await svc.signed("POST", "/zk/generate", { artifacts: [cids[0]] })).status).to.equal(
      200,
    );
  });

  it("should refuse an empty list, a repeated CID, too many CIDs and a body without a list", async function () {
    for (const [body, code] of [
      [{ artifacts: [] }, "INVALID_ARTIFACTS"],
      [{ artifacts: [cids[0], cids[0]] }, "INVALID_ARTIFACTS"],
      [{ artifacts: Array.from({ length: 33 }, () => cids[0]) }, "INVALID_ARTIFACTS"],
      [{}, "VALIDATION_FAILED"],
      [{ artifacts: [cids[0]], cids: [cids[1]] }, "VALIDATION_FAILED"],
    ] as const) {
      const res = await svc.signed("POST", "/zk/generate", body);
      expect(res.status, JSON.stringify(body)).to.equal(400);
      expect(((await res.json()) as { error: string }).error).to.equal(code);
    }
  });
});
