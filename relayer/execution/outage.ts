import type { Logger } from "pino";
import { chainUnavailableReason } from "../chains/index.ts";
import { ChainUnavailableError } from "../routing/index.ts";
import { DEFAULT_CHAIN_OUTAGE_WINDOW_SECONDS } from "./health.ts";

/** How often a stage waiting out a chain outage tries again. */
const OUTAGE_RETRY_MS = 500;

/** The outage window of an engine, in milliseconds (`chainOutageWindowSeconds`, 0: no wait). */
export function outageWindowMs(deps: { chainOutageWindowSeconds?: number | undefined }): number {
  return (deps.chainOutageWindowSeconds ?? DEFAULT_CHAIN_OUTAGE_WINDOW_SECONDS) * 1_000;
}

export interface OutageRide {
  windowMs: number;
  log: Logger;
  /** What waits, for the log (read after `onOutage`). */
  context: () => Record<string, unknown>;
  /**
   * Whether the stage is committed to its chain (a transaction that may still be mined, or one
   * that moved value mined): then it waits however long the outage lasts.
   */
  committed: () => Promise<boolean>;
  /** After each outage, before the next try: refresh what that try (and `failure`) reads. */
  onOutage?: () => Promise<void>;
  /** The explicit error once an uncommitted stage outlasted the window. */
  failure: (err: unknown, reason: string) => Error;
}

/**
 * Runs a stage of an execution, riding out an RPC outage of the chains it calls: a failure that
 * `chainUnavailableReason` reads as an outage is tried again every OUTAGE_RETRY_MS, up to the
 * window unless the stage is committed. Only for stages that resume when run again (persisted
 * decisions, journalled transactions awaited and never re-signed), so trying again is safe at any
 * point. Any other failure is thrown as it is.
 */
export async function rideOutOutage<T>(run: () => Promise<T>, ride: OutageRide): Promise<T> {
  let outageSince: number | null = null;
  for (;;) {
    try {
      return await run();
    } catch (err) {
      const reason = chainUnavailableReason(err);
      if (reason === null) throw err;
      const first = outageSince === null;
      outageSince ??= Date.now();
      await ride.onOutage?.();
      const committed = await ride.committed();
      const waitedMs = Date.now() - outageSince;
      if (!committed && waitedMs >= ride.windowMs) throw ride.failure(err, reason);
      // Once per outage at warn: the tries every OUTAGE_RETRY_MS would flood the log.
      ride.log[first ? "warn" : "debug"](
        { ...ride.context(), committed, waitedMs, reason },
        "chain unreachable, waiting for it",
      );
      await new Promise((resolve) => setTimeout(resolve, OUTAGE_RETRY_MS));
    }
  }
}

/** The explicit failure of an outage that outlasted the window: CHAIN_UNAVAILABLE naming `where`. */
export function outageFailure(
  err: unknown,
  reason: string,
  where: string | null | undefined,
  windowMs: number,
): ChainUnavailableError {
  const waited = `still unreachable after the ${windowMs / 1_000} s outage window`;
  if (err instanceof ChainUnavailableError)
    return new ChainUnavailableError(err.chain, `${err.detail} (${waited})`);
  const name = where ?? "unknown";
  return new ChainUnavailableError(name, `${name}: ${reason.slice(0, 200)} (${waited})`);
}
