import { Contract, ZeroAddress } from "ethers";
import { FACTORY_ABI, PAIR_ABI } from "./abis.ts";
import type { RoutingChain } from "./chain.ts";
import type { Hop } from "./amm.ts";

export interface PoolReserves {
  exchange: string;
  pair: string;
  /** Reserve of the input token, then of the output token. */
  reserveIn: bigint;
  reserveOut: bigint;
}

/**
 * Reads pool reserves on chain, at most once per pair per reader (one reader per routing
 * decision, so every candidate of that decision is quoted against the same snapshot).
 */
export class ReserveReader {
  private readonly cache = new Map<string, Promise<[bigint, bigint] | null>>();

  /** Reserves of `exchange`'s pool for (tokenIn, tokenOut), or null when the pool does not exist. */
  async reserves(
    chain: RoutingChain,
    exchange: string,
    tokenIn: string,
    tokenOut: string,
  ): Promise<PoolReserves | null> {
    const pair = await this.pairAddress(chain, exchange, tokenIn, tokenOut);
    if (!pair) return null;
    const key = `${chain.chainId}:${pair}`;
    let pending = this.cache.get(key);
    if (!pending) {
      const contract = new Contract(pair, PAIR_ABI, chain.provider);
      pending = (contract.getFunction("getReserves")() as Promise<[bigint, bigint, bigint]>).then(
        ([r0, r1]) => [r0, r1] as [bigint, bigint],
        () => null,
      );
      this.cache.set(key, pending);
    }
    const raw = await pending;
    if (!raw) return null;
    const inIsToken0 = tokenIn.toLowerCase() < tokenOut.toLowerCase();
    return {
      exchange,
      pair,
      reserveIn: inIsToken0 ? raw[0] : raw[1],
      reserveOut: inIsToken0 ? raw[1] : raw[0],
    };
  }

  /** Reserves along a path of token addresses, or null when a hop has no pool. */
  async path(
    chain: RoutingChain,
    exchange: string,
    tokens: readonly string[],
  ): Promise<Hop[] | null> {
    const hops: Hop[] = [];
    for (let i = 0; i + 1 < tokens.length; i++) {
      const pool = await this.reserves(chain, exchange, tokens[i]!, tokens[i + 1]!);
      if (!pool) return null;
      hops.push({ reserveIn: pool.reserveIn, reserveOut: pool.reserveOut });
    }
    return hops;
  }

  private async pairAddress(
    chain: RoutingChain,
    exchange: string,
    tokenA: string,
    tokenB: string,
  ): Promise<string | null> {
    const byAddress = new Map(
      Object.entries(chain.deployment.tokens).map(([sym, t]) => [t.address.toLowerCase(), sym]),
    );
    const symA = byAddress.get(tokenA.toLowerCase());
    const symB = byAddress.get(tokenB.toLowerCase());
    const listed = chain.deployment.pools.find(
      (p) =>
        p.exchange === exchange &&
        p.tokens.includes(symA ?? "") &&
        p.tokens.includes(symB ?? "") &&
        symA !== symB,
    );
    if (listed) return listed.pair;
    const ex = chain.deployment.exchanges[exchange];
    if (!ex) return null;
    // Not in the published pool list: ask the factory (pools created after deployment).
    const factory = new Contract(ex.factory, FACTORY_ABI, chain.provider);
    const pair = (await factory.getFunction("getPair")(tokenA, tokenB)) as string;
    return pair === ZeroAddress ? null : pair;
  }
}
