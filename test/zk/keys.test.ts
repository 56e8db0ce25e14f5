import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { expect } from "chai";
import { CIRCUIT_NAMES, MANIFEST_PATH, circuitFiles } from "../../relayer/proofs/circuits.ts";
import { closeProver } from "../../relayer/proofs/index.ts";
import { exportKeys } from "../../scripts/circuits-export.ts";

/**
 * The committed verification keys and Solidity verifiers are exactly what the zkeys in
 * circuits/build export, and circuits/build is what the manifest describes. (CI's
 * `npm run circuits:check` additionally rebuilds the zkeys from the circuit sources.)
 */
describe("# committed keys", function () {
  this.timeout(60_000);
  after(closeProver);

  const sha256 = (data: string | Uint8Array) => createHash("sha256").update(data).digest("hex");

  for (const name of CIRCUIT_NAMES) {
    it(`should match the ${name} zkey and the manifest`, async () => {
      const files = circuitFiles(name);
      const manifest = JSON.parse(await readFile(MANIFEST_PATH, "utf8")) as {
        circuits: Record<string, { sha256: Record<string, string> }>;
      };
      const entry = manifest.circuits[name]!.sha256;
      expect(sha256(await readFile(files.zkey))).to.equal(entry.zkey);
      expect(sha256(await readFile(files.wasm))).to.equal(entry.wasm);
      expect(sha256(await readFile(files.r1cs))).to.equal(entry.r1cs);

      const exported = await exportKeys(name, files.zkey);
      const committedVkey = await readFile(files.vkey, "utf8");
      const committedVerifier = await readFile(files.verifier, "utf8");
      expect(committedVkey).to.equal(exported.vkeyText);
      expect(committedVerifier).to.equal(exported.verifierText);
      expect(sha256(committedVkey)).to.equal(entry.vkey);
      expect(sha256(committedVerifier)).to.equal(entry.verifier);
      expect(committedVerifier).to.match(new RegExp(`contract ${files.verifierContract} \\{`));
    });
  }
});
