import { toQuantity } from "ethers";

/** The EIP-1193 surface of an in-process Hardhat network connection (`connection.provider`). */
export interface Eip1193Provider {
  request(args: { method: string; params?: unknown[] | Record<string, unknown> }): Promise<unknown>;
}

/** EIP-1193 code for "the provider is disconnected from all chains". */
export const RPC_UNAVAILABLE_CODE = 4900;

/** The error a stopped in-process chain answers with: what a client sees from a down RPC. */
export class ChainRpcUnavailableError extends Error {
  readonly code = RPC_UNAVAILABLE_CODE;
  constructor(chain: string) {
    super(`chain ${chain} RPC unavailable: connect ECONNREFUSED (devnet fault injected)`);
    this.name = "ChainRpcUnavailableError";
  }
}

// Methods that mine a block on an automining devnet: the base fee is pinned right before them.
const MINING_METHODS = new Set([
  "eth_sendRawTransaction",
  "eth_sendTransaction",
  "evm_mine",
  "hardhat_mine",
]);

// Methods that only read the chain: any other request may change its state (see stateVersion).
const READ_ONLY_METHODS = new Set([
  "eth_accounts",
  "eth_blockNumber",
  "eth_call",
  "eth_chainId",
  "eth_estimateGas",
  "eth_feeHistory",
  "eth_gasPrice",
  "eth_getBalance",
  "eth_getBlockByHash",
  "eth_getBlockByNumber",
  "eth_getBlockTransactionCountByHash",
  "eth_getBlockTransactionCountByNumber",
  "eth_getCode",
  "eth_getLogs",
  "eth_getProof",
  "eth_getStorageAt",
  "eth_getTransactionByBlockHashAndIndex",
  "eth_getTransactionByBlockNumberAndIndex",
  "eth_getTransactionByHash",
  "eth_getTransactionCount",
  "eth_getTransactionReceipt",
  "eth_maxPriorityFeePerGas",
  "eth_syncing",
  "net_version",
  "web3_clientVersion",
]);

/**
 * Whether `evm_setIntervalMining`'s argument turns interval mining on: Hardhat takes a number of
 * milliseconds (0: off) or a `[min, max]` range for random intervals.
 */
function intervalMiningOn(value: unknown): boolean {
  if (Array.isArray(value)) return value.some((v) => Number(v) > 0);
  return Number(value) !== 0;
}

/**
 * Wraps an in-process chain's EIP-1193 provider to add what a local devnet lacks:
 *
 * - A steady base fee. On a quiet local chain every block is nearly empty, so EIP-1559 lowers the
 *   base fee by 12.5 % per block and all chains soon cost the same. Before each mining call the
 *   wrapper sets the next block's base fee to the chain's level, so ethereum stays expensive and
 *   arbitrum cheap, as routing expects. Faults raise the level (congestion) and restore it.
 * - An RPC outage switch: while stopped, every request fails like a refused connection.
 */
export class DevnetEip1193 implements Eip1193Provider {
  readonly chain: string;
  readonly inner: Eip1193Provider;
  #baseFeePerGas: bigint | null;
  /** The last pinned mining request: the next waits for it (see `request`). */
  #mining: Promise<unknown> = Promise.resolve();
  #stopped = false;
  #version = 0;
  #intervalMining = false;

  constructor(chain: string, inner: Eip1193Provider, baseFeePerGas: bigint | null) {
    this.chain = chain;
    this.inner = inner;
    this.#baseFeePerGas = baseFeePerGas;
  }

  get stopped(): boolean {
    return this.#stopped;
  }

  get baseFeePerGas(): bigint | null {
    return this.#baseFeePerGas;
  }

  /** Sets the base fee level pinned before each mined block (`null`: let EIP-1559 float it). */
  async pinBaseFee(level: bigint | null): Promise<void> {
    this.#baseFeePerGas = level;
    if (level !== null) await this.#pin(level);
  }

  /**
   * A number that changes whenever the chain's state may have changed, so reads of its latest
   * block and fee history can be reused while it stays the same: every request other than a plain
   * read moves it, once when it is sent and once when it is answered (a read overlapping a write
   * is not reused). Null while the chain mines blocks on its own (interval mining) or its RPC is
   * down: then only asking the chain tells. Covers what goes through this wrapper; the in-process
   * chain is reachable only through it once deployed.
   */
  stateVersion(): number | null {
    return this.#intervalMining || this.#stopped ? null : this.#version;
  }

  stop(): void {
    this.#stopped = true;
    this.#version++;
  }

  start(): void {
    this.#stopped = false;
    this.#version++;
  }

  async request(args: {
    method: string;
    params?: unknown[] | Record<string, unknown>;
  }): Promise<unknown> {
    if (this.#stopped) throw new ChainRpcUnavailableError(this.chain);
    if (args.method === "eth_feeHistory") return this.#feeHistory(args);
    if (READ_ONLY_METHODS.has(args.method)) return this.inner.request(args);
    this.#version++;
    try {
      const interval =
        args.method === "evm_setIntervalMining" && Array.isArray(args.params)
          ? intervalMiningOn(args.params[0])
          : undefined;
      // Marked before the call: a block may be mined on a timer from the moment it is accepted.
      if (interval === true) this.#intervalMining = true;
      let result: unknown;
      if (this.#baseFeePerGas !== null && MINING_METHODS.has(args.method)) {
        // Pin and mine as one step: two concurrent sends would otherwise pin twice, then mine the
        // second block at the fee EIP-1559 floated to after the first (cheap blocks that make the
        // pinned level look like a spike against the recent median).
        const level = this.#baseFeePerGas;
        const mined = this.#mining.then(async () => {
          await this.#pin(level);
          return this.inner.request(args);
        });
        this.#mining = mined.catch(() => undefined);
        result = await mined;
      } else {
        result = await this.inner.request(args);
      }
      if (interval === false) this.#intervalMining = false;
      return result;
    } finally {
      this.#version++;
    }
  }

  /**
   * `eth_feeHistory` whose last entry (the next block's base fee) is the pinned level when one is
   * pinned: that is what the next mined block will charge, whatever EIP-1559 computes from blocks
   * mined without the pin (several at once by `hardhat_mine`, or by the deployment).
   */
  async #feeHistory(args: {
    method: string;
    params?: unknown[] | Record<string, unknown>;
  }): Promise<unknown> {
    const history = (await this.inner.request(args)) as { baseFeePerGas?: string[] };
    const newest = Array.isArray(args.params) ? args.params[1] : undefined;
    const towardsHead = newest === undefined || newest === "latest" || newest === "pending";
    const fees = history?.baseFeePerGas;
    if (this.#baseFeePerGas !== null && towardsHead && !this.#intervalMining && fees?.length) {
      fees[fees.length - 1] = toQuantity(this.#baseFeePerGas);
    }
    return history;
  }

  async #pin(level: bigint): Promise<void> {
    this.#version++;
    try {
      await this.inner.request({
        method: "hardhat_setNextBlockBaseFeePerGas",
        params: [toQuantity(level)],
      });
    } finally {
      this.#version++;
    }
  }
}
