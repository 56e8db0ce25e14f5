import { existsSync } from "node:fs";
import path from "node:path";

const repoRoot = path.resolve(import.meta.dirname, "../../..");

/**
 * A file of the shared reference data, which sits beside the repository (`../shared/data/` from
 * the repo root, as in CI's clone; one level further up from an engineer's worktree). Throws,
 * naming the paths tried, when it is absent: a test that needs real data must not pass without it.
 */
export function referenceDataFile(name: string): string {
  const tried = [
    path.resolve(repoRoot, "../shared/data", name),
    path.resolve(repoRoot, "../../shared/data", name),
  ];
  const found = tried.find((p) => existsSync(p));
  if (!found) throw new Error(`reference data file ${name} not found (tried ${tried.join(", ")})`);
  return found;
}
