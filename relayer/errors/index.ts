/** The one error base and the error families shared by several areas. */
export { VeriflowError } from "./base.ts";
export type { ErrorBody } from "./base.ts";
export { AgentError } from "./agent.ts";
export type { AgentErrorCode } from "./agent.ts";
