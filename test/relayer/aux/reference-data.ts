import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { SHIPPED_OFAC_SNAPSHOT } from "../../../relayer/compliance/snapshot.ts";

const repoRoot = path.resolve(import.meta.dirname, "../../..");

/** The published files the product ships, with their SHA-256 (relayer/compliance/snapshots/README.md). */
const SHIPPED: Record<string, { path: string; sha256: string }> = {
  [path.basename(SHIPPED_OFAC_SNAPSHOT.path)]: SHIPPED_OFAC_SNAPSHOT,
};

/**
 * A file of the shared reference data: `VERIFLOW_REFERENCE_DATA`, then the workplace's shared
 * folder beside the repository (`../shared/data/` from the repo root, one level further up from a
 * worktree, `/work/shared/data` for a clone made elsewhere), then the byte-exact copy of the
 * published file the product ships (its hash is checked). Throws, naming the paths
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

  const shipped = SHIPPED[name];
  const vendored = shipped?.path ?? path.resolve(repoRoot, "relayer/compliance/snapshots", name);
  if (shipped && existsSync(vendored)) {
    const actual = createHash("sha256").update(readFileSync(vendored)).digest("hex");
    if (actual !== shipped.sha256) {
      throw new Error(`${vendored} differs from the published file (sha256 ${actual})`);
    }
    return vendored;
  }
  throw new Error(
    `reference data file ${name} not found (tried ${[...shared, vendored].join(", ")})`,
  );
}
