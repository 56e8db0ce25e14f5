import type { Wallet } from "ethers";
import type { Logger } from "pino";
import { AgentError, VeriflowError } from "../errors/index.ts";
import {
  accountWallet,
  ensureFundedAccount,
  type DevnetFaucet,
  type SecretCipher,
  type EngineStore,
} from "../accounts/index.ts";
import {
  AGENT_CLASS_NAMES,
  oracleScreen,
  outputOf,
  runAgent,
  taskFor,
  type AgentResult,
  type ComplianceScreen,
  type ScreenResult,
} from "../agents/index.ts";
import {
  type ActionFlow,
  type RoutingChain,
  ChainUnavailableError,
  InsufficientLiquidityError,
  NoRouteError,
  actionInput,
  chainByName,
  planWorkflow,
  type PlannedAction,
} from "../routing/index.ts";
import type { NamedLocks } from "../store/index.ts";
import { DEFAULT_REFERENCE_POLICY, type ReferencePolicy } from "../routing/index.ts";
import { poolMoves } from "./pool-moves.ts";
import type { Workflow, WorkflowAction, ExecutionState } from "../model/index.ts";
import {
  crashPoint,
  TransactionDroppedError,
  TxJournal,
  type VerifyProgress,
} from "../transactions/index.ts";
import { chainHealth, DEFAULT_BASE_FEE_CAP_GWEI } from "./health.ts";
import { outageFailure, outageWindowMs, rideOutOutage } from "./outage.ts";
import {
  evaluateRisk,
  RiskThresholdExceededError,
  type ErrorBody,
  type StepResult,
  type StepRow,
} from "../report/index.ts";
import {
  awaitReport,
  cancelRequested,
  executionState,
  finishStep,
  loadExecution,
  loadSteps,
  markRunning,
  recordAlert,
  reportWaits,
  setExecution,
  startStep,
  stepMemo,
  type EngineExecutionRow,
} from "../executions/index.ts";
import { FINAL_STEP, finalizeExecution, homeChain, type FinalizeDeps } from "./finalize.ts";
import { payoutOrders, PayoutOrdersError, settlePayouts, type PayoutSource } from "./payouts.ts";

/**
 * The orchestrator (spec "Workflow orchestration rule"): runs the workflow's agents in order, one
 * task each; after each, the risk engine scores the result against the workflow's threshold; a
 * failed evaluation stops the run with RiskThresholdExceededError; otherwise the result is stored
 * under the agent's class name. At the end the results are packaged: proof, attestation, report.
 *
 * Every decision and transaction is persisted, so running it again for the same execution (a
 * crash, a retried job) resumes: completed actions are skipped, a started action keeps its chain
 * and its journalled transactions are awaited, never re-sent.
 */
export interface EngineDeps extends FinalizeDeps {
  store: EngineStore;
  /** Account keys at rest: the platform's secrets encryption under the master key. */
  cipher: SecretCipher;
  chains: { list(): readonly RoutingChain[] };
  logger: Logger;
  /** Sanctions screening of counterparties and recipients (default: the chains' on-chain oracle). */
  screen?: ComplianceScreen;
  /** Devnet: funds a new account on every chain at first use (null on real networks). */
  faucet?: DevnetFaucet | null;
  /** A chain whose next base fee is above this is congested: the action moves to a fallback. */
  baseFeeCapGwei?: number;
  /**
   * How long a stage (an action with no fallback left, the funding, the re-check before the
   * proof, the proof, attestation and report) waits for an unreachable chain before it fails with
   * CHAIN_UNAVAILABLE, in seconds (default DEFAULT_CHAIN_OUTAGE_WINDOW_SECONDS; 0: at once;
   * outage.ts).
   */
  chainOutageWindowSeconds?: number;
  /** The integrations a `recipients_from` multisend fetches its orders from and settles with. */
  payouts?: PayoutSource;
  /** The pool sequencer's locks, shared by every worker on the database (relayer/store/locks.ts). */
  poolLocks: NamedLocks;
  /** The reference price check of swap quotes (default: DEFAULT_REFERENCE_POLICY). */
  referencePolicy?: ReferencePolicy;
}

