/** An execution's lifecycle, shared by intake, the engine, the repository and the status view. */
export const EXECUTION_STATES = ["queued", "running", "completed", "failed", "cancelled"] as const;
export type ExecutionState = (typeof EXECUTION_STATES)[number];
export const EXECUTION_STAGES = ["validate", "route", "execute", "prove", "report"] as const;
export type ExecutionStage = (typeof EXECUTION_STAGES)[number];
