import { Webhook } from "standardwebhooks";
import type { Logger } from "pino";
import type { SecretCipher } from "../accounts/index.ts";
import type { Store } from "../store/index.ts";
import {
  claimDue,
  markAttemptFailed,
  markDelivered,
  messageId,
  type ClaimedDelivery,
} from "./endpoints.ts";
import { refuseResolved, type TargetPolicy } from "./targets.ts";

/**
 * Sends due webhook deliveries: signed per Standard Webhooks (`webhook-id` = the delivery's
 * message id, the same on every attempt; `webhook-timestamp`; `webhook-signature` = v1 HMAC-SHA256
 * with the endpoint's secret over `id.timestamp.body`). A 2xx answer is delivered; anything else
 * (another status, a timeout, a refused connection) is retried after 1, 2, 4, … s (capped at
 * 10 min) up to MAX_ATTEMPTS, then failed (redeliver with POST /v1/webhooks/{id}/redeliver).
 * Redirects are not followed. Every process polls; claims in the database split the work.
 */
export const MAX_ATTEMPTS = 12;
const ATTEMPT_TIMEOUT_MS = 10_000;
const LEASE_SECONDS = 60;
const POLL_MS = 500;

export function retryDelayMs(attempts: number): number | null {
  if (attempts >= MAX_ATTEMPTS) return null;
  return Math.min(1_000 * 2 ** (attempts - 1), 600_000);
}

export interface DispatcherDeps {
  store: Store;
  cipher: SecretCipher;
  logger: Logger;
  policy: TargetPolicy;
}

async function attempt(delivery: ClaimedDelivery, policy: TargetPolicy): Promise<number> {
  const refused = await refuseResolved(delivery.url, policy);
  if (refused) throw Object.assign(new Error(refused), { permanent: true });
  const id = messageId(delivery.id);
  const at = new Date();
  const res = await fetch(delivery.url, {
    method: "POST",
    redirect: "manual",
    signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
    headers: {
      "Content-Type": "application/json",
      "User-Agent": "veriflow-webhooks/1",
      "webhook-id": id,
      "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
      "webhook-signature": new Webhook(delivery.secret).sign(id, at, delivery.body),
    },
    body: delivery.body,
  });
  await res.body?.cancel().catch(() => undefined);
  return res.status;
}

/** One pass: claims and sends until nothing is due. Returns how many were attempted. */
export async function dispatchOnce(deps: DispatcherDeps): Promise<number> {
  let total = 0;
  for (;;) {
    const claimed = await claimDue(deps.store, deps.cipher, 16, LEASE_SECONDS);
    if (claimed.length === 0) return total;
    total += claimed.length;
    await Promise.all(
      claimed.map(async (delivery) => {
        let status: number | null = null;
        try {
          status = await attempt(delivery, deps.policy);
          if (status >= 200 && status < 300) {
            await markDelivered(deps.store, delivery.id, status);
            return;
          }
          throw new Error(`answered ${status}`);
        } catch (err) {
          const permanent = (err as { permanent?: boolean }).permanent === true;
          const retryInMs = permanent ? null : retryDelayMs(delivery.attempts);
          deps.logger.warn(
            {
              webhook: delivery.endpointId,
              message: messageId(delivery.id),
              attempts: delivery.attempts,
              status,
              error: (err as Error).message,
              retry_in_ms: retryInMs,
            },
            "webhook delivery failed",
          );
          await markAttemptFailed(deps.store, delivery.id, {
            status,
            error: (err as Error).message,
            retryInMs,
          });
        }
      }),
    );
  }
}

/** Polls until stopped; the returned function stops it and waits for the pass in progress. */
export function startDispatcher(deps: DispatcherDeps): () => Promise<void> {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  const tick = () => {
    running = dispatchOnce(deps)
      .catch((err: Error) => deps.logger.error({ err }, "webhook dispatch failed"))
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, POLL_MS);
      });
  };
  tick();
  return async () => {
    stopped = true;
    clearTimeout(timer);
    await running;
  };
}
