import type { Logger } from "pino";
import type { EngineStore } from "../accounts/index.ts";
import type { MonitorConfig } from "../integrations/config.ts";
import {
  IntegrationError,
  listInteractions,
  type InteractionView,
  type Integrations,
} from "../integrations/index.ts";
import { MONITORED_COLLECTIONS } from "../integrations/schemas.ts";

/**
 * Monitored integration paths (`monitors:` in the integrations file; the spec's monitored
 * `/inventory`). Each monitor is polled every `interval` by one process (the row's `next_poll_at`
 * is claimed in one statement), through the integration's client: signed, validated against the
 * integration's pinned schema, recorded and anchored like every call (batched with
 * `blockchain_anchor.interval`). The validated collection is compared with the previous poll's,
 * item by item under the family's key, and each poll that changed something is recorded with what
 * changed and the interaction whose response shows it. A poll that fails (no answer, off its
 * schema) sets the monitor's state and raises an alert when the state turns bad.
 */
export type Item = Record<string, unknown>;

export type MonitorChange =
  | { kind: "added"; key: string; item: Item }
  | { kind: "removed"; key: string; item: Item }
  | { kind: "changed"; key: string; field: string; from: unknown; to: unknown };

export type MonitorState = "pending" | "ok" | "unavailable" | "schema_mismatch";

export interface MonitorView {
  id: string;
  integration: string;
  path: string;
  interval_seconds: number;
  state: MonitorState;
  last_error: string | null;
  last_polled_at: string | null;
  last_changed_at: string | null;
  polls: number;
}

export interface MonitorChangeView {
  id: number;
  observed_at: string;
  baseline: boolean;
  changes: MonitorChange[];
  /** The interaction whose response shows the new state, with its current on-chain anchor. */
  interaction: InteractionView;
}

/** The changes from `before` to `after`, items identified by `key`; fields compared as JSON. */
export function diffCollections(before: Item[], after: Item[], key: string): MonitorChange[] {
  const keyOf = (item: Item) => String(item[key]);
  const old = new Map(before.map((i) => [keyOf(i), i]));
  const now = new Map(after.map((i) => [keyOf(i), i]));
  const changes: MonitorChange[] = [];
  for (const [k, item] of now) {
    const prior = old.get(k);
    if (!prior) {
      changes.push({ kind: "added", key: k, item });
      continue;
    }
    for (const field of new Set([...Object.keys(prior), ...Object.keys(item)])) {
      if (JSON.stringify(prior[field]) !== JSON.stringify(item[field]))
        changes.push({ kind: "changed", key: k, field, from: prior[field], to: item[field] });
    }
  }
  for (const [k, item] of old) if (!now.has(k)) changes.push({ kind: "removed", key: k, item });
  return changes;
}

export interface MonitorsDeps {
  store: EngineStore;
  integrations: Integrations;
  logger: Logger;
}

export class Monitors {
  private readonly deps: MonitorsDeps;
  private readonly byId: Map<string, MonitorConfig>;

  constructor(deps: MonitorsDeps) {
    this.deps = deps;
    this.byId = new Map(deps.integrations.config.monitors.map((m) => [m.id, m]));
  }

  get configured(): MonitorConfig[] {
    return [...this.byId.values()];
  }

  /** Creates or updates the rows of the configured monitors (at start, in every process). */
  async register(): Promise<void> {
    for (const m of this.byId.values()) {
      await this.deps.store.query(
        `INSERT INTO integration_monitors (id, integration, path, interval_ms) VALUES ($1, $2, $3, $4)
         ON CONFLICT (id) DO UPDATE SET integration = $2, path = $3, interval_ms = $4`,
        [m.id, m.integration, m.path, m.intervalMs],
      );
    }
  }

  /** Polls every monitor whose turn has come and that this process claimed; returns their ids. */
  async pollDue(): Promise<string[]> {
    if (this.byId.size === 0) return [];
    const claimed = await this.deps.store.query<{ id: string }>(
      `UPDATE integration_monitors SET next_poll_at = now() + interval_ms * interval '1 millisecond'
        WHERE id = ANY($1) AND next_poll_at <= now() RETURNING id`,
      [[...this.byId.keys()]],
    );
    for (const { id } of claimed) await this.poll(id);
    return claimed.map((c) => c.id);
  }

