import { createHash } from "node:crypto";
import type { Logger } from "pino";
import { Counter, Gauge, type Registry } from "prom-client";
import type { EngineStore } from "../accounts/index.ts";

/** What an operator is alerted about (table `integration_alerts`, log, metric). */
export type IntegrationAlertKind =
  | "credential_suspect"
  | "integration_disabled"
  | "schema_rollback"
  | "monitor_unavailable"
  | "monitor_schema_mismatch";

export interface IntegrationAlert {
  integration: string;
  kind: IntegrationAlertKind;
  detail: string;
  executionId?: string;
}

export interface IntegrationAlertView {
  id: number;
  integration: string;
  kind: IntegrationAlertKind;
  detail: string;
  execution_id: string | null;
  created_at: string;
}

/** The state of an integration node, shared by every process on the database. */
export type NodeState =
  | { state: "enabled" }
  | { state: "suspect"; unauthorizedCount: number; since: string }
  | { state: "disabled"; reason: string; since: string };

/**
 * Consecutive 401s answered to freshly issued credentials after which the node is disabled (spec
 * Errors 401: "rotate the token; disable compromised nodes"). The first marks the credential
 * suspect; a success in between clears it.
 */
export const DISABLE_AFTER_UNAUTHORIZED = 3;

/**
 * Alerts and the node state of the integrations: rows in `integration_alerts` and
 * `integration_states`, an error log line per alert, and the metrics
 * `veriflow_integration_alerts_total{integration,kind}` and `veriflow_integration_disabled{integration}`
 * (read from the database at scrape time, so every process reports the shared state).
 */
export class IntegrationHealth {
  private readonly store: EngineStore;
  private readonly logger: Logger;
  private readonly alerts: Counter<"integration" | "kind"> | null;

  constructor(store: EngineStore, logger: Logger, registry?: Registry) {
    this.store = store;
    this.logger = logger;
    this.alerts = registry ? registerMetrics(registry, store) : null;
  }

  async raise(alert: IntegrationAlert): Promise<void> {
    await this.store.query(
      "INSERT INTO integration_alerts (integration, kind, detail, execution_id) VALUES ($1, $2, $3, $4)",
      [alert.integration, alert.kind, alert.detail, alert.executionId ?? null],
    );
    this.alerts?.inc({ integration: alert.integration, kind: alert.kind });
    this.logger.error(
      { alert: alert.kind, integration: alert.integration, executionId: alert.executionId },
      alert.detail,
    );
  }

  async listAlerts(integration?: string, limit = 100): Promise<IntegrationAlertView[]> {
    const rows = await this.store.query<IntegrationAlertView & { id: string; created_at: Date }>(
      `SELECT id, integration, kind, detail, execution_id, created_at FROM integration_alerts
       WHERE $1::text IS NULL OR integration = $1 ORDER BY id DESC LIMIT $2`,
      [integration ?? null, limit],
    );
    return rows.map((r) => ({
      ...r,
      id: Number(r.id),
      created_at: new Date(r.created_at).toISOString(),
    }));
  }

  async state(integration: string): Promise<NodeState> {
    const [row] = await this.store.query<{
      state: string;
      unauthorized_count: number;
      reason: string | null;
      suspect_since: Date | null;
      disabled_at: Date | null;
    }>(
      "SELECT state, unauthorized_count, reason, suspect_since, disabled_at FROM integration_states WHERE integration = $1",
      [integration],
    );
    if (!row || row.state === "enabled") return { state: "enabled" };
    if (row.state === "disabled")
      return {
        state: "disabled",
        reason: row.reason ?? "",
        since: new Date(row.disabled_at!).toISOString(),
      };
    return {
      state: "suspect",
      unauthorizedCount: row.unauthorized_count,
      since: new Date(row.suspect_since!).toISOString(),
    };
  }

