import { expect } from "chai";
import { checkReceipt, type SubmissionReceipt } from "../../../relayer/proofs/index.ts";
import { revokeApiKey } from "../../../relayer/auth/keys.ts";
import type { ChainSet } from "../../../relayer/chains/index.ts";
import type { Workflow } from "../../../relayer/model/workflow.ts";
import { reconcileSchedules } from "../../../relayer/workflows/schedules.ts";
import { fireSchedule } from "../../../relayer/workflows/fire.ts";
import { purgeExpiredIdempotencyKeys } from "../../../relayer/workflows/idempotency.ts";
import { riskEvaluation, swapStepResult } from "../../fixtures/results.ts";
import { RECIPIENT_A, SPEC_JSON_WORKFLOW, SPEC_YAML_WORKFLOW } from "../../fixtures/catalogue.ts";
import {
  createTestDatabase,
  newClient,
  openDevnetChains,
  rowCounts,
  startWorkflowService,
  type Client,
  type TestDatabase,
  type WorkflowService,
} from "../../fixtures/workflow-service.ts";
import { SIGNED_V2 } from "../../fixtures/relayer.ts";
import { cancelExecutionsOfKey } from "../../../relayer/executions/store.ts";

const YAML = "application/yaml";

/** A JSON workflow without a schedule (most tests must not register schedules). */
function plainWorkflow(name = "treasury-run", amount = "1.5"): string {
  const { schedule: _s, timezone: _t, ...rest } = structuredClone(SPEC_JSON_WORKFLOW);
  rest.name = name;
  rest.actions[0]!.amount = amount;
  return JSON.stringify(rest);
}

async function json(res: Response): Promise<Record<string, unknown>> {
  return (await res.json()) as Record<string, unknown>;
}

async function storedWorkflow(svc: WorkflowService, id: string): Promise<Workflow> {
  const [row] = await svc.ctx.store.query<{ workflow: Workflow | string }>(
    "SELECT workflow FROM workflow_executions WHERE id = $1",
    [id],
  );
  return typeof row!.workflow === "string" ? JSON.parse(row!.workflow) : row!.workflow;
}