export type { ExecutionState };

/** Errors that end the execution (as opposed to transient ones a retried job may overcome). */
export function isFinalError(err: unknown): err is VeriflowError {
  return (
    err instanceof AgentError ||
    err instanceof RiskThresholdExceededError ||
    err instanceof InsufficientLiquidityError ||
    err instanceof NoRouteError ||
    err instanceof ChainUnavailableError ||
    err instanceof PayoutOrdersError ||
    err instanceof TransactionDroppedError
  );
}

/**
 * Runs (or resumes) one execution to a final state. Returns the final state. A chain outage is
 * ridden out up to the outage window by every stage, then ends the execution CHAIN_UNAVAILABLE;
 * a failed or cancelled execution whose report's chains stay unreachable past it keeps its
 * outcome and its report waits for them (run again, it delivers that report). Throws only on
 * transient failures (the database): the job is retried and resumes where it stopped.
 */
export async function runExecution(deps: EngineDeps, executionId: string): Promise<ExecutionState> {
  const { store } = deps;
  const row = await loadExecution(store, executionId);
  if (!row) throw new Error(`execution ${executionId} does not exist`);
  const { workflow } = row;
  const log = deps.logger.child({ executionId });
  if (row.state === "completed") return row.state;
  if (row.state === "failed" || row.state === "cancelled") {
    // Its outcome is recorded; its report waited for a chain (`finish`): delivered once it answers.
    if (await reportWaits(store, executionId))
      await report(deps, row, workflow, row.state, row.error ?? undefined, log);
    return row.state;
  }

  // queued → running only if it is still queued (or running: a resumed job). A cancel that landed
  // after the read above made it `cancelled`; overwriting that would run a cancelled workflow.
  if (!(await markRunning(store, executionId))) {
    const now = await executionState(store, executionId);
    log.info({ state: now }, "execution no longer queued (cancelled meanwhile); not run");
    return now ?? "cancelled";
  }

  // Devnet: the first run funds the account on every chain; nothing of the workflow ran yet.
  const windowMs = outageWindowMs(deps);
  try {
    await rideOutOutage(
      () =>
        ensureFundedAccount(
          store,
          deps.cipher,
          row.apiKeyId,
          deps.chains.list(),
          deps.faucet ?? null,
        ),
      {
        windowMs,
        log,
        context: () => ({ stage: "funding" }),
        // Faucet grants are not journalled: funding again grants again, nothing waits on them.
        committed: async () => false,
        failure: (err, reason) => outageFailure(err, reason, "account funding", windowMs),
      },
    );
  } catch (err) {
    if (!(err instanceof ChainUnavailableError)) throw err;
    // Said, not assumed: a resumed run may have actions done (the funding claim given back).
    const done = (await completedActions(deps, row.id, workflow)) ?? "none";
    const body = { ...err.toBody(), detail: `${err.detail}; actions completed before it: ${done}` };
    log.warn({ error: body.error, detail: body.detail }, "account not funded");
    return finish(deps, row, workflow, "failed", body, log);
  }
  const wallet = await accountWallet(store, deps.cipher, row.apiKeyId);
  const journal = new TxJournal(store);
  const steps = await loadSteps(store, executionId);
  let previous: ActionFlow | null = null;
  const plan: RunPlan = { actions: [], unavailable: new Map(), checked: false };

  // Each result is stored with its step under the agent's class name (engine_steps.agent and
  // result.agent); the final report packages them in workflow order (finalize.ts).
  for (const action of workflow.actions) {
    const agentName = AGENT_CLASS_NAMES[action.type];
    const step = steps.get(action.index);
    if (step?.state === "completed") {
      previous = step.result?.output ?? previous;
      continue;
    }
    if (step?.state === "failed") {
      return finish(
        deps,
        row,
        workflow,
        "failed",
        step.error ?? { error: "EXECUTION_FAILED" },
        log,
      );
    }
    if (await cancelRequested(store, executionId)) {
      return finish(
        deps,
        row,
        workflow,
        "cancelled",
        { error: "CANCELLED", detail: `cancelled before action ${action.index + 1}` },
        log,
      );
    }
    try {
      const { result, output } = await runThroughOutages(
        deps,
        workflow,
        action,
        previous,
        step ?? null,
        wallet,
        journal,
        executionId,
        plan,
        log,
      );
      const risk = evaluateRisk(result, workflow.riskThreshold);
      const stored: StepResult = { ...result, agent: agentName, output };
      await finishStep(store, executionId, action.index, risk.passed ? "completed" : "failed", {
        result: stored,
        risk,
        ...(risk.passed ? {} : { error: new RiskThresholdExceededError(agentName, risk).toBody() }),
      });
      crashPoint("step.completed");
      if (!risk.passed) throw new RiskThresholdExceededError(agentName, risk);
      previous = output;
      log.info(
        { action: action.index, agent: agentName, chain: result.chain, risk: risk.score },
        "action completed",
      );
    } catch (err) {
      if (!isFinalError(err)) throw err;
      const body = err.toBody();
      if (!(err instanceof RiskThresholdExceededError)) {
        await finishStep(store, executionId, action.index, "failed", { error: body }).catch(
          () => {},
        );
      }
      log.warn({ action: action.index, error: body.error }, "action failed");
      return finish(deps, row, workflow, "failed", { ...body, action_index: action.index }, log);
    }
  }
  // Proof and report only over transactions still final on their chains (reorgs since the steps).
  const progress: VerifyProgress = { chain: null, resent: new Set() };
  try {
    await rideOutOutage(() => journal.verifyFinal(executionId, deps.chains.list(), progress), {
      windowMs,
      log,
      context: () => ({ stage: "re-check", chain: progress.chain }),
      // Every transaction it reads was final at its depth when its step completed: nothing of
      // them is in flight, and past the window the actions stay completed (below). One it broadcast
      // again (a reorg dropped it) may still be mined, and its completed step stands on it: that
      // one is waited for however long the outage lasts, as the journal waits for a receipt.
      committed: async () => progress.resent.size > 0,
      failure: (err, reason) =>
        outageFailure(err, reason, `re-check before the proof (${progress.chain})`, windowMs),
    });
  } catch (err) {
    if (err instanceof ChainUnavailableError) {
      // As for an attestation past the window: the execution fails unattested, its actions done.
      const body = await unattested(deps, row.id, workflow, err);
      log.warn({ error: body.error, detail: body.detail }, "transactions not re-checked");
      return finish(deps, row, workflow, "failed", body, log);
    }
    if (!(err instanceof TransactionDroppedError)) throw err;
    const body = err.toBody();
    const index = Number(err.extra.action_index);
    if (index >= 0)
      await finishStep(store, executionId, index, "failed", { error: body }).catch(() => {});
    log.warn({ action: index, error: body.error, detail: body.detail }, "reorg after the steps");
    return finish(deps, row, workflow, "failed", { ...body, action_index: index }, log);
  }
  return finish(deps, row, workflow, "completed", undefined, log);
}

