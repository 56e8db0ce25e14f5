import { ApiError } from "../http/index.ts";
import type { Store } from "../store/index.ts";
import { newDeploymentId, type Workflow } from "../model/index.ts";

/**
 * Deployed workflow configurations (`POST /workflows/deploy`): a validated workflow stored under
 * its `name` with a version that counts up from 1 per (API key, name). Runs use a version's
 * stored model, so later changes to validation or the chains never alter what was deployed.
 */

/** Deployment names are identifiers: they appear in URLs, logs and `{deployment: name}` bodies. */
export const DEPLOYMENT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

export interface DeploymentRow {
  id: string;
  name: string;
  version: number;
  workflow: Workflow | string;
  created_at: Date | string;
}

/** Inserts the next version of `name`; the caller holds the key's submission lock. */
export async function insertDeployment(
  tx: Store,
  apiKeyId: string,
  workflow: Workflow,
  source: { format: "json" | "yaml"; text: string },
): Promise<DeploymentRow> {
  await tx.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [
    `veriflow:deploy:${apiKeyId}:${workflow.name}`,
  ]);
  const [row] = await tx.query<DeploymentRow>(
    `INSERT INTO workflow_deployments (id, api_key_id, name, version, workflow, source_format, source)
     SELECT $1, $2, $3, COALESCE(max(version), 0) + 1, $4::jsonb, $5, $6
       FROM workflow_deployments WHERE api_key_id = $2 AND name = $3
     RETURNING id, name, version, workflow, created_at`,
    [
      newDeploymentId(),
      apiKeyId,
      workflow.name,
      JSON.stringify(workflow),
      source.format,
      source.text,
    ],
  );
  return row!;
}

/** The named deployment at `version`, or its latest version; 404 DEPLOYMENT_NOT_FOUND otherwise. */
export async function findDeployment(
  store: Store,
  apiKeyId: string,
  name: string,
  version?: number | null,
): Promise<DeploymentRow & { workflow: Workflow }> {
  const [row] = await store.query<DeploymentRow>(
    `SELECT id, name, version, workflow, created_at FROM workflow_deployments
      WHERE api_key_id = $1 AND name = $2 AND ($3::int IS NULL OR version = $3)
      ORDER BY version DESC LIMIT 1`,
    [apiKeyId, name, version ?? null],
  );
  if (!row) {
    throw new ApiError(
      404,
      "DEPLOYMENT_NOT_FOUND",
      version
        ? `no deployment "${name}" version ${version} for this API key`
        : `no deployment "${name}" for this API key; deploy it with POST /workflows/deploy`,
    );
  }
  const workflow =
    typeof row.workflow === "string" ? (JSON.parse(row.workflow) as Workflow) : row.workflow;
  return { ...row, version: Number(row.version), workflow };
}

interface DeploymentSummaryRow {
  name: string;
  latest_version: number;
  latest_id: string;
  updated_at: Date | string;
}

/** This key's deployment names with their latest version, by name; cursor = last name. */
export async function listDeployments(
  store: Store,
  apiKeyId: string,
  options: { limit?: number; cursor?: string },
) {
  const limit = options.limit ?? 20;
  const after = options.cursor ? Buffer.from(options.cursor, "base64url").toString("utf8") : null;
  const rows = await store.query<DeploymentSummaryRow>(
    `SELECT DISTINCT ON (name) name, version AS latest_version, id AS latest_id, created_at AS updated_at
       FROM workflow_deployments
      WHERE api_key_id = $1 AND ($2::text IS NULL OR name > $2)
      ORDER BY name, version DESC
      LIMIT $3`,
    [apiKeyId, after, limit + 1],
  );
  const page = rows.slice(0, limit);
  return {
    items: page.map((r) => ({
      name: r.name,
      latest_version: Number(r.latest_version),
      latest_id: r.latest_id,
      updated_at: new Date(r.updated_at).toISOString(),
    })),
    next_cursor:
      rows.length > limit
        ? Buffer.from(page[page.length - 1]!.name, "utf8").toString("base64url")
        : null,
  };
}

/** Every version of a named deployment, newest first, with the stored model of each. */
export async function getDeploymentVersions(store: Store, apiKeyId: string, name: string) {
  const rows = await store.query<DeploymentRow>(
    `SELECT id, name, version, workflow, created_at FROM workflow_deployments
      WHERE api_key_id = $1 AND name = $2 ORDER BY version DESC`,
    [apiKeyId, name],
  );
  if (rows.length === 0) {
    throw new ApiError(404, "DEPLOYMENT_NOT_FOUND", `no deployment "${name}" for this API key`);
  }
  return {
    name,
    versions: rows.map((r) => ({
      id: r.id,
      version: Number(r.version),
      created_at: new Date(r.created_at).toISOString(),
      workflow: typeof r.workflow === "string" ? (JSON.parse(r.workflow) as Workflow) : r.workflow,
    })),
  };
}
