import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { CarBlockIterator } from "@ipld/car";
import { expect } from "chai";
import { sha256 } from "multiformats/hashes/sha2";
import { signedHeaders } from "../../../relayer/auth/hmac.ts";
import { startChildRelayer, type ChildRelayer } from "../../fixtures/child.ts";

const CAR_EXPORT = path.join(import.meta.dirname, "car-export-extension.ts");
const ARTIFACTS = 300;
const KIB = 1000;
/** What the relayer's resident memory may grow by while it streams the whole export. */
const MAX_GROWTH = 64 * 1024 * 1024;

/** Resident and peak resident memory of a process, in bytes (Linux /proc). */
async function memoryOf(pid: number): Promise<{ rss: number; peak: number }> {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  const field = (name: string) =>
    Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(status)![1]) * 1024;
  return { rss: field("VmRSS"), peak: field("VmHWM") };
}

/**
 * The CAR export streams: a relayer child process exports ~300 MiB of artifacts in one
 * `POST /artifacts/car` while this test reads its memory from /proc, and its resident memory grows
 * by a small fraction of that (building the CAR in memory grew it by more than the export's size).
 */
describe("# CAR export memory (child relayer over HTTP)", function () {
  this.timeout(600_000);
  let child: ChildRelayer;
  let dataDir: string;

  before(async function () {
    dataDir = await mkdtemp(path.join(os.tmpdir(), "vf-car-memory-"));
    child = await startChildRelayer(
      {
        // The embedded store in its own directory, as a development relayer runs.
        DATABASE_URL: "",
        DATA_DIR: dataDir,
        PORT: "0",
        LOG_LEVEL: "silent",
        NODE_ENV: "test",
        VERIFLOW_CAR_MAX_BYTES: String(4 * 1024 * 1024 * 1024),
        CAR_ARTIFACTS: String(ARTIFACTS),
        CAR_ARTIFACT_KIB: String(KIB),
      },
      { extension: CAR_EXPORT },
    );
  });
  after(async function () {
    child?.process.kill("SIGTERM");
    await child?.exited;
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it("should stream hundreds of MiB of artifacts with the relayer's memory growing far less than the export", async function () {
    const { key, secret, cids } = child.ready as { key: string; secret: string; cids: string[] };
    // Let the set-up's garbage settle, then take the baseline and restart the peak from it.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    await writeFile(`/proc/${child.pid}/clear_refs`, "5");
    const before = await memoryOf(child.pid);

    let sampled = before.rss;
    const sampler = setInterval(() => {
      void memoryOf(child.pid).then(
        (m) => (sampled = Math.max(sampled, m.rss)),
        () => {},
      );
    }, 20);
    const body = JSON.stringify({ cids });
    const res = await fetch(`${child.url}/artifacts/car`, {
      method: "POST",
      headers: { "Content-Type": "application/json", ...signedHeaders(key, secret, body) },
      body,
    });
    expect(res.status).to.equal(200);
    const announced = Number(res.headers.get("content-length"));

    // Read it as a client would, checking every block against its CID.
    let received = 0;
    const counted = (async function* () {
      for await (const chunk of res.body!) {
        received += chunk.byteLength;
        yield chunk;
      }
    })();
    const blocks = await CarBlockIterator.fromIterable(counted);
    expect((await blocks.getRoots()).map(String)).to.deep.equal(cids);
    let n = 0;
    for await (const block of blocks) {
      expect(block.cid.toString()).to.equal(cids[n]);
      const digest = await sha256.digest(block.bytes);
      expect(Buffer.from(digest.digest).equals(Buffer.from(block.cid.multihash.digest))).to.equal(
        true,
      );
      n++;
    }
    clearInterval(sampler);
    const after = await memoryOf(child.pid);

    expect(n).to.equal(ARTIFACTS);
    expect(received).to.equal(announced);
    expect(received).to.be.greaterThan(250 * 1024 * 1024);
    const growth = Math.max(after.peak, sampled) - before.rss;
    console.log(
      `      CAR ${(received / 2 ** 20).toFixed(0)} MiB streamed; relayer RSS ${(before.rss / 2 ** 20).toFixed(0)} MiB -> peak ${(Math.max(after.peak, sampled) / 2 ** 20).toFixed(0)} MiB (growth ${(growth / 2 ** 20).toFixed(1)} MiB)`,
    );
    expect(growth).to.be.lessThan(MAX_GROWTH);
  });
});
