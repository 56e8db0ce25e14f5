import { DEVNET_FAUCET, type SecretCipher } from "../accounts/index.ts";
import { decryptSecret, encryptSecret } from "../auth/secrets.ts";
import type { AppContext } from "../context.ts";
import type { EngineDeps } from "./orchestrator.ts";
import { startEngineWorker, type EngineWorker } from "./worker.ts";
import { groth16Prover } from "./proof.ts";
import { combineScreens, oracleScreen } from "../agents/compliance.ts";
import { complianceFor } from "../compliance/routes.ts";
import { listScreen, requireConsulted } from "../compliance/screen.ts";
import { integrationsFor } from "../integrations/index.ts";
import { collectEvidence } from "../audit/evidence.ts";
import { artifactsFor } from "../artifacts/routes.ts";

export { runExecution, type EngineDeps, type ExecutionState } from "./orchestrator.ts";
export { startEngineWorker, WORKFLOW_EXECUTE_JOB } from "./worker.ts";
export { DeFiTransactionArtifact, BlockchainArtifact, reportCid } from "./report.ts";
export { RiskThresholdExceededError, evaluateRisk, DEFAULT_RISK_THRESHOLD } from "./risk.ts";

/** Account keys at rest under the master key (platform AES-256-GCM). */
export function engineCipher(ctx: Pick<AppContext, "masterKey">): SecretCipher {
  return {
    encrypt: (plaintext, context) => encryptSecret(ctx.masterKey, plaintext, context),
    decrypt: (blob, context) => decryptSecret(ctx.masterKey, blob, context),
  };
}

/** The engine's dependencies from the app context. */
export function engineDeps(ctx: AppContext): EngineDeps {
  if (!ctx.chains) throw new Error("the engine needs chains");
  const chains = ctx.chains;
  const integrations = integrationsFor(ctx);
  const provider = integrations?.screen() ?? null;
  return {
    store: ctx.store,
    cipher: engineCipher(ctx),
    chains: ctx.chains,
    logger: ctx.logger.child({ area: "engine" }),
    faucet: ctx.chains.list().every((c) => c.devnet) ? DEVNET_FAUCET : null,
    prover: groth16Prover(ctx.chains),
    // The signed report is stored under its CID: GET /artifacts/{cid} and the CAR export serve it.
    artifacts: artifactsFor(ctx),
    evidence: (refs) => collectEvidence(chains.list(), refs),
    // Every counterparty and recipient. A workflow with jurisdictions: exactly the lists they
    // require (`required`), each of which must be consulted or the action stops before anything
    // is signed (SANCTIONS_LIST_UNAVAILABLE). Without jurisdictions: the chain's sanctions oracle
    // and every configured list file. A list file that cannot be loaded stops the action (retried).
    // With a screening provider configured (VERIFLOW_INTEGRATIONS `screening`), it is asked too;
    // each of its answers is an anchored interaction of the execution (relayer/integrations).
    screen: async (address, chain, required, context) => {
      const compliance = await complianceFor(ctx);
      const sources = [oracleScreen, listScreen(compliance.lists), ...(provider ? [provider] : [])];
      const screen = requireConsulted(combineScreens(...sources));
      return screen(address, chain, required, context);
    },
    apiInteractions: integrations ? (id) => integrations.forReport(id) : undefined,
    settle: integrations?.config.payments ? (input) => integrations.settle(input) : undefined,
    baseFeeCapGwei: process.env.VERIFLOW_BASE_FEE_CAP_GWEI
      ? Number(process.env.VERIFLOW_BASE_FEE_CAP_GWEI)
      : undefined,
  };
}

const started = new WeakSet<object>();
const workers = new WeakMap<object, EngineWorker>();

/** Stops the recovery sweep (the queue itself is stopped by the platform's closeContext). */
export function stopEngine(ctx: AppContext): void {
  workers.get(ctx)?.stop();
}

/**
 * Starts the `workflow.execute` worker once per context (unless VERIFLOW_ENGINE_WORKER=off: an
 * API-only process). Concurrency: VERIFLOW_ENGINE_CONCURRENCY (default 8).
 */
export async function startEngine(ctx: AppContext): Promise<void> {
  if (started.has(ctx) || process.env.VERIFLOW_ENGINE_WORKER === "off" || !ctx.chains) return;
  started.add(ctx);
  await startEngineWorker(ctx.queue, engineDeps(ctx), {
    concurrency: process.env.VERIFLOW_ENGINE_CONCURRENCY
      ? Number(process.env.VERIFLOW_ENGINE_CONCURRENCY)
      : undefined,
  });
  ctx.logger.info("engine worker started (workflow.execute)");
}
