import { createHash } from "node:crypto";
import { expect } from "chai";
import { ANALYSIS_STAGES } from "../../../relayer/analysis/index.ts";
import { MAX_ANALYSIS_BODY_BYTES } from "../../../relayer/analysis/routes.ts";
import { signedHeaders } from "../../../relayer/auth/hmac.ts";
import { MAX_BODY_BYTES } from "../../../relayer/http/body.ts";
import { decryptSecret } from "../../../relayer/auth/secrets.ts";
import { putCredential } from "../../../relayer/integrations/vault.ts";
import { newApiKey, signedRequest, startInProcessRelayer } from "../../fixtures/relayer.ts";
import {
  ANALYSIS_PROVIDER_KEY,
  FALLBACK_MODEL,
  analysisOn,
  MODELS,
  openAnalysisWorld,
  type AnalysisWorld,
  PAYMENT_RULES_YAML,
} from "../../fixtures/analysis.ts";
import { BIASED_MARKER } from "../../fixtures/standins/analysis-provider.ts";

/**
 * POST /v1/analysis, GET /v1/analysis/{id}, GET /v1/analysis/audit against the provider stand-in:
 * redaction before anything leaves, the bias pre-check with its incident, routing, the provider's
 * 401 / 403 / 429 / 5xx / dropped / slow answers with retries and the fallback model, encryption
 * at rest, the audit records and owner-only reads.
 */
const CONTRACT = `Payment instruction from Jane Whitfield (jane.whitfield@example.com, +1 415 555 2671):
please transfer EUR 12,500 to IBAN DE89 3704 0044 0532 0130 00 by Friday. Card on file 4111 1111 1111 1111.`;