  /** One poll of a monitor: its changes recorded, or its failure noted (and alerted). */
  async poll(id: string): Promise<{ state: MonitorState; changes: MonitorChange[] }> {
    const monitor = this.byId.get(id);
    if (!monitor) throw new Error(`monitor ${id} is not configured`);
    const client = this.deps.integrations.client(monitor.integration);
    const shape = MONITORED_COLLECTIONS[client.config.validation.schema]!;
    let result;
    try {
      result = await client.call<Record<string, unknown>>({
        method: "GET",
        path: monitor.path,
        query: monitor.query,
      });
    } catch (err) {
      if (!(err instanceof IntegrationError)) throw err;
      const state =
        err.code === "INTEGRATION_SCHEMA_MISMATCH" ||
        err.code === "INTEGRATION_RESPONSE_SIGNATURE_INVALID"
          ? "schema_mismatch"
          : "unavailable";
      await this.failed(monitor, state, err.message);
      return { state, changes: [] };
    }
    const items = result.data[shape.collection] as Item[];
    return this.deps.store.transaction(async (tx) => {
      const [row] = await tx.query<{ snapshot: Item[] | null }>(
        "SELECT snapshot FROM integration_monitors WHERE id = $1 FOR UPDATE",
        [id],
      );
      const baseline = row?.snapshot == null;
      const changes = baseline
        ? items.map((item): MonitorChange => ({
            kind: "added",
            key: String(item[shape.key]),
            item,
          }))
        : diffCollections(row.snapshot!, items, shape.key);
      if (changes.length > 0 || baseline) {
        await tx.query(
          `INSERT INTO integration_monitor_changes (monitor, observed_at, interaction_id, baseline, changes)
           VALUES ($1, now(), $2, $3, $4::jsonb)`,
          [id, result.interactionId, baseline, JSON.stringify(changes)],
        );
      }
      await tx.query(
        `UPDATE integration_monitors SET state = 'ok', last_error = NULL, snapshot = $2::jsonb,
           last_polled_at = now(), polls = polls + 1,
           last_changed_at = CASE WHEN $3 THEN now() ELSE last_changed_at END
         WHERE id = $1`,
        [id, JSON.stringify(items), changes.length > 0 || baseline],
      );
      return { state: "ok" as const, changes };
    });
  }

  /** The monitor's new state; an alert when it turns bad (not again while it stays bad). */
  private async failed(
    monitor: MonitorConfig,
    state: "unavailable" | "schema_mismatch",
    detail: string,
  ): Promise<void> {
    const before = await this.deps.store.transaction(async (tx) => {
      const [row] = await tx.query<{ state: MonitorState }>(
        "SELECT state FROM integration_monitors WHERE id = $1 FOR UPDATE",
        [monitor.id],
      );
      await tx.query(
        `UPDATE integration_monitors SET state = $2, last_error = $3, last_polled_at = now(),
           polls = polls + 1 WHERE id = $1`,
        [monitor.id, state, detail],
      );
      return row?.state;
    });
    if (before === state) return;
    await this.deps.integrations.health.raise({
      integration: monitor.integration,
      kind: state === "schema_mismatch" ? "monitor_schema_mismatch" : "monitor_unavailable",
      detail: `monitor ${monitor.id} (${monitor.integration} ${monitor.path}): ${detail}`,
    });
  }

  async list(): Promise<MonitorView[]> {
    const rows = await this.deps.store.query<{
      id: string;
      integration: string;
      path: string;
      interval_ms: number;
      state: MonitorState;
      last_error: string | null;
      last_polled_at: Date | null;
      last_changed_at: Date | null;
      polls: string;
    }>(
      `SELECT id, integration, path, interval_ms, state, last_error, last_polled_at, last_changed_at, polls
         FROM integration_monitors WHERE id = ANY($1) ORDER BY id`,
      [[...this.byId.keys()]],
    );
    return rows.map((r) => ({
      id: r.id,
      integration: r.integration,
      path: r.path,
      interval_seconds: r.interval_ms / 1000,
      state: r.state,
      last_error: r.last_error,
      last_polled_at: iso(r.last_polled_at),
      last_changed_at: iso(r.last_changed_at),
      polls: Number(r.polls),
    }));
  }

  /** The monitor's changes, newest first (`before`: an id, for the next page); null if unknown. */
  async changes(
    id: string,
    page: { limit: number; before?: number },
  ): Promise<MonitorChangeView[] | null> {
    if (!this.byId.has(id)) return null;
    const rows = await this.deps.store.query<{
      id: string;
      observed_at: Date;
      baseline: boolean;
      changes: MonitorChange[];
      interaction_id: string;
    }>(
      `SELECT id, observed_at, baseline, changes, interaction_id FROM integration_monitor_changes
        WHERE monitor = $1 AND ($2::bigint IS NULL OR id < $2) ORDER BY id DESC LIMIT $3`,
      [id, page.before ?? null, page.limit],
    );
    const interactions = new Map(
      (
        await listInteractions(this.deps.store, { ids: rows.map((r) => Number(r.interaction_id)) })
      ).map((i) => [i.id, i]),
    );
    return rows.map((r) => ({
      id: Number(r.id),
      observed_at: new Date(r.observed_at).toISOString(),
      baseline: r.baseline,
      changes: typeof r.changes === "string" ? JSON.parse(r.changes) : r.changes,
      interaction: interactions.get(Number(r.interaction_id))!,
    }));
  }

  /**
   * Registers the monitors, then polls what is due every `tickMs` (a tick is skipped while the
   * previous one still runs) until the returned stop is called.
   */
  start(tickMs = 1000): () => Promise<void> {
    let running: Promise<unknown> = this.register().catch((err: unknown) =>
      this.deps.logger.error({ err }, "monitors could not be registered"),
    );
    let busy = false;
    const timer = setInterval(() => {
      if (busy) return;
      busy = true;
      running = running
        .then(() => this.pollDue())
        .catch((err: unknown) => this.deps.logger.error({ err }, "monitor poll failed"))
        .finally(() => (busy = false));
    }, tickMs);
    return async () => {
      clearInterval(timer);
      await running;
    };
  }
}

function iso(value: Date | null): string | null {
  return value === null ? null : new Date(value).toISOString();
}
