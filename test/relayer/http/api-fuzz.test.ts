import { readdir } from "node:fs/promises";
import path from "node:path";
import { expect } from "chai";
import fc from "fast-check";
import type { ChainSet } from "../../../relayer/chains/index.ts";
import { signedHeaders } from "../../../relayer/auth/hmac.ts";
import { SPEC_JSON_WORKFLOW, SPEC_YAML_WORKFLOW } from "../../fixtures/catalogue.ts";
import {
  newClient,
  openDevnetChains,
  startWorkflowService,
  type Client,
  type WorkflowService,
} from "../../fixtures/workflow-service.ts";

/**
 * The API fuzz suite, driven by the OpenAPI document: every operation it lists, with generated
 * path parameters, queries and bodies (valid examples, mutations of them, random JSON and text,
 * hostile input), signed, unsigned or wrongly signed. Held: no response >= 500, no crash, nothing
 * stored by a refused request (row counts and artifact files), the process's memory bounded.
 * Seeded and reproducible: FUZZ_SEED (default 15), FUZZ_RUNS (default 300 under `npm test`;
 * `npm run fuzz` runs 5,000). A failure prints the seed, the run and the request.
 */
const SEED = Number(process.env.FUZZ_SEED ?? 15);
const RUNS = Number(process.env.FUZZ_RUNS ?? 300);
/**
 * 503s the API documents for a dependency this relayer does not have (the fuzz relayer runs without
 * a text-analysis provider, a prover key or a registry): a deliberate answer, counted apart. Any
 * other status >= 500 fails the run.
 */
const DOCUMENTED_UNAVAILABLE = new Set([
  "ANALYSIS_NOT_CONFIGURED",
  "CHAINS_UNAVAILABLE",
  "PROVER_UNAVAILABLE",
  "REGISTRY_UNAVAILABLE",
  "SANCTIONS_LIST_UNAVAILABLE",
]);
/** Growth of the resident set over the whole run that counts as unbounded. */
const MAX_RSS_GROWTH_BYTES = 400 * 1024 * 1024;

interface Operation {
  method: string;
  path: string;
}

interface FuzzRequest {
  op: Operation;
  params: string[];
  query: Array<[string, string]>;
  body: string | null;
  contentType: string;
  auth: "signed" | "unsigned" | "bad-signature" | "bearer";
}

const { schedule: _s, timezone: _t, ...PLAIN_WORKFLOW } = structuredClone(SPEC_JSON_WORKFLOW);
/** Bodies that are valid for some operation: the fuzz mutates them to reach deep validation. */
const VALID_BODIES: unknown[] = [
  PLAIN_WORKFLOW,
  { address: "0x8576acc5c05d6ce88f4e49bf65bdf0c62f91353c" },
  { chain_id: 31337, tx_data: { to: "0x0000000000000000000000000000000000000001", value: "0x0" } },
  { artifacts: ["bafkreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy"] },
  { cids: ["bafkreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy"] },
  { ...PLAIN_WORKFLOW, name: "fuzz-deploy" },
  { text: "hello", model: "general" },
  { data: { a: 1 } },
];

const jsonValue = fc.jsonValue({ maxDepth: 4 });
const hostileString = fc.constantFrom(
  "\u0000",
  "a\u0000b",
  "%00",
  "%E0%A4%A",
  "../../etc/passwd",
  "'; DROP TABLE api_keys; --",
  "𝕍".repeat(300),
  "-1",
  "1e309",
  "0x",
  "null",
  "[]",
  "{}",
  " ".repeat(5000),
  "wf_00000000000000000000000000",
);
const pathParam = fc.oneof(
  fc.string({ maxLength: 40 }),
  hostileString,
  fc.string({ unit: fc.constantFrom(..."0123456789abcdef"), maxLength: 70 }),
);

/** A valid body, then maybe mutated: a field dropped, replaced, or the whole thing retyped. */
const mutatedBody = fc
  .tuple(fc.constantFrom(...VALID_BODIES), fc.nat(), jsonValue, fc.integer({ min: 0, max: 4 }))
  .map(([body, pick, replacement, how]) => {
    const copy = structuredClone(body) as Record<string, unknown>;
    const keys = Object.keys(copy);
    const key = keys[pick % keys.length]!;
    if (how === 1) delete copy[key];
    else if (how === 2) copy[key] = replacement;
    else if (how === 3) copy[`x_${pick}`] = replacement;
    else if (how === 4) return JSON.stringify(replacement);
    return JSON.stringify(copy);
  });

const body = fc.oneof(
  { weight: 4, arbitrary: mutatedBody },
  { weight: 2, arbitrary: jsonValue.map((v) => JSON.stringify(v)) },
  { weight: 1, arbitrary: fc.string({ maxLength: 200 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '{"name":"a\\u0000b","actions":[]}',
      `{"a":${"[".repeat(5000)}${"]".repeat(5000)}}`,
      SPEC_YAML_WORKFLOW,
      'a: &a ["x","x","x","x","x","x","x","x","x"]\nb: [*a,*a,*a,*a,*a,*a,*a,*a,*a]',
      "",
      "{",
      `{"name":"${"x".repeat(70_000)}"}`,
    ),
  },
  { weight: 1, arbitrary: fc.constant(null) },
);

function requestArbitrary(ops: Operation[]): fc.Arbitrary<FuzzRequest> {
  return fc.record({
    op: fc.constantFrom(...ops),
    params: fc.array(pathParam, { minLength: 3, maxLength: 3 }),
    query: fc.array(
      fc.tuple(
        fc.constantFrom("cursor", "limit", "address", "state", "status", "chain", "x"),
        fc.oneof(fc.string({ maxLength: 30 }), hostileString, fc.integer().map(String)),
      ),
      { maxLength: 3 },
    ),
    body,
    contentType: fc.constantFrom(
      "application/json",
      "application/json",
      "application/yaml",
      "text/plain",
      "application/json; charset=utf-8",
    ),
    auth: fc.constantFrom("signed", "signed", "signed", "unsigned", "bad-signature", "bearer"),
  });
}

function target(r: FuzzRequest): string {
  let i = 0;
  const filled = r.op.path.replace(/\{[^}]+\}/g, () => encodeURIComponent(r.params[i++]!));
  const query = new URLSearchParams(r.query).toString();
  return query ? `${filled}?${query}` : filled;
}