describe("# text analysis API (stand-in provider)", function () {
  this.timeout(120_000);
  let world: AnalysisWorld;
  let defaultAnswer: AnalysisWorld["provider"]["answer"];

  before(async function () {
    world = await openAnalysisWorld({
      label: "analysis-api",
      // Short enough for the slow-answer test, long enough for a loaded machine.
      textAnalysis: { rules: "rules.yaml", timeout: "2s" },
      files: {
        "rules.yaml": PAYMENT_RULES_YAML,
      },
    });
  });
  after(async function () {
    await world?.close();
  });
  before(function () {
    defaultAnswer = world.provider.answer;
  });
  beforeEach(function () {
    world.provider.hits.length = 0;
  });

  it("should redact, route, answer the spec's fields and send the provider no personal data", async function () {
    const res = await world.post({
      text: CONTRACT,
      instructions: "Check the payment for Jane Whitfield.",
    });
    const body = (await res.json()) as Record<string, unknown>;
    expect(res.status, JSON.stringify(body)).to.equal(200);
    expect(body).to.include.keys(
      "analysis_id",
      "model",
      "model_version",
      "output",
      "redactions",
      "compliance_checks",
      "alerts",
      "audit_id",
    );
    expect(body.model).to.equal(MODELS.general);
    expect(body.route).to.equal("short");
    const types = (body.redactions as Array<{ type: string }>).map((r) => r.type);
    expect(types).to.include.members(["NAME", "EMAIL", "PHONE", "IBAN", "CARD"]);
    // Two calls (moderation of the input, completion) and the output's moderation; none with PII.
    expect(world.provider.hits.map((h) => h.path)).to.deep.equal([
      "/v1/moderations",
      "/v1/chat/completions",
      "/v1/moderations",
    ]);
    for (const hit of world.provider.hits) {
      for (const secret of ["Whitfield", "jane.whitfield", "555 2671", "3704 0044", "4111 1111"])
        expect(hit.body).to.not.include(secret);
    }
    expect(world.provider.hits[1]!.body).to.include("[EMAIL_1]").and.include("[NAME_1]");
    // The rules: a payment instruction must ask to confirm the beneficiary; the stand-in does not.
    expect(body.compliance_checks).to.deep.equal({
      clm_violations: 1,
      uben_compliance: "passed",
      pii_leakage: false,
    });
    const alerts = body.alerts as Array<{ type: string; detail: string }>;
    expect(alerts.map((a) => a.type)).to.deep.equal(["CLM Rule Violation"]);
    expect(alerts[0]!.detail).to.match(/update the legal rule sets.*manual audit/);
    const metrics = await world.relayer.ctx.metrics.registry.getSingleMetricAsString(
      "veriflow_analysis_clm_violations_total",
    );
    expect(metrics).to.match(/kind="payment_instruction"} [1-9]/);
  });

  it("should flag personal data the model wrote (pii_leakage), redact it, and fail UBEN", async function () {
    world.provider.answer = () => "Escalate to john.doe@example.com or call +44 20 7946 0958.";
    try {
      const res = await world.post({ text: "Who handles this?" });
      const body = (await res.json()) as {
        output: string;
        compliance_checks: Record<string, unknown>;
        alerts: Array<{ type: string }>;
      };
      expect(res.status).to.equal(200);
      expect(body.compliance_checks).to.include({ pii_leakage: true, uben_compliance: "failed" });
      expect(body.alerts.map((a) => a.type)).to.include("PII Leakage");
      expect(body.output).to.equal("Escalate to [EMAIL_1] or call [PHONE_1].");
    } finally {
      world.provider.answer = defaultAnswer;
    }
  });

  it("should restore the placeholders in the returned output only when configured", async function () {
    const plain = (await (await world.post({ text: "Ask jane@example.com." })).json()) as {
      output: string;
    };
    expect(plain.output).to.include("[EMAIL_1]").and.not.include("jane@example.com");
    const restoring = analysisOn(world, {
      configure: (config) => ({
        ...config,
        security: { ...config.security, restorePlaceholders: true },
      }),
    });
    world.provider.hits.length = 0;
    const restored = await restoring.analyze({
      apiKeyId: world.key.id,
      text: "Ask jane@example.com.",
    });
    expect(restored.output).to.include("jane@example.com").and.not.include("[EMAIL_1]");
    // Still redacted on the way out, and kept encrypted at rest.
    expect(world.provider.hits.map((h) => h.body).join()).to.not.include("jane@example.com");
    const again = await world.get(`/v1/analysis/${restored.analysis_id}`);
    expect(((await again.json()) as { output: string }).output).to.equal(restored.output);
  });

  it("should redact the national phone numbers of the configured regions, not only the default six", async function () {
    const text = "Her lines: (11) 96123-4567 and 020 7946 0958.";
    // Brazil's plan is not among the default regions: its national number is not read as a phone.
    const plain = (await (await world.post({ text })).json()) as { redactions: unknown[] };
    expect(plain.redactions).to.deep.equal([{ type: "PHONE", count: 1 }]);
    const withBrazil = analysisOn(world, {
      configure: (config) => ({
        ...config,
        security: { ...config.security, phoneRegions: ["GB", "BR"] },
      }),
    });
    world.provider.hits.length = 0;
    const redacted = await withBrazil.analyze({ apiKeyId: world.key.id, text });
    expect(redacted.redactions).to.deep.equal([{ type: "PHONE", count: 2 }]);
    const sent = world.provider.hits.map((h) => h.body).join();
    expect(sent).to.not.include("96123-4567").and.not.include("7946 0958");
    expect(sent).to.include("[PHONE_1]").and.include("[PHONE_2]");
  });

  it("should restore the client's values only, never personal data the model wrote", async function () {
    const restoring = analysisOn(world, {
      configure: (config) => ({
        ...config,
        security: { ...config.security, restorePlaceholders: true },
      }),
    });
    world.provider.answer = () => "Write to [EMAIL_1]; escalate to john.doe@example.com.";
    try {
      const view = await restoring.analyze({
        apiKeyId: world.key.id,
        text: "Ask jane@example.com.",
      });
      expect(view.output).to.equal("Write to jane@example.com; escalate to [EMAIL_2].");
      expect(view.compliance_checks.pii_leakage).to.equal(true);
      const again = await world.get(`/v1/analysis/${view.analysis_id}`);
      expect(((await again.json()) as { output: string }).output).to.equal(view.output);
    } finally {
      world.provider.answer = defaultAnswer;
      await restoring.close();
    }
  });

  it("should give the instructions' personal data no placeholder the text quotes, nor the text's one the instructions quote", async function () {
    const restoring = analysisOn(world, {
      configure: (config) => ({
        ...config,
        security: { ...config.security, restorePlaceholders: true },
      }),
    });
    try {
      const quotedInText = await restoring.analyze({
        apiKeyId: world.key.id,
        text: "Contact [EMAIL_1] today.",
        instructions: "Copy alice@example.com.",
      });
      const completion = JSON.parse(world.provider.hits[1]!.body) as {
        messages: Array<{ content: string }>;
      };
      expect(completion.messages.map((m) => m.content).slice(1)).to.deep.equal([
        "Copy [EMAIL_2].",
        "Contact [EMAIL_1] today.",
      ]);
      // Counted with the text's: the instructions were redacted before they left too.
      expect(quotedInText.redactions).to.deep.equal([{ type: "EMAIL", count: 1 }]);
      // The stand-in echoes the text's placeholders: the client's own stays as written.
      expect(quotedInText.output).to.include("[EMAIL_1]").and.not.include("alice@example.com");

      world.provider.hits.length = 0;
      const quotedInInstructions = await restoring.analyze({
        apiKeyId: world.key.id,
        text: "Contact bob@example.com today.",
        instructions: "Treat [EMAIL_1] as the sender.",
      });
      const sent = world.provider.hits[1]!.body;
      expect(sent).to.include("Contact [EMAIL_2] today.").and.not.include("bob@example.com");
      expect(quotedInInstructions.output).to.include("bob@example.com");
    } finally {
      await restoring.close();
    }
  });

  it("should store no plaintext: output and redacted input are AES-256-GCM under the master key bound to the record id", async function () {
    const res = await world.post({ text: CONTRACT });
    const body = (await res.json()) as { analysis_id: string; output: string };
    const [row] = await world.relayer.ctx.store.query<Record<string, string>>(
      "SELECT * FROM analyses WHERE id = $1",
      [body.analysis_id],
    );
    const dump = JSON.stringify(row);
    for (const plain of ["Whitfield", "Review by", "[EMAIL_1]", "DE89", "characters"])
      expect(dump).to.not.include(plain);
    const key = world.relayer.ctx.masterKey;
    expect(decryptSecret(key, row!.output_blob!, `${body.analysis_id}:output`)).to.equal(
      body.output,
    );
    expect(decryptSecret(key, row!.input_blob!, `${body.analysis_id}:input`)).to.include(
      "[IBAN_1]",
    );
    // Bound to its id: the blob under another id does not decrypt.
    expect(() => decryptSecret(key, row!.output_blob!, "an_other:output")).to.throw();
  });

  it("should refuse, not answer the other's text, when a row holds another analysis's output blob", async function () {
    const first = (await (await world.post({ text: "First memo about delivery." })).json()) as {
      analysis_id: string;
      output: string;
    };
    const second = (await (await world.post({ text: "Second memo, other terms." })).json()) as {
      analysis_id: string;
      output: string;
    };
    const { store } = world.relayer.ctx;
    const blobOf = async (id: string) =>
      (
        await store.query<{ output_blob: string }>(
          "SELECT output_blob FROM analyses WHERE id = $1",
          [id],
        )
      )[0]!.output_blob;
    const original = await blobOf(second.analysis_id);
    await store.query("UPDATE analyses SET output_blob = $1 WHERE id = $2", [
      await blobOf(first.analysis_id),
      second.analysis_id,
    ]);
    try {
      const res = await world.get(`/v1/analysis/${second.analysis_id}`);
      const text = await res.text();
      expect(res.status).to.equal(500);
      expect(JSON.parse(text)).to.have.property("error");
      expect(text).to.not.include(first.output);
    } finally {
      await store.query("UPDATE analyses SET output_blob = $1 WHERE id = $2", [
        original,
        second.analysis_id,
      ]);
    }
    expect(
      ((await (await world.get(`/v1/analysis/${second.analysis_id}`)).json()) as { output: string })
        .output,
    ).to.equal(second.output);
  });

  it("should return an analysis again to its owner only", async function () {
    const res = await world.post({ text: "Short note without personal data." });
    const first = (await res.json()) as { analysis_id: string };
    const again = await world.get(`/v1/analysis/${first.analysis_id}`);
    expect(again.status).to.equal(200);
    expect(await again.json()).to.deep.equal(first);
    const other = await newApiKey(world.relayer.ctx);
    const refused = await world.get(`/v1/analysis/${first.analysis_id}`, other);
    expect(refused.status).to.equal(404);
    expect(((await refused.json()) as { error: string }).error).to.equal("ANALYSIS_NOT_FOUND");
  });

  it("should write one audit record per analysis with exactly the spec's fields and no text", async function () {
    const res = await world.post({ text: CONTRACT });
    const body = (await res.json()) as { analysis_id: string; audit_id: string };
    const list = await world.get(
      `/v1/analysis/audit?from=${encodeURIComponent(new Date(Date.now() - 60_000).toISOString())}`,
    );
    expect(list.status).to.equal(200);
    const { records } = (await list.json()) as { records: Array<Record<string, unknown>> };
    const record = records.find((r) => r.audit_id === body.audit_id)!;
    expect(record).to.not.equal(undefined);
    expect(Object.keys(record).sort()).to.deep.equal(
      [
        "audit_id",
        "analysis_id",
        "api_key_id",
        "timestamp",
        "model",
        "input_sha256",
        "output_token_count",
        "compliance_checks",
        "cost_breakdown",
        "seq",
        "prev_hash",
        "digest",
        "hash",
      ].sort(),
    );
    expect(record.api_key_id).to.equal(world.key.id);
    expect(record.input_sha256).to.equal(createHash("sha256").update(CONTRACT).digest("hex"));
    expect(new Date(record.timestamp as string).toISOString()).to.equal(record.timestamp);
    expect(record.output_token_count).to.be.a("number").greaterThan(0);
    expect(Object.keys(record.cost_breakdown as object).sort()).to.deep.equal([
      "platform_units",
      "provider_tokens",
    ]);
    expect(JSON.stringify(record)).to.not.include("Whitfield");
    // Another key sees none of these records.
    const other = await newApiKey(world.relayer.ctx);
    const theirs = await world.get("/v1/analysis/audit", other);
    expect(((await theirs.json()) as { records: unknown[] }).records).to.deep.equal([]);
  });

  it("should page the audit records with a cursor", async function () {
    for (let i = 0; i < 3; i++) await world.post({ text: `Note ${i}` });
    const first = (await (await world.get("/v1/analysis/audit?limit=2")).json()) as {
      records: Array<{ seq: number }>;
      next_cursor: string;
    };
    expect(first.records).to.have.length(2);
    const second = (await (
      await world.get(`/v1/analysis/audit?limit=2&cursor=${first.next_cursor}`)
    ).json()) as {
      records: Array<{ seq: number }>;
    };
    expect(second.records[0]!.seq).to.be.greaterThan(first.records[1]!.seq);
    const bad = await world.get("/v1/analysis/audit?cursor=nope");
    expect(bad.status).to.equal(400);
  });

  it("should read from and to as ISO 8601 instants the database holds, and refuse other dates with 400", async function () {
    const count = async (query: string) => {
      const res = await world.get(`/v1/analysis/audit?limit=500&${query}`);
      expect(res.status, query).to.equal(200);
      return ((await res.json()) as { records: unknown[] }).records.length;
    };
    const all = await count("");
    expect(all).to.be.greaterThan(0);
    for (const query of [
      "from=0001-01-01T00:00:00Z&to=9999-12-31T23:59:59.999Z",
      "from=2000-01-01&to=9999-12-31",
      `from=${encodeURIComponent("2000-01-01T00:00:00+14:00")}`,
    ])
      expect(await count(query), query).to.equal(all);
    expect(await count("to=2000-01-01T00:00:00Z")).to.equal(0);
    for (const value of [
      "1",
      "2026",
      "March 7",
      "2026-02-30T00:00:00Z",
      "2026-01-01T00:00:00",
      "+010000-01-01T00:00:00Z",
      "-000001-01-01T00:00:00Z",
      "0000-12-31T23:00:00Z",
      "0001-01-01T00:00:00+01:00",
    ])
      for (const name of ["from", "to"]) {
        const res = await world.get(`/v1/analysis/audit?${name}=${encodeURIComponent(value)}`);
        const body = (await res.json()) as { error: string; detail: string };
        expect([res.status, body.error], `${name}=${value}`).to.deep.equal([
          400,
          "VALIDATION_FAILED",
        ]);
        expect(body.detail).to.match(new RegExp(`^query\\.${name}: must be`));
      }
  });

  it("should reject a biased input with 422 BIAS_REJECTED, send nothing for completion and log an incident with the text's SHA-256 only", async function () {
    const text = `${BIASED_MARKER} Applicants from that neighbourhood are unreliable.`;
    const res = await world.post({ text });
    expect(res.status).to.equal(422);
    const body = (await res.json()) as { error: string; detail: string };
    expect(body.error).to.equal("BIAS_REJECTED");
    expect(world.provider.hits.map((h) => h.path)).to.deep.equal(["/v1/moderations"]);
    const incidents = await world.relayer.ctx.store.query<Record<string, unknown>>(
      "SELECT * FROM analysis_incidents ORDER BY id DESC LIMIT 1",
    );
    expect(incidents[0]!.input_sha256).to.equal(createHash("sha256").update(text).digest("hex"));
    expect(JSON.stringify(incidents)).to.not.include("neighbourhood");
  });

  /** Count and summed seconds of each stage in veriflow_analysis_stage_seconds. */
  async function stageTimes(): Promise<Record<string, { count: number; sum: number }>> {
    const metric = world.relayer.ctx.metrics.registry.getSingleMetric(
      "veriflow_analysis_stage_seconds",
    )!;
    const times: Record<string, { count: number; sum: number }> = {};
    for (const stage of ANALYSIS_STAGES) times[stage] = { count: 0, sum: 0 };
    for (const v of (await metric.get()).values) {
      const stage = String(v.labels.stage);
      const name = (v as { metricName?: string }).metricName ?? "";
      if (name.endsWith("_count")) times[stage]!.count = v.value;
      if (name.endsWith("_sum")) times[stage]!.sum = v.value;
    }
    return times;
  }
  const since = (
    before: Record<string, { count: number; sum: number }>,
    after: Record<string, { count: number; sum: number }>,
  ) =>
    Object.fromEntries(
      ANALYSIS_STAGES.map((s) => [
        s,
        { count: after[s]!.count - before[s]!.count, sum: after[s]!.sum - before[s]!.sum },
      ]),
    );

  it("should time each stage of an analysis, a slow completion in the completion stage", async function () {
    // The redaction threads may still be compiling their detectors for a world's first analysis.
    expect((await world.post({ text: "Warm the threads." })).status).to.equal(200);
    const slowMs = world.provider.slowMs;
    world.provider.slowMs = 400;
    world.provider.failModel(MODELS.general, "slow");
    try {
      const before = await stageTimes();
      const res = await world.post({ text: "Time my stages." });
      expect(res.status).to.equal(200);
      const delta = since(before, await stageTimes());
      // Without an Idempotency-Key there is no claim to time.
      for (const stage of ANALYSIS_STAGES)
        expect(delta[stage]!.count, stage).to.equal(stage === "idempotency" ? 0 : 1);
      expect(delta.completion!.sum).to.be.at.least(0.4);
      for (const stage of ANALYSIS_STAGES.filter((s) => s !== "completion" && s !== "idempotency"))
        expect(delta[stage]!.sum, stage).to.be.below(delta.completion!.sum);
    } finally {
      world.provider.slowMs = slowMs;
      world.provider.failModel(MODELS.general, null);
    }
  });

  it("should time only the stages a refused analysis reached: a biased input stops at the bias check", async function () {
    const before = await stageTimes();
    const res = await world.post({ text: `${BIASED_MARKER} Timed and refused.` });
    expect(res.status).to.equal(422);
    const delta = since(before, await stageTimes());
    expect(Object.fromEntries(ANALYSIS_STAGES.map((s) => [s, delta[s]!.count]))).to.deep.equal({
      idempotency: 0,
      admission: 1,
      bias_check: 1,
      completion: 0,
      output_checks: 0,
      store: 0,
    });
  });

  it("should score the instructions with the text: biased instructions are rejected and never sent for completion", async function () {
    const count = () => world.relayer.ctx.store.query("SELECT count(*)::int AS n FROM analyses");
    const before = await count();
    const res = await world.post({
      text: "The supplier shall deliver the goods by 1 March.",
      instructions: `${BIASED_MARKER} Reject it if the supplier is from that neighbourhood.`,
    });
    expect(res.status).to.equal(422);
    expect(((await res.json()) as { error: string }).error).to.equal("BIAS_REJECTED");
    expect(world.provider.hits.map((h) => h.path)).to.deep.equal(["/v1/moderations"]);
    expect(await count()).to.deep.equal(before);
  });

  it("should accept a score exactly at the threshold (rejection is strictly greater)", async function () {
    world.provider.bias = (input) => (input.includes("edge") ? 0.7 : 0.05);
    try {
      const res = await world.post({ text: "An edge case." });
      expect(res.status).to.equal(200);
    } finally {
      world.provider.bias = (input) => (input.includes(BIASED_MARKER) ? 0.92 : 0.05);
    }
  });

  it("should route NDA texts to the ultra model and 2000+ characters to the in-house model", async function () {
    const nda = (await (await world.post({ text: "Please review this NDA." })).json()) as {
      model: string;
      route: string;
    };
    expect([nda.model, nda.route]).to.deep.equal([MODELS.ultra, "nda"]);
    const agenda = (await (await world.post({ text: "The AGENDA for Monday." })).json()) as {
      model: string;
    };
    expect(agenda.model).to.equal(MODELS.general);
    const long = (await (await world.post({ text: "a".repeat(2000) })).json()) as {
      model: string;
      route: string;
    };
    expect([long.model, long.route]).to.deep.equal([MODELS.in_house, "long"]);
    const short = (await (await world.post({ text: "a".repeat(1999) })).json()) as {
      model: string;
    };
    expect(short.model).to.equal(MODELS.general);
  });

  it("should retry a 5xx and answer from the routed model when a retry succeeds", async function () {
    world.provider.failNext(503, 1);
    const res = await world.post({ text: "Retry me." });
    const body = (await res.json()) as { model: string; fallback_reason: string | null };
    expect(res.status).to.equal(200);
    expect(body.model).to.equal(MODELS.general);
    expect(body.fallback_reason).to.equal(null);
    expect(world.provider.hits.filter((h) => h.path === "/v1/moderations")).to.have.length(3);
  });

  it("should fall back to fallback_model after the retry policy on 5xx, and say so in the answer and the audit record", async function () {
    world.provider.failModel(MODELS.general, 502);
    try {
      const res = await world.post({ text: "Fallback please." });
      const body = (await res.json()) as {
        model: string;
        route: string;
        fallback_reason: string;
        audit_id: string;
      };
      expect(res.status, JSON.stringify(body)).to.equal(200);
      expect(body.model).to.equal(FALLBACK_MODEL);
      expect(body.route).to.equal("fallback");
      expect(body.fallback_reason).to.match(/general-2025-08-01.*HTTP 502/);
      const completions = world.provider.hits.filter((h) => h.path === "/v1/chat/completions");
      expect(completions.map((h) => h.model)).to.deep.equal([
        MODELS.general,
        MODELS.general,
        MODELS.general,
        FALLBACK_MODEL,
      ]);
      const { records } = (await (await world.get("/v1/analysis/audit?limit=500")).json()) as {
        records: Array<{ audit_id: string; model: string }>;
      };
      expect(records.find((r) => r.audit_id === body.audit_id)!.model).to.equal(FALLBACK_MODEL);
    } finally {
      world.provider.failModel(MODELS.general, null);
    }
  });

  it("should fall back on dropped connections and on timeouts", async function () {
    world.provider.failModel(MODELS.general, "drop");
    try {
      const dropped = (await (await world.post({ text: "Dropped." })).json()) as { model: string };
      expect(dropped.model).to.equal(FALLBACK_MODEL);
    } finally {
      world.provider.failModel(MODELS.general, null);
    }
    world.provider.slowMs = 2_500;
    world.provider.failModel(MODELS.general, "slow");
    try {
      const slow = (await (await world.post({ text: "Slow." })).json()) as {
        model: string;
        fallback_reason: string;
      };
      expect(slow.model).to.equal(FALLBACK_MODEL);
      expect(slow.fallback_reason).to.match(/no answer within 2000 ms/);
    } finally {
      world.provider.failModel(MODELS.general, null);
    }
  });

  it("should answer 503 with retry_in when the provider stays down after retries and the fallback", async function () {
    world.provider.failModel(MODELS.general, 500);
    world.provider.failModel(FALLBACK_MODEL, 500);
    const count = () => world.relayer.ctx.store.query("SELECT count(*)::int AS n FROM analyses");
    const before = await count();
    try {
      const res = await world.post({ text: "Down." });
      const body = (await res.json()) as { error: string; retry_in: number };
      expect(res.status).to.equal(503);
      expect(body.error).to.equal("ANALYSIS_PROVIDER_UNAVAILABLE");
      expect(body.retry_in).to.be.a("number").greaterThan(0);
      expect(await count()).to.deep.equal(before);
    } finally {
      world.provider.failModel(MODELS.general, null);
      world.provider.failModel(FALLBACK_MODEL, null);
    }
  });

  it("should answer 502 ANALYSIS_PROVIDER_BAD_RESPONSE to a 200 off the protocol, and store nothing", async function () {
    const count = () =>
      world.relayer.ctx.store.query<{ analyses: number; audit: number }>(
        "SELECT (SELECT count(*) FROM analyses)::int AS analyses, (SELECT count(*) FROM analysis_audit)::int AS audit",
      );
    const before = await count();
    const usage = '"usage":{"prompt_tokens":1,"completion_tokens":1}';
    const moderations = [
      '{"results":[]}',
      '{"results":[{"category_scores":{"bias":1.5}}]}',
      '{"results":[{"category_scores":{"bias":-0.1}}]}',
      // NaN as JSON writes it, and a number as a string.
      '{"results":[{"category_scores":{"bias":null}}]}',
      '{"results":[{"category_scores":{"bias":"0.5"}}]}',
    ];
    for (const body of moderations) {
      world.provider.hits.length = 0;
      world.provider.failNext({ body });
      const res = await world.post({ text: "A memo." });
      const answer = (await res.json()) as { error: string; detail: string };
      expect([res.status, answer.error], body).to.deep.equal([
        502,
        "ANALYSIS_PROVIDER_BAD_RESPONSE",
      ]);
      expect(answer.detail).to.match(/\/moderations/);
      // Not retried, and nothing sent for completion.
      expect(world.provider.hits.map((h) => h.path)).to.deep.equal(["/v1/moderations"]);
    }
    const completions = [
      `{${usage}}`,
      `{"choices":[],${usage}}`,
      `{"choices":[{"message":{"content":5}}],${usage}}`,
      '{"choices":[{"message":{"content":"ok"}}]}',
      `{"choices":[{"message":{"content":"ok"}}],${usage},"cost_units":-1}`,
      // Token counts the audit record cannot hold as integers: each alone, or their sum.
      '{"choices":[{"message":{"content":"ok"}}],"usage":{"prompt_tokens":-1,"completion_tokens":1}}',
      '{"choices":[{"message":{"content":"ok"}}],"usage":{"prompt_tokens":1.5,"completion_tokens":1}}',
      '{"choices":[{"message":{"content":"ok"}}],"usage":{"prompt_tokens":1e400,"completion_tokens":1}}',
      '{"choices":[{"message":{"content":"ok"}}],"usage":{"prompt_tokens":"1","completion_tokens":1}}',
      `{"choices":[{"message":{"content":"ok"}}],"usage":{"prompt_tokens":${Number.MAX_SAFE_INTEGER},"completion_tokens":${Number.MAX_SAFE_INTEGER}}}`,
      `{"choices":[{"message":{"content":"ok"}}],${usage},"cost_units":1e400}`,
      `{"choices":[{"message":{"content":"ok"}}],${usage},"cost_units":"0.5"}`,
      // The model that answered goes into the audit record: text PostgreSQL can hold, a name.
      `{"model":"general\\u0000x","choices":[{"message":{"content":"ok"}}],${usage}}`,
      `{"model":"${"m".repeat(300)}","choices":[{"message":{"content":"ok"}}],${usage}}`,
      `{"model":"","choices":[{"message":{"content":"ok"}}],${usage}}`,
    ];
    for (const body of completions) {
      world.provider.failModel(MODELS.general, { body });
      try {
        const res = await world.post({ text: "A memo." });
        const answer = (await res.json()) as { error: string; detail: string };
        expect([res.status, answer.error], body).to.deep.equal([
          502,
          "ANALYSIS_PROVIDER_BAD_RESPONSE",
        ]);
        expect(answer.detail).to.match(/\/chat\/completions/);
      } finally {
        world.provider.failModel(MODELS.general, null);
      }
    }
    // A 4xx other than 401, 403 and 429 (a retired model's 404, a 400): ours to fix, not retried,
    // no fallback.
    for (const status of [400, 404, 422]) {
      world.provider.failModel(MODELS.general, status);
      world.provider.hits.length = 0;
      try {
        const res = await world.post({ text: "A memo." });
        const answer = (await res.json()) as { error: string; detail: string };
        expect([res.status, answer.error], String(status)).to.deep.equal([
          502,
          "ANALYSIS_PROVIDER_BAD_RESPONSE",
        ]);
        expect(answer.detail).to.include(`HTTP ${status}`);
        expect(
          world.provider.hits.filter((h) => h.path === "/v1/chat/completions"),
          String(status),
        ).to.have.length(1);
      } finally {
        world.provider.failModel(MODELS.general, null);
      }
    }
    // An answer that is not JSON at all counts as a gateway's 502: retried, then the fallback.
    world.provider.failModel(MODELS.general, { body: "<html>upstream error</html>" });
    try {
      const res = await world.post({ text: "A memo." });
      expect(res.status).to.equal(200);
      expect(((await res.json()) as { model: string }).model).to.equal(FALLBACK_MODEL);
    } finally {
      world.provider.failModel(MODELS.general, null);
    }
    const after = await count();
    expect(after[0]!.analyses).to.equal(before[0]!.analyses + 1);
    expect(after[0]!.audit).to.equal(before[0]!.audit + 1);
  });

  it("should turn a provider 401 into a rotate-the-credential error and a 403 into one naming both causes", async function () {
    world.provider.failNext(401);
    const unauthorized = await world.post({ text: "Hello." });
    const u = (await unauthorized.json()) as { error: string; detail: string };
    expect([unauthorized.status, u.error]).to.deep.equal([502, "ANALYSIS_PROVIDER_UNAUTHORIZED"]);
    expect(u.detail).to.match(/rotate the credential analysis-key/);
    expect(u.detail).to.not.include("sk-standin");
    world.provider.failNext(403);
    const forbidden = await world.post({ text: "Hello." });
    const f = (await forbidden.json()) as { error: string; detail: string };
    expect([forbidden.status, f.error]).to.deep.equal([502, "ANALYSIS_PROVIDER_FORBIDDEN"]);
    expect(f.detail)
      .to.match(/whitelisted/)
      .and.match(/rotated/);
    // Neither was retried nor sent on for completion.
    expect(world.provider.hits.filter((h) => h.path === "/v1/chat/completions")).to.have.length(0);
  });

  it("should answer 503 ANALYSIS_NOT_CONFIGURED when the provider's key is not in the vault, with no retry, fallback or breaker report", async function () {
    const missing = analysisOn(world, {
      configure: (config) => ({ ...config, auth: { ...config.auth, credentialId: "absent-key" } }),
    });
    // Earlier tests' reports may still be on their way to the chain.
    await world.relayer.ctx.analysis!.settled();
    const failures = await missing.breaker.failureCount();
    let caught: unknown;
    try {
      await missing.analyze({ apiKeyId: world.key.id, text: "Hello." });
    } catch (err) {
      caught = err;
    }
    await missing.settled();
    await missing.close();
    expect(caught).to.include({ status: 503, code: "ANALYSIS_NOT_CONFIGURED" });
    expect((caught as { detail: string }).detail).to.match(/absent-key is not in the local vault/);
    expect(world.provider.hits).to.deep.equal([]);
    expect(await missing.breaker.failureCount()).to.equal(failures);
  });

  it("should use a rotated provider credential within a second", async function () {
    const { store, masterKey } = world.relayer.ctx;
    const rotate = (key: string) => putCredential(store, masterKey, "analysis-key", key);
    const wait = () => new Promise((r) => setTimeout(r, 1_100));
    try {
      await wait();
      await rotate("sk-standin-revoked");
      const refused = await world.post({ text: "Hello." });
      expect(refused.status).to.equal(502);
      await rotate(ANALYSIS_PROVIDER_KEY);
      await wait();
      expect((await world.post({ text: "Hello." })).status).to.equal(200);
    } finally {
      await rotate(ANALYSIS_PROVIDER_KEY);
    }
  });

  it("should honour a provider 429 Retry-After within the retry policy, and pass it on beyond max_delay", async function () {
    world.provider.retryAfter = 1;
    world.provider.failNext(429);
    const started = Date.now();
    const ok = await world.post({ text: "Throttled once." });
    expect(ok.status).to.equal(200);
    expect(Date.now() - started).to.be.at.least(1_000);
    const moderations = world.provider.hits.filter((h) => h.path === "/v1/moderations");
    expect(moderations[1]!.at - moderations[0]!.at).to.be.at.least(990);

    world.provider.retryAfter = 30;
    world.provider.failNext(429);
    const refused = await world.post({ text: "Throttled long." });
    expect(refused.status).to.equal(429);
    expect(refused.headers.get("Retry-After")).to.equal("30");
    expect(((await refused.json()) as { error: string }).error).to.equal(
      "ANALYSIS_PROVIDER_RATE_LIMITED",
    );
    world.provider.retryAfter = 1;
  });

  it("should read a provider Retry-After given as an HTTP date, and wait a second when there is none", async function () {
    const count = () => world.relayer.ctx.store.query("SELECT count(*)::int AS n FROM analyses");
    const before = await count();
    try {
      world.provider.retryAfter = new Date(Date.now() + 30_000).toUTCString();
      world.provider.failNext(429);
      const refused = await world.post({ text: "Throttled until a date." });
      const body = (await refused.json()) as { error: string; retry_in: number };
      expect([refused.status, body.error]).to.deep.equal([429, "ANALYSIS_PROVIDER_RATE_LIMITED"]);
      // Beyond max_delay (2 s): passed on, not waited a default second and retried.
      expect(Number(refused.headers.get("Retry-After"))).to.be.within(28, 31);
      expect(body.retry_in).to.equal(Number(refused.headers.get("Retry-After")));
      expect(world.provider.hits.map((h) => h.path)).to.deep.equal(["/v1/moderations"]);
      expect(await count()).to.deep.equal(before);

      world.provider.retryAfter = null;
      world.provider.failNext(429);
      const started = Date.now();
      const ok = await world.post({ text: "Throttled without a date." });
      expect(ok.status).to.equal(200);
      expect(Date.now() - started).to.be.at.least(1_000);
    } finally {
      world.provider.retryAfter = 1;
    }
  });

  it("should accept a text of exactly 256 KiB of UTF-8 ending in a multi-byte character", async function () {
    const text = `${"a".repeat(262_141)}€`;
    expect(Buffer.byteLength(text)).to.equal(262_144);
    const res = await world.post({ text });
    const body = (await res.json()) as { model: string };
    expect(res.status, JSON.stringify(body).slice(0, 200)).to.equal(200);
    expect(body.model).to.equal(MODELS.in_house);
  });

  it("should accept a 256 KiB text whose JSON form passes 1 MiB (control characters escaped), and refuse a body past the route's limit", async function () {
    // Every control character is six bytes of JSON (`\u0001`): 1.5 MiB on the wire.
    const text = `Clause 1.${"\u0001".repeat(262_135)}`;
    expect(Buffer.byteLength(text)).to.equal(262_144);
    const body = JSON.stringify({ text, instructions: `Summarise.${"\u0002".repeat(8_182)}` });
    expect(body.length).to.be.above(1024 * 1024);
    const accepted = await world.postRaw(body);
    expect(accepted.status, (await accepted.clone().text()).slice(0, 200)).to.equal(200);

    const count = () => world.relayer.ctx.store.query("SELECT count(*)::int AS n FROM analyses");
    const before = await count();
    // JSON may hold white space anywhere between its tokens: one byte past the limit.
    const head = JSON.stringify({ text: "Pay now." }).slice(0, -1);
    const padded = `${head}${" ".repeat(MAX_ANALYSIS_BODY_BYTES - head.length)}}`;
    expect(Buffer.byteLength(padded)).to.equal(MAX_ANALYSIS_BODY_BYTES + 1);
    const refused = await world.postRaw(padded);
    expect([refused.status, await refused.json()]).to.deep.equal([
      413,
      {
        error: "PAYLOAD_TOO_LARGE",
        detail: `the request body exceeds the limit of ${MAX_ANALYSIS_BODY_BYTES} bytes`,
        limit: MAX_ANALYSIS_BODY_BYTES,
      },
    ]);
    expect(await count()).to.deep.equal(before);
    // At the limit exactly, the same body is read and analysed.
    const atLimit = `${head}${" ".repeat(MAX_ANALYSIS_BODY_BYTES - head.length - 1)}}`;
    const read = await world.postRaw(atLimit);
    expect(read.status).to.equal(200);
    // Other routes keep the relayer's 1 MiB.
    const workflow = `{"name":"w"${" ".repeat(1024 * 1024)}}`;
    const elsewhere = await signedRequest(
      world.relayer.app,
      world.key,
      "POST",
      "/v1/workflows",
      workflow,
      {
        timestamp: String(world.relayer.ctx.clock()),
      },
    );
    expect(elsewhere.status).to.equal(413);
    expect(((await elsewhere.json()) as { limit: number }).limit).to.equal(MAX_BODY_BYTES);
  });

  it("should count the instructions in characters: 8,192 of two UTF-16 code units each are accepted", async function () {
    const res = await world.post({ text: "Pay now.", instructions: "😀".repeat(8_192) });
    expect(res.status, await res.clone().text()).to.equal(200);
  });

  it("should store and return the same output when the provider's answer holds a lone surrogate", async function () {
    world.provider.failModel(MODELS.general, {
      body: '{"choices":[{"message":{"content":"Fine \\ud83d text"}}],"usage":{"prompt_tokens":1,"completion_tokens":1}}',
    });
    try {
      const res = await world.post({ text: "A memo with an emoji." });
      const body = (await res.json()) as { analysis_id: string; output: string };
      expect(res.status).to.equal(200);
      expect(body.output).to.equal("Fine \ufffd text");
      const again = (await (await world.get(`/v1/analysis/${body.analysis_id}`)).json()) as {
        output: string;
      };
      expect(again.output).to.equal(body.output);
    } finally {
      world.provider.failModel(MODELS.general, null);
    }
  });

  it("should pass a provider's Retry-After of 0 or a date gone by on as 1 second, and one past a day as a day", async function () {
    const count = () => world.relayer.ctx.store.query("SELECT count(*)::int AS n FROM analyses");
    const before = await count();
    try {
      for (const [retryAfter, passedOn] of [
        [0, 1],
        [new Date(Date.now() - 60_000).toUTCString(), 1],
        ["9".repeat(400), 86_400],
      ] as const) {
        world.provider.retryAfter = retryAfter;
        // Every attempt of the policy (3) refused.
        world.provider.failNext(429, 3);
        const refused = await world.post({ text: `Throttled, come back now (${retryAfter}).` });
        const body = (await refused.json()) as { error: string; retry_in: number };
        expect([refused.status, body.error]).to.deep.equal([429, "ANALYSIS_PROVIDER_RATE_LIMITED"]);
        expect(refused.headers.get("Retry-After"), String(retryAfter)).to.equal(String(passedOn));
        expect(body.retry_in).to.equal(passedOn);
      }
      expect(await count()).to.deep.equal(before);
    } finally {
      world.provider.retryAfter = 1;
    }
  });

  it("should name text_analysis.audit.chain when it is not a configured chain", function () {
    expect(() =>
      analysisOn(world, {
        configure: (config) => ({ ...config, audit: { ...config.audit, chain: "nochain" } }),
      }),
    ).to.throw(/^text_analysis\.audit\.chain nochain is not a configured chain.*ethereum/);
  });

  it("should refuse bad input with {error, detail} and store nothing", async function () {
    const before = await world.relayer.ctx.store.query("SELECT count(*)::int AS n FROM analyses");
    const cases: Array<[unknown, number, string]> = [
      [{}, 400, "VALIDATION_FAILED"],
      [{ text: "" }, 400, "VALIDATION_FAILED"],
      [{ text: 5 }, 400, "VALIDATION_FAILED"],
      [{ text: "x", extra: true }, 400, "VALIDATION_FAILED"],
      [{ text: "é".repeat(131_073) }, 400, "VALIDATION_FAILED"],
      // One byte over, the last character a three-byte one.
      [{ text: `${"a".repeat(262_142)}€` }, 400, "VALIDATION_FAILED"],
      // Nothing to analyse, or no UTF-8 form (a lone surrogate, sent escaped in JSON).
      [{ text: " \n\t\u00a0 " }, 400, "VALIDATION_FAILED"],
      [{ text: "Pay \ud800 now" }, 400, "VALIDATION_FAILED"],
      [{ text: "Pay now", instructions: "\udc00" }, 400, "VALIDATION_FAILED"],
      [{ text: "Pay now", instructions: "   " }, 400, "VALIDATION_FAILED"],
      // Nothing visible: control characters, zero-width and other format characters.
      [{ text: "\u0001\u0007\u001b\u007f" }, 400, "VALIDATION_FAILED"],
      [{ text: "\u200b\u2060\ufeff\u00ad \u200d" }, 400, "VALIDATION_FAILED"],
      [{ text: "Pay now", instructions: "\u200b\r\n" }, 400, "VALIDATION_FAILED"],
      // 8,193 characters, in ASCII and in characters of two UTF-16 code units each.
      [{ text: "Pay now", instructions: "a".repeat(8_193) }, 400, "VALIDATION_FAILED"],
      [{ text: "Pay now", instructions: "😀".repeat(8_193) }, 400, "VALIDATION_FAILED"],
      [{ text: "x", workflow_id: "wf_nope" }, 400, "VALIDATION_FAILED"],
      [{ text: "x", workflow_id: "wf_01JA0000000000000000000000" }, 404, "WORKFLOW_NOT_FOUND"],
    ];
    for (const [body, status, error] of cases) {
      const res = await world.post(body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).to.equal(status);
      const answer = (await res.json()) as { error: string; detail: string };
      expect(answer.error).to.equal(error);
      expect(answer.detail).to.be.a("string");
    }
    // Another key's execution answers as one that does not exist: its existence is not revealed.
    const other = await newApiKey(world.relayer.ctx);
    const theirs = "wf_01JA00000000000000000000T0";
    await world.relayer.ctx.store.query(
      "INSERT INTO workflow_executions (id, api_key_id, name, workflow) VALUES ($1, $2, 'theirs', '{}'::jsonb)",
      [theirs, other.id],
    );
    for (const workflowId of [theirs, "wf_01JA00000000000000000000T1"]) {
      const res = await world.post({ text: "Pay now", workflow_id: workflowId });
      expect([res.status, await res.json()]).to.deep.equal([
        404,
        { error: "WORKFLOW_NOT_FOUND", detail: `no workflow ${workflowId} for this API key` },
      ]);
    }
    // Bodies JSON.parse would read anyway: bytes decoded to U+FFFD (the text stored and hashed is
    // not the one sent), a key twice (which one is analysed depends on the reader).
    const rawBodies: Array<[Uint8Array, RegExp]> = [
      [
        Buffer.concat([
          Buffer.from('{"text":"Pay '),
          Buffer.from([0xff, 0xc0, 0xaf]),
          Buffer.from('"}'),
        ]),
        /not UTF-8/,
      ],
      [Buffer.from('{"text":"Pay jane@example.com","text":"Pay nobody"}'), /"text" twice/],
    ];
    for (const [body, detail] of rawBodies) {
      const timestamp = String(world.relayer.ctx.clock());
      const res = await world.relayer.app.request("/v1/analysis", {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          ...signedHeaders(world.key.key, world.key.secret, body, timestamp, {
            method: "POST",
            target: "/v1/analysis",
          }),
        },
        body,
      });
      const answer = (await res.json()) as { error: string; detail: string };
      expect([res.status, answer.error], answer.detail).to.deep.equal([400, "VALIDATION_FAILED"]);
      expect(answer.detail).to.match(detail);
    }
    // YAML, which the platform reads for workflows, is not this route's; nor is plain text.
    for (const [contentType, body] of [
      ["application/yaml", "text: Pay Jane Whitfield\n"],
      ["text/plain", "Pay Jane Whitfield"],
    ] as const) {
      const res = await signedRequest(world.relayer.app, world.key, "POST", "/v1/analysis", body, {
        contentType,
        timestamp: String(world.relayer.ctx.clock()),
      });
      expect(res.status, contentType).to.equal(415);
      const answer = (await res.json()) as { error: string; detail: string };
      expect(answer.error).to.equal("UNSUPPORTED_MEDIA_TYPE");
      expect(answer.detail).to.include(`"${contentType}"`);
    }
    const unknown = await world.get("/v1/analysis/an_01JA0000000000000000000000");
    expect(unknown.status).to.equal(404);
    const malformed = await world.get("/v1/analysis/nope");
    expect(malformed.status).to.equal(400);
    for (const query of [
      "from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z",
      "cursor=aud_0",
      "cursor=aud_99999999999999999",
      "limit=0",
      "limit=501",
      "limit=0x10",
      "limit=1e1",
      "limit=16.0",
      "limit=",
      "limit=%2016",
      "limit=%2B16",
      "from=yesterday",
    ]) {
      const refused = await world.get(`/v1/analysis/audit?${query}`);
      expect(refused.status, query).to.equal(400);
      expect(((await refused.json()) as { error: string }).error).to.equal("VALIDATION_FAILED");
    }
    const after = await world.relayer.ctx.store.query("SELECT count(*)::int AS n FROM analyses");
    expect(after).to.deep.equal(before);
    expect(world.provider.hits).to.deep.equal([]);
  });
});

