import type { Logger } from "pino";
import { DEVNET_FAUCET, type SecretCipher, type EngineStore } from "../accounts/index.ts";
import { combineScreens } from "../agents/index.ts";
import type { ChainSet } from "../chains/index.ts";
import {
  listScreen,
  oracleChains,
  requireConsulted,
  routedOracleScreen,
  type ComplianceSource,
} from "../compliance/index.ts";
import type { Integrations } from "../integrations/index.ts";
import type { ReportArtifacts } from "./finalize.ts";
import { collectEvidence, type ReportAnalysis } from "../report/index.ts";
import type { ReferencePolicy } from "../routing/index.ts";
import type { NamedLocks } from "../store/index.ts";
import type { Groth16Prover } from "../proofs/index.ts";
import type { EngineDeps } from "./orchestrator.ts";
import { groth16Prover } from "./proof.ts";

export { runExecution, type EngineDeps, type ExecutionState } from "./orchestrator.ts";
export { startEngineWorker, type EngineWorker } from "./worker.ts";
export { DEFAULT_CHAIN_OUTAGE_WINDOW_SECONDS } from "./health.ts";
export { armCrashPoint } from "../transactions/index.ts";

/** What the engine is built from; the composition root passes its services. */
export interface EngineInputs {
  store: EngineStore;
  chains: ChainSet;
  cipher: SecretCipher;
  logger: Logger;
  compliance: ComplianceSource;
  integrations: Integrations | null;
  /** The text analysis (relayer/analysis), whose analyses of an execution its report lists. */
  analysis?: { forReport(executionId: string): Promise<ReportAnalysis[]> } | null;
  /** Where the final report is stored under its CID. */
  artifacts: ReportArtifacts;
  baseFeeCapGwei?: number | undefined;
  chainOutageWindowSeconds?: number | undefined;
  /** The swap quotes' reference price check (default DEFAULT_REFERENCE_POLICY). */
  referencePolicy?: ReferencePolicy | undefined;
  /** Locks shared by every process on the database (the pool sequencer's). */
  locks: NamedLocks;
  /** Computes the proofs (the root's ProverPool, off the event loop); default: on this thread. */
  prover?: Groth16Prover;
}

/** The engine's dependencies. */
export function engineDeps(input: EngineInputs): EngineDeps {
  const { chains, integrations } = input;
  const provider = integrations?.screen() ?? null;
  const oracleScreen = routedOracleScreen(() => oracleChains(chains.list()));
  return {
    store: input.store,
    cipher: input.cipher,
    chains,
    logger: input.logger.child({ area: "engine" }),
    faucet: chains.list().every((c) => c.devnet) ? DEVNET_FAUCET : null,
    prover: groth16Prover(chains, input.prover),
    // The signed report is stored under its CID: GET /artifacts/{cid} and the CAR export serve it.
    artifacts: input.artifacts,
    evidence: (refs) => collectEvidence(chains.list(), refs),
    // Every counterparty and recipient. A workflow with jurisdictions: exactly the lists they
    // require (`required`), each of which must be consulted or the action stops before anything
    // is signed (SANCTIONS_LIST_UNAVAILABLE). Without jurisdictions: the chain's sanctions oracle
    // and every configured list file. A list file that cannot be loaded stops the action (retried).
    // An oracle that does not answer is routed around through the other chains' oracles or the
    // lists, and each result names who answered; when nothing answers, ORACLE_UNAVAILABLE.
    // With a screening provider configured (VERIFLOW_INTEGRATIONS `screening`), it is asked too;
    // each of its answers is an anchored interaction of the execution (relayer/integrations).
    screen: async (address, chain, required, context) => {
      const compliance = await input.compliance.get();
      const sources = [oracleScreen, listScreen(compliance.lists), ...(provider ? [provider] : [])];
      const screen = requireConsulted(combineScreens(...sources));
      return screen(address, chain, required, context);
    },
    apiInteractions: integrations ? (id) => integrations.forReport(id) : undefined,
    analyses: input.analysis ? (id) => input.analysis!.forReport(id) : undefined,
    settle: integrations?.config.payments ? (input) => integrations.settle(input) : undefined,
    payouts: integrations ?? undefined,
    baseFeeCapGwei: input.baseFeeCapGwei,
    chainOutageWindowSeconds: input.chainOutageWindowSeconds,
    referencePolicy: input.referencePolicy,
    poolLocks: input.locks,
  };
}
