import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";

const repoRoot = path.resolve(import.meta.dirname, "../../..");

/** SHA-256 of the published files kept in test/fixtures/reference (see its README). */
const PUBLISHED_SHA256: Record<string, string> = {
  "ofac-sanctioned-eth.txt": "57bbfa6912d8342b926ad1b67548f0a869b9ae1a134c8c9ce361df8ed160be73",
};

/**
 * A file of the shared reference data: `VERIFLOW_REFERENCE_DATA`, then the workplace's shared
 * folder beside the repository (`../shared/data/` from the repo root, one level further up from a
 * worktree, `/work/shared/data` for a clone made elsewhere), then the byte-exact copy of the
 * published file in `test/fixtures/reference/` (its hash is checked). Throws, naming the paths
 * tried, when none is there: a test that needs real data must not pass without it.
 */
export function referenceDataFile(name: string): string {
  const shared = [
    ...(process.env.VERIFLOW_REFERENCE_DATA
      ? [path.resolve(process.env.VERIFLOW_REFERENCE_DATA, name)]
      : []),
    path.resolve(repoRoot, "../shared/data", name),
    path.resolve(repoRoot, "../../shared/data", name),
    path.resolve("/work/shared/data", name),
  ];
  const found = shared.find((p) => existsSync(p));
  if (found) return found;

  const vendored = path.resolve(repoRoot, "test/fixtures/reference", name);
  const expected = PUBLISHED_SHA256[name];
  if (expected && existsSync(vendored)) {
    const actual = createHash("sha256").update(readFileSync(vendored)).digest("hex");
    if (actual !== expected) {
      throw new Error(`${vendored} differs from the published file (sha256 ${actual})`);
    }
    return vendored;
  }
  throw new Error(
    `reference data file ${name} not found (tried ${[...shared, vendored].join(", ")})`,
  );
}
