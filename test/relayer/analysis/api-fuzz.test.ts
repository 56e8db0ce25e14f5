import { readFileSync } from "node:fs";
import { expect } from "chai";
import fc from "fast-check";
import { CORPUS_FILE, type CorpusText } from "../../../scripts/analysis-corpus.ts";
import { newApiKey, signedRequest, type Credentials } from "../../fixtures/relayer.ts";
import {
  openAnalysisWorld,
  PAYMENT_RULES_YAML,
  standsAlone,
  type AnalysisWorld,
} from "../../fixtures/analysis.ts";
import { createTestDatabase, type TestDatabase } from "../../fixtures/postgres.ts";
import { BIASED_MARKER } from "../../fixtures/standins/analysis-provider.ts";

/**
 * The text-analysis routes fuzzed against a relayer whose provider is configured (the stand-in),
 * so generated requests reach the analysis itself, not only the 503 of an unconfigured one (the
 * OpenAPI-wide fuzz in test/relayer/http/api-fuzz.test.ts runs without a provider). Bodies are
 * corpus texts with hostile neighbours (invisible and control characters, lone surrogates, the
 * routing's edges, quoted placeholders, the bias marker), mutated and retyped; headers carry
 * Idempotency-Keys fresh, repeated and malformed; queries carry instants, cursors and ranges
 * valid and not; requests are signed by the owner, by another key, badly or not at all.
 *
 * Held for every request: no 5xx; a refusal is `{error, detail}` and stores nothing (analyses,
 * audit records, held keys) and, unless it is the bias pre-check's 422 (one score, no completion,
 * its incident), sends the provider nothing; an answered analysis sent no labelled personal data
 * of its text, is read back the same by its owner and is a 404 for another key; a repeated key
 * with the same body answers the same analysis and sends nothing; audit pages hold the caller's
 * records only, in order. Seeded: FUZZ_SEED (default 15), FUZZ_RUNS (default 200 under `npm test`).
 */
const SEED = Number(process.env.FUZZ_SEED ?? 15);
const RUNS = Number(process.env.FUZZ_RUNS ?? 200);

const corpus = (JSON.parse(readFileSync(CORPUS_FILE, "utf8")) as CorpusText[]).slice(0, 60);

/** Written between corpus texts, each on its own, so no value's edges change. */
const NEIGHBOURS = [
  "\u200b\u200d\u2060\ufeff",
  "\u202e reversed \u202c",
  "\u0000\u0001\u001f",
  "NDA",
  "the nda's terms (N.D.A.)",
  "ANDA HONDA",
  "[EMAIL_1] [NAME_99999999999999999999]",
  BIASED_MARKER,
  `${BIASED_MARKER} (scored above the threshold)`,
  "𝕍𝕖𝕣𝕚𝕗𝕝𝕠𝕨",
  "\ud800",
  " ",
  "x".repeat(1_990),
];

const piece = fc.oneof(
  { weight: 3, arbitrary: fc.nat(corpus.length - 1).map((i) => ({ doc: i })) },
  { weight: 2, arbitrary: fc.constantFrom(...NEIGHBOURS).map((text) => ({ text })) },
  {
    weight: 1,
    arbitrary: fc.string({ unit: "grapheme", maxLength: 40 }).map((text) => ({ text })),
  },
);

interface Text {
  text: string;
  /** The labelled values of the corpus texts it holds. */
  values: string[];
}

const textArb: fc.Arbitrary<Text> = fc
  .array(piece, { minLength: 1, maxLength: 4 })
  .map((pieces) => ({
    text: pieces.map((p) => ("doc" in p ? corpus[p.doc]!.text : p.text)).join("\n"),
    values: pieces.flatMap((p) => ("doc" in p ? corpus[p.doc]!.labels.map((l) => l.value) : [])),
  }));

interface PostBody {
  raw: string;
  values: string[];
}

