/** The http area's public surface: other areas import it from here only. */
export {
  checkRequestUrl,
  documentHazard,
  loadBody,
  MAX_BODY_BYTES,
  mediaType,
  readBounded,
} from "./body.ts";
export { docsRoutes } from "./docs.ts";
export type { AppEnv, AuthenticatedKey, RateDecision } from "./env.ts";
export {
  ApiError,
  errorSchema,
  renderError,
  renderNotFound,
  validationErrorSchema,
} from "./errors.ts";
export {
  checkIdempotencyKey,
  IDEMPOTENCY_TTL_HOURS,
  idempotencyKeyReused,
  requestHash,
} from "./idempotency.ts";
export { createLogger } from "./logging.ts";
export { createMetrics, registerQueueMetrics } from "./metrics.ts";
export type { Metrics } from "./metrics.ts";
export { completeDocument } from "./openapi.ts";
export { queryInteger, queryIntegerOr } from "./query.ts";
export { createRouter } from "./router.ts";
export { HMAC_SECURITY, SECURITY_SCHEMES, acceptsBearer, isPublicPath } from "./security.ts";
export { listen } from "./server.ts";
export type { RunningServer } from "./server.ts";
export { issuesFromZod, validationFailed } from "./validation.ts";
export type { ValidationIssue } from "./validation.ts";
