import { expect } from "chai";
import type { ChainSet } from "../../../relayer/chains/index.ts";
import { bodyHazard, documentHazard, MAX_BODY_DEPTH } from "../../../relayer/http/body.ts";
import { SPEC_JSON_WORKFLOW } from "../../fixtures/catalogue.ts";
import {
  newClient,
  openDevnetChains,
  rowCounts,
  startWorkflowService,
  type Client,
  type WorkflowService,
} from "../../fixtures/workflow-service.ts";

const bytes = (text: string) => new TextEncoder().encode(text);
const nested = (depth: number) => `{"a":${"[".repeat(depth - 1)}${"]".repeat(depth - 1)}}`;

/** A JSON workflow without a schedule, named `name`. */
function workflow(name: string): string {
  const { schedule: _s, timezone: _t, ...rest } = structuredClone(SPEC_JSON_WORKFLOW);
  rest.name = name;
  return JSON.stringify(rest);
}

/** Eight levels of anchors, each nine aliases of the previous: 9^8 strings once expanded. */
const YAML_ALIAS_BOMB = [
  'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
  ..."bcdefgh".split("").map((l, i) => {
    const prev = "abcdefg"[i];
    return `${l}: &${l} [${Array(9).fill(`*${prev}`).join(",")}]`;
  }),
  "name: bomb",
  "actions: []",
].join("\n");