const postBody: fc.Arbitrary<PostBody> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc
      .record(
        {
          text: textArb,
          instructions: fc.oneof(
            { weight: 4, arbitrary: fc.constant("Check each party's obligations.") },
            { weight: 1, arbitrary: fc.string({ unit: "grapheme", maxLength: 30 }) },
            { weight: 1, arbitrary: fc.constant("y".repeat(8_193)) },
          ),
          // Mostly left out: a workflow the key does not own is a 404 before anything runs.
          workflow_id: fc.oneof(
            { weight: 4, arbitrary: fc.constant(undefined) },
            {
              weight: 1,
              arbitrary: fc.constantFrom("wf_01JH0000000000000000000000", "wf_x", ""),
            },
          ),
        },
        { requiredKeys: ["text"] },
      )
      .map(({ text, ...rest }) => ({
        raw: JSON.stringify({ text: text.text, ...rest }),
        values: [...text.values],
      })),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(textArb, fc.jsonValue({ maxDepth: 2 }), fc.integer({ min: 0, max: 4 }))
      .map(([text, other, how]) => {
        const bodies = [
          { text: other },
          { text: text.text, extra: other },
          { text: text.text, instructions: other },
          { text: [text.text] },
          other,
        ];
        return { raw: JSON.stringify(bodies[how]), values: text.values };
      }),
  },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(
        "",
        "{",
        '{"text":"a","text":"b"}',
        `{"text":"${"z".repeat(256 * 1024 + 1)}"}`,
        '{"text":"\\u0000"}',
        '{"text":"\\ud83d"}',
        "text=hello",
        `{"text":${"[".repeat(5_000)}${"]".repeat(5_000)}}`,
      )
      .map((raw) => ({ raw, values: [] })),
  },
);

/** Instants and near misses for the audit's `from` and `to`. */
const instant = fc.oneof(
  fc
    .date({ min: new Date("2000-01-01"), max: new Date("2100-01-01"), noInvalidDate: true })
    .map((d) => d.toISOString()),
  fc.constantFrom(
    "2026-02-30",
    "0000-01-01T00:00:00Z",
    "10000-01-01T00:00:00Z",
    "2026-01-01T00:00:00",
    "March 7",
    "1",
    "",
  ),
);
const queryValue = fc.oneof(
  fc.integer({ min: -2, max: 2_000 }).map(String),
  fc.constantFrom("aud_1", "aud_0", "aud_9999999999999999", "1e3", "%00", "'", "NaN"),
  fc.string({ maxLength: 12 }),
);

type Who = "owner" | "other" | "unsigned" | "bad-signature";
const who = fc.oneof(
  { weight: 6, arbitrary: fc.constant<Who>("owner") },
  { weight: 2, arbitrary: fc.constant<Who>("other") },
  { weight: 1, arbitrary: fc.constantFrom<Who>("unsigned", "bad-signature") },
);

type FuzzRequest =
  | {
      op: "post";
      body: PostBody;
      key: "none" | "fresh" | "repeat" | "malformed";
      malformed: string;
      /** With the `repeat` key: the body it was first answered for, when there is one. */
      sameBody: boolean;
      who: Who;
    }
  | { op: "get"; id: "known" | "random"; index: number; random: string; who: Who }
  | { op: "audit"; query: Array<[string, string]>; who: Who }
  | { op: "links"; query: Array<[string, string]>; who: Who };

const request: fc.Arbitrary<FuzzRequest> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      op: fc.constant("post" as const),
      body: postBody,
      key: fc.constantFrom("none", "none", "none", "fresh", "repeat", "repeat", "malformed"),
      malformed: fc.constantFrom("", " ", "k".repeat(256), "cl\u00e9", "a\tb"),
      sameBody: fc.constantFrom(true, false, false),
      who,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant("get" as const),
      id: fc.constantFrom("known", "known", "random"),
      index: fc.nat(),
      random: fc.oneof(fc.string({ maxLength: 30 }), fc.constant("an_01JH0000000000000000000000")),
      who,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant("audit" as const),
      query: fc.array(
        fc.oneof(
          fc.tuple(fc.constantFrom("from", "to"), instant),
          fc.tuple(fc.constantFrom("cursor", "limit", "x"), queryValue),
        ),
        { maxLength: 3 },
      ),
      who,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant("links" as const),
      query: fc.array(fc.tuple(fc.constantFrom("from_seq", "to_seq", "max"), queryValue), {
        maxLength: 3,
      }),
      who,
    }),
  },
);

interface Answered {
  id: string;
  output: string;
}

describe("# text analysis API fuzz (seeded, configured provider)", function () {
  for (const database of ["pglite", "postgres"] as const)
    describe(`on ${database === "pglite" ? "PGlite" : "PostgreSQL"}`, function () {
      fuzzAnalysis(database);
    });
});

