import { ZeroAddress, type Interface, type Result } from "ethers";
import { FACTORY_INTERFACE, PAIR_INTERFACE } from "./abis.ts";
import type { RoutingChain } from "./chain.ts";
import type { Hop } from "./amm.ts";
import { feeHistory, feeQuoteFromHistory } from "./fees.ts";
import type { FeeHistory, FeeQuote, GasStrategy } from "./fees.ts";
import {
  chainSnapshot,
  latestRead,
  newLatestRead,
  type ChainSnapshot,
  type LatestRead,
} from "./snapshot.ts";

export interface PoolReserves {
  exchange: string;
  pair: string;
  /** Reserve of the input token, then of the output token. */
  reserveIn: bigint;
  reserveOut: bigint;
}

/** `read(chain)` once per chain in `reads`; a failed read is retried by the next call. */
function oncePerChain<T>(
  reads: Map<number, Promise<T>>,
  chain: RoutingChain,
  read: (chain: RoutingChain) => Promise<T>,
): Promise<T> {
  let pending = reads.get(chain.chainId);
  if (!pending) {
    pending = read(chain);
    reads.set(chain.chainId, pending);
    pending.catch(() => reads.delete(chain.chainId));
  }
  return pending;
}

/**
 * The chain reads of one routing decision: pool reserves, contract views and fee quotes, each
 * chain read at ONE block (its latest when the decision first reads it), so every candidate of
 * the decision is quoted against the same state. The reads themselves are shared with every other
 * decision on the same block (`ChainSnapshot`): a pool is read once per block, not per request.
 */
export class ReserveReader {
  private readonly snapshots = new Map<number, Promise<ChainSnapshot>>();
  private readonly feeHistories = new Map<number, Promise<FeeHistory>>();

  /** The block this decision reads `chain` at. */
  snapshot(chain: RoutingChain): Promise<ChainSnapshot> {
    return oncePerChain(this.snapshots, chain, chainSnapshot);
  }

  /** A view function of a contract, at this decision's block of `chain`. */
  async view(
    chain: RoutingChain,
    iface: Interface,
    address: string,
    fn: string,
    args: readonly unknown[] = [],
  ): Promise<Result> {
    return (await this.snapshot(chain)).view(iface, address, fn, args);
  }

  /** The chain's latest fee history, read once per decision. */
  feeHistory(chain: RoutingChain): Promise<FeeHistory> {
    return oncePerChain(this.feeHistories, chain, latestFeeHistory);
  }

  /** The fee quote of a gas strategy from the chain's latest fee history (read once per decision). */
  async feeQuote(chain: RoutingChain, strategy: GasStrategy = "eco"): Promise<FeeQuote> {
    return feeQuoteFromHistory(await this.feeHistory(chain), strategy);
  }

  /** Reserves of `exchange`'s pool for (tokenIn, tokenOut), or null when the pool does not exist. */
  async reserves(
    chain: RoutingChain,
    exchange: string,
    tokenIn: string,
    tokenOut: string,
  ): Promise<PoolReserves | null> {
    const pair = await this.pairAddress(chain, exchange, tokenIn, tokenOut);
    if (!pair) return null;
    const raw = await this.view(chain, PAIR_INTERFACE, pair, "getReserves").then(
      ([r0, r1]) => [r0 as bigint, r1 as bigint] as const,
      () => null,
    );
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

  /** The pair of `exchange` for two tokens (the published list, else the factory), or null. */
  async pairAddress(
    chain: RoutingChain,
    exchange: string,
    tokenA: string,
    tokenB: string,
  ): Promise<string | null> {
    const symbols = symbolsByAddress(chain);
    const symA = symbols.get(tokenA.toLowerCase());
    const symB = symbols.get(tokenB.toLowerCase());
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
    const [pair] = (await this.view(chain, FACTORY_INTERFACE, ex.factory, "getPair", [
      tokenA,
      tokenB,
    ])) as unknown as [string];
    return pair === ZeroAddress ? null : pair;
  }
}

const feeHistories = new WeakMap<object, LatestRead<FeeHistory>>();

/**
 * The chain's latest fee history; decisions starting while a read is in flight share it (single
 * flight), like the latest block in `chainSnapshot`. Not kept once answered: the next base fee can
 * change without a new block (see snapshot.ts), so a later decision reads it again, unless the
 * chain reports a state version (RoutingChain.stateVersion) that has not moved since the read.
 */
function latestFeeHistory(chain: RoutingChain): Promise<FeeHistory> {
  let slot = feeHistories.get(chain.provider);
  if (!slot) feeHistories.set(chain.provider, (slot = newLatestRead()));
  return latestRead(chain, slot, () => feeHistory(chain.provider));
}

const symbolIndex = new WeakMap<object, Map<string, string>>();

/** Token symbols by lower-case address, built once per deployment. */
function symbolsByAddress(chain: RoutingChain): Map<string, string> {
  let index = symbolIndex.get(chain.deployment);
  if (!index) {
    index = new Map(
      Object.entries(chain.deployment.tokens).map(([sym, t]) => [t.address.toLowerCase(), sym]),
    );
    symbolIndex.set(chain.deployment, index);
  }
  return index;
}
