import { readFileSync } from "node:fs";
import { expect } from "chai";
import { findPii, PII_TYPES } from "../../../relayer/analysis/redaction.ts";
import {
  CORPUS_FILE,
  corpusJson,
  generateCorpus,
  scoreCorpus,
  type CorpusText,
} from "../../../scripts/analysis-corpus.ts";
import { openAnalysisWorld, standsAlone, type AnalysisWorld } from "../../fixtures/analysis.ts";

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

  it("should meet the recall targets on the shipped and a held-out corpus: 0.9 for names and addresses, 0.98 for the other types", function () {
    for (const [name, docs] of [
      ["shipped", corpus],
      ["held-out (seed 15000)", generateCorpus(15_000)],
    ] as const) {
      for (const [type, s] of Object.entries(scoreCorpus(docs))) {
        expect(s.labelled, `${name} ${type}`).to.be.greaterThan(0);
        const target = type === "NAME" || type === "ADDRESS" ? 0.9 : 0.98;
        expect(s.recall, `${name} ${type} recall`).to.be.at.least(target);
      }
    }
    // The detectors' edges the generator writes are in the corpus, and each is found.
    const edges = corpus.flatMap((d) =>
      d.labels
        .filter((l) => l.value.startsWith("0X") || (l.type === "DOB" && /^\d{4}$/.test(l.value)))
        .map((l) => ({ doc: d, label: l })),
    );
    expect(edges.filter((e) => e.label.type === "CRYPTO").length).to.be.at.least(20);
    expect(edges.filter((e) => e.label.type === "DOB").length).to.be.at.least(30);
    const missed = edges.filter(
      ({ doc, label }) =>
        !findPii(doc.text).some(
          (f) => f.type === label.type && f.start <= label.start && f.end >= label.end,
        ),
    );
    expect(missed.map((e) => `${e.doc.id} ${e.label.value}`)).to.deep.equal([]);
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
      const leaked: string[] = [];
      for (const doc of corpus) {
        const from = world.provider.hits.length;
        const res = await world.post({
          text: doc.text,
          instructions: `Review document ${doc.id}.`,
        });
        expect(res.status, doc.id).to.equal(200);
        // The requests of this document: the input's score, the completion, the answer's score.
        const sent = world.provider.hits.slice(from).map((h) => h.body);
        expect(sent.length, doc.id).to.equal(3);
        for (const l of doc.labels) {
          // JSON-escaped as it travels in the request body, and not part of a longer number (a
          // year of birth is four digits that an amount or an order number may hold).
          const needle = JSON.stringify(l.value).slice(1, -1);
          if (sent.some((body) => standsAlone(body, needle)))
            leaked.push(`${doc.id} ${l.type} ${l.value}`);
        }
      }
      expect(leaked).to.deep.equal([]);
    });
  });
});