function fuzzAnalysis(database: "pglite" | "postgres"): void {
  let world: AnalysisWorld;
  let db: TestDatabase | undefined;
  let other: Credentials & { id: string };
  let lastTimestamp = 0;
  let keys = 0;
  /**
   * The Idempotency-Key `repeat` requests share (keys are scoped to the API key: one each), and the
   * body and analysis it was first answered with.
   */
  const REPEATED_KEY = "fuzz-repeated-key";
  const repeated = new Map<Who, { body: PostBody; analysis: string }>();
  const answered: Answered[] = [];

  before(async function () {
    this.timeout(120_000);
    if (database === "postgres") db = await createTestDatabase("analysis_fuzz");
    world = await openAnalysisWorld({
      label: "analysis-fuzz",
      ...(db ? { databaseUrl: db.url } : {}),
      // The key's own request limit (tested with the HTTP layer) would answer a long run's reads.
      env: { VERIFLOW_LIMITS: JSON.stringify({ enterprise: { requestsPerMinute: 1_000_000 } }) },
      textAnalysis: {
        rate_limit: { rpm: 1_000_000, burst: 10_000 },
        rules: "rules.yaml",
      },
      files: {
        "rules.yaml": PAYMENT_RULES_YAML,
      },
    });
    other = await newApiKey(world.relayer.ctx);
  });
  after(async function () {
    await world?.close();
    await db?.drop();
  });

  async function stored(): Promise<Record<string, number>> {
    const counts: Record<string, number> = {};
    for (const table of ["analyses", "analysis_audit", "analysis_idempotency"]) {
      const [row] = await world.relayer.ctx.store.query<{ n: string }>(
        `SELECT count(*) AS n FROM ${table}`,
      );
      counts[table] = Number(row!.n);
    }
    return counts;
  }

  /** Signed as clients sign (version 2), by the owner or the other key; or badly, or not at all. */
  async function send(
    method: "GET" | "POST",
    target: string,
    w: Who,
    body?: string,
    extra: Record<string, string> = {},
  ): Promise<Response> {
    if (w === "unsigned")
      return world.relayer.app.request(target, {
        method,
        headers: {
          ...extra,
          ...(body !== undefined ? { "Content-Type": "application/json" } : {}),
        },
        ...(body !== undefined ? { body } : {}),
      });
    lastTimestamp = Math.max(world.relayer.ctx.clock(), lastTimestamp + 1);
    return signedRequest(
      world.relayer.app,
      w === "other" ? other : world.key,
      method,
      target,
      body,
      {
        timestamp: String(lastTimestamp),
        headers: {
          ...extra,
          ...(w === "bad-signature" ? { "X-SVC-Signature": "0".repeat(64) } : {}),
        },
      },
    );
  }

  function target(r: FuzzRequest): string {
    switch (r.op) {
      case "post":
        return "/v1/analysis";
      case "get":
        return `/v1/analysis/${encodeURIComponent(
          r.id === "known" && answered.length ? answered[r.index % answered.length]!.id : r.random,
        )}`;
      case "audit":
      case "links": {
        const query = new URLSearchParams(r.query).toString();
        const path = r.op === "audit" ? "/v1/analysis/audit" : "/v1/analysis/audit/links";
        return query ? `${path}?${query}` : path;
      }
    }
  }

  it(`should answer ${RUNS} generated analysis requests without a 5xx, storing and sending nothing for a refusal, each answer its owner's alone (seed ${SEED})`, async function () {
    this.timeout(Math.max(180_000, RUNS * 1_000));
    const byStatus = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const before = await stored();
        const hitsBefore = world.provider.hits.length;
        const path = target(r);
        let idempotencyKey: string | undefined;
        if (r.op === "post") {
          if (r.key === "fresh") idempotencyKey = `fuzz-${keys++}`;
          else if (r.key === "repeat") idempotencyKey = REPEATED_KEY;
          else if (r.key === "malformed") idempotencyKey = r.malformed;
        }
        const first = r.op === "post" && r.key === "repeat" ? repeated.get(r.who) : undefined;
        if (r.op === "post" && first && r.sameBody) r.body = first.body;
        const res =
          r.op === "post"
            ? await send(
                "POST",
                path,
                r.who,
                r.body.raw,
                idempotencyKey === undefined ? {} : { "Idempotency-Key": idempotencyKey },
              )
            : await send("GET", path, r.who);
        const text = await res.text();
        const where = `${r.op} ${path.slice(0, 160)} (${r.who}) ${r.op === "post" ? r.body.raw.slice(0, 160) : ""}`;
        const body = JSON.parse(text) as Record<string, unknown>;
        const label = `${res.status} ${String(body.error ?? r.op)}`;
        byStatus.set(label, (byStatus.get(label) ?? 0) + 1);
        const sent = world.provider.hits.slice(hitsBefore);

        expect(res.status, `${where}: ${text.slice(0, 300)}`).to.be.below(500);
        if (res.status >= 400) {
          expect(body.error, where).to.be.a("string");
          expect(body.detail, where).to.be.a("string");
          expect(await stored(), `refused ${res.status} but stored: ${where}`).to.deep.equal(
            before,
          );
          if (body.error === "BIAS_REJECTED") {
            // The pre-check's score alone: no completion.
            expect(
              sent.map((h) => h.path),
              where,
            ).to.deep.equal(["/v1/moderations"]);
          } else {
            expect(sent.length, `refused ${res.status} but sent: ${where}`).to.equal(0);
          }
          return;
        }
        if (r.op === "post") {
          const analysisId = body.analysis_id as string;
          expect(analysisId, where).to.match(/^an_[0-9A-HJKMNP-TV-Z]{26}$/);
          const replay = first !== undefined && first.body.raw === r.body.raw;
          if (replay) {
            // The same analysis again, nothing sent, nothing stored.
            expect(analysisId, where).to.equal(first.analysis);
            expect(sent.length, where).to.equal(0);
            expect(await stored(), where).to.deep.equal(before);
          } else {
            expect(
              sent.map((h) => h.path),
              where,
            ).to.deep.equal(["/v1/moderations", "/v1/chat/completions", "/v1/moderations"]);
            const leaked = r.body.values.filter((v) => {
              const needle = JSON.stringify(v).slice(1, -1);
              return sent.some((h) => standsAlone(h.body, needle));
            });
            expect(leaked, where).to.deep.equal([]);
            expect((await stored()).analyses, where).to.equal(before.analyses! + 1);
            if (r.key === "repeat") {
              expect(first, `${where}: answered a key already answered for another body`).to.equal(
                undefined,
              );
              repeated.set(r.who, { body: r.body, analysis: analysisId });
            }
            answered.push({ id: analysisId, output: body.output as string });
          }
          // Its owner reads it back; another key cannot tell it exists.
          const again = await send("GET", `/v1/analysis/${analysisId}`, r.who);
          expect(again.status, where).to.equal(200);
          expect(((await again.json()) as { output: string }).output).to.equal(body.output);
          const foreign = await send(
            "GET",
            `/v1/analysis/${analysisId}`,
            r.who === "owner" ? "other" : "owner",
          );
          expect(foreign.status, where).to.equal(404);
          await foreign.text();
        } else if (r.op === "get") {
          expect(
            answered.some((a) => a.id === body.analysis_id),
            where,
          ).to.equal(true);
        } else if (r.op === "audit") {
          const records = body.records as Array<{ api_key_id: string; seq: number }>;
          const owner = r.who === "other" ? other.id : world.key.id;
          for (const rec of records) expect(rec.api_key_id, where).to.equal(owner);
          const seqs = records.map((rec) => rec.seq);
          expect(seqs, where).to.deep.equal([...seqs].sort((a, b) => a - b));
          expect(JSON.stringify(body), where).not.to.include('"text"');
        } else {
          const links = body.links as Array<{ seq: number }>;
          const seqs = links.map((l) => l.seq);
          expect(seqs, where).to.deep.equal([...seqs].sort((a, b) => a - b));
          expect(new Set(seqs).size, where).to.equal(seqs.length);
        }
        if (r.op !== "post") expect(sent.length, `a read sent: ${where}`).to.equal(0);
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
    console.log(
      `      analysis fuzz: ${RUNS} requests, ${answered.length} analyses, ${JSON.stringify(Object.fromEntries([...byStatus].sort()))}`,
    );
    // The generator reaches the analysis, its refusals and the reads, not only the validation.
    expect(answered.length).to.be.at.least(RUNS / 10);
    for (const seen of [
      "200 post",
      "400 VALIDATION_FAILED",
      "401",
      "404 WORKFLOW_NOT_FOUND",
      "404 ANALYSIS_NOT_FOUND",
      "409 IDEMPOTENCY_KEY_REUSED",
      "422 BIAS_REJECTED",
    ])
      expect(
        [...byStatus.keys()].some((k) => k.startsWith(seen)),
        seen,
      ).to.equal(true);
  });
}
