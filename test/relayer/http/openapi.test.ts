import { expect } from "chai";
import { parse } from "yaml";
import { lintOpenApi } from "../../../scripts/openapi-lint.ts";
import { openApiDocument } from "../../../scripts/sdk-types.ts";
import { completeDocument, operationId } from "../../../relayer/http/openapi.ts";
import { SPEC_JSON_WORKFLOW, SPEC_YAML_WORKFLOW } from "../../fixtures/catalogue.ts";

type Doc = {
  paths: Record<
    string,
    Record<
      string,
      { operationId?: string; security?: unknown[]; responses: Record<string, unknown> }
    >
  >;
};

describe("# OpenAPI document", function () {
  this.timeout(120_000);
  let document: Record<string, unknown>;

  before(async function () {
    document = await openApiDocument();
  });

  it("should document every integer query parameter as an integer with its bounds", function () {
    type Parameter = { name: string; in: string; schema: Record<string, unknown> };
    const params = (path: string) =>
      (document as { paths: Record<string, { get: { parameters: Parameter[] } }> }).paths[
        path
      ]!.get.parameters.filter((p) => p.in === "query");
    const schemaOf = (path: string, name: string) =>
      params(path).find((p) => p.name === name)!.schema;
    expect(schemaOf("/v1/analysis/audit", "limit")).to.include({
      type: "integer",
      minimum: 1,
      maximum: 500,
      default: 100,
    });
    expect(schemaOf("/v1/analysis/audit/links", "from_seq")).to.include({
      type: "integer",
      minimum: 1,
    });
    expect(schemaOf("/v1/workflows", "limit")).to.include({
      type: "integer",
      minimum: 1,
      maximum: 100,
    });
  });

  it("should lint clean with Redocly's recommended rules", async function () {
    const problems = await lintOpenApi(document);
    expect(problems.map((p) => `${p.ruleId} ${p.pointer} ${p.message}`)).to.deep.equal([]);
  });

  it("should document 401 and 429 on every authenticated operation and name each operation once", function () {
    const ids = new Set<string>();
    for (const [path, item] of Object.entries((document as Doc).paths)) {
      for (const [method, op] of Object.entries(item)) {
        if (typeof op !== "object" || !op || !("responses" in op)) continue;
        expect(ids.has(op.operationId!), op.operationId).to.equal(false);
        ids.add(op.operationId!);
        const open = ["/healthz", "/readyz"].includes(path);
        if (!open)
          expect(Object.keys(op.responses), `${method} ${path}`).to.include.members(["401", "429"]);
      }
    }
    expect(ids.size).to.be.greaterThan(30);
  });

  it("should document both body forms of a submission", function () {
    const submit = (
      document as {
        paths: Record<
          string,
          Record<string, { requestBody?: { content: Record<string, { schema: unknown }> } }>
        >;
      }
    ).paths["/v1/workflows"]!.post!;
    expect(Object.keys(submit.requestBody!.content)).to.include.members([
      "application/json",
      "application/yaml",
    ]);
  });

  it("should give every request body an example, the spec's for workflows, each valid against its schema", async function () {
    type Media = { example?: unknown; examples?: Record<string, { value: unknown }> };
    type Ops = Record<string, Record<string, { requestBody?: { content: Record<string, Media> } }>>;
    const paths = (document as { paths: Ops }).paths;
    let bodies = 0;
    for (const [route, ops] of Object.entries(paths)) {
      for (const [method, op] of Object.entries(ops)) {
        for (const [mediaType, media] of Object.entries(op.requestBody?.content ?? {})) {
          bodies++;
          const count = media.example !== undefined ? 1 : Object.keys(media.examples ?? {}).length;
          expect(count, `${method} ${route} ${mediaType}`).to.be.greaterThan(0);
        }
      }
    }
    expect(bodies).to.be.greaterThanOrEqual(13);
    const submit = paths["/v1/workflows"]!.post!.requestBody!.content;
    expect(submit["application/json"]!.examples!.spec!.value).to.deep.equal(SPEC_JSON_WORKFLOW);
    expect(submit["application/yaml"]!.examples!.spec!.value).to.deep.equal(
      parse(SPEC_YAML_WORKFLOW),
    );

    // A missing example and an example its schema refuses both fail the lint.
    const broken = structuredClone(document) as { paths: Ops };
    delete broken.paths["/tx/simulate"]!.post!.requestBody!.content["application/json"]!.example;
    const faucet =
      broken.paths["/v1/account/faucet"]!.post!.requestBody!.content["application/json"]!;
    faucet.example = { chains: "ethereum" };
    const compliance = broken.paths["/compliance"]!.post!.requestBody!.content["application/json"]!;
    compliance.example = { address: "0x52908400098527886E0F7030069857D2E4169EE7", extra: true };
    const problems = await lintOpenApi(broken as unknown as Record<string, unknown>);
    const found = problems.map((p) => `${p.ruleId} ${p.pointer}`);
    expect(found).to.include(
      "request-body-example #/paths/~1tx~1simulate/post/requestBody/content/application~1json",
    );
    expect(found.filter((f) => f.startsWith("no-invalid-media-type-examples"))).to.have.length(2);
    expect(found.some((f) => f.includes("~1v1~1account~1faucet"))).to.equal(true);
    expect(found.some((f) => f.includes("~1compliance/"))).to.equal(true);
  });

  it("should flag a document that breaks the rules", async function () {
    const broken = {
      openapi: "3.1.0",
      info: { title: "x", version: "1" },
      paths: { "/a": { get: { responses: { 200: { description: "ok" } } } } },
    };
    const problems = await lintOpenApi(broken);
    expect(problems.map((p) => p.ruleId)).to.include.members([
      "operation-operationId",
      "info-license",
    ]);
    const completed = completeDocument(broken, [{ ApiKey: [] }]) as unknown as Doc;
    expect(completed.paths["/a"]!.get!.operationId).to.equal("get_a");
    expect(Object.keys(completed.paths["/a"]!.get!.responses)).to.include.members(["401", "429"]);
    expect(operationId("post", "/v1/webhooks/{id}/redeliver")).to.equal(
      "post_v1_webhooks_by_id_redeliver",
    );
  });
});
