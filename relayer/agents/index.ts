/**
 * Agents (spec "Task"): one class per action type, constructed with `{chain_id, gas_strategy}`
 * (default `eco`); `execute({action, params}, {complianceCheck = true})`.
 *
 * What passes between the engine's stages is typed per action type: `Task` and `AgentResult` are
 * discriminated unions on `action`. Each agent module owns its task (built from the normalised
 * action), its result schema and what its result hands to the next action; this module dispatches.
 */
import { z } from "zod";
import type { ChainAssets, ActionFlow } from "../routing/index.ts";
import type { WorkflowAction } from "../model/index.ts";
import type { AgentConfig, AgentEnvironment, ExecuteOptions } from "./base.ts";
import { Agent } from "./base.ts";
import {
  BridgeAgent,
  bridgeOutput,
  bridgeResultSchema,
  bridgeTask,
  type BridgeResult,
  type BridgeTask,
} from "./bridge.ts";
import {
  MultisendAgent,
  multisendOutput,
  multisendResultSchema,
  multisendTask,
  type MultisendResult,
  type MultisendTask,
} from "./multisend.ts";
import {
  ConvertAgent,
  SwapAgent,
  swapOutput,
  swapResultSchema,
  swapTask,
  type SwapResult,
  type SwapTask,
} from "./swap.ts";

export { Agent, BridgeAgent, ConvertAgent, MultisendAgent, SwapAgent };
export type {
  AgentConfig,
  AgentEnvironment,
  AgentMetrics,
  AgentResultBase,
  ExecuteOptions,
  TxRecord,
} from "./base.ts";
export { agentMetricsSchema, txRecordSchema } from "./base.ts";
export type { BridgeResult, BridgeTask, MultisendResult, MultisendTask, SwapResult, SwapTask };
export {
  oracleScreen,
  combineScreens,
  screenResultSchema,
  type ComplianceScreen,
  type ScreenResult,
} from "../compliance/index.ts";

/** Spec "Task": the input of an agent, one shape per action type. */
export type Task = SwapTask | BridgeTask | MultisendTask;

/** What an agent returns, one shape per action type. */
export type AgentResult = SwapResult | BridgeResult | MultisendResult;

/** Reads a stored agent result back (one schema per kind; unknown fields are dropped). */
export const agentResultSchema = z.discriminatedUnion("action", [
  swapResultSchema,
  bridgeResultSchema,
  multisendResultSchema,
]);

/**
 * The spec's "stored under the agent's class name": the name each action type's agent runs
 * under, recorded with its step (`engine_steps.agent`) and its report entry.
 */
export const AGENT_CLASS_NAMES = {
  swap: "SwapAgent",
  convert: "ConvertAgent",
  bridge: "BridgeAgent",
  multisend: "MultisendAgent",
} as const satisfies Record<WorkflowAction["type"], string>;
export type AgentClassName = (typeof AGENT_CLASS_NAMES)[keyof typeof AGENT_CLASS_NAMES];

/** The task of a normalised action, given its input (explicit or chained) on `chain`. */
export function taskFor(
  action: WorkflowAction,
  input: Pick<ActionFlow, "asset" | "amount">,
  chain: ChainAssets,
  /** A `recipients_from` multisend: the orders fetched for it. */
  orders?: ReadonlyArray<{ address: string; amount: string }>,
): Task {
  switch (action.type) {
    case "swap":
    case "convert":
      return swapTask({ ...action, type: action.type }, input);
    case "bridge":
      return bridgeTask({ ...action, type: action.type }, input);
    case "multisend":
      return multisendTask({ ...action, type: action.type }, input, chain, orders);
  }
}

/** Runs `task` with the agent of its type on the chain of `config`. */
export function runAgent(
  task: Task,
  config: AgentConfig,
  env: AgentEnvironment,
  options?: ExecuteOptions,
): Promise<AgentResult> {
  switch (task.action) {
    case "swap":
      return new SwapAgent(config, env).execute(task, options);
    case "convert":
      return new ConvertAgent(config, env).execute(task, options);
    case "bridge":
      return new BridgeAgent(config, env).execute(task, options);
    case "multisend":
      return new MultisendAgent(config, env).execute(task, options);
  }
}

/** What a result hands to the next action (chaining rule), read by the agent that produced it. */
export function outputOf(
  result: AgentResult,
  input: Pick<ActionFlow, "amount">,
  chain: ChainAssets,
): ActionFlow {
  switch (result.action) {
    case "swap":
    case "convert":
      return swapOutput(result);
    case "bridge":
      return bridgeOutput(result);
    case "multisend":
      return multisendOutput(result, input, chain);
  }
}
