/**
 * What the devnet deploys on each chain: tokens, exchanges, pools and their depths. Pure data, so
 * the documentation, the deploy code and the tests read the same numbers.
 */

export type DevnetChainName = "ethereum" | "arbitrum" | "polygon";
export const DEVNET_CHAIN_NAMES: readonly DevnetChainName[] = ["ethereum", "arbitrum", "polygon"];

export type TokenSymbol = "USDC" | "USDT" | "DAI" | "WETH" | "WBTC";
export type ExchangeName = "uniswap" | "sushiswap";

export interface TokenPlan {
  symbol: TokenSymbol;
  name: string;
  decimals: number;
  /** Reference price in USD used to seed pools. */
  priceUsd: number;
  /** Whole tokens given to each funded test account. */
  fundingPerAccount: number;
}

/** Deployment order matters for address determinism: never reorder, only append. */
export const TOKENS: readonly TokenPlan[] = [
  { symbol: "WETH", name: "Wrapped Ether", decimals: 18, priceUsd: 3000, fundingPerAccount: 50 },
  {
    symbol: "USDC",
    name: "USD Coin (devnet)",
    decimals: 6,
    priceUsd: 1,
    fundingPerAccount: 1_000_000,
  },
  {
    symbol: "USDT",
    name: "Tether USD (devnet)",
    decimals: 6,
    priceUsd: 1,
    fundingPerAccount: 1_000_000,
  },
  {
    symbol: "DAI",
    name: "Dai Stablecoin (devnet)",
    decimals: 18,
    priceUsd: 1,
    fundingPerAccount: 1_000_000,
  },
  {
    symbol: "WBTC",
    name: "Wrapped BTC (devnet)",
    decimals: 8,
    priceUsd: 60_000,
    fundingPerAccount: 20,
  },
];

export const EXCHANGES: readonly ExchangeName[] = ["uniswap", "sushiswap"];

export interface PoolPlan {
  tokens: [TokenSymbol, TokenSymbol];
  /** USD value of EACH side at depth factor 1. */
  depthUsd: number;
}

/** Pairs deployed on every exchange of every chain, in this order. */
export const POOLS: readonly PoolPlan[] = [
  { tokens: ["WETH", "USDC"], depthUsd: 3_000_000 },
  { tokens: ["WETH", "USDT"], depthUsd: 1_500_000 },
  { tokens: ["WETH", "DAI"], depthUsd: 1_000_000 },
  { tokens: ["WBTC", "WETH"], depthUsd: 1_500_000 },
  { tokens: ["WBTC", "USDC"], depthUsd: 1_000_000 },
  { tokens: ["USDC", "USDT"], depthUsd: 2_000_000 },
  { tokens: ["USDC", "DAI"], depthUsd: 1_000_000 },
];

/**
 * Depth factor per chain and exchange (multiplies `depthUsd`), and a price skew in basis points
 * applied to the volatile assets (WETH, WBTC) so exchanges quote slightly different prices, as real
 * venues do. Uniswap is the deep venue, Sushiswap the shallow one; ethereum is the deepest chain.
 */
export const VENUES: Record<
  DevnetChainName,
  Record<ExchangeName, { depth: number; skewBps: number }>
> = {
  ethereum: { uniswap: { depth: 1, skewBps: 0 }, sushiswap: { depth: 0.35, skewBps: 20 } },
  arbitrum: { uniswap: { depth: 0.4, skewBps: -10 }, sushiswap: { depth: 0.15, skewBps: 15 } },
  polygon: { uniswap: { depth: 0.25, skewBps: 5 }, sushiswap: { depth: 0.08, skewBps: -25 } },
};

/**
 * The deliberately shallow pool: WBTC/USDC on sushiswap on polygon holds only $20,000 per side
 * (1/3 WBTC). Selling 1 WBTC there loses most of its value to price impact, and buying 1/3 WBTC or
 * more is impossible (the pair reverts `UniswapV2: INSUFFICIENT_LIQUIDITY`): the engine's
 * `INSUFFICIENT_LIQUIDITY` case. Other venues carry the same pair deep.
 */
export const SHALLOW_POOL = {
  chain: "polygon" as DevnetChainName,
  exchange: "sushiswap" as ExchangeName,
  tokens: ["WBTC", "USDC"] as [TokenSymbol, TokenSymbol],
  depthUsd: 20_000,
};

/** `lockmint` bridge settings: fee on chain, and the WETH escrow liquidity seeded on each chain. */
export const BRIDGE_PLAN = {
  protocol: "lockmint",
  feeBps: 10,
  /** WETH is escrowed (WETH9 has no minter); the other tokens are burned and minted. */
  escrowTokens: ["WETH"] as TokenSymbol[],
  escrowLiquidity: { WETH: 200 } as Partial<Record<TokenSymbol, number>>,
};

/** Pool depth in USD per side for a pool on a venue. */
export function poolDepthUsd(
  chain: DevnetChainName,
  exchange: ExchangeName,
  pool: PoolPlan,
): number {
  if (
    chain === SHALLOW_POOL.chain &&
    exchange === SHALLOW_POOL.exchange &&
    pool.tokens[0] === SHALLOW_POOL.tokens[0] &&
    pool.tokens[1] === SHALLOW_POOL.tokens[1]
  ) {
    return SHALLOW_POOL.depthUsd;
  }
  return pool.depthUsd * VENUES[chain][exchange].depth;
}

/** Price of a token in USD on a venue (volatile assets skewed per venue). */
export function venuePriceUsd(
  chain: DevnetChainName,
  exchange: ExchangeName,
  token: TokenPlan,
): number {
  const volatile = token.symbol === "WETH" || token.symbol === "WBTC";
  return volatile
    ? token.priceUsd * (1 + VENUES[chain][exchange].skewBps / 10_000)
    : token.priceUsd;
}

export function tokenPlan(symbol: TokenSymbol): TokenPlan {
  const found = TOKENS.find((t) => t.symbol === symbol);
  if (!found) throw new Error(`unknown devnet token ${symbol}`);
  return found;
}
