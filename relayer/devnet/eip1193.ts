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
  #stopped = false;

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

  stop(): void {
    this.#stopped = true;
  }

  start(): void {
    this.#stopped = false;
  }

  async request(args: {
    method: string;
    params?: unknown[] | Record<string, unknown>;
  }): Promise<unknown> {
    if (this.#stopped) throw new ChainRpcUnavailableError(this.chain);
    if (this.#baseFeePerGas !== null && MINING_METHODS.has(args.method)) {
      await this.#pin(this.#baseFeePerGas);
    }
    return this.inner.request(args);
  }

  async #pin(level: bigint): Promise<void> {
    await this.inner.request({
      method: "hardhat_setNextBlockBaseFeePerGas",
      params: [toQuantity(level)],
    });
  }
}