/** Reports the execution and records its final state. */
async function finish(
  deps: EngineDeps,
  row: EngineExecutionRow,
  workflow: Workflow,
  state: "completed" | "failed" | "cancelled",
  error: ErrorBody | undefined,
  log: Logger,
): Promise<ExecutionState> {
  const outcome = await report(deps, row, workflow, state, error, log);
  await setExecution(deps.store, row.id, {
    state: outcome.state,
    stage: "report",
    ...(outcome.error ? { error: outcome.error } : {}),
  });
  return outcome.state;
}

/**
 * Settles the payouts, then proves, attests and reports the execution (or resumes that); its
 * outcome, which an attestation that outlasted the outage window turns from completed to failed.
 */
async function report(
  deps: EngineDeps,
  row: EngineExecutionRow,
  workflow: Workflow,
  state: "completed" | "failed" | "cancelled",
  error: ErrorBody | undefined,
  log: Logger,
): Promise<{ state: "completed" | "failed" | "cancelled"; error: ErrorBody | undefined }> {
  // Every order paid on chain is settled before the report, whatever the final state. A crash
  // here resumes the settlement: each order's state and idempotency key are in the database.
  const orders = await settlePayouts(
    deps.payouts,
    { executionId: row.id, workflow, steps: await loadSteps(deps.store, row.id) },
    { onAnswered: () => crashPoint("settlement.answered") },
  );
  const windowMs = outageWindowMs(deps);
  const journal = new TxJournal(deps.store);
  const finalize = (final: typeof state, body: ErrorBody | undefined) =>
    // Finalising again resumes it (a stored report ends it, the proof is memoised, the
    // attestation journalled), so an outage of a chain it reads or attests on is ridden out.
    rideOutOutage(
      () =>
        finalizeExecution(
          deps,
          {
            id: row.id,
            apiKeyId: row.apiKeyId,
            name: row.name,
            workflow,
            state: final,
            error: body,
            orders,
          },
          log,
        ),
      {
        windowMs,
        log,
        context: () => ({ stage: "finalize", state: final }),
        // The attestation signed or mined, or a completed execution's report begun (its fee
        // may be settled): it must end completed, however long that takes.
        committed: async () =>
          (await journal.committed(row.id, FINAL_STEP)) ||
          (final === "completed" && (await loadExecution(deps.store, row.id))?.stage === "report"),
        failure: (err, reason) =>
          outageFailure(
            err,
            reason,
            `finalisation (attestation on ${homeChain(deps.chains.list()).name})`,
            windowMs,
          ),
      },
    );
  // A failed or cancelled execution's outcome does not depend on the chains its report reads
  // (the evidence of its transactions): past the window it stands as it is and its report waits
  // for them, finalised again by the recovery sweep (worker.ts). Throwing instead would fail the
  // job until the queue's last attempt overwrote the outcome with EXECUTION_FAILED.
  const finalizeOrWait = async (final: "failed" | "cancelled", body: ErrorBody | undefined) => {
    try {
      await finalize(final, body);
    } catch (err) {
      if (!(err instanceof ChainUnavailableError)) throw err;
      await awaitReport(deps.store, row.id);
      log.warn({ state: final, detail: err.detail }, "report waits for its chain");
    }
  };
  if (state !== "completed") {
    await finalizeOrWait(state, error);
    return { state, error };
  }
  try {
    await finalize(state, error);
    return { state, error };
  } catch (err) {
    if (!(err instanceof ChainUnavailableError)) throw err;
    // The actions are done and stay done: the execution fails for its attestation alone, and
    // its report says so with every completed action and its transactions.
    const body = await unattested(deps, row.id, workflow, err);
    await finishStep(deps.store, row.id, FINAL_STEP, "failed", { error: body }).catch(() => {});
    log.warn({ error: body.error, detail: body.detail }, "execution not attested");
    await finalizeOrWait("failed", body);
    return { state: "failed", error: body };
  }
}

