import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { createRequire } from "node:module";
import { expect } from "chai";
import * as snarkjs from "snarkjs";
import { zkeyVerifies } from "../../scripts/circuits-export.ts";
import { DEVNET_CHAIN_IDS } from "../../relayer/devnet/chains.ts";
import { BUILD_DIR, MANIFEST_PATH, REPO_ROOT } from "../../relayer/proofs/circuits.ts";
import {
  DevelopmentKeysError,
  assertProvingKeysFit,
  closeProver,
  provingKeySetup,
} from "../../relayer/proofs/index.ts";

const run = promisify(execFile);
const require = createRequire(import.meta.url);
const silent = { info() {}, debug() {}, warn() {}, error() {} };

/** `node scripts/circuits.ts <args>`: its exit code and stderr. */
async function circuitsScript(...args: string[]): Promise<{ code: number; stderr: string }> {
  try {
    await run(process.execPath, [path.join(REPO_ROOT, "scripts/circuits.ts"), ...args], {
      cwd: REPO_ROOT,
    });
    return { code: 0, stderr: "" };
  } catch (err) {
    const failed = err as { code: number; stderr: string };
    return { code: failed.code, stderr: failed.stderr };
  }
}

describe("# proving keys: development vs ceremony", function () {
  this.timeout(120_000);
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "veriflow-setup-"));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
    await closeProver();
  });

  it("should read the committed keys as the development setup", async () => {
    expect(await provingKeySetup()).to.deep.equal({ kind: "development" });
  });

  it("should allow the development keys on the devnet chains only", async () => {
    await assertProvingKeysFit(DEVNET_CHAIN_IDS, DEVNET_CHAIN_IDS);
    for (const chainIds of [[1], [31337, 137], [11155111]]) {
      let error: unknown;
      try {
        await assertProvingKeysFit(chainIds, DEVNET_CHAIN_IDS);
      } catch (err) {
        error = err;
      }
      expect(error, String(chainIds)).to.be.instanceOf(DevelopmentKeysError);
      const message = (error as Error).message;
      expect(message).to.match(/INSECURE development proving keys/);
      expect(message).to.match(/ceremony/);
      expect(message).to.include("node scripts/circuits.ts export --ptau");
      expect((error as DevelopmentKeysError).chainIds).to.deep.equal(
        chainIds.filter((id) => !DEVNET_CHAIN_IDS.includes(id)),
      );
    }
  });

  it("should allow any chain once a ceremony is recorded in the manifest", async () => {
    const manifest = JSON.parse(await readFile(MANIFEST_PATH, "utf8")) as Record<string, unknown>;
    const ceremony = {
      ptau: { sha256: "ab".repeat(32), power: 14 },
      verifiedWith: "snarkjs 0.7.6",
      verifiedAt: "2026-11-23T00:00:00.000Z",
      zkeys: { execution: "cd".repeat(32), artifacts: "ef".repeat(32) },
    };
    const file = path.join(dir, "manifest.json");
    await writeFile(file, JSON.stringify({ ...manifest, ceremony }));
    expect(await assertProvingKeysFit([1, 137], DEVNET_CHAIN_IDS, file)).to.deep.equal({
      kind: "ceremony",
      ceremony,
    });
  });

  it("should verify a zkey only against its own r1cs and ptau (snarkjs zkey verify)", async () => {
    // Two one-constraint circuits and a 2^4 powers of tau: the same check `circuits export`
    // runs, on inputs small enough for a test.
    const build = async (name: string, body: string) => {
      const source = path.join(dir, `${name}.circom`);
      await writeFile(
        source,
        `pragma circom 2.1.9;\ntemplate T() { signal input a; signal input b; signal output c; ${body} }\ncomponent main = T();\n`,
      );
      await run(process.execPath, [require.resolve("circom2/cli.js"), source, "--r1cs", "-o", dir]);
      return path.join(dir, `${name}.r1cs`);
    };
    const product = await build("product", "c <== a * b;");
    const square = await build("square", "c <== a * a + b;");
    const curve = await snarkjs.curves.getCurveFromName("bn128");
    const ptau0 = path.join(dir, "pot0.ptau");
    const ptau1 = path.join(dir, "pot1.ptau");
    const ptau = path.join(dir, "pot.ptau");
    await snarkjs.powersOfTau.newAccumulator(curve, 4, ptau0, silent);
    await snarkjs.powersOfTau.beacon(ptau0, ptau1, "test", "ab".repeat(32), 10, silent);
    await snarkjs.powersOfTau.preparePhase2(ptau1, ptau, silent);
    const zkey = path.join(dir, "product.zkey");
    await snarkjs.zKey.newZKey(product, ptau, zkey, silent);
    expect(await zkeyVerifies(product, ptau, zkey)).to.equal(true);
    expect(await zkeyVerifies(square, ptau, zkey)).to.equal(false);
    const garbage = path.join(dir, "garbage.zkey");
    await writeFile(garbage, "not a zkey");
    expect(await zkeyVerifies(product, ptau, garbage)).to.equal(false);
  });

  it("should refuse to export without a ceremony ptau, or with the development one", async () => {
    const before = await readFile(MANIFEST_PATH, "utf8");
    const missing = await circuitsScript("export");
    expect(missing.code).to.equal(1);
    expect(missing.stderr).to.match(/export needs --ptau/);
    const dev = await circuitsScript(
      "export",
      "--ptau",
      path.join(BUILD_DIR, "ptau", "dev_14.ptau"),
    );
    expect(dev.code).to.equal(1);
    expect(dev.stderr).to.match(/is the development powers of tau/);
    expect(await readFile(MANIFEST_PATH, "utf8")).to.equal(before);
  });
});
