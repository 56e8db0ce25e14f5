import { existsSync } from "node:fs";
import path from "node:path";

const repoRoot = path.resolve(import.meta.dirname, "../../..");

/**
 * A file of the shared reference data, which sits beside the repository (`../shared/data/` from
 * the repo root; one level further up from an engineer's worktree; `/work/shared/data` for a
 * clone made elsewhere; or `VERIFLOW_REFERENCE_DATA`). Throws,
 * naming the paths tried, when it is absent: a test that needs real data must not pass without it.
 */
export function referenceDataFile(name: string): string {
  const tried = [
    ...(process.env.VERIFLOW_REFERENCE_DATA
      ? [path.resolve(process.env.VERIFLOW_REFERENCE_DATA, name)]
      : []),
    path.resolve(repoRoot, "../shared/data", name),
    path.resolve(repoRoot, "../../shared/data", name),
    // The workplace's shared folder, for a clone made elsewhere (CI clones into /tmp).
    path.resolve("/work/shared/data", name),
  ];
  const found = tried.find((p) => existsSync(p));
  if (!found) throw new Error(`reference data file ${name} not found (tried ${tried.join(", ")})`);
  return found;
}
