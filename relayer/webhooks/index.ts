/**
 * Webhooks: endpoints per API key (routes.ts), deliveries enqueued by database triggers in the
 * transaction of each execution event (migration 700), sent by the dispatcher (dispatch.ts).
 */
import type { Config } from "../config/index.ts";
import type { TargetPolicy } from "./targets.ts";

export {
  startDispatcher,
  dispatchOnce,
  postToTarget,
  MAX_ATTEMPTS,
  retryDelayMs,
  type DispatcherDeps,
} from "./dispatch.ts";
export {
  claimDue,
  createEndpoint,
  listDeliveries,
  markAttemptFailed,
  messageId,
  WEBHOOK_EVENT_TYPES,
  type WebhookEventType,
} from "./endpoints.ts";
// All of targets.ts is the area's surface: the URL policy routes and tests apply too.
export * from "./targets.ts";

/** Plain HTTP and private addresses only for the development devnet; production is HTTPS to public hosts. */
export function webhookPolicy(config: Pick<Config, "env" | "chains">): TargetPolicy {
  return { allowPrivate: config.env !== "production" && config.chains.mode === "embedded" };
}
