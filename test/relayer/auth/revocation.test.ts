import { expect } from "chai";
import { revokeApiKey } from "../../../relayer/auth/keys.ts";
import type { ChainSet } from "../../../relayer/chains/index.ts";
import { SPEC_JSON_WORKFLOW } from "../../fixtures/catalogue.ts";
import {
  newClient,
  openDevnetChains,
  startWorkflowService,
  type WorkflowService,
} from "../../fixtures/workflow-service.ts";
import { cancelExecutionsOfKey } from "../../../relayer/executions/store.ts";

function workflow(name: string): string {
  const { schedule: _s, timezone: _t, ...rest } = structuredClone(SPEC_JSON_WORKFLOW);
  rest.name = name;
  return JSON.stringify(rest);
}

describe("# revocation stops a key's executions", function () {
  this.timeout(120_000);
  let chains: ChainSet;
  let svc: WorkflowService;

  before(async () => {
    chains = await openDevnetChains();
    svc = await startWorkflowService(chains);
  });
  after(async () => {
    await svc?.close();
    await chains?.close();
  });

  it("should cancel the key's queued executions in the revocation's transaction and flag its running ones, leaving other keys' alone", async () => {
    const mallory = await newClient(svc);
    const alice = await newClient(svc);
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await mallory.request("POST", "/v1/workflows", workflow(`revoked-${i}`));
      expect(res.status).to.equal(202);
      ids.push(((await res.json()) as { execution_id: string }).execution_id);
    }
    const other = await alice.request("POST", "/v1/workflows", workflow("unrelated"));
    const otherId = ((await other.json()) as { execution_id: string }).execution_id;
    // One of the key's executions is already running (the engine picked it up).
    await svc.ctx.store.query("UPDATE workflow_executions SET state = 'running' WHERE id = $1", [
      ids[0],
    ]);

    const revoked = await revokeApiKey(svc.ctx.store, mallory.key, cancelExecutionsOfKey);
    expect(revoked.executions).to.deep.equal({ cancelled: 3, stopping: 1 });

    const rows = await svc.ctx.store.query<{
      id: string;
      state: string;
      cancel_requested_at: unknown;
    }>("SELECT id, state, cancel_requested_at FROM workflow_executions WHERE id = ANY($1)", [
      [...ids, otherId],
    ]);
    const byId = new Map(rows.map((r) => [r.id, r]));
    expect(byId.get(ids[0]!)!.state).to.equal("running");
    expect(byId.get(ids[0]!)!.cancel_requested_at).to.not.equal(null);
    for (const id of ids.slice(1)) expect(byId.get(id)!.state).to.equal("cancelled");
    expect(byId.get(otherId)!).to.include({ state: "queued", cancel_requested_at: null });
    // The revoked key is refused from now on.
    const after = await mallory.request("GET", `/v1/workflows/${ids[1]}`);
    expect(after.status).to.equal(401);
  });
});
