import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** A path of the repository's, from its root (`relayer/analysis/first-names.ts`). */
export function repoPath(relative: string): string {
  return path.join(path.dirname(fileURLToPath(import.meta.url)), "..", relative);
}

/**
 * A generated file's command line: writes `content` to `file`, or with `--check` exits 1 when the
 * committed file differs from it.
 */
export function writeOrCheck(file: string, content: string, builder: string, what: string): void {
  if (process.argv.includes("--check")) {
    if (readFileSync(file, "utf8") !== content) {
      console.error(`${file} differs from what ${builder} builds`);
      process.exit(1);
    }
    console.log(`${what} is current`);
  } else {
    writeFileSync(file, content);
    console.log(`wrote ${file}`);
  }
}
