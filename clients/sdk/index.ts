/**
 * The Veriflow SDK (`import { VeriflowClient } from "veriflow/sdk"`): a typed client of the
 * relayer's REST API, its types generated from the OpenAPI document (openapi.ts, checked current
 * by `npm run sdk:types -- --check`). It depends on the HTTP contract only, never on relayer code.
 */
export {
  VeriflowClient,
  type Execution,
  type ExecutionState,
  type RetryPolicy,
  type Schemas,
  type SubmissionResult,
  type VeriflowClientOptions,
  type WaitOptions,
  type WorkflowInput,
  type WorkflowSubmission,
} from "./client.ts";
export {
  ERROR_CODES,
  ExecutionFailedError,
  isApiError,
  VeriflowApiError,
  type ErrorBody,
  type KnownErrorCode,
} from "./errors.ts";
export {
  hmacSigning,
  signatureHeaders,
  signingClock,
  signRequest,
  type Credentials,
  type SignedTarget,
} from "./signing.ts";
export { verifyWebhook, WebhookVerificationError } from "./webhooks.ts";
export type { components, paths } from "./openapi.ts";