describe("# API fuzz (OpenAPI-driven, seeded)", function () {
  this.timeout(Math.max(120_000, RUNS * 200));
  let chains: ChainSet;
  let svc: WorkflowService;
  let client: Client;
  let ops: Operation[];
  let lastTimestamp = 0;

  before(async () => {
    chains = await openDevnetChains();
    svc = await startWorkflowService(chains);
    client = await newClient(svc, "enterprise");
    const doc = (await (await svc.app.request("/openapi.json")).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    ops = Object.entries(doc.paths).flatMap(([p, methods]) =>
      Object.keys(methods).map((method) => ({ method: method.toUpperCase(), path: p })),
    );
  });
  after(async () => {
    await svc?.close();
    await chains?.close();
  });

  /** Rows a request can store, and the artifact files: a refused request changes none. */
  async function stored(): Promise<Record<string, number>> {
    const tables = [
      "workflow_executions",
      "workflow_schedules",
      "workflow_deployments",
      "workflow_idempotency",
      "engine_txs",
      "analyses",
      "integration_interactions",
      "artifact_owners",
      "zk_quota_counters",
    ];
    const counts: Record<string, number> = {};
    for (const table of tables) {
      const [row] = await svc.ctx.store.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`);
      counts[table] = Number(row!.n);
    }
    counts.artifact_files = await countFiles(path.join(svc.dataDir, "artifacts"));
    return counts;
  }

  async function send(r: FuzzRequest): Promise<Response> {
    const headers: Record<string, string> = {};
    const bodyText = r.op.method === "GET" ? null : r.body;
    if (bodyText !== null) headers["Content-Type"] = r.contentType;
    lastTimestamp = Math.max(Date.now(), lastTimestamp + 1);
    if (r.auth === "signed" || r.auth === "bad-signature") {
      // Both signature versions: the spec's (1) for requests with a body, 2 for bodyless ones
      // (which version 1 may not sign).
      Object.assign(
        headers,
        signedHeaders(
          client.key,
          client.secret,
          bodyText ?? "",
          String(lastTimestamp),
          bodyText ? undefined : { method: r.op.method, target: target(r) },
        ),
      );
      if (r.auth === "bad-signature") headers["X-SVC-Signature"] = "0".repeat(64);
    } else if (r.auth === "bearer") {
      headers.Authorization = `Bearer ${client.key}`;
    }
    return svc.app.request(target(r), {
      method: r.op.method,
      headers,
      ...(bodyText !== null ? { body: bodyText } : {}),
    });
  }

  it(`should answer ${RUNS} generated requests across every operation without a 5xx, storing nothing for a refusal, in bounded memory (seed ${SEED})`, async () => {
    expect(ops.length).to.be.greaterThan(20);
    const rssBefore = process.memoryUsage().rss;
    const byStatus = new Map<number, number>();
    const covered = new Set<string>();
    const unavailable = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(requestArbitrary(ops), async (r) => {
        const before = await stored();
        const res = await send(r);
        const text = await res.text();
        byStatus.set(res.status, (byStatus.get(res.status) ?? 0) + 1);
        covered.add(`${r.op.method} ${r.op.path}`);
        const where = `${r.op.method} ${target(r).slice(0, 200)} (${r.auth})`;
        if (res.status >= 500) {
          const code = (JSON.parse(text) as { error?: string }).error ?? "";
          if (res.status !== 503 || !DOCUMENTED_UNAVAILABLE.has(code)) {
            throw new Error(`${res.status} for ${where}: ${text.slice(0, 300)}`);
          }
          unavailable.set(code, (unavailable.get(code) ?? 0) + 1);
        }
        if (res.status >= 400) {
          const parsed = JSON.parse(text) as { error?: unknown; detail?: unknown };
          expect(parsed.error, where).to.be.a("string");
          expect(parsed.detail, where).to.be.a("string");
          expect(await stored(), `refused ${res.status} but stored: ${where}`).to.deep.equal(
            before,
          );
        }
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
    const growth = process.memoryUsage().rss - rssBefore;
    console.log(
      `      fuzz: ${RUNS} requests, ${covered.size}/${ops.length} operations, statuses ${JSON.stringify(Object.fromEntries([...byStatus].sort()))} (documented 503s ${JSON.stringify(Object.fromEntries(unavailable))}), RSS +${Math.round(growth / 1048576)} MiB`,
    );
    expect(covered.size).to.equal(ops.length);
    expect(growth).to.be.below(MAX_RSS_GROWTH_BYTES);
  });
});

async function countFiles(dir: string): Promise<number> {
  try {
    let n = 0;
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      n += entry.isDirectory() ? await countFiles(path.join(dir, entry.name)) : 1;
    }
    return n;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return 0;
    throw err;
  }
}
