import { randomBytes } from "node:crypto";
import { expect } from "chai";
import { Wallet } from "ethers";
import { combineScreens, oracleScreen } from "../../../relayer/compliance/screening.ts";
import { runExecution } from "../../../relayer/execution/orchestrator.ts";
import type { SignedReport } from "../../../relayer/report/report.ts";
import {
  Integrations,
  parseIntegrations,
  putCredential,
  signingPublicKey,
  verifyInteractionOnChain,
  type InteractionView,
} from "../../../relayer/integrations/index.ts";
import { encodeMtlsCredential } from "../../../relayer/integrations/mtls.ts";
import { createMtlsAuthority, startScreeningProvider } from "../../fixtures/standins/index.ts";
import {
  balanceOf,
  fundedAccount,
  normalise,
  openEngineWorld,
  silentLogger,
  submitExecution,
  units,
  type EngineWorld,
} from "../../fixtures/engine.ts";
import { JWT_SECRET } from "./world.ts";

/**
 * The engine with a third-party screening provider configured (a stand-in on 127.0.0.1): every
 * counterparty and recipient is also screened by the provider before anything is signed, each
 * answer is anchored in the ProofRegistry, and the final report lists the interactions.
 */
describe("# engine with a screening provider (embedded devnet)", function () {
  this.timeout(300_000);
  let world: EngineWorld;
  let provider: Awaited<ReturnType<typeof startScreeningProvider>>;
  const masterKey = randomBytes(32);
  const apiKeyId = "key_screening";
  let account: string;

  const configure = (
    url: string,
    required = true,
    auth: Record<string, unknown> = {
      type: "jwt_bearer",
      key_vault: "local",
      credential_id: "screening-jwt",
    },
  ) => {
    const integrations = new Integrations(
      parseIntegrations({
        integrations: {
          screening: {
            url,
            auth,
            validation: { schema: "compliance.screening", version: "1.0", strict: true },
            retry: { attempts: 2, backoff: "exponential", initial_delay: "5ms" },
            timeout: "2s",
          },
        },
        screening: { integration: "screening", required },
      }),
      { store: world.store, chains: world.chains, masterKey, logger: silentLogger },
    );
    world.deps.screen = combineScreens(oracleScreen, integrations.screen()!);
    world.deps.apiInteractions = (id) => integrations.forReport(id);
    return integrations;
  };
  const multisend = (recipients: string[]) =>
    normalise(world, {
      name: "screened-payout",
      actions: [
        {
          type: "multisend",
          chain: "arbitrum",
          from: "USDC",
          amount: String(recipients.length * 10),
          recipients: recipients.map((address) => ({ address, amount: "10" })),
        },
      ],
    });
  const report = async (id: string) => {
    const [row] = await world.store.query<{ report: SignedReport }>(
      "SELECT report FROM engine_reports WHERE execution_id = $1",
      [id],
    );
    return row!.report;
  };
  const txCount = async (id: string) =>
    (await world.store.query("SELECT 1 FROM engine_txs WHERE execution_id = $1", [id])).length;

  before(async function () {
    world = await openEngineWorld();
    account = await fundedAccount(world, apiKeyId);
    await putCredential(world.store, masterKey, "screening-jwt", JWT_SECRET);
    provider = await startScreeningProvider({
      jwtSecret: JWT_SECRET,
      publicKey: await signingPublicKey(world.store, masterKey, "screening"),
    });
  });
  after(async function () {
    await provider?.close();
    await world?.close();
  });
  beforeEach(function () {
    provider.hits.length = 0;
  });

  it("should complete a workflow whose counterparties the provider cleared, and list each anchored interaction in the report, verifiable from the chain", async function () {
    configure(provider.url);
    const alice = Wallet.createRandom().address;
    const bob = Wallet.createRandom().address;
    const id = await submitExecution(world, apiKeyId, multisend([alice, bob]));
    expect(await runExecution(world.deps, id)).to.equal("completed");
    const arbitrum = world.chains.byName("arbitrum");
    expect(await balanceOf(arbitrum, "USDC", alice)).to.equal(units(arbitrum, "USDC", "10"));

    const screened = provider.hits.map((h) => (JSON.parse(h.body) as { address: string }).address);
    expect(screened).to.include.members([alice, bob]);
    expect(provider.hits.every((h) => h.signatureValid && h.jwtValid)).to.equal(true);

    const body = await report(id);
    const listed = body.api_interactions as InteractionView[];
    expect(listed).to.have.length(provider.hits.length);
    const rows = await world.store.query(
      "SELECT 1 FROM integration_interactions WHERE execution_id = $1",
      [id],
    );
    expect(rows).to.have.length(listed.length);
    expect((body.compliance as { consulted: string[] }).consulted).to.include("screening");
    for (const i of listed) {
      expect(i).to.include({
        integration: "screening",
        method: "POST",
        status: "anchored",
        mode: "immediate",
      });
      expect(i.tx_hash).to.match(/^0x[0-9a-f]{64}$/);
      const chain = world.chains.list().find((c) => c.chainId === i.chain_id)!;
      const check = await verifyInteractionOnChain(chain.contract("ProofRegistry"), i);
      expect(check.valid, check.reason).to.equal(true);
    }
  });

  it("should screen through an oauth2_mtls provider (certificate-bound token over mutual TLS) and anchor and report its interactions like jwt_bearer ones", async function () {
    const authority = await createMtlsAuthority();
    authority.registerClient("veriflow-screening", "veriflow-screening");
    const client = await authority.ca.issueClient("veriflow-screening");
    await putCredential(
      world.store,
      masterKey,
      "screening-mtls",
      encodeMtlsCredential({ clientId: "veriflow-screening", cert: client.cert, key: client.key }),
    );
    const mtlsProvider = await startScreeningProvider({
      mtls: authority,
      publicKey: await signingPublicKey(world.store, masterKey, "screening"),
    });
    try {
      configure(mtlsProvider.url, true, {
        type: "oauth2_mtls",
        key_vault: "local",
        credential_id: "screening-mtls",
        token_url: mtlsProvider.tokenUrl,
        ca: authority.ca.cert,
      });
      const alice = Wallet.createRandom().address;
      const bob = Wallet.createRandom().address;
      const id = await submitExecution(world, apiKeyId, multisend([alice, bob]));
      expect(await runExecution(world.deps, id)).to.equal("completed");

      const screened = mtlsProvider.hits.map(
        (h) => (JSON.parse(h.body) as { address: string }).address,
      );
      expect(screened).to.include.members([alice, bob]);
      expect(mtlsProvider.hits.every((h) => h.tokenValid && h.signatureValid)).to.equal(true);
      expect(authority.tokenRequests).to.have.length(1);
      expect(authority.tokens[0]!.cnf["x5t#S256"]).to.equal(client.thumbprint);

      const body = await report(id);
      expect((body.compliance as { consulted: string[] }).consulted).to.include("screening");
      const listed = body.api_interactions as InteractionView[];
      expect(listed).to.have.length(mtlsProvider.hits.length);
      for (const i of listed) {
        expect(i).to.include({
          integration: "screening",
          method: "POST",
          status: "anchored",
          mode: "immediate",
        });
        expect(i.endpoint).to.match(
          new RegExp(`^POST ${mtlsProvider.url}/compliance#veriflow-interaction=[0-9a-f-]{36} \\{`),
        );
        const chain = world.chains.list().find((c) => c.chainId === i.chain_id)!;
        const check = await verifyInteractionOnChain(chain.contract("ProofRegistry"), i);
        expect(check.valid, check.reason).to.equal(true);
      }
    } finally {
      await mtlsProvider.close();
    }
  });

  it("should ask the provider once per address per execution: a later action meeting the same addresses reuses the answers, and a new execution asks again", async function () {
    configure(provider.url);
    const alice = Wallet.createRandom().address;
    const bob = Wallet.createRandom().address;
    const payout = (amount: string) => ({
      type: "multisend",
      chain: "arbitrum",
      from: "USDC",
      amount,
      recipients: [
        { address: alice, amount: "50%" },
        { address: bob, amount: "50%" },
      ],
    });
    const workflow = normalise(world, {
      name: "two-payouts",
      actions: [payout("20"), payout("40")],
    });
    const asked = () =>
      provider.hits.map((h) => (JSON.parse(h.body) as { address: string }).address.toLowerCase());

    const id = await submitExecution(world, apiKeyId, workflow);
    expect(await runExecution(world.deps, id)).to.equal("completed");
    const arbitrum = world.chains.byName("arbitrum");
    expect(await balanceOf(arbitrum, "USDC", alice)).to.equal(units(arbitrum, "USDC", "30"));
    const first = asked();
    expect(first).to.include.members([alice.toLowerCase(), bob.toLowerCase()]);
    expect(new Set(first).size, "an address asked twice").to.equal(first.length);

    const body = await report(id);
    // Both actions were screened by the provider (the second from the execution's answers) ...
    const { screened } = body.compliance as {
      screened: Array<{ action_index: number; address: string; checked: string[] }>;
    };
    for (const who of [alice, bob]) {
      const results = screened.filter((s) => s.address.toLowerCase() === who.toLowerCase());
      expect(new Set(results.map((r) => r.action_index)), `actions screening ${who}`).to.deep.equal(
        new Set([0, 1]),
      );
      expect(results.every((r) => r.checked.includes("screening"))).to.equal(true);
    }
    // ... and each question is one anchored interaction.
    expect(body.api_interactions as InteractionView[]).to.have.length(first.length);

    provider.hits.length = 0;
    const again = await submitExecution(world, apiKeyId, workflow);
    expect(await runExecution(world.deps, again)).to.equal("completed");
    expect(asked().sort()).to.deep.equal([...first].sort());
  });

  it("should stop the run before anything is signed when the provider says sanctioned (SANCTIONED_ADDRESS, alert, balances unchanged)", async function () {
    configure(provider.url);
    const clean = Wallet.createRandom().address;
    const flagged = Wallet.createRandom().address;
    provider.sanctioned.add(flagged.toLowerCase());
    const arbitrum = world.chains.byName("arbitrum");
    const before = await balanceOf(arbitrum, "USDC", account);
    const id = await submitExecution(world, apiKeyId, multisend([clean, flagged]));
    expect(await runExecution(world.deps, id)).to.equal("failed");
    const [ex] = await world.store.query<{ error: { error: string } }>(
      "SELECT error FROM workflow_executions WHERE id = $1",
      [id],
    );
    expect(ex!.error.error).to.equal("SANCTIONED_ADDRESS");
    expect(await txCount(id)).to.equal(0);
    expect(await balanceOf(arbitrum, "USDC", account)).to.equal(before);
    expect(await balanceOf(arbitrum, "USDC", clean)).to.equal(0n);
    const alerts = await world.store.query<{ address: string; sources: string[] }>(
      "SELECT address, sources FROM engine_compliance_alerts WHERE execution_id = $1",
      [id],
    );
    expect(alerts).to.have.length(1);
    expect(alerts[0]!.address).to.equal(flagged);
    expect(alerts[0]!.sources).to.deep.equal(["screening"]);
    // The sanctioned answer itself is anchored and listed.
    const listed = (await report(id)).api_interactions as InteractionView[];
    const answer = listed.find((i) => i.endpoint.includes(flagged));
    expect(answer).to.include({ status: "anchored" });
  });

  it("should fail closed when the required provider is unreachable: SCREENING_UNAVAILABLE, nothing signed", async function () {
    const down = await startScreeningProvider({ jwtSecret: JWT_SECRET });
    const url = down.url;
    await down.close(); // nothing listens there any more: connection refused
    configure(url, true);
    const arbitrum = world.chains.byName("arbitrum");
    const before = await balanceOf(arbitrum, "USDC", account);
    const id = await submitExecution(world, apiKeyId, multisend([Wallet.createRandom().address]));
    expect(await runExecution(world.deps, id)).to.equal("failed");
    const [ex] = await world.store.query<{ error: { error: string; detail: string } }>(
      "SELECT error FROM workflow_executions WHERE id = $1",
      [id],
    );
    expect(ex!.error.error).to.equal("SCREENING_UNAVAILABLE");
    expect(ex!.error.detail).to.include("nothing was sent");
    expect(await txCount(id)).to.equal(0);
    expect(await balanceOf(arbitrum, "USDC", account)).to.equal(before);
    expect((await report(id)).api_interactions).to.deep.equal([]);
  });

  it("should go on without an optional provider that is unreachable, and report it was not consulted", async function () {
    const down = await startScreeningProvider({ jwtSecret: JWT_SECRET });
    const url = down.url;
    await down.close();
    configure(url, false);
    const id = await submitExecution(world, apiKeyId, multisend([Wallet.createRandom().address]));
    expect(await runExecution(world.deps, id)).to.equal("completed");
    const body = await report(id);
    expect((body.compliance as { consulted: string[] }).consulted).to.not.include("screening");
    expect(body.api_interactions).to.deep.equal([]);
  });
});
