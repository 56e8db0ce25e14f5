import { VeriflowError, type ErrorBody } from "./base.ts";

/**
 * Agent failures carry a spec-style upper-case `code` and a `detail` a client can act on:
 * - `OUT_OF_GAS`: the transaction ran out of gas even after the bounded ×1.4 raises.
 * - `SANCTIONED_ADDRESS`: a recipient or counterparty is on a sanctions source; nothing was sent.
 * - `INSUFFICIENT_LIQUIDITY`: no allowed pool can fill the order (`retry_in` seconds; `detail`
 *   names an alternative chain/exchange with the liquidity when there is one).
 * - `SLIPPAGE_EXCEEDED`: the swap reverted on chain at the router's minimum output (or was refused
 *   before sending when the estimate already showed it); `cause: "market"` when the pools moved
 *   while the relayer held them (another party's trade), with the moved pools.
 * - `REFERENCE_PRICE_DEVIATION`: a pool of the swap's path is further from its reference price
 *   (time-weighted, the relayer's own swaps taken out; relayer/routing/reference.ts) than the
 *   allowed deviation: a quote there would set a manipulated floor; nothing was sent.
 * - `TX_REVERTED`: any other on-chain revert (the reason is in `detail`).
 * - `NO_ROUTE`: the assets or contracts needed do not exist on the chain.
 * - `SANCTIONS_LIST_UNAVAILABLE`: a sanctions list the workflow's jurisdictions require could not
 *   be consulted (not configured, or no oracle on the chain); nothing was sent.
 * - `ORACLE_UNAVAILABLE`: no sanctions source answered for an address (every chain's oracle
 *   reverted or was unreachable, and no list file or provider stood in); nothing was sent.
 * - `SCREENING_UNAVAILABLE`: the required third-party screening provider could not screen an
 *   address (relayer/integrations/screening.ts); nothing was sent.
 */
export type AgentErrorCode =
  | "OUT_OF_GAS"
  | "SANCTIONED_ADDRESS"
  | "INSUFFICIENT_LIQUIDITY"
  | "SLIPPAGE_EXCEEDED"
  | "REFERENCE_PRICE_DEVIATION"
  | "TX_REVERTED"
  | "NO_ROUTE"
  | "SANCTIONS_LIST_UNAVAILABLE"
  | "ORACLE_UNAVAILABLE"
  | "SCREENING_UNAVAILABLE";

export class AgentError extends VeriflowError {
  declare readonly code: AgentErrorCode;

  /** `extra`: fields of the error body (`retry_in`, `tx_hash`, `address`, ...). */
  constructor(code: AgentErrorCode, detail: string, extra: Record<string, unknown> = {}) {
    super(code, detail, extra);
  }

  override toBody(): ErrorBody & { error: AgentErrorCode } {
    return { ...super.toBody(), error: this.code };
  }
}
