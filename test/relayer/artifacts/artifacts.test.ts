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
  openArtifactStore,
  parseCid,
  type ArtifactStore,
} from "../../../relayer/artifacts/store.ts";

describe("# artifact store", function () {
  let dir: string;
  let store: ArtifactStore;

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
    const cid = await store.putArtifact(value);
    const bytes = new TextEncoder().encode(canonicalize(value)!);
    const expected = CID.createV1(json.code, await sha256.digest(bytes));
    expect(cid).to.equal(expected.toString());
    // Key order does not change the id.
    expect(
      await store.putArtifact({
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
        await store.putArtifact(bad);
        expect.fail("a non-JSON value must be rejected");
      } catch (err) {
        expect((err as ApiError).code).to.equal("INVALID_ARTIFACT");
        expect((err as ApiError).status).to.equal(400);
      }
    }
  });

  it("should export stored artifacts as a CAR file with them as roots, and 404 for a missing one", async function () {
    const a = await store.putArtifact({ n: 1 });
    const b = await store.putArtifact({ n: 2 });
    const car = await store.exportCar([a, b]);
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
      await store.exportCar([a, missing]);
      expect.fail("a missing artifact must fail the export");
    } catch (err) {
      expect((err as ApiError).status).to.equal(404);
      expect((err as ApiError).detail).to.include(missing);
    }
  });

  it("should detect a block whose bytes no longer hash to its CID", async function () {
    const cid = await store.putArtifact({ tamper: "me" });
    const shard = path.join(store.root, cid.slice(-2));
    expect(await readdir(shard)).to.include(cid);
    await writeFile(path.join(shard, cid), '{"tamper":"you"}');
    try {
      await store.getArtifact(cid);
      expect.fail("a corrupted block must not be served");
    } catch (err) {
      expect((err as Error).message).to.match(/does not hash to its CID/);
    }
  });
});
