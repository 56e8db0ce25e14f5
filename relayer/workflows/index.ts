/** The workflows area's public surface: other areas and the composition root import it from here only. */
export { createWorkflowIntake } from "./submissions.ts";
export { purgeExpiredIdempotencyKeys } from "./idempotency.ts";
export type { WorkflowIntake } from "./intake.ts";
export { executionIdParamSchema } from "./schemas.ts";
