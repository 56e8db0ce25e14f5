import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { expect } from "chai";
import { execAll, execFrom, splitOn } from "../../../relayer/analysis/patterns.ts";
import { SERVICE_NODE_FLAGS } from "../../fixtures/service-flags.ts";

const run = promisify(execFile);

const ANALYSIS_DIR = path.resolve(import.meta.dirname, "../../../relayer/analysis");

/** What `execAll` gives, as `matchAll` would: each match's index and captures. */
const shapes = (ms: Iterable<RegExpExecArray>) => [...ms].map((m) => [m.index, ...m]);

/**
 * The frames that made a copy of a pattern while the detectors scanned their texts in a process of
 * the project's Node (test/fixtures/pattern-copies.ts): this one loads TypeScript through a
 * compiler that writes some pattern literals as `new RegExp` calls, which the service's Node
 * does not.
 */
async function copiesMade(
  ...args: string[]
): Promise<{ texts: number; spans: number; frames: string[] }> {
  const { stdout } = await run(
    process.execPath,
    [
      ...SERVICE_NODE_FLAGS,
      path.resolve(import.meta.dirname, "../../fixtures/pattern-copies.ts"),
      ...args,
    ],
    { maxBuffer: 64 * 1024 * 1024 },
  );
  return JSON.parse(stdout) as { texts: number; spans: number; frames: string[] };
}

describe("# analysis patterns", function () {
  describe("execAll", function () {
    const cases: Array<[RegExp, string]> = [
      [/\d+/g, "a1 b22 c333"],
      [/(?<word>\p{Lu}\p{Ll}+)(?: (\p{Lu}\p{Ll}+))?/gu, "Jane Doe met Tom and Başoğlu"],
      [/(?<=@)[a-z]+/g, "a@b c@dd @"],
      [/x*/g, "axxbx"],
      [/(?:)/gu, "a😀b"],
      [/\p{Extended_Pictographic}?/gu, "😀x😀"],
      [/a/gy, "aab aa"],
      [/nothing/g, "here"],
      [/.?/gsu, ""],
    ];

    it("should give what matchAll gives, empty matches and surrogate pairs too", function () {
      for (const [re, text] of cases)
        expect(shapes(execAll(re, text)), `${re} on ${text}`).to.deep.equal(
          shapes(text.matchAll(new RegExp(re))),
        );
    });

    it("should read from its own position, whatever lastIndex another left, and leave it at 0", function () {
      const re = /\d/g;
      re.lastIndex = 3;
      expect(shapes(execAll(re, "1 2 3"))).to.deep.equal([
        [0, "1"],
        [2, "2"],
        [4, "3"],
      ]);
      expect(re.lastIndex).to.equal(0);
      for (const _ of execAll(re, "1 2 3")) break;
      expect(re.lastIndex).to.equal(0);
    });

    it("should run inside another iteration over the same pattern", function () {
      const re = /\p{Lu}/gu;
      const pairs: string[] = [];
      for (const outer of execAll(re, "AB"))
        for (const inner of execAll(re, "CD")) pairs.push(`${outer[0]}${inner[0]}`);
      expect(pairs).to.deep.equal(["AC", "AD", "BC", "BD"]);
    });

    it("should refuse a pattern that is not global, as matchAll does", function () {
      expect(() => [...execAll(/a/, "a")]).to.throw(TypeError, /global/);
      expect(() => [...execAll(/a/y, "a")]).to.throw(TypeError, /global/);
    });
  });

  describe("execFrom", function () {
    it("should find the next match from the position given, at it only when sticky", function () {
      expect(execFrom(/\d/g, "a1b2", 2)?.index).to.equal(3);
      expect(execFrom(/\d/y, "a1b2", 2)).to.equal(null);
      expect(execFrom(/\d/y, "a1b2", 3)?.[0]).to.equal("2");
      const re = /\d/g;
      execFrom(re, "a1b2", 2);
      expect(re.lastIndex).to.equal(0);
    });

    it("should refuse a pattern neither global nor sticky", function () {
      expect(() => execFrom(/a/, "a", 0)).to.throw(TypeError, /global or sticky/);
    });
  });

  describe("splitOn", function () {
    it("should cut as split cuts", function () {
      const cases: Array<[RegExp, string]> = [
        [/[ \t]/gu, "jane  doe\tsmith"],
        [/[ +,]|%20/gu, "Doe, Jane%20Ann+Lee"],
        [/[-'’]/gu, "-ji-hoon’"],
        [/,/g, ""],
        [/,/g, "no commas"],
      ];
      for (const [re, text] of cases)
        expect(splitOn(text, re), `${re} on ${text}`).to.deep.equal(text.split(new RegExp(re)));
    });

    it("should refuse a pattern that matches the empty string", function () {
      expect(() => splitOn("ab", /x*/g)).to.throw(TypeError, /empty/);
    });
  });

  describe("the detectors", function () {
    this.timeout(60_000);

    it("should see a copy made in the scanning process (the check itself)", async function () {
      const { frames } = await copiesMade("--self-check");
      expect(frames.filter((frame) => frame.includes("pattern-copies.ts"))).to.have.length(3);
    });

    it("should scan every text without a copy of a pattern of their own", async function () {
      // A copy finds its compiled code in V8's cache only until two full collections age it out:
      // then each is compiled again on the text that meets it (patterns.ts). The libraries'
      // copies (libphonenumber's, validator's, ibantools') are small patterns, not counted.
      const { texts, spans, frames } = await copiesMade();
      expect(texts).to.be.greaterThan(360);
      expect(spans).to.be.greaterThan(texts);
      expect(frames.filter((frame) => frame.includes(ANALYSIS_DIR))).to.deep.equal([]);
    });
  });
});