for (const backend of ["PGlite", "PostgreSQL"] as const) {
  describe(`# workflow API (real app, HMAC-signed, embedded devnet, ${backend})`, function () {
    this.timeout(120_000);
    let chains: ChainSet;
    let svc: WorkflowService;
    let database: TestDatabase | undefined;
    let alice: Client;
    let bob: Client;

    before(async () => {
      chains = await openDevnetChains();
      if (backend === "PostgreSQL") database = await createTestDatabase("workflows");
      svc = await startWorkflowService(chains, database?.url);
      alice = await newClient(svc);
      bob = await newClient(svc);
    });
    after(async () => {
      await svc?.close();
      await chains?.close();
      await database?.drop();
    });

    describe("## submission", () => {
      it("should queue the spec's JSON example with a cost estimate from the chains, storing the execution and its job together", async () => {
        const before = await rowCounts(svc);
        const res = await alice.request("POST", "/v1/workflows", plainWorkflow());
        expect(res.status).to.equal(202);
        const body = await json(res);
        expect(body.status).to.equal("queued");
        expect(body.execution_id).to.match(/^wf_[0-9A-Z]{26}$/);
        const estimate = body.cost_estimate as {
          total_usd: number;
          gas_breakdown: Record<string, number>;
        };
        expect(estimate.total_usd).to.be.a("number").greaterThan(0);
        expect(Object.keys(estimate.gas_breakdown).length).to.be.greaterThan(0);
        for (const [chain, usd] of Object.entries(estimate.gas_breakdown)) {
          expect(chains.has(chain), chain).to.equal(true);
          expect(usd).to.be.a("number").at.least(0);
        }
        const after = await rowCounts(svc);
        expect(after.executions).to.equal(before.executions + 1);
        expect(after.executeJobs).to.equal(before.executeJobs + 1);
        const [job] = await svc.ctx.store.query<{ data: { executionId: string } }>(
          "SELECT data FROM pgboss.job WHERE name = 'workflow.execute' AND data->>'executionId' = $1",
          [body.execution_id],
        );
        expect(job?.data.executionId).to.equal(body.execution_id);
        // The signed submission receipt: the relayer operator's EIP-712 signature over the
        // commitment to the workflow exactly as stored, bound to the attestor's chain.
        const receipt = body.receipt as SubmissionReceipt;
        expect(receipt.execution_id).to.equal(body.execution_id);
        const home = chains.list().find((c) => c.deployment.contracts.ExecutionAttestor)!;
        expect(receipt.domain).to.deep.include({
          chainId: home.chainId,
          verifyingContract: home.deployment.contracts.ExecutionAttestor!.address,
        });
        expect(receipt.signer).to.equal(await home.operator!.getAddress());
        const stored = await storedWorkflow(svc, body.execution_id as string);
        expect(await checkReceipt(receipt, stored)).to.include({
          signatureValid: true,
          commitmentMatches: true,
        });
        const status = await json(
          await alice.request("GET", `/v1/workflows/${String(body.execution_id)}`),
        );
        expect(status.receipt).to.deep.equal(receipt);
      });

      it("should store the same model for the spec's YAML example as for the JSON one", async () => {
        const fromJson = await json(
          await alice.request("POST", "/v1/workflows", JSON.stringify(SPEC_JSON_WORKFLOW)),
        );
        const fromYaml = await json(
          await alice.request("POST", "/v1/workflows", SPEC_YAML_WORKFLOW, { contentType: YAML }),
        );
        expect(fromYaml.status).to.equal("queued");
        const a = await storedWorkflow(svc, fromJson.execution_id as string);
        const b = await storedWorkflow(svc, fromYaml.execution_id as string);
        // Each receipt opens with its own stored workflow only.
        const yamlReceipt = fromYaml.receipt as SubmissionReceipt;
        expect((await checkReceipt(yamlReceipt, b)).commitmentMatches).to.equal(true);
        expect((await checkReceipt(yamlReceipt, a)).commitmentMatches).to.equal(false);
        expect(b.format).to.equal("yaml");
        expect({
          ...b,
          format: "json",
          schedule: { ...b.schedule, phrase: undefined },
        }).to.deep.equal({
          ...a,
          schedule: { ...a.schedule, phrase: undefined },
        });
        expect(b.schedule).to.deep.equal({
          cron: "0 9 * * 1",
          timezone: "America/New_York",
          phrase: "every Monday at 09:00 EST",
        });
      });
    });

    describe("## refusals change nothing", () => {
      const refusals: {
        name: string;
        body: string;
        contentType?: string;
        status: number;
        error: string;
        path?: string;
      }[] = [
        {
          name: "slippage above 50",
          body: plainWorkflow().replace('"slippage":0.5', '"slippage":51'),
          status: 400,
          error: "VALIDATION_FAILED",
          path: "actions.1.slippage",
        },
        {
          name: "an amount beyond the asset's decimals",
          body: plainWorkflow().replace('"amount":"1000"', '"amount":"1000.0000001"'),
          status: 400,
          error: "VALIDATION_FAILED",
          path: "actions.1.amount",
        },
        {
          name: "an unknown asset",
          body: plainWorkflow().replace('"to":"DAI"', '"to":"DOGE"'),
          status: 400,
          error: "VALIDATION_FAILED",
          path: "actions.1.to",
        },
        {
          name: "a bad recipient checksum",
          body: plainWorkflow().replace(RECIPIENT_A, RECIPIENT_A.replace("E7", "e7")),
          status: 400,
          error: "VALIDATION_FAILED",
          path: "actions.3.recipients.0.address",
        },
        {
          name: "percentages above 100",
          body: plainWorkflow().replace('"250"', '"60%"'),
          status: 400,
          error: "VALIDATION_FAILED",
          path: "actions.3.recipients",
        },
        {
          name: "an invalid cron",
          body: JSON.stringify({ ...JSON.parse(plainWorkflow()), schedule: "0 25 * * *" }),
          status: 400,
          error: "VALIDATION_FAILED",
          path: "schedule",
        },
        {
          name: "an unknown schedule phrase",
          body: SPEC_YAML_WORKFLOW.replace(
            "every Monday at 09:00 EST",
            "every full moon at 9am UTC",
          ),
          contentType: YAML,
          status: 400,
          error: "VALIDATION_FAILED",
          path: "trigger.frequency",
        },
        {
          name: "malformed JSON",
          body: '{"name": ',
          status: 400,
          error: "VALIDATION_FAILED",
          path: "",
        },
        {
          name: "malformed YAML",
          body: "name: [",
          contentType: YAML,
          status: 400,
          error: "VALIDATION_FAILED",
          path: "",
        },
        {
          name: "an unsupported jurisdiction",
          body: plainWorkflow().replace('["US"]', '["XX"]'),
          status: 400,
          error: "INVALID_COMPLIANCE_RULES",
        },
        {
          name: "an unsupported tax form",
          body: SPEC_YAML_WORKFLOW.replace("[1099-DA]", "[W-8BEN]"),
          contentType: YAML,
          status: 400,
          error: "INVALID_COMPLIANCE_RULES",
        },
        {
          name: "a deployment that does not exist",
          body: JSON.stringify({ deployment: "nope" }),
          status: 404,
          error: "DEPLOYMENT_NOT_FOUND",
        },
      ];
      for (const r of refusals) {
        it(`should answer ${r.status} ${r.error} for ${r.name}`, async () => {
          const before = await rowCounts(svc);
          const res = await alice.request("POST", "/v1/workflows", r.body, {
            contentType: r.contentType,
          });
          expect(res.status).to.equal(r.status);
          const body = await json(res);
          expect(body.error).to.equal(r.error);
          expect(body.detail).to.be.a("string").and.not.equal("");
          if (r.error === "VALIDATION_FAILED") {
            const issues = body.issues as { path: string; message: string }[];
            expect(issues.map((i) => i.path)).to.include(r.path);
          }
          if (r.error === "INVALID_COMPLIANCE_RULES") {
            expect(body.detail).to.contain("/v1/compliance/specs");
            expect(body.specs).to.equal("/v1/compliance/specs");
          }
          expect(await rowCounts(svc)).to.deep.equal(before);
        });
      }

      it("should answer 400 for an empty body and change nothing", async () => {
        const before = await rowCounts(svc);
        const res = await alice.request("POST", "/v1/workflows", "");
        expect(res.status).to.equal(400);
        expect((await json(res)).error).to.equal("VALIDATION_FAILED");
        expect(await rowCounts(svc)).to.deep.equal(before);
      });

      it("should answer 429 CONCURRENCY_LIMIT_EXCEEDED past the tier's concurrent workflows and store nothing", async () => {
        const free = await newClient(svc, "free");
        for (let i = 0; i < 5; i++) {
          expect(
            (await free.request("POST", "/v1/workflows", plainWorkflow(`limit-${i}`))).status,
          ).to.equal(202);
        }
        const before = await rowCounts(svc);
        const res = await free.request("POST", "/v1/workflows", plainWorkflow("limit-6"));
        expect(res.status).to.equal(429);
        const body = await json(res);
        expect(body.error).to.equal("CONCURRENCY_LIMIT_EXCEEDED");
        expect(await rowCounts(svc)).to.deep.equal(before);
        // Cancelling one frees a slot.
        const { items } = (await json(await free.request("GET", "/v1/workflows?limit=1"))) as {
          items: { execution_id: string }[];
        };
        await free.request(
          "POST",
          `/v1/workflows/${items[0]!.execution_id}/cancel`,
          undefined,
          SIGNED_V2,
        );
        expect(
          (await free.request("POST", "/v1/workflows", plainWorkflow("limit-6"))).status,
        ).to.equal(202);
      });
      it("should admit concurrent submissions up to the concurrency limit exactly, each with its job", async () => {
        const free = await newClient(svc, "free");
        const responses = await Promise.all(
          Array.from({ length: 9 }, (_, i) =>
            free.request("POST", "/v1/workflows", plainWorkflow(`burst-${i}`)),
          ),
        );
        const statuses = responses.map((r) => r.status).sort();
        expect(statuses).to.deep.equal([202, 202, 202, 202, 202, 429, 429, 429, 429]);
        const accepted = await Promise.all(
          responses.filter((r) => r.status === 202).map(async (r) => (await json(r)).execution_id),
        );
        const stored = await svc.ctx.store.query<{ id: string }>(
          "SELECT id FROM workflow_executions WHERE api_key_id = $1 ORDER BY id",
          [free.id],
        );
        expect(stored.map((r) => r.id)).to.deep.equal([...accepted].sort());
        const jobs = await svc.ctx.store.query<{ execution_id: string }>(
          `SELECT data->>'executionId' AS execution_id FROM pgboss.job
            WHERE name = 'workflow.execute' AND data->>'executionId' = ANY($1::text[])`,
          [accepted],
        );
        expect(jobs.map((j) => j.execution_id).sort()).to.deep.equal([...accepted].sort());
        for (const refused of responses.filter((r) => r.status === 429)) {
          expect(await json(refused)).to.include({
            error: "CONCURRENCY_LIMIT_EXCEEDED",
            limit: 5,
            active: 5,
          });
        }
        const [count] = await svc.ctx.store.query<{ active: number }>(
          "SELECT active FROM workflow_active_counts WHERE api_key_id = $1",
          [free.id],
        );
        expect(Number(count!.active)).to.equal(5);
      });

      it("should keep the same guarantees in one transaction per batch where pg-boss's insert cannot be embedded", async () => {
        const queue = svc.ctx.queue;
        const embedded = queue.insertStatement;
        queue.insertStatement = async () => null;
        try {
          const free = await newClient(svc, "free");
          const responses = await Promise.all(
            Array.from({ length: 7 }, (_, i) =>
              free.request("POST", "/v1/workflows", plainWorkflow(`fallback-${i}`)),
            ),
          );
          expect(responses.map((r) => r.status).sort()).to.deep.equal([
            202, 202, 202, 202, 202, 429, 429,
          ]);
          const accepted = await Promise.all(
            responses
              .filter((r) => r.status === 202)
              .map(async (r) => String((await json(r)).execution_id)),
          );
          const jobs = await svc.ctx.store.query<{ execution_id: string }>(
            `SELECT data->>'executionId' AS execution_id FROM pgboss.job
              WHERE name = 'workflow.execute' AND data->>'executionId' = ANY($1::text[])`,
            [accepted],
          );
          expect(jobs.map((j) => j.execution_id).sort()).to.deep.equal([...accepted].sort());
        } finally {
          queue.insertStatement = embedded;
        }
      });

      it("should admit each key's concurrent submissions against its own limit when keys share a batch", async () => {
        const one = await newClient(svc, "free");
        const two = await newClient(svc, "free");
        for (let i = 0; i < 3; i++) {
          expect(
            (await one.request("POST", "/v1/workflows", plainWorkflow(`one-${i}`))).status,
          ).to.equal(202);
        }
        const responses = await Promise.all(
          Array.from({ length: 8 }, (_, i) =>
            (i % 2 === 0 ? one : two).request("POST", "/v1/workflows", plainWorkflow(`mix-${i}`)),
          ),
        );
        const of = (i: number) => responses.filter((_, j) => j % 2 === i).map((r) => r.status);
        // `one` had 3 active: 2 more fit; `two` had none: all 4 fit.
        expect(of(0).sort()).to.deep.equal([202, 202, 429, 429]);
        expect(of(1)).to.deep.equal([202, 202, 202, 202]);
        const active = async (id: string) =>
          Number(
            (
              await svc.ctx.store.query<{ active: number }>(
                "SELECT active FROM workflow_active_counts WHERE api_key_id = $1",
                [id],
              )
            )[0]!.active,
          );
        expect([await active(one.id), await active(two.id)]).to.deep.equal([5, 4]);
        const jobs = await svc.ctx.store.query<{ n: string }>(
          `SELECT count(*) AS n FROM pgboss.job j JOIN workflow_executions e
              ON e.id = j.data->>'executionId'
            WHERE j.name = 'workflow.execute' AND e.api_key_id = ANY($1::text[])`,
          [[one.id, two.id]],
        );
        expect(Number(jobs[0]!.n)).to.equal(9);
      });
    });

    describe("## idempotency", () => {
      it("should return the first response for the same key and body, and store one execution", async () => {
        const body = plainWorkflow("idempotent");
        const headers = { "Idempotency-Key": "order-7781" };
        const first = await alice.request("POST", "/v1/workflows", body, { headers });
        expect(first.status).to.equal(202);
        const firstBody = await json(first);
        const before = await rowCounts(svc);
        const second = await alice.request("POST", "/v1/workflows", body, { headers });
        expect(second.status).to.equal(202);
        expect(await json(second)).to.deep.equal(firstBody);
        expect(await rowCounts(svc)).to.deep.equal(before);
      });

      it("should answer 409 for the same key with another body and change nothing", async () => {
        const headers = { "Idempotency-Key": "order-7782" };
        expect(
          (await alice.request("POST", "/v1/workflows", plainWorkflow("first"), { headers }))
            .status,
        ).to.equal(202);
        const before = await rowCounts(svc);
        const res = await alice.request("POST", "/v1/workflows", plainWorkflow("second"), {
          headers,
        });
        expect(res.status).to.equal(409);
        expect((await json(res)).error).to.equal("IDEMPOTENCY_KEY_REUSED");
        expect(await rowCounts(svc)).to.deep.equal(before);
      });

      it("should create one execution when two requests race with the same key and body", async () => {
        const body = plainWorkflow("race");
        const headers = { "Idempotency-Key": "race-1" };
        const before = await rowCounts(svc);
        const [a, b] = await Promise.all([
          alice.request("POST", "/v1/workflows", body, { headers }),
          alice.request("POST", "/v1/workflows", body, { headers }),
        ]);
        expect([a.status, b.status]).to.deep.equal([202, 202]);
        expect(await json(a)).to.deep.equal(await json(b));
        const after = await rowCounts(svc);
        expect(after.executions).to.equal(before.executions + 1);
        expect(after.executeJobs).to.equal(before.executeJobs + 1);
      });

      it("should scope keys to the API key", async () => {
        const headers = { "Idempotency-Key": "shared-name" };
        const a = await json(
          await alice.request("POST", "/v1/workflows", plainWorkflow("a"), { headers }),
        );
        const b = await json(
          await bob.request("POST", "/v1/workflows", plainWorkflow("a"), { headers }),
        );
        expect(b.execution_id).to.not.equal(a.execution_id);
      });

      it("should purge keys past their 24 hours and keep the others replaying", async () => {
        const body = plainWorkflow("purged");
        const old = { "Idempotency-Key": "order-old" };
        const kept = { "Idempotency-Key": "order-kept" };
        const first = await json(
          await alice.request("POST", "/v1/workflows", body, { headers: old }),
        );
        const keptBody = await json(
          await alice.request("POST", "/v1/workflows", plainWorkflow("kept"), { headers: kept }),
        );
        // The first key's request as if made a day and a second ago.
        await svc.ctx.store.query(
          `UPDATE workflow_idempotency SET created_at = now() - interval '24 hours 1 second'
            WHERE key = 'order-old'`,
        );
        expect(await purgeExpiredIdempotencyKeys(svc.ctx.store)).to.be.at.least(1);
        const keys = await svc.ctx.store.query<{ key: string }>(
          "SELECT key FROM workflow_idempotency WHERE key IN ('order-old', 'order-kept')",
        );
        expect(keys.map((k) => k.key)).to.deep.equal(["order-kept"]);
        // The kept key still replays; the purged one is a new request.
        const again = await alice.request("POST", "/v1/workflows", plainWorkflow("kept"), {
          headers: kept,
        });
        expect(await json(again)).to.deep.equal(keptBody);
        const anew = await json(
          await alice.request("POST", "/v1/workflows", body, { headers: old }),
        );
        expect(anew.execution_id).to.not.equal(first.execution_id);
      });

      it("should refuse a malformed Idempotency-Key", async () => {
        const before = await rowCounts(svc);
        const res = await alice.request("POST", "/v1/workflows", plainWorkflow(), {
          headers: { "Idempotency-Key": "x".repeat(256) },
        });
        expect(res.status).to.equal(400);
        expect(await rowCounts(svc)).to.deep.equal(before);
      });
    });

    describe("## status, list and cancel", () => {
      it("should show a queued execution with one pending step per action, to its owner only", async () => {
        const { execution_id } = await json(
          await alice.request("POST", "/v1/workflows", plainWorkflow("status")),
        );
        const res = await alice.request("GET", `/v1/workflows/${execution_id}`);
        expect(res.status).to.equal(200);
        const view = await json(res);
        expect(view).to.include({
          execution_id,
          name: "status",
          state: "queued",
          stage: "validate",
          trigger: "api",
          cancel_requested: false,
          error: null,
          report: null,
        });
        const steps = view.steps as {
          index: number;
          action: string;
          state: string;
          tx_hashes: string[];
        }[];
        expect(steps.every((s) => s.state === "pending" && s.tx_hashes.length === 0)).to.equal(
          true,
        );
        expect(steps.map((s) => s.action)).to.deep.equal([
          "convert",
          "swap",
          "bridge",
          "multisend",
        ]);
        expect((view.workflow as Workflow).actions).to.have.length(4);

        const other = await bob.request("GET", `/v1/workflows/${execution_id}`);
        expect(other.status).to.equal(404);
        expect((await json(other)).error).to.equal("EXECUTION_NOT_FOUND");
        expect((await alice.request("GET", "/v1/workflows/wf_nope")).status).to.equal(404);
      });

      it("should show the engine's record: steps with their broadcast hashes, alerts, error and report", async () => {
        const { execution_id } = await json(
          await alice.request("POST", "/v1/workflows", plainWorkflow("engine-record")),
        );
        // Rows as the engine writes them (migration 200_engine.sql): two actions done, one failed.
        const store = svc.ctx.store;
        const hash = (n: number) => `0x${n.toString(16).padStart(64, "0")}`;
        await store.query(
          `UPDATE workflow_executions SET state = 'failed', stage = 'report', finished_at = now(),
                  error = '{"error":"SANCTIONED_ADDRESS","detail":"recipient is sanctioned"}'::jsonb WHERE id = $1`,
          [execution_id],
        );
        const converted = swapStepResult({ action: "convert", agent: "ConvertAgent" });
        await store.query(
          `INSERT INTO engine_steps (execution_id, action_index, agent, state, chain, result, risk, finished_at)
           VALUES ($1, 0, 'ConvertAgent', 'completed', 'arbitrum', $2::jsonb, $3::jsonb, now()),
                  ($1, 1, 'SwapAgent', 'failed', 'arbitrum', NULL, NULL, now())`,
          [execution_id, JSON.stringify(converted), JSON.stringify(riskEvaluation(0.1))],
        );
        await store.query(
          `INSERT INTO engine_txs (execution_id, action_index, slot, kind, chain_id, sender, nonce, hash, gas_limit, state)
           VALUES ($1, 0, 'approve', 'approve', 31338, '0xabc', 900001, $2, 60000, 'confirmed'),
                  ($1, 0, 'swap', 'swap', 31338, '0xabc', 900002, $3, 200000, 'confirmed'),
                  ($1, 1, 'swap', 'swap', 31338, '0xabc', 900003, $4, 200000, 'released')`,
          [execution_id, hash(1), hash(2), hash(3)],
        );
        await store.query(
          `INSERT INTO engine_compliance_alerts (execution_id, action_index, address, role, sources)
           VALUES ($1, 3, $2, 'recipient', '["ofac-sdn"]')`,
          [execution_id, RECIPIENT_A],
        );
        await store.query(
          `INSERT INTO engine_reports (execution_id, cid, report, signer, signature)
           VALUES ($1, 'bagaaiera-test', '{"tx_hashes":[]}', '0xsigner', '0xsig')`,
          [execution_id],
        );
        const view = await json(await alice.request("GET", `/v1/workflows/${execution_id}`));
        expect(view).to.deep.include({
          state: "failed",
          stage: "report",
          error: { error: "SANCTIONED_ADDRESS", detail: "recipient is sanctioned" },
          report: {
            cid: "bagaaiera-test",
            signer: "0xsigner",
            signature: "0xsig",
            // A report row stored without the signed copy (engine_reports.signed_cid) says so.
            signed_cid: null,
            report: { tx_hashes: [] },
          },
        });
        const steps = view.steps as {
          agent: string | null;
          state: string;
          chain: string | null;
          tx_hashes: string[];
          risk: unknown;
          result: unknown;
        }[];
        expect(steps[0]).to.deep.include({
          agent: "ConvertAgent",
          state: "completed",
          chain: "arbitrum",
          tx_hashes: [hash(1), hash(2)],
          risk: riskEvaluation(0.1),
          result: converted,
        });
        expect(steps[1]).to.deep.include({ agent: "SwapAgent", state: "failed", tx_hashes: [] }); // released: never broadcast
        expect(steps[2]).to.deep.include({ agent: null, state: "pending", tx_hashes: [] });
        expect(view.compliance_alerts).to.have.length(1);
        expect((view.compliance_alerts as { address: string }[])[0]!.address).to.equal(RECIPIENT_A);
      });

      it("should cancel a queued execution once, and 404 for another key", async () => {
        const { execution_id } = await json(
          await alice.request("POST", "/v1/workflows", plainWorkflow("to-cancel")),
        );
        expect(
          (await bob.request("POST", `/v1/workflows/${execution_id}/cancel`, undefined, SIGNED_V2))
            .status,
        ).to.equal(404);
        const res = await alice.request(
          "POST",
          `/v1/workflows/${execution_id}/cancel`,
          undefined,
          SIGNED_V2,
        );
        expect(res.status).to.equal(200);
        expect(await json(res)).to.deep.equal({
          execution_id,
          state: "cancelled",
          cancel_requested: true,
        });
        const again = await alice.request(
          "POST",
          `/v1/workflows/${execution_id}/cancel`,
          undefined,
          SIGNED_V2,
        );
        expect(again.status).to.equal(409);
        expect(await json(again)).to.include({ error: "EXECUTION_FINISHED", state: "cancelled" });
        const view = await json(await alice.request("GET", `/v1/workflows/${execution_id}`));
        expect(view.cancel_requested).to.equal(true);
      });

      it("should answer 409 EXECUTION_FINISHED when cancelling a finished execution", async () => {
        const { execution_id } = await json(
          await alice.request("POST", "/v1/workflows", plainWorkflow("done")),
        );
        await svc.ctx.store.query(
          "UPDATE workflow_executions SET state = 'completed', finished_at = now() WHERE id = $1",
          [execution_id],
        );
        const res = await alice.request(
          "POST",
          `/v1/workflows/${execution_id}/cancel`,
          undefined,
          SIGNED_V2,
        );
        expect(res.status).to.equal(409);
        expect(await json(res)).to.include({ error: "EXECUTION_FINISHED", state: "completed" });
      });

      it("should page through a key's executions newest first with a cursor, and filter by state", async () => {
        const carol = await newClient(svc);
        const ids: string[] = [];
        for (let i = 0; i < 5; i++) {
          ids.push(
            (await json(await carol.request("POST", "/v1/workflows", plainWorkflow(`page-${i}`))))
              .execution_id as string,
          );
        }
        await carol.request("POST", `/v1/workflows/${ids[1]}/cancel`, undefined, SIGNED_V2);
        const seen: string[] = [];
        let cursor: string | null = null;
        do {
          const page = (await json(
            await carol.request("GET", `/v1/workflows?limit=2${cursor ? `&cursor=${cursor}` : ""}`),
          )) as { items: { execution_id: string }[]; next_cursor: string | null };
          expect(page.items.length).to.be.at.most(2);
          seen.push(...page.items.map((i) => i.execution_id));
          cursor = page.next_cursor;
        } while (cursor);
        expect(seen).to.deep.equal([...ids].reverse());

        const cancelled = (await json(
          await carol.request("GET", "/v1/workflows?state=cancelled"),
        )) as { items: { execution_id: string; state: string }[] };
        expect(cancelled.items.map((i) => i.execution_id)).to.include(ids[1]);
        expect(cancelled.items.every((i) => i.state === "cancelled")).to.equal(true);

        const bad = await carol.request("GET", "/v1/workflows?cursor=not-a-cursor");
        expect(bad.status).to.equal(400);
        for (const query of ["limit=0", "limit=101", "limit=0x2", "limit=2e0", "limit=2.0"]) {
          const refused = await carol.request("GET", `/v1/workflows?${query}`);
          expect(refused.status, query).to.equal(400);
          expect(((await json(refused)) as { error: string }).error, query).to.equal(
            "VALIDATION_FAILED",
          );
        }
        const badState = await carol.request("GET", "/v1/workflows?state=sleeping");
        expect(badState.status).to.equal(400);
        expect((await json(badState)).error).to.equal("VALIDATION_FAILED");
      });
    });

    describe("## schedules", () => {
      it("should register a submitted workflow's schedule with pg-boss, list it, and fire new executions", async () => {
        const res = await alice.request(
          "POST",
          "/v1/workflows",
          SPEC_YAML_WORKFLOW.replace("weekly-treasury-rebalance", "scheduled"),
          { contentType: YAML },
        );
        expect(res.status).to.equal(202);
        const body = await json(res);
        const schedule = body.schedule as {
          id: string;
          cron: string;
          timezone: string;
          next_run_at: string;
        };
        expect(schedule).to.include({ cron: "0 9 * * 1", timezone: "America/New_York" });
        expect(new Date(schedule.next_run_at).getUTCDay()).to.equal(1);

        const entries = await svc.ctx.queue.boss.getSchedules("workflow.schedule", schedule.id);
        expect(entries).to.have.length(1);
        expect(entries[0]).to.include({ cron: "0 9 * * 1", timezone: "America/New_York" });

        const listed = (await json(await alice.request("GET", "/v1/schedules"))) as {
          items: { id: string }[];
        };
        expect(listed.items.map((s) => s.id)).to.include(schedule.id);
        expect(
          ((await json(await bob.request("GET", "/v1/schedules"))) as { items: unknown[] }).items,
        ).to.have.length(0);

        // A firing as pg-boss cron sends it: the worker creates a new execution and queues it.
        const before = await rowCounts(svc);
        await svc.ctx.queue.send("workflow.schedule", { scheduleId: schedule.id });
        let fired: { id: string }[] = [];
        while (fired.length === 0) {
          fired = await svc.ctx.store.query<{ id: string }>(
            "SELECT id FROM workflow_executions WHERE schedule_id = $1 AND trigger = 'schedule'",
            [schedule.id],
          );
          if (fired.length === 0) await new Promise((r) => setTimeout(r, 50));
        }
        const after = await rowCounts(svc);
        expect(after.executions).to.equal(before.executions + 1);
        expect(after.executeJobs).to.equal(before.executeJobs + 1);
        const view = await json(await alice.request("GET", `/v1/workflows/${fired[0]!.id}`));
        expect(view).to.include({ trigger: "schedule", schedule_id: schedule.id });
        const again = (await json(await alice.request("GET", "/v1/schedules"))) as {
          items: { id: string; fire_count: number }[];
        };
        expect(again.items.find((s) => s.id === schedule.id)!.fire_count).to.equal(1);
      });

      it("should create one execution per firing even when the job is retried, and none once deleted", async () => {
        const body = await json(
          await alice.request(
            "POST",
            "/v1/workflows",
            JSON.stringify({ ...JSON.parse(plainWorkflow("daily")), schedule: "30 17 * * *" }),
          ),
        );
        const scheduleId = (body.schedule as { id: string }).id;
        const first = await fireSchedule(svc.ctx, scheduleId, "job-1");
        expect(first.outcome).to.equal("queued");
        // A firing is a new submission: its own receipt, salt and commitment.
        const fired = await json(
          await alice.request("GET", `/v1/workflows/${String(first.executionId)}`),
        );
        const firedReceipt = fired.receipt as SubmissionReceipt;
        expect(firedReceipt.execution_id).to.equal(first.executionId);
        expect(
          await checkReceipt(firedReceipt, await storedWorkflow(svc, String(first.executionId))),
        ).to.include({ signatureValid: true, commitmentMatches: true });
        const before = await rowCounts(svc);
        expect((await fireSchedule(svc.ctx, scheduleId, "job-1")).outcome).to.equal("duplicate");
        expect(await rowCounts(svc)).to.deep.equal(before);

        expect(
          (await bob.request("DELETE", `/v1/schedules/${scheduleId}`, undefined, SIGNED_V2)).status,
        ).to.equal(404);
        const res = await alice.request(
          "DELETE",
          `/v1/schedules/${scheduleId}`,
          undefined,
          SIGNED_V2,
        );
        expect(res.status).to.equal(200);
        expect(await json(res)).to.include({ id: scheduleId, deleted: true });
        expect(
          await svc.ctx.queue.boss.getSchedules("workflow.schedule", scheduleId),
        ).to.have.length(0);
        expect(
          (await alice.request("DELETE", `/v1/schedules/${scheduleId}`, undefined, SIGNED_V2))
            .status,
        ).to.equal(404);
        expect((await fireSchedule(svc.ctx, scheduleId, "job-2")).outcome).to.equal(
          "schedule-gone",
        );
        expect(await rowCounts(svc)).to.deep.equal(before);
      });

      it("should pause and resume a schedule: no cron entry and no firing while paused, then the next occurrence", async () => {
        const body = await json(
          await alice.request(
            "POST",
            "/v1/workflows",
            JSON.stringify({ ...JSON.parse(plainWorkflow("pausable")), schedule: "15 6 * * *" }),
          ),
        );
        const scheduleId = (body.schedule as { id: string }).id;
        const listed = async () =>
          (
            (await json(await alice.request("GET", "/v1/schedules"))) as {
              items: Array<{ id: string; paused: boolean; next_run_at: string | null }>;
            }
          ).items.find((s) => s.id === scheduleId)!;
        expect(await listed()).to.include({ paused: false });

        // Only the owner can pause it; an unknown or malformed id is 404.
        for (const [client, path] of [
          [bob, `/v1/schedules/${scheduleId}/pause`],
          [alice, "/v1/schedules/sch_01ARZ3NDEKTSV4RRFFQ69G5FAV/pause"],
          [alice, "/v1/schedules/not-an-id/resume"],
        ] as const) {
          const refused = await client.request("POST", path, undefined, SIGNED_V2);
          expect(refused.status, path).to.equal(404);
          expect((await json(refused)).error).to.equal("SCHEDULE_NOT_FOUND");
        }
        expect(await listed()).to.include({ paused: false });

        const paused = await alice.request(
          "POST",
          `/v1/schedules/${scheduleId}/pause`,
          undefined,
          SIGNED_V2,
        );
        expect(paused.status).to.equal(200);
        const pausedView = await json(paused);
        expect(pausedView).to.include({ id: scheduleId, paused: true, next_run_at: null });
        expect(pausedView.paused_at).to.be.a("string");
        expect(
          await svc.ctx.queue.boss.getSchedules("workflow.schedule", scheduleId),
        ).to.have.length(0);
        // A restart's reconciliation does not bring it back.
        await reconcileSchedules(svc.ctx.store, svc.ctx.queue);
        expect(
          await svc.ctx.queue.boss.getSchedules("workflow.schedule", scheduleId),
        ).to.have.length(0);
        // Pausing again changes nothing (same pause time).
        const again = await json(
          await alice.request("POST", `/v1/schedules/${scheduleId}/pause`, undefined, SIGNED_V2),
        );
        expect(again.paused_at).to.equal(pausedView.paused_at);
        // A firing already queued when it was paused does nothing.
        const before = await rowCounts(svc);
        expect((await fireSchedule(svc.ctx, scheduleId, "while-paused")).outcome).to.equal(
          "schedule-paused",
        );
        expect(await rowCounts(svc)).to.deep.equal(before);

        const resumed = await alice.request(
          "POST",
          `/v1/schedules/${scheduleId}/resume`,
          undefined,
          SIGNED_V2,
        );
        expect(resumed.status).to.equal(200);
        const resumedView = await json(resumed);
        expect(resumedView).to.include({ paused: false, paused_at: null });
        expect(new Date(resumedView.next_run_at as string).getUTCMinutes()).to.equal(15);
        const entries = await svc.ctx.queue.boss.getSchedules("workflow.schedule", scheduleId);
        expect(entries).to.have.length(1);
        expect(entries[0]).to.include({ cron: "15 6 * * *" });
        expect((await fireSchedule(svc.ctx, scheduleId, "after-resume")).outcome).to.equal(
          "queued",
        );
        // A deleted schedule can be neither paused nor resumed.
        await alice.request("DELETE", `/v1/schedules/${scheduleId}`, undefined, SIGNED_V2);
        expect(
          (await alice.request("POST", `/v1/schedules/${scheduleId}/resume`, undefined, SIGNED_V2))
            .status,
        ).to.equal(404);
      });

      it("should stop firing the schedules of a revoked API key", async () => {
        const dave = await newClient(svc);
        const body = await json(
          await dave.request(
            "POST",
            "/v1/workflows",
            JSON.stringify({ ...JSON.parse(plainWorkflow("revoked")), schedule: "0 * * * *" }),
          ),
        );
        const scheduleId = (body.schedule as { id: string }).id;
        await revokeApiKey(svc.ctx.store, dave.key, cancelExecutionsOfKey);
        const before = await rowCounts(svc);
        expect((await fireSchedule(svc.ctx, scheduleId, "after-revoke")).outcome).to.equal(
          "key-revoked",
        );
        expect(await rowCounts(svc)).to.deep.equal(before);
      });
    });

    describe("## deployments", () => {
      it("should deploy versions, run one by name (latest or pinned), and fire the latest version's schedule", async () => {
        const yaml = SPEC_YAML_WORKFLOW.replace("weekly-treasury-rebalance", "payroll");
        const before = await rowCounts(svc);
        const v1 = await alice.request("POST", "/workflows/deploy", yaml, { contentType: YAML });
        expect(v1.status).to.equal(201);
        const d1 = await json(v1);
        expect(d1).to.include({ name: "payroll", version: 1 });
        expect(d1.id).to.match(/^dep_/);
        const after = await rowCounts(svc);
        expect(after.executions).to.equal(before.executions); // deploying runs nothing
        expect(after.deployments).to.equal(before.deployments + 1);

        const v2 = await json(
          await alice.request(
            "POST",
            "/workflows/deploy",
            yaml.replace("amount: 1.5", "amount: 2"),
            {
              contentType: YAML,
            },
          ),
        );
        expect(v2).to.include({ name: "payroll", version: 2 });
        const oldSchedule = (d1.schedule as { id: string }).id;
        const newSchedule = v2.schedule as { id: string; deployment: { version: number } };
        expect(newSchedule.deployment).to.deep.equal({ name: "payroll", version: 2 });
        expect(
          await svc.ctx.queue.boss.getSchedules("workflow.schedule", oldSchedule),
        ).to.have.length(0);
        expect((await fireSchedule(svc.ctx, oldSchedule, "old-firing")).outcome).to.equal(
          "schedule-gone",
        );

        const latest = await json(
          await alice.request("POST", "/v1/workflows", JSON.stringify({ deployment: "payroll" })),
        );
        expect(latest.status).to.equal("queued");
        const latestView = await json(
          await alice.request("GET", `/v1/workflows/${latest.execution_id}`),
        );
        expect(latestView.deployment).to.deep.equal({ name: "payroll", version: 2 });
        expect((latestView.workflow as Workflow).actions[0]!.amount).to.equal("2");

        const pinned = await json(
          await alice.request(
            "POST",
            "/v1/workflows",
            JSON.stringify({ deployment: "payroll", version: 1 }),
          ),
        );
        const pinnedView = await json(
          await alice.request("GET", `/v1/workflows/${pinned.execution_id}`),
        );
        expect(pinnedView.deployment).to.deep.equal({ name: "payroll", version: 1 });
        expect((pinnedView.workflow as Workflow).actions[0]!.amount).to.equal("1.5");

        const yamlRun = await json(
          await alice.request("POST", "/v1/workflows", "deployment: payroll\nversion: 1\n", {
            contentType: YAML,
          }),
        );
        const yamlRunView = await json(
          await alice.request("GET", `/v1/workflows/${yamlRun.execution_id}`),
        );
        expect(yamlRunView.deployment).to.deep.equal({ name: "payroll", version: 1 });

        const firing = await fireSchedule(
          svc.ctx,
          (v2.schedule as { id: string }).id,
          "deploy-firing",
        );
        expect(firing.outcome).to.equal("queued");
        const firedView = await json(
          await alice.request("GET", `/v1/workflows/${firing.executionId}`),
        );
        expect(firedView).to.deep.include({
          trigger: "schedule",
          deployment: { name: "payroll", version: 2 },
        });

        const listed = (await json(await alice.request("GET", "/v1/deployments"))) as {
          items: { name: string; latest_version: number }[];
        };
        expect(listed.items.find((d) => d.name === "payroll")?.latest_version).to.equal(2);
        const versions = (await json(await alice.request("GET", "/v1/deployments/payroll"))) as {
          versions: { version: number; workflow: Workflow }[];
        };
        expect(versions.versions.map((v) => v.version)).to.deep.equal([2, 1]);
        expect(versions.versions[1]!.workflow.actions[0]!.amount).to.equal("1.5");
        expect((await bob.request("GET", "/v1/deployments/payroll")).status).to.equal(404);
        expect(
          ((await json(await bob.request("GET", "/v1/deployments"))) as { items: unknown[] }).items,
        ).to.have.length(0);

        // Another key does not see the deployment.
        const other = await bob.request(
          "POST",
          "/v1/workflows",
          JSON.stringify({ deployment: "payroll" }),
        );
        expect(other.status).to.equal(404);
        const missing = await alice.request(
          "POST",
          "/v1/workflows",
          JSON.stringify({ deployment: "payroll", version: 9 }),
        );
        expect(missing.status).to.equal(404);
      });

      it("should refuse an invalid configuration or name and store nothing", async () => {
        const before = await rowCounts(svc);
        const bad = await alice.request(
          "POST",
          "/workflows/deploy",
          plainWorkflow("bad").replace('"slippage":0.5', '"slippage":0'),
        );
        expect(bad.status).to.equal(400);
        const badName = await alice.request(
          "POST",
          "/workflows/deploy",
          plainWorkflow("has spaces"),
        );
        expect(badName.status).to.equal(400);
        expect((await json(badName)).issues).to.deep.include({
          path: "name",
          message:
            "a deployment name is 1-128 letters, digits, '.', '_' or '-', starting with a letter or digit",
        });
        expect(await rowCounts(svc)).to.deep.equal(before);
      });
    });

    describe("## compliance specs", () => {
      it("should list jurisdictions with sanctions lists and tax forms, over HMAC and over Bearer", async () => {
        const res = await alice.request("GET", "/v1/compliance/specs");
        expect(res.status).to.equal(200);
        const specs = (await json(res)) as {
          jurisdictions: { code: string; sanctions_lists: string[]; tax_forms: string[] }[];
          tax_forms: { id: string }[];
        };
        const us = specs.jurisdictions.find((j) => j.code === "US")!;
        expect(us.sanctions_lists).to.include.members(["ofac-sdn", "chainalysis-oracle"]);
        expect(us.tax_forms).to.include.members(["1099-B", "1099-DA", "8949"]);
        expect(specs.tax_forms.map((f) => f.id)).to.include.members(["DAC8", "CARF"]);

        const bearer = await svc.app.request("/v1/compliance/specs", {
          headers: { Authorization: `Bearer ${alice.key}` },
        });
        expect(bearer.status).to.equal(200);
        expect(await bearer.json()).to.deep.equal(specs);
        const anonymous = await svc.app.request("/v1/compliance/specs");
        expect(anonymous.status).to.equal(401);
      });
    });

    describe("## OpenAPI", () => {
      it("should document the workflow endpoints with both body forms", async () => {
        const doc = (await (await svc.app.request("/openapi.json")).json()) as {
          paths: Record<
            string,
            Record<string, { requestBody?: { content: Record<string, unknown> } }>
          >;
        };
        expect(doc.paths["/v1/workflows"]!.post!.requestBody!.content).to.have.keys(
          "application/json",
          "application/yaml",
        );
        expect(doc.paths).to.include.keys(
          "/v1/deployments",
          "/v1/deployments/{name}",
          "/v1/workflows/{id}",
          "/v1/workflows/{id}/cancel",
          "/v1/schedules",
          "/v1/schedules/{id}",
          "/workflows/deploy",
          "/v1/compliance/specs",
        );
      });
    });
  });
}
