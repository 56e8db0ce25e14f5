import { createSecretKey } from "node:crypto";
import { mkdtemp, readdir, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import { keyFingerprint } from "../../../relayer/auth/keys.ts";
import { decryptSecret, encryptSecret } from "../../../relayer/auth/secrets.ts";
import { openStore } from "../../../relayer/store/index.ts";
import { newApiKey, signedRequest, startInProcessRelayer } from "../../fixtures/relayer.ts";

const MASTER = Buffer.alloc(32, 7);

async function modes(dir: string): Promise<Array<{ file: string; mode: number; dir: boolean }>> {
  const out = [{ file: dir, mode: (await stat(dir)).mode & 0o777, dir: true }];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await modes(file)));
    else if (entry.isFile()) out.push({ file, mode: (await stat(file)).mode & 0o777, dir: false });
  }
  return out;
}

describe("# secrets and files at rest", function () {
  this.timeout(60_000);

  it("should refuse a secret blob whose GCM tag was cut short (a 4-byte tag would be forgeable)", () => {
    const blob = encryptSecret(MASTER, "vfs_signing-secret", "key-1");
    expect(decryptSecret(MASTER, blob, "key-1")).to.equal("vfs_signing-secret");
    const [version, iv, ciphertext, tag] = blob.split(".");
    const shortTag = Buffer.from(tag!, "base64url").subarray(0, 4).toString("base64url");
    expect(() =>
      decryptSecret(MASTER, [version, iv, ciphertext, shortTag].join("."), "key-1"),
    ).to.throw(/16 bytes/);
    // A full tag over other data still fails (the context is bound as associated data).
    expect(() => decryptSecret(MASTER, blob, "key-2")).to.throw();
  });

  it("should read the same blobs with the master key imported once as a KeyObject, and refuse a short one", () => {
    const imported = createSecretKey(MASTER);
    const fromBytes = encryptSecret(MASTER, "output", "an_1:output");
    const fromKey = encryptSecret(imported, "output", "an_1:output");
    expect(decryptSecret(imported, fromBytes, "an_1:output")).to.equal("output");
    expect(decryptSecret(MASTER, fromKey, "an_1:output")).to.equal("output");
    expect(() => decryptSecret(imported, fromBytes, "an_2:output")).to.throw();
    const short = createSecretKey(MASTER.subarray(0, 16));
    expect(() => encryptSecret(short, "output")).to.throw(/32 bytes/);
    expect(() => decryptSecret(short, fromBytes, "an_1:output")).to.throw(/32 bytes/);
  });

  it("should keep the PGlite data directory 0700 and its files 0600, whatever the umask", async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), "vf-modes-"));
    const previous = process.umask(0o002);
    try {
      const store = await openStore({ dataDir });
      await store.query("CREATE TABLE t (x int)");
      await store.close();
    } finally {
      process.umask(previous);
    }
    try {
      const found = await modes(dataDir);
      expect(found.length).to.be.greaterThan(10);
      for (const f of found) expect(f.mode, f.file).to.equal(f.dir ? 0o700 : 0o600);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it("should log a request's API key as its fingerprint, never the key", async () => {
    const lines: string[] = [];
    const relayer = await startInProcessRelayer({
      label: "log-fingerprint",
      logLines: lines,
    });
    try {
      const client = await newApiKey(relayer.ctx, "enterprise");
      const res = await signedRequest(relayer.app, client, "GET", "/v1/workflows");
      expect(res.status).to.equal(200);
      const request = lines
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .find((l) => l.msg === "request");
      expect(request?.key).to.equal(keyFingerprint(client.key));
      expect(lines.join("\n")).to.not.include(client.key);
      expect(lines.join("\n")).to.not.include(client.secret);
    } finally {
      await relayer.close();
    }
  });
});
