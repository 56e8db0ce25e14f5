/**
 * Webhooks: endpoints per API key (routes.ts), deliveries enqueued by database triggers in the
 * transaction of each execution event (migration 700), sent by the dispatcher (dispatch.ts).
 */
import type { Config } from "../config/index.ts";
import type { TargetPolicy } from "./targets.ts";

export { startDispatcher, dispatchOnce, MAX_ATTEMPTS, retryDelayMs } from "./dispatch.ts";
export { WEBHOOK_EVENT_TYPES, type WebhookEventType } from "./endpoints.ts";
export { isPrivateAddress, refuseUrl, type TargetPolicy } from "./targets.ts";

/** Plain HTTP and private addresses only for the development devnet; production is HTTPS to public hosts. */
export function webhookPolicy(config: Pick<Config, "env" | "chains">): TargetPolicy {
  return { allowPrivate: config.env !== "production" && config.chains.mode === "embedded" };
}
