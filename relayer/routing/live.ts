import { PAIR_INTERFACE } from "./abis.ts";
import { quotePath, type Hop } from "./amm.ts";
import type { RoutingChain } from "./chain.ts";
import type { ReserveReader } from "./pools.ts";

/**
 * Quotes of a chosen path against the chain's state right now, read directly at one block (never
 * from the shared per-block snapshots, whose head read may have started before the last swap was
 * mined): what a sequenced swap commits its `amountOutMin` to.
 */

/** One pool of a path as read at the quote's block. */
export interface PoolState {
  pair: string;
  /** Whether the hop's input token is the pair's token0 (Uniswap orders tokens by address). */
  inIsToken0: boolean;
  reserveIn: bigint;
  reserveOut: bigint;
}

export interface LiveQuote {
  /** The block the reserves were read at. */
  block: number;
  amountIn: bigint;
  amountOut: bigint;
  /** Price impact of this order alone on these reserves, excluding the pool fee, basis points. */
  priceImpactBps: number;
  /** Largest share of a pool's input reserve this order takes along the path (0..1). */
  poolShare: number;
  pools: PoolState[];
}

/** The pairs along a path of token addresses on `exchange` (throws when a hop has no pool). */
export async function pathPairs(
  chain: RoutingChain,
  exchange: string,
  tokens: readonly string[],
  reader: ReserveReader,
): Promise<string[]> {
  const pairs: string[] = [];
  for (let i = 0; i + 1 < tokens.length; i++) {
    const pair = await reader.pairAddress(chain, exchange, tokens[i]!, tokens[i + 1]!);
    if (!pair) throw new Error(`no ${exchange} pool for ${tokens[i]} → ${tokens[i + 1]}`);
    pairs.push(pair);
  }
  return pairs;
}

/** The chain's latest block number, asked of the node (no client-side cache). */
export async function headNumber(chain: RoutingChain): Promise<number> {
  const rpc = chain.provider as RoutingChain["provider"] & {
    send?: (method: string, params: unknown[]) => Promise<unknown>;
  };
  if (typeof rpc.send === "function")
    return Number(BigInt((await rpc.send("eth_blockNumber", [])) as string));
  return chain.provider.getBlockNumber();
}

/** A pair's reserves (token0, token1) and `blockTimestampLast` at `block`. */
export async function pairReserves(
  chain: RoutingChain,
  pair: string,
  block: number,
): Promise<{ reserve0: bigint; reserve1: bigint; timestampLast: number }> {
  const data = await chain.provider.call({
    to: pair,
    data: PAIR_INTERFACE.encodeFunctionData("getReserves"),
    blockTag: block,
  });
  const [r0, r1, t] = PAIR_INTERFACE.decodeFunctionResult("getReserves", data);
  return { reserve0: r0 as bigint, reserve1: r1 as bigint, timestampLast: Number(t) };
}

/** Quotes `amountIn` along `tokens` through `pairs` at the chain's latest block. */
export async function quotePathNow(
  chain: RoutingChain,
  tokens: readonly string[],
  pairs: readonly string[],
  amountIn: bigint,
): Promise<LiveQuote> {
  const block = await headNumber(chain);
  const pools = await Promise.all(
    pairs.map(async (pair, i) => {
      const { reserve0, reserve1 } = await pairReserves(chain, pair, block);
      const inIsToken0 = tokens[i]!.toLowerCase() < tokens[i + 1]!.toLowerCase();
      return {
        pair,
        inIsToken0,
        reserveIn: inIsToken0 ? reserve0 : reserve1,
        reserveOut: inIsToken0 ? reserve1 : reserve0,
      };
    }),
  );
  const hops: Hop[] = pools.map((p) => ({ reserveIn: p.reserveIn, reserveOut: p.reserveOut }));
  const { amountOut, priceImpactBps, poolShare } = quotePath(amountIn, hops);
  return { block, amountIn, amountOut, priceImpactBps, poolShare, pools };
}
