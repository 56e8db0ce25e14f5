/**
 * The workflow model: what a workflow is (its actions, recipients, schedule and compliance), its
 * identifiers and an execution's lifecycle. Intake, the engine, the agents and the integrations
 * share it; it imports nothing of theirs.
 */
export {
  ACTION_TYPES,
  DEFAULT_MAX_ORDERS,
  DEFAULT_RISK_THRESHOLD,
  DEFAULT_SLIPPAGE_BPS,
  GAS_STRATEGIES,
  MAX_ORDERS_LIMIT,
  ROUTE_PRIORITIES,
  WORKFLOW_MODEL_VERSION,
  type ActionType,
  type GasStrategy,
  type Recipient,
  type RecipientAmount,
  type RecipientsFrom,
  type RoutePriority,
  type Workflow,
  type WorkflowAction,
  type WorkflowCompliance,
  type WorkflowSchedule,
} from "./workflow.ts";
export { isId, newDeploymentId, newExecutionId, newScheduleId, ulid } from "./ids.ts";
export {
  EXECUTION_STAGES,
  EXECUTION_STATES,
  type ExecutionStage,
  type ExecutionState,
} from "./execution.ts";
