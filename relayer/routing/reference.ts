import { PAIR_INTERFACE } from "./abis.ts";
import type { RoutingChain } from "./chain.ts";
import { pairReserves } from "./live.ts";

/**
 * The reference price a swap's quote is checked against before it sets `amountOutMin` (issue 15,
 * item 13): a pool pushed just before the quote must not set the floor.
 *
 * Reference: the pool's time-weighted average price over the last `windowSeconds` of chain time
 * (Uniswap V2's `price0CumulativeLast`, read at the window's first block and now), with the
 * relayer's own swaps taken out: each own swap is recorded when mined (its block, the cumulative
 * price at it, and the factor by which it moved the price), and the price path is divided by the
 * product of the own moves before each moment. So the relayer's own sequenced swaps (issue 19)
 * neither trip the check nor hide a third party's move: what is measured is how far others moved
 * the pool from its recent average.
 *
 * Deviation: |spot / reference − 1| of the pool's price now (own moves taken out), in basis
 * points; above `maxDeviationBps` the swap is refused (REFERENCE_PRICE_DEVIATION). The window
 * starts no earlier than the pool's first liquidity.
 */
export const DEFAULT_REFERENCE_WINDOW_SECONDS = 1_800;
export const DEFAULT_MAX_REFERENCE_DEVIATION_BPS = 300;

export interface ReferencePolicy {
  windowSeconds: number;
  maxDeviationBps: number;
}

export const DEFAULT_REFERENCE_POLICY: ReferencePolicy = {
  windowSeconds: DEFAULT_REFERENCE_WINDOW_SECONDS,
  maxDeviationBps: DEFAULT_MAX_REFERENCE_DEVIATION_BPS,
};

/** One of the relayer's own swaps through a pool, as mined. */
export interface OwnMove {
  txHash: string;
  block: number;
  /** The block's timestamp (the pair's `blockTimestampLast` after it). */
  timestamp: number;
  /** `price0CumulativeLast` after the block: the cumulative price up to `timestamp`. */
  cumulative: bigint;
  /** The pool's token0 price (reserve1 / reserve0) after the swap over before it. */
  factor: number;
}

/** Where the own moves are kept (the engine's `engine_pool_moves`, one owner). */
export interface OwnMoves {
  record(chainId: number, pair: string, move: OwnMove): Promise<void>;
  /** Own moves of the pool with `timestamp > since`, oldest first. */
  since(chainId: number, pair: string, since: number): Promise<OwnMove[]>;
}

export interface ReferenceCheck {
  pair: string;
  block: number;
  /** The pool's token0 price now (reserve1 / reserve0, raw units), own moves taken out. */
  spot: number;
  /** The time-weighted average of the same over the window. */
  reference: number;
  deviationBps: number;
  maxDeviationBps: number;
  /** Chain seconds the average covers (shorter than the window for a young pool). */
  windowSeconds: number;
  /** Own swaps taken out. */
  ownMoves: number;
  passed: boolean;
}

const Q112 = 2n ** 112n;
const MOD = 2n ** 256n;

/** The cumulative token0 price at the block's time, extrapolated from the last update (UQ112x112·s). */
async function cumulativeAt(
  chain: RoutingChain,
  pair: string,
  block: number,
  timestamp: number,
): Promise<{ cumulative: bigint; price: number } | null> {
  const reserves = await pairReserves(chain, pair, block).catch(() => null);
  if (!reserves || reserves.reserve0 === 0n || reserves.reserve1 === 0n) return null;
  const data = await chain.provider.call({
    to: pair,
    data: PAIR_INTERFACE.encodeFunctionData("price0CumulativeLast"),
    blockTag: block,
  });
  const [last] = PAIR_INTERFACE.decodeFunctionResult("price0CumulativeLast", data);
  const elapsed = BigInt(Math.max(0, timestamp - (reserves.timestampLast % 2 ** 32)));
  const encoded = (reserves.reserve1 * Q112) / reserves.reserve0;
  return {
    cumulative: ((last as bigint) + encoded * elapsed) % MOD,
    price: Number(reserves.reserve1) / Number(reserves.reserve0),
  };
}

const timestamps = new WeakMap<object, Map<number, number>>();

/** A block's timestamp (blocks below the head do not change; kept per chain, bounded). */
async function blockTime(chain: RoutingChain, block: number): Promise<number> {
  let known = timestamps.get(chain.provider);
  if (!known) timestamps.set(chain.provider, (known = new Map()));
  const cached = known.get(block);
  if (cached !== undefined) return cached;
  const b = await chain.provider.getBlock(block);
  if (!b) throw new Error(`${chain.name} has no block ${block}`);
  if (known.size >= 8_192) known.clear();
  known.set(block, b.timestamp);
  return b.timestamp;
}

