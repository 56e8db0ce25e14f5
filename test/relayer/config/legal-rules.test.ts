import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import { loadRulesFile, nestedQuantifier } from "../../../relayer/config/legal-rules.ts";

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

  it("should refuse at start a repeated group holding an unbounded quantifier, naming the rule and the group", function () {
    const loaded = load(
      "nested.yaml",
      [
        "kinds:",
        "  nda:",
        "    detect: ['\\bNDA\\b']",
        "    must_not_include: ['perpetual', '(a+)+$']",
        "  general:",
        "    must_include: ['(?:\\w+\\s?)*done']",
      ].join("\n"),
    );
    expect(loaded).to.have.property("problems");
    const { problems } = loaded as { problems: string[] };
    expect(problems).to.have.length(2);
    expect(problems[0]).to.include("kinds.nda.must_not_include.1 pattern '(a+)+$'");
    expect(problems[0]).to.include("unbounded quantifier ((a+)+)");
    expect(problems[0]).to.include("backtrack exponentially");
    expect(problems[1]).to.include("kinds.general.must_include.0 pattern '(?:\\w+\\s?)*done'");
  });

  it("should find the nesting in every form of group and quantifier", function () {
    const nested: Array<[string, string]> = [
      ["(a*)*", "(a*)*"],
      ["x(?:a+?)+y", "(?:a+?)+"],
      ["(?<word>\\p{L}+ ?)*$", "(?<word>\\p{L}+ ?)*"],
      ["(x+y){2,}", "(x+y){2,}"],
      ["(a+){2}", "(a+){2}"],
      ["((a)+b)+", "((a)+b)+"],
      ["(?:(?:a|b)[0-9]{1,}-)+", "(?:(?:a|b)[0-9]{1,}-)+"],
    ];
    for (const [p, group] of nested) expect(nestedQuantifier(p), p).to.equal(group);
  });

  it("should accept quantifiers that do not nest: optional groups, escaped brackets, classes, bounded insides", function () {
    for (const p of [
      "(a+)?",
      "(a+)",
      "a+b+",
      "\\(a+\\)+",
      "[(+]+",
      "[a\\]+]+",
      "\\p{L}+",
      "(?:\\d{3}-)+",
      "\\bNDA\\b",
      "non-?disclosure",
    ])
      expect(nestedQuantifier(p), p).to.equal(null);
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
