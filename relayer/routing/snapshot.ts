import type { Interface, Provider, Result, TransactionRequest } from "ethers";
import type { RoutingChain } from "./chain.ts";

/**
 * Chain reads for routing, shared per chain per block.
 *
 * What routing reads from contracts (pool reserves, pair addresses, bridge fees, allowances) and
 * its gas estimates are functions of the chain's state, which only changes with a new block. A
 * `ChainSnapshot` reads at one block number and memoises each distinct read, so every quote and
 * cost estimate made while that block is the chain's latest shares one read per pool and one
 * bridge-fee call instead of repeating them, and concurrent identical reads are coalesced into
 * one request (single flight). Fee history is NOT shared across decisions: a node can change the
 * next block's base fee without producing a block (Hardhat's `hardhat_setNextBlockBaseFeePerGas`),
 * so each decision reads it once per chain (`ReserveReader.feeQuote`).
 *
 * Freshness: a decision asks for the chain's latest block first (`eth_getBlockByNumber`), one
 * request per chain that concurrent decisions share while it is in flight; a new block (or a
 * different block at the same height, after a devnet revert) means a new snapshot, so nothing is
 * served from an earlier block. A failed read is not memoised: the next caller asks the chain again.
 * A chain that reports a state version (the in-process devnet, whose every request this process
 * makes) is not asked again while its version is the one the last head was read at.
 */

/** The block a snapshot reads at. */
export interface ChainHead {
  number: number;
  hash: string;
}

/** Distinct reads memoised per block before the memo starts over (bounds memory on a slow chain). */
const MAX_READS_PER_BLOCK = 10_000;
/** Snapshots kept per chain: decisions that started on the previous block finish on theirs. */
const SNAPSHOTS_PER_CHAIN = 4;

export class ChainSnapshot {
  readonly head: ChainHead;
  readonly #provider: Provider;
  #reads = new Map<string, Promise<unknown>>();

  constructor(provider: Provider, head: ChainHead) {
    this.#provider = provider;
    this.head = head;
  }

  /** `read()` once per key at this block; concurrent callers share the pending read. */
  memo<T>(key: string, read: () => Promise<T>): Promise<T> {
    let pending = this.#reads.get(key) as Promise<T> | undefined;
    if (!pending) {
      if (this.#reads.size >= MAX_READS_PER_BLOCK) this.#reads = new Map();
      const reads = this.#reads;
      const started = read();
      pending = started;
      reads.set(key, started);
      started.catch(() => {
        if (reads.get(key) === started) reads.delete(key);
      });
    }
    return pending;
  }

  /** `eth_call` at this block. */
  call(to: string, data: string): Promise<string> {
    return this.memo(`call:${to.toLowerCase()}:${data}`, () =>
      this.#provider.call({ to, data, blockTag: this.head.number }),
    );
  }

  /**
   * A view function at this block, decoded with `iface`. Memoised decoded (by contract, function
   * and arguments): ABI encoding and decoding cost more than the memo lookup they are spared.
   */
  view(iface: Interface, to: string, fn: string, args: readonly unknown[] = []): Promise<Result> {
    return this.memo(`view:${to.toLowerCase()}:${fn}:${readKey(args)}`, async () => {
      const data = iface.encodeFunctionData(fn, args);
      return iface.decodeFunctionResult(fn, await this.call(to, data));
    });
  }

  /** `eth_estimateGas` of a transaction, once per distinct transaction while this block is the latest. */
  estimateGas(request: TransactionRequest): Promise<bigint> {
    return this.memo(`estimateGas:${readKey(request)}`, () => this.#provider.estimateGas(request));
  }
}

/** A memo key for read arguments (bigints as decimal, addresses in any case equal). */
function readKey(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    typeof v === "bigint" ? `${v}n` : typeof v === "string" ? v.toLowerCase() : v,
  );
}

/**
 * One kind of read of a chain's latest state (its head, its fee history): the request in flight,
 * shared by the decisions that start meanwhile, and the last answer with the chain's state version
 * it was read at (see RoutingChain.stateVersion).
 */
export interface LatestRead<T> {
  pending: Promise<T> | null;
  known: { version: number; value: Promise<T> } | null;
}

export const newLatestRead = <T>(): LatestRead<T> => ({ pending: null, known: null });

/**
 * `read()` of the chain's latest state, single flight; reused without asking the chain while the
 * chain reports the state version the answer was read at (kept only if the version did not move
 * while it was read). A failed read is not kept.
 */
export function latestRead<T>(
  chain: RoutingChain,
  slot: LatestRead<T>,
  read: () => Promise<T>,
): Promise<T> {
  const version = chain.stateVersion?.() ?? null;
  if (version !== null && slot.known?.version === version) return slot.known.value;
  if (!slot.pending) {
    const started = read();
    slot.pending = started;
    const clear = () => {
      if (slot.pending === started) slot.pending = null;
    };
    started.then(() => {
      clear();
      const after = chain.stateVersion?.() ?? null;
      slot.known = version !== null && after === version ? { version, value: started } : null;
    }, clear);
  }
  return slot.pending;
}

interface ChainReads {
  head: LatestRead<ChainHead>;
  /** Recent snapshots by block hash, oldest first. */
  snapshots: Map<string, ChainSnapshot>;
}

const byProvider = new WeakMap<Provider, ChainReads>();

async function latestHead(provider: Provider): Promise<ChainHead> {
  const rpc = provider as Provider & {
    send?: (method: string, params: unknown[]) => Promise<unknown>;
  };
  if (typeof rpc.send === "function") {
    const block = (await rpc.send("eth_getBlockByNumber", ["latest", false])) as {
      number: string;
      hash: string;
    } | null;
    if (!block) throw new Error("the chain returned no latest block");
    return { number: Number(BigInt(block.number)), hash: block.hash };
  }
  const block = await provider.getBlock("latest");
  if (!block?.hash) throw new Error("the chain returned no latest block");
  return { number: block.number, hash: block.hash };
}

/** The snapshot of `chain` at its latest block (see the module comment for freshness). */
export async function chainSnapshot(chain: RoutingChain): Promise<ChainSnapshot> {
  let reads = byProvider.get(chain.provider);
  if (!reads) {
    reads = { head: newLatestRead(), snapshots: new Map() };
    byProvider.set(chain.provider, reads);
  }
  const state = reads;
  const head = await latestRead(chain, state.head, () => latestHead(chain.provider));
  let snapshot = state.snapshots.get(head.hash);
  if (!snapshot) {
    snapshot = new ChainSnapshot(chain.provider, head);
    state.snapshots.set(head.hash, snapshot);
    if (state.snapshots.size > SNAPSHOTS_PER_CHAIN) {
      state.snapshots.delete(state.snapshots.keys().next().value!);
    }
  }
  return snapshot;
}
