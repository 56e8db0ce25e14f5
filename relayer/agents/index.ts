/**
 * Agents (spec "Task"): one class per action type, constructed with `{chain_id, gas_strategy}`
 * (default `eco`); `execute({action, params}, {complianceCheck = true})`.
 */
import type { AgentConfig, AgentEnvironment } from "./base.ts";
import { Agent } from "./base.ts";
import { BridgeAgent } from "./bridge.ts";
import { MultisendAgent } from "./multisend.ts";
import { ConvertAgent, SwapAgent } from "./swap.ts";

export { Agent, BridgeAgent, ConvertAgent, MultisendAgent, SwapAgent };
export type {
  AgentConfig,
  AgentEnvironment,
  AgentMetrics,
  AgentResult,
  ExecuteOptions,
  Task,
  TxRecord,
} from "./base.ts";
export { AgentError, type AgentErrorCode } from "./errors.ts";
export {
  oracleScreen,
  combineScreens,
  type ComplianceScreen,
  type ScreenResult,
} from "./compliance.ts";

const AGENTS = {
  swap: SwapAgent,
  convert: ConvertAgent,
  bridge: BridgeAgent,
  multisend: MultisendAgent,
} as const;

export function agentFor(action: string, config: AgentConfig, env: AgentEnvironment): Agent {
  const AgentClass = AGENTS[action as keyof typeof AGENTS];
  if (!AgentClass) throw new Error(`no agent for action ${action}`);
  return new AgentClass(config, env);
}