/** The failure of a stage after the actions past the window: not attested, its actions done. */
async function unattested(
  deps: EngineDeps,
  executionId: string,
  workflow: Workflow,
  err: ChainUnavailableError,
): Promise<ErrorBody> {
  const done = (await completedActions(deps, executionId, workflow)) ?? "none";
  return {
    ...err.toBody(),
    detail: `${err.detail}; not attested, and its completed actions stay completed (their transactions are in the report): ${done}`,
  };
}

/** The completed actions, numbered from 1, "of" their count (`1, 2 of 4`); null when none. */
async function completedActions(
  deps: EngineDeps,
  executionId: string,
  workflow: Workflow,
): Promise<string | null> {
  const steps = await loadSteps(deps.store, executionId);
  const done = workflow.actions.filter((a) => steps.get(a.index)?.state === "completed");
  if (!done.length) return null;
  return `${done.map((a) => a.index + 1).join(", ")} of ${workflow.actions.length}`;
}

/**
 * The workflow's routing decision as the run follows it (relayer/routing `planWorkflow`): the plan
 * of the actions from the next one on, and the chains found unavailable so far. A chain found
 * unavailable before its action starts re-plans the remaining actions as a whole.
 */
interface RunPlan {
  actions: PlannedAction[];
  unavailable: Map<string, string>;
  /** Whether every chain's health was checked before the first plan of this run. */
  checked: boolean;
}

