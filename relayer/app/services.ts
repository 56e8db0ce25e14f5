import type { SecretCipher } from "../accounts/index.ts";
import { TextAnalysis } from "../analysis/index.ts";
import { Artifacts, openArtifactStore } from "../artifacts/index.ts";
import { masterKeyCipher } from "../auth/index.ts";
import { oracleChains, complianceSource, type ComplianceSource } from "../compliance/index.ts";
import type { Config } from "../config/index.ts";
import { createContext, type AppContext, type CreateContextOptions } from "../context/index.ts";
import {
  armCrashPoint,
  DEFAULT_CHAIN_OUTAGE_WINDOW_SECONDS,
  engineDeps,
  type EngineDeps,
} from "../execution/index.ts";
import { Integrations, orderSources } from "../integrations/index.ts";
import { Monitors } from "../monitors/index.ts";
import { DEFAULT_REFERENCE_POLICY } from "../routing/index.ts";
import { databaseLocks } from "../store/index.ts";
import { ProverPool } from "../proofs/index.ts";
import { createWorkflowIntake, type WorkflowIntake } from "../workflows/index.ts";

/**
 * Every service of one relayer process, built once from the parsed configuration by
 * `buildServices` and passed explicitly to route factories and workers. The platform part
 * (storage, queue, chains, logger, metrics, master key, limits, clock) is `AppContext`; each area
 * adds its long-lived objects here. To add one: build it in `buildServices`, register what it
 * must close in `closers`, and give route factories and workers only the fields they use.
 */
export interface Services extends AppContext {
  /** Account keys and other secrets at rest under the master key. */
  cipher: SecretCipher;
  /** The sanctions lists and oracles (routes, intake and engine share one). */
  compliance: ComplianceSource;
  /** Configured external REST integrations; null without `VERIFLOW_INTEGRATIONS` or chains. */
  integrations: Integrations | null;
  /** Monitored integration paths (`monitors:` of the integrations file); null without integrations. */
  monitors: Monitors | null;
  /** The text-analysis provider integration; null without `text_analysis:` or chains. */
  analysis: TextAnalysis | null;
  /** Content-addressed artifacts under DATA_DIR, with their owners, quota and retention. */
  artifacts: Artifacts;
  /** The workflow intake's catalogue and submission batcher. */
  intake: WorkflowIntake;
  /** The engine's dependencies; null when the relayer runs without chains. */
  engine: EngineDeps | null;
}

/** Opens the platform (storage migrated, queue, chains given) and builds every area's services. */
export async function buildServices(
  config: Config,
  options: CreateContextOptions = {},
): Promise<Services> {
  armCrashPoint(config.engine.crashAt);
  const ctx = await createContext(config, options);
  const { chains, logger } = ctx;
  const compliance = complianceSource({
    sanctionsFiles: config.sanctionsFiles,
    chains: () => oracleChains(chains?.list() ?? []),
    logger,
  });
  ctx.closers.push(() => compliance.close());
  const cipher = masterKeyCipher(ctx.masterKey);
  const integrations =
    config.integrations && chains
      ? new Integrations(config.integrations, {
          store: ctx.store,
          chains,
          masterKey: ctx.masterKey,
          logger: logger.child({ area: "integrations" }),
          metrics: ctx.metrics.registry,
        })
      : null;
  const monitors = integrations
    ? new Monitors({ store: ctx.store, integrations, logger: logger.child({ area: "monitors" }) })
    : null;
  const textAnalysis = config.integrations?.textAnalysis;
  const analysis =
    textAnalysis && chains
      ? new TextAnalysis(textAnalysis, {
          store: ctx.store,
          masterKey: ctx.masterKey,
          logger: logger.child({ area: "analysis" }),
          registry: ctx.metrics.registry,
          chains: chains.list(),
          clock: () => ctx.clock(),
        })
      : null;
  if (analysis) ctx.closers.push(() => analysis.close());
  // One object: the HTTP app, the workers and `closeContext` see the same `draining` flag.
  const artifacts = new Artifacts({
    blocks: openArtifactStore(config.dataDir),
    store: ctx.store,
    settings: config.artifacts,
    clock: () => ctx.clock(),
  });
  // Proofs run on the pool's threads (started by the first proof), never on this event loop.
  const prover = chains ? new ProverPool({ threads: config.engine.proverThreads }) : null;
  if (prover) ctx.closers.push(() => prover.close());
  const services: Services = Object.assign(ctx, {
    cipher,
    compliance,
    integrations,
    monitors,
    analysis,
    artifacts,
    intake: createWorkflowIntake(ctx, {
      recipientSources: config.integrations ? orderSources(config.integrations) : [],
    }),
    engine: chains
      ? engineDeps({
          store: ctx.store,
          chains,
          cipher,
          logger,
          compliance,
          integrations,
          analysis,
          artifacts,
          baseFeeCapGwei: config.engine.baseFeeCapGwei,
          chainOutageWindowSeconds:
            config.engine.chainOutageWindowSeconds ?? DEFAULT_CHAIN_OUTAGE_WINDOW_SECONDS,
          referencePolicy: { ...DEFAULT_REFERENCE_POLICY, ...config.engine.referencePolicy },
          locks: databaseLocks(ctx.store),
          prover: prover ?? undefined,
        })
      : null,
  });
  // Load the sanctions lists now, not on the first request (a failure is logged and retried).
  void compliance.get().catch(() => undefined);
  return services;
}
