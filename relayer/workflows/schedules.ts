import { ApiError } from "../http/index.ts";
import type { Queue } from "../queue/index.ts";
import { JOB_NAMES } from "../queue/index.ts";
import type { Store } from "../store/index.ts";
import { decodeCursor, encodeCursor } from "./executions.ts";
import { isId, newScheduleId, type Workflow, type WorkflowSchedule } from "../model/index.ts";
import { nextRun } from "./schedule-phrase.ts";

/**
 * Stored schedules (`workflow_schedules`) and their pg-boss cron entries. The table is the source
 * of truth; the cron entry (queue `workflow.schedule`, key = schedule id, data `{scheduleId}`) is
 * registered after the row commits and removed after it is deleted. A firing whose schedule is
 * gone or paused does nothing, and `reconcileSchedules` at start repairs any entry a crash left
 * behind.
 */

export interface ScheduleRow {
  id: string;
  api_key_id: string;
  name: string;
  cron: string;
  timezone: string;
  phrase: string | null;
  workflow: Workflow | string | null;
  deployment_name: string | null;
  deployment_version: number | null;
  fire_count: number;
  last_fired_at: Date | string | null;
  created_at: Date | string;
  deleted_at: Date | string | null;
  paused_at: Date | string | null;
}

export type ScheduleTarget =
  { workflow: Workflow } | { deployment: { name: string; version: number } };

export async function insertSchedule(
  tx: Store,
  apiKeyId: string,
  name: string,
  schedule: WorkflowSchedule,
  target: ScheduleTarget,
): Promise<ScheduleRow> {
  const [row] = await tx.query<ScheduleRow>(
    `INSERT INTO workflow_schedules
       (id, api_key_id, name, cron, timezone, phrase, workflow, deployment_name, deployment_version)
     VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9)
     RETURNING *`,
    [
      newScheduleId(),
      apiKeyId,
      name,
      schedule.cron,
      schedule.timezone,
      schedule.phrase ?? null,
      "workflow" in target ? JSON.stringify(target.workflow) : null,
      "deployment" in target ? target.deployment.name : null,
      "deployment" in target ? target.deployment.version : null,
    ],
  );
  return row!;
}

/** Deletes a key's live schedules of a deployment (a redeploy replaces them); their ids. */
export async function deleteDeploymentSchedules(
  tx: Store,
  apiKeyId: string,
  deploymentName: string,
): Promise<string[]> {
  const rows = await tx.query<{ id: string }>(
    `UPDATE workflow_schedules SET deleted_at = now()
      WHERE api_key_id = $1 AND deployment_name = $2 AND deleted_at IS NULL RETURNING id`,
    [apiKeyId, deploymentName],
  );
  return rows.map((r) => r.id);
}

/** Counts one firing of a schedule. */
export async function recordFiring(tx: Store, scheduleId: string): Promise<void> {
  await tx.query(
    `UPDATE workflow_schedules SET fire_count = fire_count + 1, last_fired_at = now() WHERE id = $1`,
    [scheduleId],
  );
}

const iso = (value: Date | string | null): string | null =>
  value === null ? null : new Date(value).toISOString();

export function scheduleView(row: ScheduleRow, now = new Date()) {
  return {
    id: row.id,
    name: row.name,
    cron: row.cron,
    timezone: row.timezone,
    phrase: row.phrase,
    deployment:
      row.deployment_name === null
        ? null
        : {
            name: row.deployment_name,
            version: row.deployment_version === null ? null : Number(row.deployment_version),
          },
    paused: row.paused_at !== null,
    paused_at: iso(row.paused_at),
    next_run_at: row.deleted_at === null && row.paused_at === null ? nextRun(row, now) : null,
    last_fired_at: iso(row.last_fired_at),
    fire_count: Number(row.fire_count),
    created_at: iso(row.created_at)!,
  };
}

export type ScheduleView = ReturnType<typeof scheduleView>;

/** Adds (or updates) the pg-boss cron entry of a stored schedule. */
export async function registerSchedule(
  queue: Queue,
  row: Pick<ScheduleRow, "id" | "cron" | "timezone">,
): Promise<void> {
  await queue.schedule(
    JOB_NAMES.workflowSchedule,
    row.cron,
    { scheduleId: row.id },
    { tz: row.timezone, key: row.id },
  );
}

