import { randomBytes } from "node:crypto";
import type { SecretCipher } from "../accounts/index.ts";
import type { Store } from "../store/index.ts";
import { ulid } from "../model/index.ts";

/**
 * The webhooks repository: every statement that writes `webhook_endpoints` and
 * `webhook_deliveries` outside the triggers that enqueue deliveries (migration 700).
 */

export const WEBHOOK_EVENT_TYPES = [
  "execution.state_changed",
  "execution.step_completed",
  "execution.step_failed",
  "execution.attested",
  "execution.report",
  "execution.compliance_alert",
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export interface WebhookEndpoint {
  id: string;
  apiKeyId: string;
  url: string;
  events: WebhookEventType[];
  description: string | null;
  createdAt: Date;
}

interface EndpointRow {
  id: string;
  api_key_id: string;
  url: string;
  secret_enc: string;
  events: string[];
  description: string | null;
  created_at: Date | string;
}

const secretContext = (id: string) => `webhook-endpoint:${id}`;

function toEndpoint(row: EndpointRow): WebhookEndpoint {
  return {
    id: row.id,
    apiKeyId: row.api_key_id,
    url: row.url,
    events: row.events as WebhookEventType[],
    description: row.description,
    createdAt: new Date(row.created_at),
  };
}

/** A new endpoint and its signing secret (`whsec_` + base64 of 24 random bytes, shown once). */
export async function createEndpoint(
  store: Store,
  cipher: SecretCipher,
  input: { apiKeyId: string; url: string; events: WebhookEventType[]; description?: string },
): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  const id = `whk_${ulid()}`;
  const secret = `whsec_${randomBytes(24).toString("base64")}`;
  const [row] = await store.query<EndpointRow>(
    `INSERT INTO webhook_endpoints (id, api_key_id, url, secret_enc, events, description)
     VALUES ($1, $2, $3, $4, $5, $6) RETURNING *`,
    [
      id,
      input.apiKeyId,
      input.url,
      cipher.encrypt(secret, secretContext(id)),
      input.events,
      input.description ?? null,
    ],
  );
  return { endpoint: toEndpoint(row!), secret };
}

export async function listEndpoints(store: Store, apiKeyId: string): Promise<WebhookEndpoint[]> {
  const rows = await store.query<EndpointRow>(
    `SELECT * FROM webhook_endpoints WHERE api_key_id = $1 AND deleted_at IS NULL ORDER BY id`,
    [apiKeyId],
  );
  return rows.map(toEndpoint);
}

export async function findEndpoint(
  store: Store,
  apiKeyId: string,
  id: string,
): Promise<WebhookEndpoint | null> {
  const [row] = await store.query<EndpointRow>(
    `SELECT * FROM webhook_endpoints WHERE id = $1 AND api_key_id = $2 AND deleted_at IS NULL`,
    [id, apiKeyId],
  );
  return row ? toEndpoint(row) : null;
}

/** Deletes the endpoint; its undelivered deliveries end as failed (nothing more is sent). */
export async function deleteEndpoint(store: Store, apiKeyId: string, id: string): Promise<boolean> {
  return store.transaction(async (tx) => {
    const deleted = await tx.query(
      `UPDATE webhook_endpoints SET deleted_at = now()
        WHERE id = $1 AND api_key_id = $2 AND deleted_at IS NULL RETURNING id`,
      [id, apiKeyId],
    );
    if (deleted.length === 0) return false;
    await tx.query(
      `UPDATE webhook_deliveries SET state = 'failed', last_error = 'endpoint deleted'
        WHERE endpoint_id = $1 AND state = 'pending'`,
      [id],
    );
    return true;
  });
}

export interface Delivery {
  id: string;
  endpointId: string;
  executionId: string;
  type: string;
  state: "pending" | "delivered" | "failed";
  attempts: number;
  lastStatus: number | null;
  lastError: string | null;
  createdAt: Date;
  deliveredAt: Date | null;
  nextAttemptAt: Date | null;
}

interface DeliveryRow {
  id: string;
  endpoint_id: string;
  execution_id: string;
  type: string;
  payload: unknown;
  state: Delivery["state"];
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  created_at: Date | string;
  delivered_at: Date | string | null;
  next_attempt_at: Date | string;
}

/** The webhook-id of a delivery: the same on every attempt and redelivery. */
export const messageId = (id: string | number) => `msg_${id}`;
const deliveryIdOf = (message: string) => (/^msg_(\d{1,18})$/.exec(message) ?? [])[1];

function toDelivery(row: DeliveryRow): Delivery {
  return {
    id: messageId(row.id),
    endpointId: row.endpoint_id,
    executionId: row.execution_id,
    type: row.type,
    state: row.state,
    attempts: row.attempts,
    lastStatus: row.last_status,
    lastError: row.last_error,
    createdAt: new Date(row.created_at),
    deliveredAt: row.delivered_at === null ? null : new Date(row.delivered_at),
    nextAttemptAt: row.state === "pending" ? new Date(row.next_attempt_at) : null,
  };
}

/** The endpoint's delivery log, newest first. */
export async function listDeliveries(
  store: Store,
  endpointId: string,
  limit: number,
): Promise<Delivery[]> {
  const rows = await store.query<DeliveryRow>(
    `SELECT * FROM webhook_deliveries WHERE endpoint_id = $1 ORDER BY id DESC LIMIT $2`,
    [endpointId, limit],
  );
  return rows.map(toDelivery);
}

