import { toQuantity } from "ethers";
import type { DevnetEip1193, Eip1193Provider } from "./eip1193.ts";

/**
 * Fault injection on a devnet chain, for tests of the relayer (spec: 503 chain congestion,
 * `fallback_chains`, gas strategies, pending transactions). Every devnet ChainHandle carries one as
 * `handle.faults`; chains of a `file` chain set (real networks) have none.
 *
 * - `stopRpc()` / `startRpc()`: the chain's RPC goes down / comes back. In process the handle's
 *   provider fails every request like a refused connection (state is kept); over JSON-RPC the node
 *   process is stopped (restarting it gives a fresh chain, redeployed at the same addresses).
 * - `raiseBaseFee(factor)`: the base fee jumps to `factor` times its level and stays there
 *   (congestion) until `restoreBaseFee()`. Both mine one block so the latest block, which fee
 *   estimates read, shows the new level at once.
 * - `mine(blocks)`, `stallMining()` (transactions stay pending), `resumeMining()` (automine again,
 *   pending transactions mined), `intervalMining(ms)` (a block every `ms`).
 * - `dropTransaction(hash)`: the node forgets a pending transaction (a pool eviction, a restarted
 *   node's empty pool); false when it did not hold it.
 * - `markFork()` / `reorg(mark, blocks)`: a reorg. `reorg` puts the chain back where it was at the
 *   mark (dropping every block and transaction since, pending ones included) and mines `blocks`
 *   empty blocks, so the heights the dropped blocks had now hold other blocks.
 */
export interface ChainFaults {
  stopRpc(): Promise<void>;
  startRpc(): Promise<void>;
  raiseBaseFee(factor: number): Promise<bigint>;
  restoreBaseFee(): Promise<bigint>;
  mine(blocks?: number): Promise<void>;
  stallMining(): Promise<void>;
  resumeMining(): Promise<void>;
  intervalMining(milliseconds: number): Promise<void>;
  dropTransaction(hash: string): Promise<boolean>;
  markFork(): Promise<string>;
  reorg(mark: string, blocks?: number): Promise<void>;
}

/** Pool and fork faults, the same over any EIP-1193 connection to an EDR chain. */
function forkFaults(
  provider: Eip1193Provider,
): Pick<ChainFaults, "dropTransaction" | "markFork" | "reorg"> {
  return {
    async dropTransaction(hash) {
      return Boolean(await rpc(provider, "hardhat_dropTransaction", [hash]));
    },
    async markFork() {
      return String(await rpc(provider, "evm_snapshot"));
    },
    async reorg(mark, blocks = 1) {
      if (!(await rpc(provider, "evm_revert", [mark])))
        throw new Error(`no fork mark ${mark} on this chain (marks are single-use)`);
      if (blocks > 0) await mine(provider, blocks);
    },
  };
}

/** Multiplies a wei amount by a (possibly fractional) factor without going through floats for wei. */
function scale(value: bigint, factor: number): bigint {
  if (!(factor > 0) || !Number.isFinite(factor))
    throw new Error(`invalid base fee factor ${factor}`);
  return (value * BigInt(Math.round(factor * 1000))) / 1000n;
}

async function rpc(
  provider: Eip1193Provider,
  method: string,
  params: unknown[] = [],
): Promise<unknown> {
  return provider.request({ method, params });
}

async function mine(provider: Eip1193Provider, blocks: number): Promise<void> {
  if (!Number.isInteger(blocks) || blocks < 1) throw new Error(`invalid block count ${blocks}`);
  for (let i = 0; i < blocks; i++) await rpc(provider, "evm_mine");
}

/** Mining control, the same over the in-process wrapper and over JSON-RPC. */
function miningFaults(
  provider: Eip1193Provider,
): Pick<ChainFaults, "mine" | "stallMining" | "resumeMining" | "intervalMining"> {
  return {
    mine: (blocks = 1) => mine(provider, blocks),
    async stallMining() {
      await rpc(provider, "evm_setIntervalMining", [0]);
      await rpc(provider, "evm_setAutomine", [false]);
    },
    async resumeMining() {
      await rpc(provider, "evm_setIntervalMining", [0]);
      await rpc(provider, "evm_setAutomine", [true]);
      await mine(provider, 1);
    },
    async intervalMining(milliseconds) {
      await rpc(provider, "evm_setAutomine", [false]);
      await rpc(provider, "evm_setIntervalMining", [milliseconds]);
    },
  };
}

/** Faults of an in-process chain, through its wrapper (outage, pinned base fee, mining mode). */
export function inProcessFaults(chain: DevnetEip1193, normalBaseFee: bigint): ChainFaults {
  return {
    ...forkFaults(chain),
    ...miningFaults(chain),
    async stopRpc() {
      chain.stop();
    },
    async startRpc() {
      chain.start();
    },
    async raiseBaseFee(factor) {
      const level = scale(normalBaseFee, factor);
      await chain.pinBaseFee(level);
      await mine(chain, 1);
      return level;
    },
    async restoreBaseFee() {
      await chain.pinBaseFee(normalBaseFee);
      await mine(chain, 1);
      return normalBaseFee;
    },
  };
}

/** Controls of a JSON-RPC devnet node process (see `nodes.ts`). */
export interface NodeControl {
  stop(): Promise<void>;
  start(): Promise<void>;
}

/**
 * Faults of a chain reached over JSON-RPC. The base fee is raised with
 * `hardhat_setNextBlockBaseFeePerGas` and re-applied after each mined block by the node supervisor
 * when one runs (`npm run devnet`); without a `node` control the RPC cannot be stopped.
 */
export function jsonRpcFaults(
  provider: Eip1193Provider,
  normalBaseFee: bigint,
  node: NodeControl | undefined,
  onBaseFee: (level: bigint) => void = () => {},
): ChainFaults {
  const setLevel = async (level: bigint) => {
    onBaseFee(level);
    await rpc(provider, "hardhat_setNextBlockBaseFeePerGas", [toQuantity(level)]);
    await mine(provider, 1);
    return level;
  };
  const noNode = () =>
    new Error(
      "this chain's node was not started by this process: stop it where it runs (`npm run devnet`)",
    );
  return {
    ...forkFaults(provider),
    ...miningFaults(provider),
    async stopRpc() {
      if (!node) throw noNode();
      await node.stop();
    },
    async startRpc() {
      if (!node) throw noNode();
      await node.start();
    },
    raiseBaseFee: (factor) => setLevel(scale(normalBaseFee, factor)),
    restoreBaseFee: () => setLevel(normalBaseFee),
  };
}
