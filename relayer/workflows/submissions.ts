import { assertConcurrencyAvailable } from "../limits/index.ts";
import { JOB_NAMES } from "../queue/index.ts";
import { Batcher, GroupCommit, type Outcome, type Store } from "../store/index.ts";
import { buildCatalogue, type ChainDescription } from "./catalogue.ts";
import {
  lockActiveCounts,
  insertExecutions,
  insertSubmissionBatch,
  type NewExecution,
} from "../executions/index.ts";
import { receiptSignerOf } from "../proofs/index.ts";
import type { SubmissionResult } from "./schemas.ts";
import type { Accepted, IntakePlatform, PendingSubmission, WorkflowIntake } from "./intake.ts";

/** The intake's long-lived part (`WorkflowIntake`), built once by the composition root. */
export function createWorkflowIntake(
  platform: IntakePlatform,
  options: { recipientSources?: Iterable<string> } = {},
): WorkflowIntake {
  return {
    catalogue: platform.chains
      ? {
          ...buildCatalogue(platform.chains.list() as unknown as ChainDescription[]),
          recipientSources: new Set(options.recipientSources ?? []),
        }
      : null,
    receiptSigner: platform.chains ? receiptSignerOf(platform.chains.list()) : null,
    submissions: submissionBatcher(platform),
  };
}

/**
 * Submissions without an idempotency key or a schedule, written together in ONE statement (one
 * round trip, one durable commit): it locks each key's active count (sorted, so processes cannot
 * deadlock), admits submissions in arrival order up to the tier's limit (the others get their 429
 * alone), inserts the admitted executions and their `workflow.execute` jobs (pg-boss's own insert,
 * see Queue.insertStatement) and fails as a whole unless every admitted execution got its job.
 * Exactly what the single-submission transaction guarantees, for many at the cost of one round
 * trip. Where pg-boss's insert cannot be embedded, the same in a transaction (storeSubmissions).
 * The commit wakes the engine workers of every process, this one's included: the database notifies
 * them (migration 203_engine_job_wakeup.sql), so nothing here wakes them a second time.
 */
function submissionBatcher(ctx: IntakePlatform): Batcher<PendingSubmission, Accepted> {
  const inTransaction = new GroupCommit<PendingSubmission, Accepted>(ctx.store, (tx, items) =>
    storeSubmissions(ctx, tx, items),
  );
  return new Batcher(async (items) => {
    const insertJobs = await ctx.queue.insertStatement(JOB_NAMES.workflowExecute);
    return insertJobs
      ? storeSubmissionsAtOnce(ctx, insertJobs, items)
      : Promise.all(items.map((i) => settle(inTransaction.submit(i))));
  });
}

const settle = <R>(p: Promise<R>): Promise<Outcome<R>> =>
  p.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );

const accepted = (execution: NewExecution): Accepted => ({
  status: 202,
  body: {
    status: "queued",
    execution_id: execution.id,
    cost_estimate: execution.costEstimate as SubmissionResult["cost_estimate"],
    receipt: execution.receipt ?? null,
  },
});

async function storeSubmissionsAtOnce(
  ctx: IntakePlatform,
  insertJobs: string,
  items: PendingSubmission[],
): Promise<Outcome<Accepted>[]> {
  const rows = await insertSubmissionBatch(
    ctx.store,
    insertJobs,
    items.map((item) => ({
      id: item.execution.id,
      apiKeyId: item.caller.id,
      workflow: item.execution.workflow,
      deploymentId: item.execution.deploymentId ?? null,
      costEstimate: item.execution.costEstimate ?? null,
      receipt: item.execution.receipt ?? null,
      limit: ctx.limits[item.caller.tier].concurrentWorkflows,
    })),
  );
  return items.map((item, i): Outcome<Accepted> => {
    const row = rows[i];
    if (!row || row.ord !== i) {
      return { ok: false, error: new Error("submission batch: no outcome for an item") };
    }
    if (row.admitted) return { ok: true, value: accepted(item.execution) };
    const limits = ctx.limits[item.caller.tier];
    try {
      // Its turn came with the key at its limit: the active count then, as the 429 reports it.
      assertConcurrencyAvailable(limits, Math.max(Number(row.active), limits.concurrentWorkflows));
      return { ok: false, error: new Error("submission batch: refused below the limit") };
    } catch (error) {
      return { ok: false, error };
    }
  });
}

async function storeSubmissions(
  ctx: IntakePlatform,
  tx: Store,
  items: PendingSubmission[],
): Promise<Outcome<Accepted>[]> {
  const active = await lockActiveCounts(
    tx,
    items.map((i) => i.caller.id),
  );
  const admitted: NewExecution[] = [];
  const outcomes = items.map((item): Outcome<Accepted> => {
    const count = active.get(item.caller.id) ?? 0;
    try {
      assertConcurrencyAvailable(ctx.limits[item.caller.tier], count);
    } catch (error) {
      return { ok: false, error };
    }
    active.set(item.caller.id, count + 1);
    admitted.push(item.execution);
    return { ok: true, value: accepted(item.execution) };
  });
  await insertExecutions(tx, admitted);
  await ctx.queue.sendMany(
    JOB_NAMES.workflowExecute,
    admitted.map((e) => ({ executionId: e.id })),
    { tx },
  );
  return outcomes;
}
