import { readFileSync } from "node:fs";
import { expect } from "chai";
import { PII_TYPES } from "../../../relayer/analysis/redaction.ts";
import {
  CORPUS_FILE,
  corpusJson,
  generateCorpus,
  type CorpusText,
} from "../../../scripts/analysis-corpus.ts";
import { openAnalysisWorld, type AnalysisWorld } from "../../fixtures/analysis.ts";

/**
 * The labelled corpus (scripts/analysis-corpus.ts) sent through the relayer: the provider
 * stand-in must never receive a labelled piece of personal data, in any request.
 */
describe("# text-analysis labelled corpus", function () {
  this.timeout(600_000);
  const corpus = JSON.parse(readFileSync(CORPUS_FILE, "utf8")) as CorpusText[];

  it("should be what the generator builds, with at least 300 texts in several locales and every type", function () {
    expect(corpusJson(generateCorpus())).to.equal(readFileSync(CORPUS_FILE, "utf8"));
    expect(corpus.length).to.be.at.least(300);
    expect(new Set(corpus.map((d) => d.locale)).size).to.be.at.least(5);
    const types = new Set(corpus.flatMap((d) => d.labels.map((l) => l.type)));
    expect([...types].sort()).to.deep.equal([...PII_TYPES].sort());
    for (const doc of corpus)
      for (const l of doc.labels) expect(doc.text.slice(l.start, l.end)).to.equal(l.value);
  });

  describe("through the relayer", function () {
    let world: AnalysisWorld;
    before(async function () {
      world = await openAnalysisWorld({
        label: "analysis-corpus",
        textAnalysis: { rate_limit: { rpm: 1_000_000, burst: 10_000 } },
      });
    });
    after(async function () {
      await world?.close();
    });

    it("should never send the provider a labelled piece of personal data", async function () {
      for (const doc of corpus) {
        const res = await world.post({
          text: doc.text,
          instructions: `Review document ${doc.id}.`,
        });
        expect(res.status, doc.id).to.equal(200);
      }
      const sent = world.provider.hits.map((h) => h.body);
      expect(sent.length).to.be.at.least(corpus.length * 3);
      const leaked: string[] = [];
      for (const doc of corpus)
        for (const l of doc.labels) {
          // JSON-escaped as it travels in the request body.
          const needle = JSON.stringify(l.value).slice(1, -1);
          if (sent.some((body) => body.includes(needle)))
            leaked.push(`${doc.id} ${l.type} ${l.value}`);
        }
      expect(leaked).to.deep.equal([]);
    });
  });
});
