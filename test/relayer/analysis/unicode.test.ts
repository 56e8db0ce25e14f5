import { expect } from "chai";
import { codePoints, isHighSurrogate, isLowSurrogate } from "../../../relayer/analysis/unicode.ts";

describe("# analysis unicode", function () {
  it("should tell the two halves of a surrogate pair, and nothing else, by their ranges", function () {
    const [high, low] = ["😀".charCodeAt(0), "😀".charCodeAt(1)];
    expect([isHighSurrogate(high), isLowSurrogate(high)]).to.deep.equal([true, false]);
    expect([isHighSurrogate(low), isLowSurrogate(low)]).to.deep.equal([false, true]);
    for (const [unit, hi, lo] of [
      [0xd7ff, false, false],
      [0xd800, true, false],
      [0xdbff, true, false],
      [0xdc00, false, true],
      [0xdfff, false, true],
      [0xe000, false, false],
      [0x41, false, false],
      [NaN, false, false],
    ] as const) {
      expect([isHighSurrogate(unit), isLowSurrogate(unit)], String(unit)).to.deep.equal([hi, lo]);
    }
  });

  it("should count a surrogate pair as one code point and a lone surrogate as one", function () {
    expect(codePoints("")).to.equal(0);
    expect(codePoints("a😀b")).to.equal(3);
    expect(codePoints("😀😀")).to.equal(2);
    expect(codePoints("\ud83d")).to.equal(1);
    expect(codePoints("\ude00\ud83d")).to.equal(2);
    expect(codePoints("\ud83dx\ude00")).to.equal(3);
    for (const t of ["x😀\ud83d", "\ude00😀", "é\u0301中😀"])
      expect(codePoints(t), t).to.equal([...t].length);
  });
});
