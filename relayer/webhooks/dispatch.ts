import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import type { LookupFunction } from "node:net";
import { Webhook } from "standardwebhooks";
import type { Logger } from "pino";
import type { SecretCipher } from "../accounts/index.ts";
import type { Store } from "../store/index.ts";
import {
  claimDue,
  DELIVERY_CHANNEL,
  markAttemptFailed,
  markDelivered,
  messageId,
  nextDueInMs,
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
 * Redirects are not followed. Every process runs a dispatcher; claims in the database split the
 * work. At rest a dispatcher does little: a delivery due now wakes it through the database's
 * notification (every process on PostgreSQL), a retry by its timer set to the next due delivery,
 * and a slow poll finds what no notification announced (a connection lost meanwhile).
 */
export const MAX_ATTEMPTS = 12;
const ATTEMPT_TIMEOUT_MS = 10_000;
const LEASE_SECONDS = 60;
/** The slow poll's interval: the longest a delivery no notification announced waits. */
export const SLOW_POLL_MS = 10_000;
/**
 * The least a timer waits after a pass: a due delivery that a claim skips (another process holds
 * its row for a moment) must not turn the timer into a busy loop. Notifications are not delayed.
 */
const MIN_TIMER_MS = 100;

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
  /** The slow poll's interval (default SLOW_POLL_MS). */
  slowPollMs?: number;
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

/**
 * Dispatches until stopped: a pass at start, then one whenever a due delivery is notified, the
 * next pending one comes due, or the slow poll's interval passed, whichever is first; passes never
 * overlap (a wake during a pass runs another after it). Resolves once listening and the first pass
 * is done, with the function that stops it and waits for the pass in progress.
 */
export async function startDispatcher(deps: DispatcherDeps): Promise<() => Promise<void>> {
  const slowPollMs = deps.slowPollMs ?? SLOW_POLL_MS;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let timerAt = Infinity;
  let running: Promise<void> | null = null;
  let wokenDuringPass = false;
  const runAt = (delayMs: number) => {
    if (stopped || Date.now() + delayMs >= timerAt) return;
    clearTimeout(timer);
    timerAt = Date.now() + delayMs;
    timer = setTimeout(pass, delayMs);
  };
  const pass = () => {
    if (stopped) return;
    clearTimeout(timer);
    timerAt = Infinity;
    if (running) {
      wokenDuringPass = true;
      return;
    }
    running = (async () => {
      let next: number | null;
      try {
        await dispatchOnce(deps);
        next = await nextDueInMs(deps.store);
      } catch (err) {
        deps.logger.error({ err }, "webhook dispatch failed");
        next = null;
      }
      running = null;
      if (wokenDuringPass) {
        wokenDuringPass = false;
        pass();
      } else {
        runAt(next === null ? slowPollMs : Math.max(MIN_TIMER_MS, Math.min(next, slowPollMs)));
      }
    })();
  };
  const unlisten = await deps.store.listen(DELIVERY_CHANNEL, pass);
  pass();
  await running;
  return async () => {
    stopped = true;
    clearTimeout(timer);
    await unlisten();
    await running;
  };
}
