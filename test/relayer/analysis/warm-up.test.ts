import { expect } from "chai";
import { findPii, PII_TYPES } from "../../../relayer/analysis/redaction.ts";
import {
  EVERY_TYPE_TEXTS,
  LOCALE_TEXTS,
  warmDetectors,
} from "../../../relayer/analysis/warm-up.ts";

describe("# analysis redaction warm-up", function () {
  it("should warm the detectors on texts holding every type, in Latin-1 and beyond it", function () {
    expect(EVERY_TYPE_TEXTS).to.have.length(2);
    const [latin1, wide] = EVERY_TYPE_TEXTS as [string, string];
    // V8 compiles a pattern per string representation: one text of each.
    const beyondLatin1 = (text: string) => [...text].some((c) => c.codePointAt(0)! > 0xff);
    expect(beyondLatin1(latin1)).to.equal(false);
    expect(beyondLatin1(wide)).to.equal(true);
    for (const text of EVERY_TYPE_TEXTS)
      expect(new Set(findPii(text).map((s) => s.type)), text).to.have.all.keys(...PII_TYPES);
    expect(() => warmDetectors()).not.to.throw();
  });

  it("should run the detectors down the locales' paths: each document's names, contacts and accounts are found", function () {
    expect(LOCALE_TEXTS.length).to.be.at.least(5);
    for (const text of LOCALE_TEXTS) {
      const types = new Set(findPii(text).map((s) => s.type));
      expect(types, text.slice(0, 40)).to.include.all.keys("NAME", "EMAIL", "PHONE");
      expect(types.has("IBAN") || types.has("BANK_ACCOUNT"), text.slice(0, 40)).to.equal(true);
    }
  });
});
