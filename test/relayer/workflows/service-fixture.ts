import { openChains, type ChainSet } from "../../../relayer/chains/index.ts";
import { SHIPPED_OFAC_SNAPSHOT, snapshotFilesSpec } from "../../../relayer/compliance/snapshot.ts";
import type { TierName } from "../../../relayer/limits/tiers.ts";
import {
  newApiKey,
  signedRequest,
  startInProcessRelayer,
  type InProcessRelayer,
} from "../../fixtures/relayer.ts";

/** The published OFAC SDN ETH addresses the product ships, as list `ofac-sdn`. */
export const OFAC_LIST = snapshotFilesSpec(SHIPPED_OFAC_SNAPSHOT);

/**
 * The real relayer for workflow tests: the embedded devnet chains (deployed in process), PGlite
 * in a temporary directory (or a PostgreSQL URL), the app from `createApp`, API keys created in
 * the store, and requests signed exactly as clients sign them (HMAC over timestamp + body).
 */
export interface WorkflowService extends InProcessRelayer {
  chains: ChainSet;
}

export async function startWorkflowService(
  chains: ChainSet,
  databaseUrl?: string,
  options: {
    engine?: boolean;
    /** `VERIFLOW_SANCTIONS_FILES` for this relayer (default: the published OFAC ETH list; null: none). */
    sanctionsFiles?: string | null;
  } = {},
): Promise<WorkflowService> {
  const relayer = await startInProcessRelayer({
    label: "workflows",
    databaseUrl,
    chains,
    env: {
      ...(options.sanctionsFiles === null
        ? {}
        : { VERIFLOW_SANCTIONS_FILES: options.sanctionsFiles ?? OFAC_LIST }),
      // Unless asked for, the engine's workflow.execute worker stays off: most tests observe
      // executions as intake leaves them (queued), without an engine racing to run them.
      ...(options.engine ? {} : { VERIFLOW_ENGINE_WORKER: "off" }),
    },
  });
  // The lists are loaded before the tests submit (buildServices starts loading them).
  await relayer.ctx.compliance.get();
  return { ...relayer, chains };
}

export async function openDevnetChains(): Promise<ChainSet> {
  return openChains({ mode: "embedded" });
}

export interface Client {
  id: string;
  key: string;
  secret: string;
  request(
    method: string,
    path: string,
    body?: string,
    options?: { contentType?: string; headers?: Record<string, string> },
  ): Promise<Response>;
}

let lastTimestamp = 0;
/** Strictly increasing timestamps: two identical bodies never share a signature (replay check). */
function timestamp(): string {
  lastTimestamp = Math.max(Date.now(), lastTimestamp + 1);
  return String(lastTimestamp);
}

export async function newClient(
  svc: WorkflowService,
  tier: TierName = "enterprise",
): Promise<Client> {
  const credentials = await newApiKey(svc.ctx, tier, "workflow tests");
  return {
    ...credentials,
    request: (method, path, body, options = {}) =>
      signedRequest(svc.app, credentials, method, path, body, {
        ...options,
        timestamp: timestamp(),
      }),
  };
}

export interface RowCounts {
  executions: number;
  schedules: number;
  deployments: number;
  idempotency: number;
  executeJobs: number;
}

/** What a refused request must leave unchanged: stored rows and queued jobs. */
export async function rowCounts(svc: WorkflowService): Promise<RowCounts> {
  const count = async (sql: string) =>
    Number((await svc.ctx.store.query<{ n: string }>(sql))[0]!.n);
  return {
    executions: await count("SELECT count(*) AS n FROM workflow_executions"),
    schedules: await count("SELECT count(*) AS n FROM workflow_schedules"),
    deployments: await count("SELECT count(*) AS n FROM workflow_deployments"),
    idempotency: await count("SELECT count(*) AS n FROM workflow_idempotency"),
    executeJobs: await count(
      "SELECT count(*) AS n FROM pgboss.job WHERE name = 'workflow.execute'",
    ),
  };
}

export { createTestDatabase, type TestDatabase } from "../../fixtures/postgres.ts";