describe("# text analysis rate bucket and refused requests", function () {
  this.timeout(120_000);
  let world: AnalysisWorld;

  before(async function () {
    // One token a minute: nothing refills while the test runs.
    world = await openAnalysisWorld({
      label: "analysis-bucket",
      textAnalysis: { rate_limit: { rpm: 1, burst: 2 } },
    });
  });
  after(async function () {
    await world?.close();
  });

  it("should take no token for a request refused by validation or for an unknown workflow, and answer Retry-After in whole seconds", async function () {
    for (const body of [
      {},
      { text: "" },
      { text: 5 },
      { text: "Pay now", extra: true },
      { text: "Pay now", workflow_id: "wf_nope" },
      { text: "Pay now", workflow_id: "wf_01JA0000000000000000000000" },
      { text: "Pay later", workflow_id: "wf_01JA0000000000000000000001" },
    ]) {
      const res = await world.post(body);
      expect(res.status, JSON.stringify(body)).to.be.oneOf([400, 404]);
    }
    for (const text of ["First memo.", "Second memo."])
      expect((await world.post({ text })).status, text).to.equal(200);
    const refused = await world.post({ text: "Third memo." });
    const body = (await refused.json()) as { error: string; retry_in: number };
    expect([refused.status, body.error]).to.deep.equal([429, "RATE_LIMITED"]);
    const retryAfter = refused.headers.get("Retry-After")!;
    expect(retryAfter).to.match(/^[1-9]\d*$/);
    expect(Number(retryAfter)).to.be.within(1, 60);
    expect(body.retry_in).to.equal(Number(retryAfter));
    expect(world.provider.hits.filter((h) => h.path === "/v1/chat/completions")).to.have.length(2);
  });
});

describe("# text analysis API on a relayer without text_analysis", function () {
  it("should answer 503 ANALYSIS_NOT_CONFIGURED", async function () {
    this.timeout(60_000);
    const relayer = await startInProcessRelayer({ label: "analysis-off" });
    try {
      const key = await newApiKey(relayer.ctx);
      const res = await signedRequest(relayer.app, key, "POST", "/v1/analysis", '{"text":"hi"}');
      expect(res.status).to.equal(503);
      expect(((await res.json()) as { error: string }).error).to.equal("ANALYSIS_NOT_CONFIGURED");
    } finally {
      await relayer.close();
    }
  });
});
