import { ApiError } from "../http/index.ts";

/**
 * Failed authentications per source address, per process: past `limit` failures in a fixed
 * one-minute window, the address gets 429 `AUTH_TOO_MANY_FAILURES` (with `Retry-After`) before
 * any header is checked or any key looked up, until the window ends. Bounds what guessing keys or
 * replaying signatures costs the service; a client that authenticates never counts. In memory:
 * each process counts its own share of an address's attempts.
 */
export const DEFAULT_FAILED_AUTH_PER_MINUTE = 60;
const WINDOW_MS = 60_000;
const MAX_ADDRESSES = 10_000;

export class FailedAuthLimiter {
  readonly #limit: number;
  readonly #windows = new Map<string, { start: number; failures: number }>();

  constructor(limit = DEFAULT_FAILED_AUTH_PER_MINUTE) {
    this.#limit = limit;
  }

  /** Throws the 429 while `address` is over the limit in the current window. */
  check(address: string, now: number): void {
    const window = this.#windows.get(address);
    if (!window || now - window.start >= WINDOW_MS || window.failures < this.#limit) return;
    const retryIn = Math.max(1, Math.ceil((window.start + WINDOW_MS - now) / 1000));
    throw new ApiError(
      429,
      "AUTH_TOO_MANY_FAILURES",
      `more than ${this.#limit} failed authentications from this address in a minute; retry in ${retryIn} s`,
      { retry_in: retryIn },
      { "Retry-After": String(retryIn) },
    );
  }

  record(address: string, now: number): void {
    const window = this.#windows.get(address);
    if (window && now - window.start < WINDOW_MS) {
      window.failures++;
      return;
    }
    if (this.#windows.size >= MAX_ADDRESSES) this.#sweep(now);
    this.#windows.set(address, { start: now, failures: 1 });
  }

  #sweep(now: number): void {
    for (const [address, window] of this.#windows) {
      if (now - window.start >= WINDOW_MS) this.#windows.delete(address);
    }
    // Still full of live windows (a spread-out attack): start over rather than grow.
    if (this.#windows.size >= MAX_ADDRESSES) this.#windows.clear();
  }
}
