import { createHash } from "node:crypto";
import { expect } from "chai";
import { RedactionError } from "../../../relayer/analysis/redaction.ts";
import { inlineRedactor } from "../../../relayer/analysis/redaction-pool.ts";
import { ApiError } from "../../../relayer/http/errors.ts";
import {
  ANALYSIS_PROVIDER_KEY,
  analysisOn,
  FALLBACK_MODEL,
  MODELS,
  openAnalysisWorld,
  type AnalysisWorld,
} from "../../fixtures/analysis.ts";
import { BIASED_MARKER } from "../../fixtures/standins/analysis-provider.ts";

/**
 * The provider gateway's on-chain circuit (CircuitBreakerGateway), and redaction failing closed.
 */
describe("# text-analysis provider circuit and fail-closed redaction", function () {
  this.timeout(180_000);
  let world: AnalysisWorld;
  const logLines: string[] = [];

  before(async function () {
    world = await openAnalysisWorld({ label: "analysis-breaker", logLines });
  });
  after(async function () {
    await world?.close();
  });

  it("should send nothing when redaction fails, and answer 422 REDACTION_FAILED", async function () {
    const failing = analysisOn(world, {
      redactor: {
        ...inlineRedactor,
        redact: () =>
          Promise.reject(new RedactionError("a personal-data detector failed; nothing was sent")),
      },
    });
    world.provider.hits.length = 0;
    let error: unknown;
    await failing
      .analyze({ apiKeyId: world.key.id, text: "Mail jane@example.com" })
      .catch((e: unknown) => (error = e));
    expect(error).to.be.instanceOf(ApiError);
    expect((error as ApiError).status).to.equal(422);
    expect((error as ApiError).code).to.equal("REDACTION_FAILED");
    expect(world.provider.hits).to.deep.equal([]);
  });

  it("should answer 422 REDACTION_FAILED and store nothing when the output scan fails, having sent only redacted text and the provider's own answer", async function () {
    const ctx = world.relayer.ctx;
    const failing = analysisOn(world, {
      redactor: {
        ...inlineRedactor,
        checkOutput: () => Promise.reject(new RedactionError("a personal-data detector failed")),
      },
    });
    const count = async () =>
      (await ctx.store.query<{ n: number }>("SELECT count(*)::int AS n FROM analyses"))[0]!.n;
    const before = await count();
    world.provider.hits.length = 0;
    let error: unknown;
    await failing
      .analyze({ apiKeyId: world.key.id, text: "Mail jane@example.com" })
      .catch((e: unknown) => (error = e));
    expect((error as ApiError).status).to.equal(422);
    expect((error as ApiError).code).to.equal("REDACTION_FAILED");
    expect(await count()).to.equal(before);
    // The input's score and the completion, then the answer's score asked during the scan.
    expect(world.provider.hits.map((h) => h.path)).to.deep.equal([
      "/v1/moderations",
      "/v1/chat/completions",
      "/v1/moderations",
    ]);
    expect(world.provider.hits.map((h) => h.body).join()).to.not.include("jane@example.com");
  });

  it("should log a bias incident with the text's SHA-256 only, and never log the text, its personal data or the provider key", async function () {
    const text = `${BIASED_MARKER} Tenants like Jane Whitfield (jane@example.com) are unreliable.`;
    expect((await world.post({ text })).status).to.equal(422);
    expect((await world.post({ text: "Review for jane@example.com." })).status).to.equal(200);
    const incident = logLines.find((l) => l.includes('"incident":"bias_rejected"'));
    expect(incident).to.include(createHash("sha256").update(text).digest("hex"));
    const all = logLines.join("\n");
    for (const secret of ["Whitfield", "jane@example.com", "unreliable", ANALYSIS_PROVIDER_KEY])
      expect(all).to.not.include(secret);
  });

  it("should read the circuit ahead of its age limit so no request waits for the chain under steady traffic, one read for requests together", async function () {
    let now = 1_000_000;
    const analysis = analysisOn(world, { redactor: inlineRedactor, clock: () => now });
    // The real contract read, behind a gate the test opens.
    const isOpen = analysis.breaker.isOpen.bind(analysis.breaker);
    let reads = 0;
    let lastRead: Promise<boolean> = Promise.resolve(false);
    let gate: Promise<void> = Promise.resolve();
    let open = () => {};
    const hold = () => (gate = new Promise<void>((r) => (open = r)));
    analysis.breaker.isOpen = () => {
      reads++;
      const held = gate;
      lastRead = held.then(isOpen);
      return lastRead;
    };
    const analyze = (text: string) => analysis.analyze({ apiKeyId: world.key.id, text });
    try {
      // No reading yet: five requests wait for one read, and nothing is sent before it.
      hold();
      world.provider.hits.length = 0;
      const first = Array.from({ length: 5 }, (_, i) => analyze(`First ${i}.`));
      await new Promise((r) => setTimeout(r, 50));
      expect(world.provider.hits).to.deep.equal([]);
      open();
      await Promise.all(first);
      expect(reads).to.equal(1);
      // Younger than half the limit (500 ms): no read.
      now += 400;
      await analyze("Second.");
      expect(reads).to.equal(1);
      // Older than half: the request answers on the reading while the next read is held.
      now += 300;
      hold();
      await analyze("Third.");
      expect(reads).to.equal(2);
      open();
      await lastRead;
      // Past the limit since the last reading: the request waits for a read again.
      now += 1_100;
      hold();
      world.provider.hits.length = 0;
      const late = analyze("Fourth.");
      await new Promise((r) => setTimeout(r, 50));
      expect(world.provider.hits).to.deep.equal([]);
      expect(reads).to.equal(3);
      open();
      await late;
    } finally {
      open();
      await analysis.close();
    }
  });

  it("should report each final provider failure to CircuitBreakerGateway and refuse without sending once the circuit is OPEN", async function () {
    const analysis = world.relayer.ctx.analysis!;
    world.provider.failModel(MODELS.general, 500);
    world.provider.failModel(FALLBACK_MODEL, 500);
    try {
      const down = await world.post({ text: "Down." });
      expect(down.status).to.equal(503);
      await analysis.settled(); // the reports travel to the chain after the answer
      // The routed model and the fallback each failed for good: two failures on the gateway.
      expect(await analysis.breaker.failureCount()).to.equal(2);
    } finally {
      world.provider.failModel(MODELS.general, null);
      world.provider.failModel(FALLBACK_MODEL, null);
    }
    while (!(await analysis.breaker.isOpen())) await analysis.breaker.reportFailure();
    world.provider.hits.length = 0;
    // The process re-reads the circuit at most once a second.
    await new Promise((r) => setTimeout(r, 1_100));
    const refused = await world.post({ text: "Anyone there?" });
    const body = (await refused.json()) as { error: string; detail: string; retry_in: number };
    expect(refused.status).to.equal(503);
    expect(body.error).to.equal("ANALYSIS_PROVIDER_UNAVAILABLE");
    expect(body.detail).to.match(/OPEN on chain/);
    expect(body.retry_in).to.be.a("number").greaterThan(0);
    expect(world.provider.hits).to.deep.equal([]);
  });
});
