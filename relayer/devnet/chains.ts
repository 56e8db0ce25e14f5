import type { DevnetChainName } from "./plan.ts";

/**
 * The devnet's three chains: distinct chain ids and deliberately different base fees, so that
 * routing by cost has real differences (ethereum expensive, arbitrum cheap, polygon in between).
 * `hardhat.config.ts` builds its networks from this table; the same names are used in process
 * (`network.create(name)`) and as JSON-RPC servers (`npm run devnet`).
 */
export const DEVNET_CHAINS: Record<
  DevnetChainName,
  { chainId: number; initialBaseFeePerGas: bigint; defaultPort: number }
> = {
  ethereum: { chainId: 31337, initialBaseFeePerGas: 20_000_000_000n, defaultPort: 8545 },
  arbitrum: { chainId: 31338, initialBaseFeePerGas: 100_000_000n, defaultPort: 8546 },
  polygon: { chainId: 31339, initialBaseFeePerGas: 2_000_000_000n, defaultPort: 8547 },
};

/** The devnet's chain ids: the only chains the development proving keys may be used on. */
export const DEVNET_CHAIN_IDS: readonly number[] = Object.values(DEVNET_CHAINS).map(
  (c) => c.chainId,
);
