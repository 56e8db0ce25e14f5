import { expect } from "chai";
import { claimIdempotencyKeys } from "../../../relayer/analysis/store.ts";
import {
  ANALYSIS_PROVIDER_KEY,
  openAnalysisWorld,
  type AnalysisWorld,
} from "../../fixtures/analysis.ts";
import { newApiKey, signedRequest } from "../../fixtures/relayer.ts";
import { BIASED_MARKER } from "../../fixtures/standins/analysis-provider.ts";

/**
 * `Idempotency-Key` on POST /v1/analysis: a repeat answers the first analysis without sending
 * anything to the provider; another body with the key, or a repeat while the first still runs, is
 * a 409 that spends nothing; a refused or failed request frees its key; keys are the API key's; a
 * claim left by a stopped process is taken over once abandoned.
 */
const TEXT = "The supplier, Jane Whitfield (jane@example.com), shall deliver by 1 March.";

describe("# text analysis Idempotency-Key", function () {
  this.timeout(120_000);
  let world: AnalysisWorld;
  /** Moves the relayer's clock (signatures follow it). */
  let offsetMs = 0;

  before(async function () {
    world = await openAnalysisWorld({
      label: "analysis-idem",
      clock: () => Date.now() + offsetMs,
    });
  });
  after(async function () {
    await world?.close();
  });
  beforeEach(function () {
    world.provider.hits.length = 0;
  });

  const key = (k: string) => ({ "Idempotency-Key": k });
  const stored = async () => {
    const [row] = await world.relayer.ctx.store.query<{ analyses: number; audits: number }>(
      `SELECT (SELECT count(*)::int FROM analyses) AS analyses,
              (SELECT count(*)::int FROM analysis_audit) AS audits`,
    );
    return row!;
  };
  const bucketTokens = async () => {
    const [row] = await world.relayer.ctx.store.query<{ tokens: number }>(
      "SELECT tokens FROM analysis_rate_bucket",
    );
    return Number(row!.tokens);
  };

  it("should answer a repeat with the first analysis, sending and storing nothing again", async function () {
    const first = await world.post({ text: TEXT }, undefined, key("review-0001"));
    const body = await first.json();
    expect(first.status, JSON.stringify(body)).to.equal(200);
    expect(world.provider.hits).to.have.length(3);
    const before = await stored();
    const tokens = await bucketTokens();
    world.provider.hits.length = 0;

    const again = await world.post({ text: TEXT }, undefined, key("review-0001"));
    expect(again.status).to.equal(200);
    expect(await again.json()).to.deep.equal(body);
    expect(world.provider.hits).to.deep.equal([]);
    expect(await stored()).to.deep.equal(before);
    // No token of the provider's rate limit was taken by the repeat (the bucket only refilled).
    expect(await bucketTokens()).to.be.at.least(tokens);
    // The same as GET /v1/analysis/{id} answers.
    const read = await world.get(`/v1/analysis/${(body as { analysis_id: string }).analysis_id}`);
    expect(await read.json()).to.deep.equal(body);
  });

  it("should time the key's claim and its replays in the idempotency stage", async function () {
    const claims = async () => {
      const metric = world.relayer.ctx.metrics.registry.getSingleMetric(
        "veriflow_analysis_stage_seconds",
      )!;
      const value = (await metric.get()).values.find(
        (v) =>
          v.labels.stage === "idempotency" &&
          ((v as { metricName?: string }).metricName ?? "").endsWith("_count"),
      );
      return value?.value ?? 0;
    };
    const before = await claims();
    expect((await world.post({ text: TEXT }, undefined, key("timed"))).status).to.equal(200);
    expect((await world.post({ text: TEXT }, undefined, key("timed"))).status).to.equal(200);
    expect((await world.post({ text: "other" }, undefined, key("timed"))).status).to.equal(409);
    expect((await world.post({ text: TEXT })).status).to.equal(200);
    expect((await claims()) - before).to.equal(3);
  });

  it("should refuse the key with another body (409 IDEMPOTENCY_KEY_REUSED), sending and storing nothing", async function () {
    expect((await world.post({ text: TEXT }, undefined, key("review-0002"))).status).to.equal(200);
    world.provider.hits.length = 0;
    const before = await stored();
    for (const other of [
      JSON.stringify({ text: `${TEXT} Amended.` }),
      JSON.stringify({ text: TEXT, instructions: "Summarise." }),
      // The same JSON value in other bytes is another request: the key names the bytes sent.
      JSON.stringify({ text: TEXT }, null, 1),
    ]) {
      const res = await world.postRaw(other, undefined, key("review-0002"));
      expect(res.status, other).to.equal(409);
      expect(await res.json()).to.deep.include({ error: "IDEMPOTENCY_KEY_REUSED" });
    }
    expect(world.provider.hits).to.deep.equal([]);
    expect(await stored()).to.deep.equal(before);
  });

  it("should run concurrent repeats once: the others get 409 IDEMPOTENCY_KEY_IN_USE with Retry-After, then the answer", async function () {
    // The first request's bias check waits at the provider while the repeats arrive.
    world.provider.failNext("slow");
    world.provider.slowMs = 1_500;
    const before = await stored();
    const first = world.post({ text: TEXT }, undefined, key("review-0003"));
    await new Promise((r) => setTimeout(r, 300));
    // One after another: the same body signed in the same millisecond is a replayed signature.
    const repeats: Response[] = [];
    for (let i = 0; i < 3; i++) {
      repeats.push(await world.post({ text: TEXT }, undefined, key("review-0003")));
      await new Promise((r) => setTimeout(r, 5));
    }
    for (const res of repeats) {
      expect(res.status).to.equal(409);
      expect(res.headers.get("retry-after")).to.equal("1");
      expect(await res.json()).to.deep.include({
        error: "IDEMPOTENCY_KEY_IN_USE",
        retry_in: 1,
      });
    }
    const answered = await first;
    const body = await answered.json();
    expect(answered.status, JSON.stringify(body)).to.equal(200);
    // One analysis's three calls, whatever the repeats did.
    expect(world.provider.hits).to.have.length(3);
    expect((await stored()).analyses).to.equal(before.analyses + 1);
    const after = await world.post({ text: TEXT }, undefined, key("review-0003"));
    expect(await after.json()).to.deep.equal(body);
  });

  it("should run one of repeats arriving together (one batch of claims) and refuse the rest", async function () {
    const body = JSON.stringify({ text: `${TEXT} Together.` });
    const now = world.relayer.ctx.clock();
    // Sent at once, each signed at its own millisecond (one signature twice is a replay).
    const answers = await Promise.all(
      [0, 1, 2, 3].map((i) =>
        signedRequest(world.relayer.app, world.key, "POST", "/v1/analysis", body, {
          timestamp: String(now - i),
          headers: key("together"),
        }),
      ),
    );
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses).to.deep.equal([200, 409, 409, 409]);
    for (const res of answers.filter((r) => r.status === 409))
      expect(await res.json()).to.deep.include({ error: "IDEMPOTENCY_KEY_IN_USE" });
    expect(world.provider.hits).to.have.length(3);
  });

  it("should free the key of a refused request: a corrected retry with the key runs", async function () {
    // Refused by the bias pre-check: nothing stored, the key free for the corrected text.
    const biased = await world.post({ text: `${TEXT} ${BIASED_MARKER}` }, undefined, key("k-4"));
    expect(biased.status).to.equal(422);
    const corrected = await world.post({ text: TEXT }, undefined, key("k-4"));
    expect(corrected.status).to.equal(200);

    // The provider refusing the credential (502): the same body with the key runs once it is fixed.
    world.provider.failNext(401);
    const refused = await world.post({ text: TEXT }, undefined, key("k-5"));
    expect(refused.status).to.equal(502);
    expect(await refused.json()).to.deep.include({ error: "ANALYSIS_PROVIDER_UNAUTHORIZED" });
    const retried = await world.post({ text: TEXT }, undefined, key("k-5"));
    expect(retried.status).to.equal(200);

    // A workflow that does not exist (404): refused before any claim.
    const missing = await world.post(
      { text: TEXT, workflow_id: `wf_${"0".repeat(26)}` },
      undefined,
      key("k-6"),
    );
    expect(missing.status).to.equal(404);
    expect((await world.post({ text: TEXT }, undefined, key("k-6"))).status).to.equal(200);
    const [left] = await world.relayer.ctx.store.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM analysis_idempotency WHERE analysis_id IS NULL",
    );
    expect(left!.n).to.equal(0);
  });

  it("should keep each API key's keys apart", async function () {
    const other = await newApiKey(world.relayer.ctx);
    const mine = await (await world.post({ text: TEXT }, undefined, key("shared-name"))).json();
    world.provider.hits.length = 0;
    // Another body under the same name is no reuse for another key: it runs.
    const theirs = await world.post({ text: `${TEXT} Theirs.` }, other, key("shared-name"));
    const body = (await theirs.json()) as { analysis_id: string };
    expect(theirs.status).to.equal(200);
    expect(body.analysis_id).to.not.equal((mine as { analysis_id: string }).analysis_id);
    expect(world.provider.hits).to.have.length(3);
    // Neither replays the other's analysis.
    const again = await world.post({ text: `${TEXT} Theirs.` }, undefined, key("shared-name"));
    expect(again.status).to.equal(409);
  });

  it("should refuse a malformed key with 400 before anything is sent", async function () {
    const before = await stored();
    for (const bad of ["", "x".repeat(256), "with space", "caf\u00e9"]) {
      const res = await world.post({ text: TEXT }, undefined, key(bad));
      expect(res.status, JSON.stringify(bad)).to.equal(400);
      expect(await res.json()).to.deep.include({ error: "VALIDATION_FAILED" });
    }
    expect(world.provider.hits).to.deep.equal([]);
    expect(await stored()).to.deep.equal(before);
  });

  it("should keep no text with a key: the row holds the request's hash and the analysis id", async function () {
    const res = await world.post({ text: TEXT }, undefined, key("k-plain"));
    const body = (await res.json()) as { analysis_id: string; output: string };
    const [row] = await world.relayer.ctx.store.query<Record<string, unknown>>(
      "SELECT * FROM analysis_idempotency WHERE key = 'k-plain'",
    );
    expect(row).to.include({ analysis_id: body.analysis_id });
    expect(row!.request_hash).to.match(/^[0-9a-f]{64}$/);
    const everything = JSON.stringify(row);
    for (const piece of ["Whitfield", "jane@example.com", "supplier", body.output.slice(0, 20)])
      expect(everything).to.not.include(piece);
  });

  it("should take over a claim its process left behind once it is abandoned", async function () {
    const analysis = world.relayer.ctx.analysis!;
    const hash = "f".repeat(64);
    // A request that claimed the key and stopped (its process died) before storing anything.
    const at = new Date(world.relayer.ctx.clock()).toISOString();
    expect(
      await claimIdempotencyKeys(
        world.relayer.ctx.store,
        [{ apiKeyId: world.key.id, key: "k-crash", claim: "dead", requestHash: hash, at }],
        new Date(0).toISOString(),
        new Date(0).toISOString(),
      ),
    ).to.deep.equal([null]);
    const held = await world.post({ text: TEXT }, undefined, key("k-crash"));
    expect(held.status).to.equal(409);
    expect(world.provider.hits).to.deep.equal([]);
    // Past every provider call's retry policy, the rules' limit and the slack.
    offsetMs += analysis.abandonedClaimMs + 1_000;
    try {
      const taken = await world.post({ text: TEXT }, undefined, key("k-crash"));
      expect(taken.status, await taken.clone().text()).to.equal(200);
      expect(world.provider.hits).to.have.length(3);
    } finally {
      offsetMs = 0;
    }
  });

  it("should answer a repeat after 24 hours as a new request", async function () {
    const first = (await (await world.post({ text: TEXT }, undefined, key("k-day"))).json()) as {
      analysis_id: string;
    };
    offsetMs += 24 * 3_600_000 + 1_000;
    try {
      const later = (await (await world.post({ text: TEXT }, undefined, key("k-day"))).json()) as {
        analysis_id: string;
      };
      expect(later.analysis_id).to.match(/^an_/).and.not.equal(first.analysis_id);
    } finally {
      offsetMs = 0;
    }
    // The provider's key stayed the stand-in's through it all.
    expect(world.provider.hits.every((h) => h.authorization === `Bearer ${ANALYSIS_PROVIDER_KEY}`))
      .to.be.true;
  });
});
