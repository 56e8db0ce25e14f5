import { expect } from "chai";
import { lintOpenApi } from "../../../scripts/openapi-lint.ts";
import { openApiDocument } from "../../../scripts/sdk-types.ts";
import { completeDocument, operationId } from "../../../relayer/http/openapi.ts";

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

  it("should lint clean with Redocly's recommended rules", async function () {
    const problems = await lintOpenApi(document);
    expect(problems.map((p) => `${p.ruleId} ${p.location[0]?.pointer} ${p.message}`)).to.deep.equal(
      [],
    );
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