/** The last block at or before `time` (0 when every block is later). */
async function blockAtOrBefore(chain: RoutingChain, time: number, head: number): Promise<number> {
  let lo = 0;
  let hi = head;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if ((await blockTime(chain, mid)) <= time) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** The first block in [from, to] at which the pair holds liquidity (it only grows once created). */
async function firstLiquidBlock(
  chain: RoutingChain,
  pair: string,
  from: number,
  to: number,
): Promise<number> {
  const liquid = async (b: number) => {
    const r = await pairReserves(chain, pair, b).catch(() => null);
    return !!r && r.reserve0 > 0n && r.reserve1 > 0n;
  };
  let lo = from;
  let hi = to;
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    if (await liquid(mid)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** Checks `pair`'s price at `block` against its reference (see the module comment). */
export async function checkReferencePrice(
  chain: RoutingChain,
  pair: string,
  block: number,
  own: OwnMoves,
  policy: ReferencePolicy = DEFAULT_REFERENCE_POLICY,
): Promise<ReferenceCheck> {
  const now = await blockTime(chain, block);
  const end = await cumulativeAt(chain, pair, block, now);
  if (!end) throw new Error(`pool ${pair} on ${chain.name} has no liquidity`);
  let startBlock = await blockAtOrBefore(chain, now - policy.windowSeconds, block);
  let start = await cumulativeAt(chain, pair, startBlock, await blockTime(chain, startBlock));
  if (!start) {
    startBlock = await firstLiquidBlock(chain, pair, startBlock, block);
    start = await cumulativeAt(chain, pair, startBlock, await blockTime(chain, startBlock));
  }
  const startTime = await blockTime(chain, startBlock);
  const moves = (await own.since(chain.chainId, pair, startTime)).filter((m) => m.timestamp <= now);
  // The own-move-free price path: each segment between own moves divided by the moves before it.
  let integral = 0;
  let factor = 1;
  let previous = { cumulative: start!.cumulative, timestamp: startTime };
  for (const m of [...moves, { cumulative: end.cumulative, timestamp: now, factor: 1 }]) {
    const delta = (m.cumulative - previous.cumulative + MOD) % MOD;
    integral += Number(delta) / Number(Q112) / factor;
    factor *= m.factor;
    previous = m;
  }
  const seconds = now - startTime;
  const spot = end.price / factor;
  const reference = seconds > 0 ? integral / seconds : start!.price;
  const deviationBps = Math.round(Math.abs(spot / reference - 1) * 10_000);
  return {
    pair,
    block,
    spot,
    reference,
    deviationBps,
    maxDeviationBps: policy.maxDeviationBps,
    windowSeconds: seconds,
    ownMoves: moves.length,
    passed: deviationBps <= policy.maxDeviationBps,
  };
}

const SWAP_EVENT = PAIR_INTERFACE.getEvent("Swap")!;
const SYNC_EVENT = PAIR_INTERFACE.getEvent("Sync")!;

/**
 * The own move a mined swap made on `pair`: the price factor from its Swap and Sync logs (before =
 * after − in + out, exact whatever else the block held) and the cumulative price at its block.
 */
export async function ownMoveOf(
  chain: RoutingChain,
  pair: string,
  receipt: {
    hash: string;
    blockNumber: number;
    logs: ReadonlyArray<{ address: string; topics: readonly string[]; data: string }>;
  },
): Promise<OwnMove | null> {
  const logs = receipt.logs.filter((l) => l.address.toLowerCase() === pair.toLowerCase());
  const sync = logs.find((l) => l.topics[0] === SYNC_EVENT.topicHash);
  const swap = logs.find((l) => l.topics[0] === SWAP_EVENT.topicHash);
  if (!sync || !swap) return null;
  const [after0, after1] = PAIR_INTERFACE.decodeEventLog(
    SYNC_EVENT,
    sync.data,
    sync.topics,
  ) as unknown as [bigint, bigint];
  const [, in0, in1, out0, out1] = PAIR_INTERFACE.decodeEventLog(
    SWAP_EVENT,
    swap.data,
    swap.topics,
  ) as unknown as [string, bigint, bigint, bigint, bigint];
  const before0 = after0 - in0 + out0;
  const before1 = after1 - in1 + out1;
  if (before0 <= 0n || after0 <= 0n) return null;
  const reserves = await pairReserves(chain, pair, receipt.blockNumber);
  const data = await chain.provider.call({
    to: pair,
    data: PAIR_INTERFACE.encodeFunctionData("price0CumulativeLast"),
    blockTag: receipt.blockNumber,
  });
  const [cumulative] = PAIR_INTERFACE.decodeFunctionResult("price0CumulativeLast", data);
  return {
    txHash: receipt.hash,
    block: receipt.blockNumber,
    timestamp: reserves.timestampLast,
    cumulative: cumulative as bigint,
    factor: Number(after1) / Number(after0) / (Number(before1) / Number(before0)),
  };
}
