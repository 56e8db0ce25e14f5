import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import { Wallet } from "ethers";
import {
  putCredential,
  signingPublicKey,
  verifyInteractionOnChain,
  type InteractionView,
} from "../../../relayer/integrations/index.ts";
import { startScreeningProvider } from "../../fixtures/standins/index.ts";
import { startEngineService, type EngineService } from "../../fixtures/engine.ts";
import { JWT_SECRET } from "./world.ts";

/**
 * The production wiring end to end: the relayer started with VERIFLOW_INTEGRATIONS naming a
 * screening provider (stand-in), a workflow submitted over the HMAC API and run by the engine
 * worker; its report and `GET /v1/workflows/{id}/interactions` list the anchored interactions,
 * each verified from the chain.
 */
describe("# relayer with VERIFLOW_INTEGRATIONS (API → engine worker → anchored screening)", function () {
  this.timeout(300_000);
  let dir: string;
  let service: EngineService;
  let provider: Awaited<ReturnType<typeof startScreeningProvider>>;

  before(async function () {
    dir = await mkdtemp(path.join(os.tmpdir(), "vf-int-e2e-"));
    provider = await startScreeningProvider({ jwtSecret: JWT_SECRET });
    const file = path.join(dir, "integrations.json");
    await writeFile(
      file,
      JSON.stringify({
        integrations: {
          screening: {
            url: provider.url,
            auth: { type: "jwt_bearer", key_vault: "local", credential_id: "screening-jwt" },
            validation: { schema: "compliance.screening", version: "1.0" },
          },
        },
        screening: { integration: "screening", required: true },
      }),
    );
    service = await startEngineService({ env: { VERIFLOW_INTEGRATIONS: file } });
    await putCredential(service.ctx.store, service.ctx.masterKey, "screening-jwt", JWT_SECRET);
    provider.setPublicKey(
      await signingPublicKey(service.ctx.store, service.ctx.masterKey, "screening"),
    );
  });
  after(async function () {
    await service?.close();
    await provider?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("should complete a submitted workflow whose report and interactions endpoint list the anchored screenings, each verified from the chain", async function () {
    const key = await service.newKey();
    const recipient = Wallet.createRandom().address;
    const body = JSON.stringify({
      name: "screened-over-http",
      actions: [
        {
          type: "multisend",
          chain: "arbitrum",
          from: "USDC",
          amount: "25",
          recipients: [{ address: recipient, amount: "25" }],
        },
      ],
    });
    const submitted = await service.request(key, "POST", "/v1/workflows", body);
    expect(submitted.status).to.equal(202);
    const { execution_id: id } = (await submitted.json()) as { execution_id: string };
    type View = { state: string; report: { report: Record<string, unknown> } | null };
    let view: View;
    for (;;) {
      view = (await (await service.request(key, "GET", `/v1/workflows/${id}`)).json()) as View;
      if (["completed", "failed", "cancelled"].includes(view.state)) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(view.state).to.equal("completed");
    const screened = provider.hits.map((h) => (JSON.parse(h.body) as { address: string }).address);
    expect(screened).to.include(recipient);

    const reported = view.report!.report.api_interactions as InteractionView[];
    expect(reported).to.have.length(provider.hits.length);
    const listed = (await (
      await service.request(key, "GET", `/v1/workflows/${id}/interactions`)
    ).json()) as { interactions: InteractionView[] };
    expect(listed.interactions.map((i) => i.id)).to.deep.equal(reported.map((i) => i.id));
    for (const i of listed.interactions) {
      expect(i.status).to.equal("anchored");
      const chain = service.chains.list().find((c) => c.chainId === i.chain_id)!;
      const check = await verifyInteractionOnChain(chain.contract("ProofRegistry"), i);
      expect(check.valid, check.reason).to.equal(true);
    }
  });
});