/** The planned chain of `action`, re-planning the rest of the workflow from it when needed. */
async function plannedChain(
  deps: EngineDeps,
  workflow: Workflow,
  action: WorkflowAction,
  previous: ActionFlow | null,
  account: string,
  plan: RunPlan,
  executionId: string,
): Promise<{ chain: RoutingChain; fallbackFrom: string | null; fallbackReason?: string }> {
  const chains = deps.chains.list();
  const cap = deps.baseFeeCapGwei ?? DEFAULT_BASE_FEE_CAP_GWEI;
  if (!plan.checked) {
    // Planned around the chains that are down or congested now (a failed read looks like an
    // empty pool to routing); later changes are caught before each action.
    const health = await Promise.all(chains.map((c) => chainHealth(c, cap)));
    health.forEach((h, i) => {
      if (!h.ok) plan.unavailable.set(chains[i]!.name, h.reason ?? "unavailable");
    });
    plan.checked = true;
  }
  for (;;) {
    if (plan.actions[0]?.index !== action.index) {
      plan.actions = await planWorkflow(
        chains,
        { actions: workflow.actions.slice(action.index), gasStrategy: workflow.gasStrategy },
        {
          account,
          gasStrategy: workflow.gasStrategy,
          start: { index: action.index, previous },
          unavailable: plan.unavailable,
        },
      );
    }
    const planned = plan.actions[0]!;
    const chain = chainByName(chains, planned.chain);
    const health = await chainHealth(chain, cap);
    if (health.ok) {
      plan.actions = plan.actions.slice(1);
      return {
        chain,
        fallbackFrom: planned.fallbackFrom ?? null,
        ...(planned.fallbackReason ? { fallbackReason: planned.fallbackReason } : {}),
      };
    }
    deps.logger.warn(
      { executionId, action: action.index, chain: chain.name, reason: health.reason },
      "chain unavailable, re-planning the remaining actions",
    );
    plan.unavailable.set(chain.name, health.reason ?? "unavailable");
    plan.actions = [];
  }
}

/**
 * Runs the action, riding out an RPC outage of its chain (outage.ts). Running an action again
 * resumes it (its chain kept once started, its journalled transactions awaited and their stored
 * bytes broadcast again, never re-signed), so trying again is safe at any point:
 * - not committed (nothing signed that is not mined yet, nothing mined but approvals): it is
 *   tried again, re-planned from a fresh health check of every chain while it has not started (a
 *   fallback chain is taken at once, as before), up to the outage window; then it fails with
 *   CHAIN_UNAVAILABLE and nothing of it moved value;
 * - committed (`TxJournal.committed`: a transaction that may still be mined, or a deposit or
 *   payment already mined): it waits as long as the outage lasts, as the journal does for a
 *   receipt; failing then would report as failed an action that paid, or may still pay.
 */
