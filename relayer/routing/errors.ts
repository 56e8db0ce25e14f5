import { VeriflowError } from "../errors/index.ts";

/**
 * Routing failures carry the spec's error body fields: an upper-case `code`, a `detail` a client can
 * act on and, for liquidity, `retry_in` (seconds).
 */
export class InsufficientLiquidityError extends VeriflowError {
  declare readonly code: "INSUFFICIENT_LIQUIDITY";
  /** Seconds after which a retry may find the pools refilled. */
  readonly retry_in: number;
  /** Where the order would fit, when somewhere does (chain and exchange). */
  readonly alternative: { chain: string; exchange: string } | null;

  constructor(
    detail: string,
    alternative: { chain: string; exchange: string } | null,
    retryIn = RETRY_IN_SECONDS,
  ) {
    super("INSUFFICIENT_LIQUIDITY", detail, { retry_in: retryIn, alternative });
    this.retry_in = retryIn;
    this.alternative = alternative;
  }
}

/** No chain or exchange carries the pair at all (distinct from too little liquidity). */
export class NoRouteError extends VeriflowError {
  declare readonly code: "NO_ROUTE";
  constructor(detail: string) {
    super("NO_ROUTE", detail);
  }
}

export const RETRY_IN_SECONDS = 300;

/**
 * A chain cannot take an action now (spec 503 "chain congestion"): its RPC failed or its base fee
 * is above the cap. An action pinned to it moves to its fallback chains; with none left, the
 * action fails with this error (`retry_in` seconds).
 */
export class ChainUnavailableError extends Error {
  readonly code = "CHAIN_UNAVAILABLE";
  readonly chain: string;
  readonly detail: string;
  readonly retry_in = CHAIN_RETRY_IN_SECONDS;
  constructor(chain: string, detail: string) {
    super(`CHAIN_UNAVAILABLE: ${detail}`);
    this.name = "ChainUnavailableError";
    this.chain = chain;
    this.detail = detail;
  }

  toBody(): { error: string; detail: string; retry_in: number } {
    return { error: this.code, detail: this.detail, retry_in: this.retry_in };
  }
}

export const CHAIN_RETRY_IN_SECONDS = 60;