export async function unregisterSchedule(queue: Queue, id: string): Promise<void> {
  await queue.unschedule(JOB_NAMES.workflowSchedule, id);
}

export async function listSchedules(
  store: Store,
  apiKeyId: string,
  options: { limit?: number; cursor?: string },
) {
  const limit = options.limit ?? 20;
  const after = options.cursor ? decodeCursor(options.cursor, "sch") : null;
  const rows = await store.query<ScheduleRow>(
    `SELECT * FROM workflow_schedules
      WHERE api_key_id = $1 AND deleted_at IS NULL AND ($2::text IS NULL OR id < $2)
      ORDER BY id DESC LIMIT $3`,
    [apiKeyId, after, limit + 1],
  );
  const page = rows.slice(0, limit);
  return {
    items: page.map((r) => scheduleView(r)),
    next_cursor: rows.length > limit ? encodeCursor(page[page.length - 1]!.id) : null,
  };
}

/** Soft-deletes the schedule (executions keep their reference) and removes its cron entry. */
export async function deleteSchedule(store: Store, queue: Queue, apiKeyId: string, id: string) {
  const notFound = new ApiError(404, "SCHEDULE_NOT_FOUND", `no schedule ${id} for this API key`);
  if (!isId("sch", id)) throw notFound;
  const [row] = await store.query<ScheduleRow>(
    `UPDATE workflow_schedules SET deleted_at = now()
      WHERE id = $1 AND api_key_id = $2 AND deleted_at IS NULL RETURNING *`,
    [id, apiKeyId],
  );
  if (!row) throw notFound;
  await unregisterSchedule(queue, id);
  return { id, deleted: true as const, deleted_at: iso(row.deleted_at)! };
}

/**
 * Pauses a live schedule: no firings until it is resumed (its cron entry is removed; a firing
 * already queued finds it paused and does nothing). Pausing a paused schedule changes nothing.
 */
export async function pauseSchedule(store: Store, queue: Queue, apiKeyId: string, id: string) {
  const row = await setPaused(store, apiKeyId, id, true);
  await unregisterSchedule(queue, id);
  return scheduleView(row);
}

/** Resumes a paused schedule from its next occurrence (missed ones are not made up). */
export async function resumeSchedule(store: Store, queue: Queue, apiKeyId: string, id: string) {
  const row = await setPaused(store, apiKeyId, id, false);
  await registerSchedule(queue, row);
  return scheduleView(row);
}

async function setPaused(
  store: Store,
  apiKeyId: string,
  id: string,
  paused: boolean,
): Promise<ScheduleRow> {
  const notFound = new ApiError(404, "SCHEDULE_NOT_FOUND", `no schedule ${id} for this API key`);
  if (!isId("sch", id)) throw notFound;
  const [row] = await store.query<ScheduleRow>(
    `UPDATE workflow_schedules
        SET paused_at = CASE WHEN $3 THEN coalesce(paused_at, now()) END
      WHERE id = $1 AND api_key_id = $2 AND deleted_at IS NULL RETURNING *`,
    [id, apiKeyId, paused],
  );
  if (!row) throw notFound;
  return row;
}

/**
 * Makes pg-boss's cron entries match the table: every live, unpaused schedule registered, entries
 * of paused, deleted or unknown schedules removed. Run at start (a crash between commit and registration
 * leaves at most one entry to repair).
 */
export async function reconcileSchedules(
  store: Store,
  queue: Queue,
): Promise<{ registered: number; removed: number }> {
  const live = await store.query<ScheduleRow>(
    `SELECT id, cron, timezone FROM workflow_schedules
      WHERE deleted_at IS NULL AND paused_at IS NULL`,
  );
  const liveIds = new Set(live.map((r) => r.id));
  for (const row of live) await registerSchedule(queue, row);
  let removed = 0;
  for (const entry of await queue.boss.getSchedules(JOB_NAMES.workflowSchedule)) {
    if (entry.key && !liveIds.has(entry.key)) {
      await unregisterSchedule(queue, entry.key);
      removed++;
    }
  }
  return { registered: live.length, removed };
}