describe("# hostile input: NUL characters, bytes that are not UTF-8, duplicate keys, alias bombs, deep nesting", function () {
  describe("## the byte scan (bodyHazard) and the document walk (documentHazard)", () => {
    it("should find a NUL escape inside a JSON string, but not an escaped backslash before u0000", () => {
      expect(bodyHazard(bytes('{"name":"a\\u0000b"}'), true)).to.match(/NUL/);
      expect(bodyHazard(bytes('{"name\\u0000":"x"}'), true)).to.match(/NUL/);
      expect(bodyHazard(bytes('{"name":"a\\\\u0000b"}'), true)).to.equal(null);
      expect(bodyHazard(bytes('{"name":"a\\"\\u0000"}'), true)).to.match(/NUL/);
    });

    it("should find a raw NUL byte in any media type", () => {
      expect(bodyHazard(new Uint8Array([0x7b, 0x00, 0x7d]), true)).to.match(/NUL/);
      expect(bodyHazard(new Uint8Array([0x61, 0x3a, 0x00]), false)).to.match(/NUL/);
    });

    it(`should refuse nesting deeper than ${MAX_BODY_DEPTH}, and count no brackets inside strings`, () => {
      expect(bodyHazard(bytes(nested(MAX_BODY_DEPTH)), true)).to.equal(null);
      expect(bodyHazard(bytes(nested(MAX_BODY_DEPTH + 1)), true)).to.match(/nested deeper/);
      expect(bodyHazard(bytes(`{"a":"${"[".repeat(1000)}"}`), true)).to.equal(null);
    });

    it("should find bytes that are not UTF-8 in any media type: invalid, overlong, encoded surrogates", () => {
      const withBytes = (...b: number[]) =>
        new Uint8Array([...bytes('{"a":"'), ...b, ...bytes('"}')]);
      for (const bad of [
        [0xff],
        [0xc3],
        [0xc0, 0xaf],
        [0xed, 0xa0, 0x80],
        [0xf4, 0x90, 0x80, 0x80],
      ])
        for (const json of [true, false])
          expect(bodyHazard(withBytes(...bad), json), bad.join()).to.match(/not UTF-8/);
      expect(bodyHazard(withBytes(0xc3, 0xa9, 0xf0, 0x9f, 0x98, 0x80), true)).to.equal(null);
    });

    it("should find a key twice in one JSON object, escaped or not, but not the same key in two objects", () => {
      expect(bodyHazard(bytes('{"text":"a","text":"b"}'), true)).to.match(/"text" twice/);
      expect(bodyHazard(bytes('{"text":"a","te\\u0078t":"b"}'), true)).to.match(/"text" twice/);
      expect(bodyHazard(bytes('{"a":{"k":1},"b":[{"k":1},{"k":{"k":2}}],"k":"k"}'), true)).to.equal(
        null,
      );
      expect(bodyHazard(bytes('{"a":"x,\\"a\\":1","b":["a","a"]}'), true)).to.equal(null);
      expect(bodyHazard(bytes('[{"k":1,"j":{},"k":2}]'), true)).to.match(/"k" twice/);
      // YAML's own parser refuses them (uniqueKeys).
      expect(bodyHazard(bytes("a: 1\na: 2\n"), false)).to.equal(null);
    });

    it("should find NUL characters and deep nesting in a parsed document", () => {
      expect(documentHazard({ a: ["x", "y\0"] })).to.match(/NUL/);
      expect(documentHazard({ "k\0": 1 })).to.match(/NUL/);
      let deep: unknown = "leaf";
      for (let i = 0; i <= MAX_BODY_DEPTH; i++) deep = [deep];
      expect(documentHazard(deep)).to.match(/nested deeper/);
      expect(documentHazard({ name: "fine", actions: [{ amount: "1" }] })).to.equal(null);
    });
  });

  describe("## through the app (PGlite, embedded devnet)", function () {
    this.timeout(120_000);
    let chains: ChainSet;
    let svc: WorkflowService;
    let alice: Client;

    before(async () => {
      chains = await openDevnetChains();
      svc = await startWorkflowService(chains);
      alice = await newClient(svc);
    });
    after(async () => {
      await svc?.close();
      await chains?.close();
    });

    /** Sends `send`, expects a 400 {error, detail} and no row stored anywhere. */
    async function refusedWithNothingStored(send: () => Promise<Response>, detail: RegExp) {
      const before = await rowCounts(svc);
      const res = await send();
      const body = (await res.json()) as { error: string; detail: string };
      expect(res.status, body.detail).to.equal(400);
      expect(body.error).to.equal("VALIDATION_FAILED");
      expect(body.detail).to.match(detail);
      expect(await rowCounts(svc)).to.deep.equal(before);
    }

    it("should answer 400 for a NUL character in a workflow name (JSON escape), storing nothing", async () => {
      await refusedWithNothingStored(
        () => alice.request("POST", "/v1/workflows", workflow("treasury\u0000run")),
        /NUL/,
      );
    });

    it("should answer 400 for a NUL character in a YAML workflow (escape \\0), storing nothing", async () => {
      const yaml =
        'name: "treasury\\0run"\ntrigger:\n  frequency: "every Monday at 09:00 EST"\nactions: []\n';
      await refusedWithNothingStored(
        () => alice.request("POST", "/v1/workflows", yaml, { contentType: "application/yaml" }),
        /NUL/,
      );
    });

    it("should answer 400 for a NUL character or a malformed percent-encoding in the URL", async () => {
      await refusedWithNothingStored(() => alice.request("GET", "/v1/workflows?cursor=%00"), /NUL/);
      await refusedWithNothingStored(
        () => alice.request("GET", "/v1/deployments/treasury%00run"),
        /NUL/,
      );
      await refusedWithNothingStored(
        () => alice.request("GET", "/v1/workflows?cursor=%E0%A4%A"),
        /percent-encoding/,
      );
    });

    it("should answer 400 for a YAML alias bomb, storing nothing", async () => {
      await refusedWithNothingStored(
        () =>
          alice.request("POST", "/v1/workflows", YAML_ALIAS_BOMB, {
            contentType: "application/yaml",
          }),
        /alias/i,
      );
    });

    it("should answer 400 for deeply nested JSON on every body-taking endpoint, storing nothing", async () => {
      const deep = nested(100_000);
      for (const path of ["/v1/workflows", "/workflows/deploy", "/tx/simulate", "/artifacts"]) {
        await refusedWithNothingStored(() => alice.request("POST", path, deep), /nested deeper/);
      }
    });

    it("should leave the other submissions of a concurrent burst unaffected by hostile ones", async () => {
      const before = await rowCounts(svc);
      const names = Array.from({ length: 12 }, (_, i) =>
        i % 3 === 0 ? `bad\u0000${i}` : `burst-${i}`,
      );
      const responses = await Promise.all(
        names.map((name) => alice.request("POST", "/v1/workflows", workflow(name))),
      );
      const statuses = responses.map((r) => r.status);
      expect(statuses).to.deep.equal(names.map((n) => (n.includes("\u0000") ? 400 : 202)));
      const after = await rowCounts(svc);
      expect(after.executions - before.executions).to.equal(8);
      expect(after.executeJobs - before.executeJobs).to.equal(8);
    });
  });
});
