import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import { loadRulesFile, superLinear } from "../../../relayer/config/legal-rules.ts";

describe("# legal rules file", function () {
  let dir: string;
  before(function () {
    dir = mkdtempSync(path.join(os.tmpdir(), "vf-legal-rules-"));
  });
  after(function () {
    rmSync(dir, { recursive: true, force: true });
  });
  const load = (name: string, content: string) => {
    const file = path.join(dir, name);
    writeFileSync(file, content);
    return loadRulesFile(file);
  };

  it("should refuse at start a pattern that backtracks super-linearly, naming the rule, the quantifier and why", function () {
    const loaded = load(
      "nested.yaml",
      [
        "kinds:",
        "  nda:",
        "    detect: ['\\bNDA\\b']",
        "    must_not_include: ['perpetual', '(a+)+$']",
        "  general:",
        "    must_include: ['(?:a|b)*$', 'guarantee']",
      ].join("\n"),
    );
    expect(loaded).to.have.property("problems");
    const { problems } = loaded as { problems: string[] };
    expect(problems).to.deep.equal([
      `${dir}/nested.yaml: kinds.nda.must_not_include.1 pattern '(a+)+$' repeats a+ inside (a+)+, which can share out a run of 'A' in many ways: it can backtrack exponentially on the client's text; write it without the ambiguity`,
      `${dir}/nested.yaml: kinds.general.must_include.0 pattern '(?:a|b)*$' retries (?:a|b)* from each character of a run of 'A' after a failed match: it can backtrack polynomially (quadratic or worse in the text's length) on the client's text; write it without the ambiguity`,
    ]);
  });

  it("should find each class of super-linear pattern", function () {
    const refused: Array<[string, string]> = [
      // A quantifier nested in another, also where nothing after it can fail yet.
      ["(a+)+$", "repeats a+ inside (a+)+"],
      ["(a*)*", "repeats a* inside (a*)*"],
      ["(?:\\w+\\s?)*", "repeats \\w+ inside (?:\\w+\\s?)*"],
      ["x(?:a+?)+y", "repeats a+? inside (?:a+?)+"],
      ["(a+){2}", "repeats a+ inside (a+){2}"],
      ["(?<word>\\p{L}+ ?)*$", "repeats \\p{L}+ inside (?<word>\\p{L}+ ?)*"],
      ["(x+y){2,}", "retries x+ from each character"],
      // Overlapping alternatives under a quantifier.
      ["(a|aa)+$", "retries (a|aa)+ from each character"],
      ["(?:ab|a)+c", "(?:ab|a)+"],
      // A quantifier a failed match retries from each start: quadratic.
      ["(?:a|b)*$", "retries (?:a|b)* from each character of a run of 'A'"],
      ["\\s+$", "retries \\s+ from each character of a run of ' '"],
      ["a+b+", "retries a+ from each character"],
      // Adjacent quantifiers over the same characters.
      ["\\d+\\d+$", "has \\d+ and \\d+ next to each other, which can share out a run of '0'"],
      ["\\w+\\s*\\w+x", "next to each other"],
      // A repeated group that is only a bounded range.
      ["(a{1,3})+", "repeats a group that is only a range ((a{1,3})+)"],
      ["(a{1,3})+$", "(a{1,3})+"],
    ];
    for (const [p, reason] of refused) expect(superLinear(p), p).to.include(reason);
  });

  it("should accept literal words, simple classes and quantifiers that cannot share a run", function () {
    for (const p of [
      "\\btransfer\\b",
      "IBAN",
      "confirm the beneficiary",
      "\\bNDA\\b",
      "non-?disclosure",
      "perpetual",
      "(a+)?",
      "(a+)",
      "\\(a+\\)+",
      "[(+]+",
      "[a\\]+]+",
      "\\p{L}+",
      "(?:\\d{3}-)+",
      "(?:\\d{1,3}\\.){3}\\d{1,3}",
      "\\b(?:Art\\.|Article) \\d+(?:\\.\\d+)*\\b",
      "\\bgovern(?:ed|ing) by the laws? of\\b",
      "\\bterm\\b.{0,40}\\byears?\\b",
      "IBAN\\s*[A-Z]{2}\\d{2}",
      // Nested, but the inner run ends on a character the next round cannot start with.
      "((ab)*c)+",
      "(?:(?:a|b)[0-9]{1,}-)+",
    ])
      expect(superLinear(p), p).to.equal(null);
  });

  it("should load the example of docs/analysis.md", function () {
    const docs = readFileSync(path.join(import.meta.dirname, "../../../docs/analysis.md"), "utf8");
    const example = /### Legal rules file\n\n```yaml\n([\s\S]*?)```/.exec(docs)?.[1];
    expect(example).to.be.a("string");
    const loaded = load("example.yaml", example!);
    expect(loaded).to.not.have.property("problems");
    expect((loaded as { kinds: Array<{ name: string }> }).kinds.map((k) => k.name)).to.deep.equal([
      "payment_instruction",
      "nda",
      "general",
    ]);
  });
});
