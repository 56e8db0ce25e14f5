/**
 * A token bucket per integration (`rate_limit.rps`, `.burst`): up to `burst` requests at once, then
 * `rps` per second. Own code: cockatiel has no rate limiter. `reserve` returns how long the caller
 * must wait for its token (0: send now); reservations queue in order.
 */
export class TokenBucket {
  private readonly rps: number;
  private readonly burst: number;
  private tokens: number;
  private updatedAt: number;

  constructor(limit: { rps: number; burst: number }, now: number) {
    this.rps = limit.rps;
    this.burst = limit.burst;
    this.tokens = limit.burst;
    this.updatedAt = now;
  }

  /** Takes one token (possibly in the future) and returns the wait in milliseconds. */
  reserve(now: number): number {
    if (now > this.updatedAt) {
      this.tokens = Math.min(this.burst, this.tokens + ((now - this.updatedAt) * this.rps) / 1000);
      this.updatedAt = now;
    }
    this.tokens -= 1;
    if (this.tokens >= 0) return 0;
    return Math.ceil((-this.tokens * 1000) / this.rps);
  }
}
