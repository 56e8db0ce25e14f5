/**
 * Route selection and cost estimation (spec "What the service does", step 2).
 * `estimateCostSummary(chains, workflow)` is what the intake calls at submission (`estimateCost`
 * also returns the plan).
 */
export {
  estimateCost,
  estimateCostSummary,
  costOfPlan,
  planWorkflow,
  resolveRecipients,
  actionPriority,
  actionInput,
  plannedOutput,
} from "./plan.ts";
export type {
  CostEstimate,
  PlannedAction,
  PlannedTx,
  RoutableAction,
  RoutableWorkflow,
  PlanOptions,
  ActionInput,
} from "./plan.ts";
export type { ActionFlow } from "./chaining.ts";
export { quoteSwapCandidates } from "./quote.ts";
export type { SwapCandidate, SwapQuoteRequest } from "./quote.ts";
export {
  selectRoute,
  rankRoutes,
  ROUTE_PRIORITIES,
  DEFAULT_MAX_PRICE_IMPACT_BPS,
} from "./select.ts";
export type { RoutePriority, RouteConstraints } from "./select.ts";
export { feeQuote, GAS_STRATEGIES, isGasStrategy } from "./fees.ts";
export type { FeeQuote, GasStrategy } from "./fees.ts";
export { getAmountOut, quotePath, minimumOut } from "./amm.ts";
export { ReserveReader } from "./pools.ts";
export { usdPrice, nativeUsdPrice } from "./prices.ts";
export { ChainUnavailableError, InsufficientLiquidityError, NoRouteError } from "./errors.ts";
export { recordObservedGas, baselineGas } from "./gas.ts";
export type { RoutingChain, RoutingChainSet } from "./chain.ts";

export { ERC20_ABI, ROUTER_ABI } from "./abis.ts";
export { FEE_DENOMINATOR, FEE_NUMERATOR } from "./amm.ts";
export type { Hop } from "./amm.ts";
export {
  ATTESTOR_CONTRACT,
  BRIDGE_CONTRACT,
  MULTISEND_CONTRACT,
  nativeSymbol,
  tokenOf,
} from "./chain.ts";
export type { ChainAssets } from "./chain.ts";
export type { TxKind } from "./gas.ts";
export { chainByName } from "./plan.ts";
export { headNumber, pairReserves, pathPairs, quotePathNow } from "./live.ts";
export type { LiveQuote, PoolState } from "./live.ts";
export {
  checkReferencePrice,
  ownMoveOf,
  DEFAULT_MAX_REFERENCE_DEVIATION_BPS,
  DEFAULT_REFERENCE_POLICY,
  DEFAULT_REFERENCE_WINDOW_SECONDS,
} from "./reference.ts";
export type { OwnMove, OwnMoves, ReferenceCheck, ReferencePolicy } from "./reference.ts";
