import { readFileSync } from "node:fs";
import path from "node:path";
import { expect } from "chai";
import {
  DEFAULT_REDACTION,
  findPii,
  redact,
  RedactionError,
} from "../../../relayer/analysis/redaction.ts";
import { inlineRedactor, RedactionPool } from "../../../relayer/analysis/redaction-pool.ts";
import type { CountryCode } from "libphonenumber-js";
import { parseIntegrations } from "../../../relayer/config/integrations.ts";
import { textAnalysisEntry } from "../../fixtures/analysis.ts";

const corpus = JSON.parse(
  readFileSync(path.join(import.meta.dirname, "../../fixtures/analysis-corpus.json"), "utf8"),
) as Array<{ text: string }>;

describe("# analysis redaction threads", function () {
  this.timeout(60_000);
  let pool: RedactionPool;
  beforeEach(() => (pool = new RedactionPool(2)));
  afterEach(() => pool.close());

  it("should answer exactly what the event loop's redaction answers, text by text", async function () {
    const texts = corpus.slice(0, 60).map((d) => d.text);
    const inPool = await Promise.all(texts.map((t) => pool.redact(t, DEFAULT_REDACTION)));
    const checked = await Promise.all(texts.map((t) => pool.checkOutput(t, "", DEFAULT_REDACTION)));
    texts.forEach((t, i) => {
      expect(inPool[i]).to.deep.equal(redact(t));
      expect(checked[i]).to.deep.equal({ leaks: findPii(t), violations: [] });
    });
    // Numbering continues from the caller's placeholders, as on the event loop.
    const first = redact("Mail a@example.com.");
    const second = await pool.redact(
      "b@example.com, a@example.com",
      DEFAULT_REDACTION,
      first.placeholders,
    );
    expect(second.text).to.equal("[EMAIL_2], [EMAIL_1]");
  });

  it("should start every thread on warm(), before any text arrives, and answer through them after", async function () {
    expect(pool.running).to.equal(0);
    pool.warm();
    expect(pool.running).to.equal(2);
    pool.warm();
    expect(pool.running).to.equal(2);
    const texts = corpus.slice(0, 4).map((d) => d.text);
    const answers = await Promise.all(texts.map((t) => pool.redact(t, DEFAULT_REDACTION)));
    texts.forEach((t, i) => expect(answers[i]).to.deep.equal(redact(t)));
    expect(pool.running).to.equal(2);
    await pool.close();
    pool.warm();
    expect(pool.running).to.equal(0);
  });

  it("should keep the event loop turning while a 256 KiB text is scanned", async function () {
    let text = "";
    for (let i = 0; text.length < 250_000; i++) text += `${corpus[i % corpus.length]!.text}\n`;
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    const scanned = await pool.redact(text, DEFAULT_REDACTION);
    clearInterval(timer);
    expect(scanned.counts.length).to.be.greaterThan(5);
    // On the event loop the same scan would leave no turn for the timer until it returned.
    expect(ticks).to.be.greaterThan(0);
    let inlineTicks = 0;
    const inlineTimer = setInterval(() => inlineTicks++, 1);
    await inlineRedactor.redact(text, DEFAULT_REDACTION);
    clearInterval(inlineTimer);
    expect(inlineTicks).to.equal(0);
  });

  it("should fail closed with a RedactionError when a detector throws in a thread", async function () {
    const error = await pool
      // Regions that are not a list: the phone detector throws reading them.
      .redact("call 030 7243296834", {
        cryptoAddresses: true,
        phoneRegions: { length: 1 } as unknown as CountryCode[],
      })
      .catch((e: unknown) => e);
    expect(error).to.be.instanceOf(RedactionError);
    // The thread survives a detector's failure.
    expect((await pool.redact("Mail a@example.com.", DEFAULT_REDACTION)).text).to.equal(
      "Mail [EMAIL_1].",
    );
  });

  it("should fail closed when a thread stops with jobs in flight, and start a new one after", async function () {
    let text = "";
    for (let i = 0; text.length < 120_000; i++) text += `${corpus[i % corpus.length]!.text}\n`;
    const inFlight = pool.redact(text, DEFAULT_REDACTION);
    await pool.close();
    expect(await inFlight.catch((e: unknown) => e)).to.be.instanceOf(RedactionError);
    expect(await pool.redact("x", DEFAULT_REDACTION).catch((e: unknown) => e)).to.be.instanceOf(
      RedactionError,
    );
    pool = new RedactionPool(1);
    expect((await pool.redact("Mail a@example.com.", DEFAULT_REDACTION)).text).to.equal(
      "Mail [EMAIL_1].",
    );
  });

  it("should refuse a text it cannot hand to a thread, as a RedactionError", async function () {
    const options = {
      ...DEFAULT_REDACTION,
      phoneRegions: [() => "US"] as unknown as CountryCode[],
    };
    expect(
      await pool.checkOutput("a@example.com", "", options).catch((e: unknown) => e),
    ).to.be.instanceOf(RedactionError);
  });

  it("should fail closed on the event loop too, with no threads", async function () {
    // Regions that are not a list make the phone detector throw.
    const broken = {
      cryptoAddresses: true,
      phoneRegions: { length: 1 } as unknown as CountryCode[],
    };
    for (const scan of [
      () => inlineRedactor.redact("call 030 7243296834", broken),
      () => inlineRedactor.checkOutput("call 030 7243296834", "", broken),
    ])
      expect(await scan().catch((e: unknown) => e)).to.be.instanceOf(RedactionError);
  });

  it("should read redaction_threads from the configuration and name a bad value", function () {
    const parse = (extra: Record<string, unknown>) =>
      parseIntegrations({ text_analysis: textAnalysisEntry("http://127.0.0.1:9/v1", extra) });
    expect(parse({ redaction_threads: 0 }).textAnalysis!.redactionThreads).to.equal(0);
    expect(parse({}).textAnalysis!.redactionThreads).to.be.at.least(1);
    for (const bad of [-1, 1.5, 65, "2"])
      expect(() => parse({ redaction_threads: bad })).to.throw(/redaction_threads/);
  });
});
