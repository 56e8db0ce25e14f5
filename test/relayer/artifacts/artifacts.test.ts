import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { CarReader } from "@ipld/car";
import canonicalize from "canonicalize";
import { expect } from "chai";
import { CID } from "multiformats/cid";
import * as json from "multiformats/codecs/json";
import { sha256 } from "multiformats/hashes/sha2";
import { ApiError } from "../../../relayer/http/errors.ts";
import {
  encodeArtifact,
  openArtifactStore,
  parseCid,
  type ArtifactStore,
} from "../../../relayer/artifacts/store.ts";

describe("# artifact store (blocks)", function () {
  let dir: string;
  let store: ArtifactStore;
  /** Encodes and writes a value's block, as the owned store does under its lock. */
  const put = async (value: unknown): Promise<string> => {
    const block = await encodeArtifact(value);
    await store.putBlock(block);
    return block.cid.toString();
  };
  const carBytes = async (cids: string[], maxBytes = 1 << 30) => {
    const car = await store.exportCar(cids, maxBytes);
    const bytes = new Uint8Array(await new Response(car.stream).arrayBuffer());
    expect(bytes.byteLength, "the announced size is the streamed size").to.equal(car.bytes);
    return bytes;
  };

  before(async function () {
    dir = await mkdtemp(path.join(tmpdir(), "veriflow-artifacts-"));
    store = openArtifactStore(dir);
  });

  after(async function () {
    await rm(dir, { recursive: true, force: true });
  });

  it("should address an artifact by the CIDv1 (json codec, sha2-256) of its RFC 8785 canonical JSON", async function () {
    const value = {
      tx_hashes: ["0xabc"],
      artifact: "report",
      gas_metrics: { "31337": { used: 21000, saved: 0.5 } },
    };
    const cid = await put(value);
    const bytes = new TextEncoder().encode(canonicalize(value)!);
    const expected = CID.createV1(json.code, await sha256.digest(bytes));
    expect(cid).to.equal(expected.toString());
    // Key order does not change the id.
    expect(
      await put({
        gas_metrics: value.gas_metrics,
        artifact: "report",
        tx_hashes: ["0xabc"],
      }),
    ).to.equal(cid);
    const stored = await store.getArtifact(cid);
    expect(stored!.value).to.deep.equal(value);
    expect(Buffer.from(stored!.bytes).toString()).to.equal(canonicalize(value));
    expect(await store.hasArtifact(cid)).to.equal(true);
  });

  it("should answer undefined for a valid CID it does not store, and 400 for a string that is no CID", async function () {
    const unknown = CID.createV1(
      json.code,
      await sha256.digest(new TextEncoder().encode('"nope"')),
    ).toString();
    expect(await store.getArtifact(unknown)).to.equal(undefined);
    expect(await store.hasArtifact(unknown)).to.equal(false);
    for (const bad of ["not-a-cid", "", "bafy!!"]) {
      try {
        parseCid(bad);
        expect.fail(`${bad} must be rejected`);
      } catch (err) {
        expect(err).to.be.instanceOf(ApiError);
        expect((err as ApiError).status).to.equal(400);
        expect((err as ApiError).code).to.equal("INVALID_CID");
      }
    }
  });

  it("should refuse values that are not JSON with 400 INVALID_ARTIFACT", async function () {
    for (const bad of [
      { amount: 10n },
      { x: Number.NaN },
      { when: new Date(0) },
      [undefined as unknown],
    ]) {
      try {
        await encodeArtifact(bad);
        expect.fail("a non-JSON value must be rejected");
      } catch (err) {
        expect((err as ApiError).code).to.equal("INVALID_ARTIFACT");
        expect((err as ApiError).status).to.equal(400);
      }
    }
  });

  it("should export stored artifacts as a CAR file with them as roots, and 404 for a missing one", async function () {
    const a = await put({ n: 1 });
    const b = await put({ n: 2 });
    const car = await carBytes([a, b]);
    const reader = await CarReader.fromBytes(car);
    expect((await reader.getRoots()).map(String)).to.deep.equal([a, b]);
    for (const cid of [a, b]) {
      const block = await reader.get(CID.parse(cid));
      expect(json.decode(block!.bytes)).to.deep.equal((await store.getArtifact(cid))!.value);
    }
    const missing = CID.createV1(
      json.code,
      await sha256.digest(new TextEncoder().encode("{}")),
    ).toString();
    try {
      await store.exportCar([a, missing], 1 << 30);
      expect.fail("a missing artifact must fail the export");
    } catch (err) {
      expect((err as ApiError).status).to.equal(404);
      expect((err as ApiError).detail).to.include(missing);
    }
  });

  it("should refuse an export past the cap before its first byte (400 CAR_TOO_LARGE with size and limit), and stream one exactly at it", async function () {
    const cids = [await put({ pad: "x".repeat(2000) }), await put({ pad: "y".repeat(3000) })];
    const exact = (await store.exportCar(cids, 1 << 30)).bytes;
    expect(exact).to.be.greaterThan(5000);
    const bytes = await carBytes(cids, exact);
    const reader = await CarReader.fromBytes(bytes);
    expect((await reader.getRoots()).map(String)).to.deep.equal(cids);
    try {
      await store.exportCar(cids, exact - 1);
      expect.fail("an export one byte past the cap must be refused");
    } catch (err) {
      expect((err as ApiError).status).to.equal(400);
      expect((err as ApiError).code).to.equal("CAR_TOO_LARGE");
      expect((err as ApiError).extra).to.deep.include({ size: exact, limit: exact - 1 });
    }
  });

  it("should delete a block, and treat deleting a missing one as done", async function () {
    const cid = await put({ delete: "me" });
    await store.deleteBlock(cid);
    expect(await store.hasArtifact(cid)).to.equal(false);
    await store.deleteBlock(cid);
  });

  it("should detect a block whose bytes no longer hash to its CID", async function () {
    const cid = await put({ tamper: "me" });
    const shard = path.join(store.root, cid.slice(-2));
    expect(await readdir(shard)).to.include(cid);
    await writeFile(path.join(shard, cid), '{"tamper":"you"}');
    try {
      await store.getArtifact(cid);
      expect.fail("a corrupted block must not be served");
    } catch (err) {
      expect((err as Error).message).to.match(/does not hash to its CID/);
    }
    // A CAR export reads the same block: the stream fails rather than carry the wrong bytes.
    const car = await store.exportCar([cid], 1 << 30);
    try {
      await new Response(car.stream).arrayBuffer();
      expect.fail("a corrupted block must not be exported");
    } catch (err) {
      expect(String(err)).to.match(/does not hash to its CID/);
    }
  });
});