async function runThroughOutages(
  deps: EngineDeps,
  workflow: Workflow,
  action: WorkflowAction,
  previous: ActionFlow | null,
  startedStep: StepRow | null,
  wallet: Wallet,
  journal: TxJournal,
  executionId: string,
  plan: RunPlan,
  log: Logger,
): ReturnType<typeof runAction> {
  const windowMs = outageWindowMs(deps);
  let step = startedStep;
  return rideOutOutage(
    () => runAction(deps, workflow, action, previous, step, wallet, journal, executionId, plan),
    {
      windowMs,
      log,
      context: () => ({ action: action.index, chain: step?.chain }),
      committed: () => journal.committed(executionId, action.index),
      onOutage: async () => {
        step = (await loadSteps(deps.store, executionId)).get(action.index) ?? null;
        // Not started: planned again from scratch, so a chain that came back is a candidate again.
        if (!step?.chain)
          Object.assign(plan, { actions: [], unavailable: new Map(), checked: false });
      },
      failure: (err, reason) => outageFailure(err, reason, step?.chain, windowMs),
    },
  );
}

/**
 * One action: its input (chaining rule), its chain (kept from a started step, else the plan's,
 * re-planned when that chain is down or congested), its agent.
 */
async function runAction(
  deps: EngineDeps,
  workflow: Workflow,
  action: WorkflowAction,
  previous: ActionFlow | null,
  step: StepRow | null,
  wallet: Wallet,
  journal: TxJournal,
  executionId: string,
  plan: RunPlan,
): Promise<{
  result: AgentResult & Pick<StepResult, "fallback_from" | "fallback_reason" | "orders">;
  output: ActionFlow;
}> {
  const input = actionInput(action, previous, action.index);
  const policy = deps.referencePolicy ?? DEFAULT_REFERENCE_POLICY;
  const agentName = AGENT_CLASS_NAMES[action.type];
  const { chain, fallbackFrom, fallbackReason } = step?.chain
    ? {
        chain: chainByName(deps.chains.list(), step.chain),
        fallbackFrom: step.fallback_from,
        fallbackReason: undefined,
      }
    : await plannedChain(deps, workflow, action, previous, wallet.address, plan, executionId);
  await startStep(deps.store, executionId, action.index, agentName, chain.name, fallbackFrom, {
    asset: input.asset,
    amount: input.amount,
    previous,
    ...(fallbackReason ? { fallback_reason: fallbackReason } : {}),
  });
  const paying = action.recipientsFrom
    ? await payoutOrders(deps.payouts, action.recipientsFrom, input, chain, {
        executionId,
        actionIndex: action.index,
        memo: stepMemo(deps.store, executionId, action.index),
      })
    : undefined;
  const result = await runAgent(
    taskFor(action, input, chain, paying?.orders),
    { chain_id: chain.chainId, gas_strategy: workflow.gasStrategy },
    {
      chains: deps.chains,
      account: wallet,
      journal,
      executionId,
      actionIndex: action.index,
      // A workflow with jurisdictions is screened against exactly the lists they require.
      screen: (address, screenChain) =>
        (deps.screen ?? oracleScreen)(
          address,
          screenChain,
          workflow.compliance?.jurisdictions?.length
            ? workflow.compliance.sanctionsLists
            : undefined,
          { executionId, actionIndex: action.index },
        ),
      onSanctioned: (result: ScreenResult, role: string) =>
        recordAlert(deps.store, executionId, action.index, result, role),
      memo: stepMemo(deps.store, executionId, action.index),
      poolLocks: deps.poolLocks,
      ownMoves: poolMoves(deps.store, policy.windowSeconds * 2),
      referencePolicy: policy,
    },
    { complianceCheck: true },
  );
  return {
    result: {
      ...result,
      fallback_from: fallbackFrom,
      ...(fallbackReason ? { fallback_reason: fallbackReason } : {}),
      ...(paying ? { orders: paying } : {}),
    },
    output: outputOf(result, input, chain),
  };
}
