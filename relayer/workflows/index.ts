/** The workflows area's public surface: other areas and the composition root import it from here only. */
export { createWorkflowIntake, startWorkflowJobs, type WorkflowIntake } from "./service.ts";
export { executionIdParamSchema } from "./schemas.ts";