/**
 * Sends deliveries again with their original webhook-id: one (`message`) or every failed one of
 * the endpoint. Returns how many were queued.
 */
export async function redeliver(
  store: Store,
  endpointId: string,
  message?: string,
): Promise<number | null> {
  if (message !== undefined) {
    const id = deliveryIdOf(message);
    if (!id) return null;
    const rows = await store.query(
      `UPDATE webhook_deliveries
          SET state = 'pending', next_attempt_at = now(), lease_until = NULL, delivered_at = NULL
        WHERE endpoint_id = $1 AND id = $2 RETURNING id`,
      [endpointId, id],
    );
    return rows.length === 0 ? null : rows.length;
  }
  const rows = await store.query(
    `UPDATE webhook_deliveries
        SET state = 'pending', next_attempt_at = now(), lease_until = NULL
      WHERE endpoint_id = $1 AND state = 'failed' RETURNING id`,
    [endpointId],
  );
  return rows.length;
}

export interface ClaimedDelivery {
  id: string;
  endpointId: string;
  url: string;
  secret: string;
  body: string;
  attempts: number;
}

/**
 * Claims due deliveries, each the oldest pending one of its (endpoint, execution) stream, so an
 * execution's events reach an endpoint in order. A claim is a lease (a dispatcher that dies
 * leaves it to expire), taken with SKIP LOCKED so processes sharing the database split the work.
 */
export async function claimDue(
  store: Store,
  cipher: SecretCipher,
  limit: number,
  leaseSeconds: number,
): Promise<ClaimedDelivery[]> {
  const rows = await store.query<DeliveryRow & { url: string; secret_enc: string }>(
    `WITH due AS (
       SELECT d.id FROM webhook_deliveries d
        WHERE d.state = 'pending' AND d.next_attempt_at <= now()
          AND (d.lease_until IS NULL OR d.lease_until < now())
          AND NOT EXISTS (SELECT 1 FROM webhook_deliveries e
                           WHERE e.endpoint_id = d.endpoint_id AND e.execution_id = d.execution_id
                             AND e.state = 'pending' AND e.id < d.id)
        ORDER BY d.id LIMIT $1
        FOR UPDATE SKIP LOCKED)
     UPDATE webhook_deliveries d
        SET lease_until = now() + make_interval(secs => $2), attempts = d.attempts + 1
       FROM due, webhook_endpoints w
      WHERE d.id = due.id AND w.id = d.endpoint_id
     RETURNING d.*, w.url, w.secret_enc`,
    [limit, leaseSeconds],
  );
  return rows.map((r) => ({
    id: String(r.id),
    endpointId: r.endpoint_id,
    url: r.url,
    secret: cipher.decrypt(r.secret_enc, secretContext(r.endpoint_id)),
    // jsonb comes back parsed; its text form is stable (jsonb orders keys), so every attempt
    // signs and sends the same bytes.
    body: JSON.stringify(r.payload),
    attempts: r.attempts,
  }));
}

/** The channel a due delivery notifies at commit (migration 710's trigger names it too). */
export const DELIVERY_CHANNEL = "webhook_deliveries";

/**
 * Milliseconds until the next delivery a claim could hand out comes due (the oldest pending one
 * of its stream: a retry, or a lease a dead dispatcher left): 0 when one is due now, null when
 * none is pending.
 */
export async function nextDueInMs(store: Store): Promise<number | null> {
  const [row] = await store.query<{ ms: number | string | null }>(
    `SELECT EXTRACT(EPOCH FROM min(GREATEST(d.next_attempt_at, COALESCE(d.lease_until, d.next_attempt_at))) - now()) * 1000 AS ms
       FROM webhook_deliveries d
      WHERE d.state = 'pending'
        AND NOT EXISTS (SELECT 1 FROM webhook_deliveries e
                         WHERE e.endpoint_id = d.endpoint_id AND e.execution_id = d.execution_id
                           AND e.state = 'pending' AND e.id < d.id)`,
  );
  if (row?.ms === null || row?.ms === undefined) return null;
  return Math.max(0, Math.ceil(Number(row.ms)));
}

export async function markDelivered(store: Store, id: string, status: number): Promise<void> {
  await store.query(
    `UPDATE webhook_deliveries
        SET state = 'delivered', delivered_at = now(), lease_until = NULL, last_status = $2, last_error = NULL
      WHERE id = $1`,
    [id, status],
  );
}

/** A failed attempt: retried after `retryInMs`, or failed for good when null. */
export async function markAttemptFailed(
  store: Store,
  id: string,
  outcome: { status: number | null; error: string; retryInMs: number | null },
): Promise<void> {
  await store.query(
    `UPDATE webhook_deliveries
        SET lease_until = NULL, last_status = $2, last_error = $3,
            state = CASE WHEN $4::bigint IS NULL THEN 'failed' ELSE 'pending' END,
            next_attempt_at = now() + make_interval(secs => COALESCE($4::bigint, 0) / 1000.0)
      WHERE id = $1`,
    [id, outcome.status, outcome.error.slice(0, 500), outcome.retryInMs],
  );
}