  /**
   * A 401 answered a credential issued for this very call (a JWT minted for the attempt, or an
   * access token fetched after the previous one was refused): the credential is suspect; after
   * {@link DISABLE_AFTER_UNAUTHORIZED} such answers in a row the node is disabled. Counted in one
   * statement, so processes answering 401s at once count each.
   */
  async unauthorized(
    integration: string,
    credentialFingerprint: string,
    credentialId: string,
  ): Promise<NodeState> {
    const [row] = await this.store.query<{ unauthorized_count: number; state: string }>(
      `INSERT INTO integration_states AS s
         (integration, state, unauthorized_count, credential_fingerprint, suspect_since, updated_at)
       VALUES ($1, 'suspect', 1, $2, now(), now())
       ON CONFLICT (integration) DO UPDATE SET
         unauthorized_count = s.unauthorized_count + 1,
         credential_fingerprint = $2,
         state = CASE WHEN s.state = 'disabled' THEN 'disabled' ELSE 'suspect' END,
         suspect_since = COALESCE(s.suspect_since, now()),
         updated_at = now()
       RETURNING unauthorized_count, state`,
      [integration, credentialFingerprint],
    );
    const count = Number(row!.unauthorized_count);
    if (row!.state === "disabled") return this.state(integration);
    if (count === 1) {
      await this.raise({
        integration,
        kind: "credential_suspect",
        detail: `integration ${integration}: a freshly issued credential (${credentialId}, fingerprint ${credentialFingerprint}) was answered 401; the credential is suspect: rotate it`,
      });
    }
    if (count < DISABLE_AFTER_UNAUTHORIZED) return this.state(integration);
    const reason = `${count} consecutive 401s with freshly issued credentials (last ${credentialId}, fingerprint ${credentialFingerprint})`;
    const [disabled] = await this.store.query(
      `UPDATE integration_states SET state = 'disabled', reason = $2, disabled_at = now(), updated_at = now()
       WHERE integration = $1 AND state <> 'disabled' RETURNING integration`,
      [integration, reason],
    );
    if (disabled) {
      await this.raise({
        integration,
        kind: "integration_disabled",
        detail: `integration ${integration} disabled after ${reason}; calls are refused until an operator runs npm run integrations -- enable ${integration}`,
      });
    }
    return this.state(integration);
  }

  /** A call answered: a suspect credential is cleared (a disabled node stays disabled). */
  async succeeded(integration: string): Promise<void> {
    await this.store.query(
      `UPDATE integration_states SET state = 'enabled', unauthorized_count = 0, suspect_since = NULL,
         updated_at = now() WHERE integration = $1 AND state = 'suspect'`,
      [integration],
    );
  }
}

/**
 * The operator's `npm run integrations -- enable <name>`: a disabled (or suspect) node is enabled
 * again, its 401 count cleared. True when it was not enabled.
 */
export async function enableIntegration(store: EngineStore, integration: string): Promise<boolean> {
  const rows = await store.query(
    `UPDATE integration_states SET state = 'enabled', unauthorized_count = 0, suspect_since = NULL,
       disabled_at = NULL, reason = NULL, updated_at = now()
     WHERE integration = $1 AND state <> 'enabled' RETURNING integration`,
    [integration],
  );
  return rows.length > 0;
}

/** Fingerprint of a credential for alerts and logs: never the credential itself. */
export function credentialFingerprint(secret: string): string {
  return createHash("sha256").update(secret).digest("hex").slice(0, 16);
}

function registerMetrics(registry: Registry, store: EngineStore): Counter<"integration" | "kind"> {
  const name = "veriflow_integration_alerts_total";
  const existing = registry.getSingleMetric(name);
  if (existing) return existing as Counter<"integration" | "kind">;
  new Gauge({
    name: "veriflow_integration_disabled",
    help: "1 for each integration node disabled after repeated 401s (shared by every process on the database)",
    labelNames: ["integration"],
    registers: [registry],
    async collect() {
      this.reset();
      const rows = await store.query<{ integration: string }>(
        "SELECT integration FROM integration_states WHERE state = 'disabled'",
      );
      for (const r of rows) this.set({ integration: r.integration }, 1);
    },
  });
  return new Counter({
    name,
    help: "Integration alerts raised by this process, by integration and kind",
    labelNames: ["integration", "kind"],
    registers: [registry],
  });
}
