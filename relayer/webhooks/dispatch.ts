import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import type { LookupFunction } from "node:net";
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
import {
  resolveTarget,
  TargetRefusedError,
  type HostLookup,
  type ResolvedTarget,
  type TargetPolicy,
} from "./targets.ts";

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
  /** Name resolution (the system's by default). */
  lookup?: HostLookup;
  /** Per attempt (default 10 s). */
  attemptTimeoutMs?: number;
}

/**
 * POSTs `body` to the resolved target: the connection goes to `target.address` (the name is not
 * resolved again), while the Host header and TLS server name stay the URL's host. Redirects are
 * not followed; the answer's body is discarded. Resolves with the status code.
 */
export function postToTarget(
  target: ResolvedTarget,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
): Promise<number> {
  const pinned: LookupFunction = (_host, options, callback) => {
    if (options.all) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  };
  const send = target.url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(
      target.url,
      {
        method: "POST",
        lookup: pinned,
        headers: { ...headers, "Content-Length": String(Buffer.byteLength(body)) },
        timeout: timeoutMs,
        signal: AbortSignal.timeout(timeoutMs),
      },
      (res: IncomingMessage) => {
        res.resume();
        res.once("end", () => resolve(res.statusCode ?? 0));
        res.once("error", reject);
      },
    );
    req.once("timeout", () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.once("error", reject);
    req.end(body);
  });
}

async function attempt(
  delivery: ClaimedDelivery,
  policy: TargetPolicy,
  lookup: HostLookup | undefined,
  timeoutMs: number,
): Promise<number> {
  const target = await resolveTarget(delivery.url, policy, lookup);
  const id = messageId(delivery.id);
  const at = new Date();
  return postToTarget(
    target,
    {
      "Content-Type": "application/json",
      "User-Agent": "veriflow-webhooks/1",
      "webhook-id": id,
      "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
      "webhook-signature": new Webhook(delivery.secret).sign(id, at, delivery.body),
    },
    delivery.body,
    timeoutMs,
  );
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
          status = await attempt(
            delivery,
            deps.policy,
            deps.lookup,
            deps.attemptTimeoutMs ?? ATTEMPT_TIMEOUT_MS,
          );
          if (status >= 200 && status < 300) {
            await markDelivered(deps.store, delivery.id, status);
            return;
          }
          throw new Error(`answered ${status}`);
        } catch (err) {
          const permanent = err instanceof TargetRefusedError;
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
