import { randomBytes } from "node:crypto";
import { Wallet } from "ethers";
import { combineScreens, oracleScreen } from "../../relayer/agents/compliance.ts";
import type { AuditEnvironment } from "../../relayer/audit/index.ts";
import { readAuditKeys } from "../../relayer/audit/node.ts";
import { runExecution } from "../../relayer/execution/orchestrator.ts";
import { reportCid, type ReportBody, type SignedReport } from "../../relayer/execution/report.ts";
import {
  Integrations,
  parseIntegrations,
  putCredential,
  signingPublicKey,
} from "../../relayer/integrations/index.ts";
import {
  fundedAccount,
  normalise,
  openEngineWorld,
  silentLogger,
  submitExecution,
  type EngineWorld,
} from "../relayer/engine/harness.ts";
import { startScreeningProvider, type StandIn } from "../fixtures/standins/index.ts";
import { treasuryRebalanceWorkflow } from "../fixtures/workflows.ts";

/**
 * The auditor's world: the embedded devnet and an engine that proves, attests and reports, with
 * a screening provider stand-in (a real HTTP server on 127.0.0.1) whose answers are anchored in
 * the ProofRegistry, so reports carry API interactions. `execute` runs the treasury workflow for
 * an API key and returns its signed report exactly as the relayer stored it.
 */
export interface AuditWorld {
  engine: EngineWorld;
  env: AuditEnvironment;
  execute(apiKeyId: string, amount?: string): Promise<SignedReport>;
  /** The report with a new CID and a new signature by the relayer's own operator key. */
  resign(report: Record<string, unknown>): Promise<SignedReport>;
  close(): Promise<void>;
}

const JWT_SECRET = "audit-stand-in-jwt-credential-0123456789";

export async function openAuditWorld(): Promise<AuditWorld> {
  const engine = await openEngineWorld();
  let provider: StandIn | undefined;
  try {
    const masterKey = randomBytes(32);
    await putCredential(engine.store, masterKey, "screening-jwt", JWT_SECRET);
    provider = await startScreeningProvider({
      jwtSecret: JWT_SECRET,
      publicKey: await signingPublicKey(engine.store, masterKey, "screening"),
    });
    const integrations = new Integrations(
      parseIntegrations({
        integrations: {
          screening: {
            url: provider.url,
            auth: { type: "jwt_bearer", key_vault: "local", credential_id: "screening-jwt" },
            validation: { schema: "compliance.screening", version: "1.0", strict: true },
            timeout: "5s",
          },
        },
        screening: { integration: "screening", required: true },
      }),
      { store: engine.store, chains: engine.chains, masterKey, logger: silentLogger },
    );
    engine.deps.screen = combineScreens(oracleScreen, integrations.screen()!);
    engine.deps.apiInteractions = (id) => integrations.forReport(id);
  } catch (err) {
    await provider?.close();
    await engine.close();
    throw err;
  }
  const env: AuditEnvironment = { chains: engine.chains.list(), ...(await readAuditKeys()) };
  const funded = new Set<string>();
  const operator = engine.chains.list()[0]!.operator;

  return {
    engine,
    env,
    async execute(apiKeyId, amount = "3000") {
      if (!funded.has(apiKeyId)) {
        await fundedAccount(engine, apiKeyId);
        funded.add(apiKeyId);
      }
      const workflow = normalise(
        engine,
        treasuryRebalanceWorkflow(`audit-${apiKeyId}`, amount, [
          { address: Wallet.createRandom().address, amount: "50%" },
          { address: Wallet.createRandom().address, amount: "100" },
        ]),
      );
      const id = await submitExecution(engine, apiKeyId, workflow);
      const state = await runExecution(engine.deps, id);
      if (state !== "completed") throw new Error(`execution ${id} ended ${state}`);
      const [row] = await engine.store.query<{ report: SignedReport }>(
        "SELECT report FROM engine_reports WHERE execution_id = $1",
        [id],
      );
      return row!.report;
    },
    async resign(report) {
      const { artifact_id, signer, signature, ...body } = report;
      void artifact_id;
      void signer;
      void signature;
      const cid = await reportCid(body);
      return {
        ...(body as unknown as ReportBody),
        artifact_id: cid,
        signer: await operator.getAddress(),
        signature: await operator.signMessage(cid),
      };
    },
    async close() {
      await provider?.close();
      await engine.close();
    },
  };
}
