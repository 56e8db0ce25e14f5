/**
 * Running the detectors' patterns as the objects that hold their compiled code.
 *
 * `String.prototype.matchAll` and `split` run a copy of the pattern, and `new RegExp(pattern)` is
 * one: a copy finds its compiled code in V8's regexp compilation cache, keyed by source and flags,
 * which every full garbage collection ages (two generations). After two full collections every
 * copy is parsed and compiled again, once interpreted and once to machine code, which the first
 * text after paid in one go: 250 ms for a corpus text that took 6 ms before (2-core AMD EPYC),
 * the paced stalls of bench:analysis. A pattern object keeps its own compiled code while it lives,
 * so the detectors run their module-level objects, each call from its own position (never from
 * what another call left in `lastIndex`), and lint forbids the copying calls in this folder.
 */
import { isHighSurrogate, isLowSurrogate } from "./unicode.ts";

/**
 * Every match of the global pattern `re` in `text`, as `text.matchAll(re)` gives them, found by
 * the object itself. Reentrant: each step sets `lastIndex` from where this iteration stands, so an
 * iteration may run inside another over the same pattern; `lastIndex` is 0 again once it ends.
 */
export function* execAll(re: RegExp, text: string): Generator<RegExpExecArray, void, undefined> {
  if (!re.global) throw new TypeError(`execAll needs a global pattern: /${re.source}/${re.flags}`);
  const unicode = re.unicode || re.flags.includes("v");
  let from = 0;
  try {
    while (from <= text.length) {
      re.lastIndex = from;
      const m = re.exec(text);
      if (!m) return;
      from = m[0] === "" ? advance(text, re.lastIndex, unicode) : re.lastIndex;
      yield m;
    }
  } finally {
    re.lastIndex = 0;
  }
}

/**
 * The first match of the global or sticky pattern `re` in `text` at or after `from` (at `from`
 * only, when sticky), found by the object itself; `lastIndex` is 0 again after.
 */
export function execFrom(re: RegExp, text: string, from: number): RegExpExecArray | null {
  if (!re.global && !re.sticky)
    throw new TypeError(`execFrom needs a global or sticky pattern: /${re.source}/${re.flags}`);
  re.lastIndex = from;
  try {
    return re.exec(text);
  } finally {
    re.lastIndex = 0;
  }
}

/** Where a search goes on after an empty match at `at`: past one code point in unicode mode. */
function advance(text: string, at: number, unicode: boolean): number {
  return unicode && isHighSurrogate(text.charCodeAt(at)) && isLowSurrogate(text.charCodeAt(at + 1))
    ? at + 2
    : at + 1;
}

/**
 * `text` cut at each match of the global pattern `re`, as `text.split(re)` cuts it for a pattern
 * without groups that never matches the empty string.
 */
export function splitOn(text: string, re: RegExp): string[] {
  const parts: string[] = [];
  let from = 0;
  for (const m of execAll(re, text)) {
    if (m[0] === "")
      throw new TypeError(`splitOn needs a pattern that matches no empty string: /${re.source}/`);
    parts.push(text.slice(from, m.index));
    from = m.index + m[0].length;
  }
  parts.push(text.slice(from));
  return parts;
}
