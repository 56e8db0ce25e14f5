import { VeriflowError } from "../errors/index.ts";

/**
 * Routing failures carry the spec's error body fields: an upper-case `code`, a `detail` a client can
 * act on and, for liquidity, `retry_in` (seconds).
 */
export class InsufficientLiquidityError extends VeriflowError {
  /** Seconds after which a retry may find the pools refilled. */
  readonly retry_in: number;
  /** Where the order would fit, when somewhere does (chain and exchange). */
  readonly alternative: { chain: string; exchange: string } | null;

  constructor(
    detail: string,
    alternative: { chain: string; exchange: string } | null,
    retryIn = RETRY_IN_SECONDS,
  ) {
    super("INSUFFICIENT_LIQUIDITY", detail, { retry_in: retryIn });
    this.retry_in = retryIn;
    this.alternative = alternative;
  }
}

/** No chain or exchange carries the pair at all (distinct from too little liquidity). */
export class NoRouteError extends VeriflowError {
  constructor(detail: string) {
    super("NO_ROUTE", detail);
  }
}

export const RETRY_IN_SECONDS = 300;
