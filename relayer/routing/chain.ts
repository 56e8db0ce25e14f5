import type { Contract, ContractRunner, Provider, Signer } from "ethers";
import type { ChainReliability } from "../chains/index.ts";
import { CONTRACT_NAMES, type Deployment } from "../deployments/index.ts";

/**
 * What routing needs of a chain: a structural subset of the devnet's `ChainHandle`
 * (`relayer/chains/index.ts`), so routing works with any chain set that has these fields.
 */
export interface RoutingChain {
  readonly name: string;
  readonly chainId: number;
  readonly provider: Provider;
  readonly deployment: Deployment;
  readonly operator?: Signer;
  /** An ethers Contract for a deployed contract, from the deployment's ABI files. */
  contract(name: string, runner?: ContractRunner): Contract;
  /**
   * For chains whose every state change this process sees (the in-process devnet): a number that
   * moves whenever the state may have changed, or null when that is not known at the moment.
   * Routing reuses the latest block and fee history read at the same number instead of asking
   * again. Absent for chains reached over the network: always asked.
   */
  stateVersion?(): number | null;
  /** Confirmation depth, stuck timeout and fee cap (absent: DEVNET_RELIABILITY). */
  readonly reliability?: ChainReliability;
  /**
   * Devnet chains only: mines the next block. A local devnet mines only when a transaction comes
   * (automine), so a wait for confirmation depth asks for the blocks a real network would produce.
   */
  produceBlock?(): Promise<void>;
}

/** Names of the deployment's contracts the engine routes through and attests with. */
export const BRIDGE_CONTRACT = CONTRACT_NAMES.bridge;
export const MULTISEND_CONTRACT = CONTRACT_NAMES.multisend;
export const ATTESTOR_CONTRACT = CONTRACT_NAMES.attestor;

/** What the asset helpers read of a chain: its name and its deployment (tokens, native asset). */
export type ChainAssets = Pick<RoutingChain, "name" | "deployment">;

/** The set of chains routing chooses from (`ChainSet.list()`). */
export interface RoutingChainSet {
  list(): readonly RoutingChain[];
}

/** Symbol of the wrapped native asset on a chain (used for native-asset pricing and WETH hops). */
export function wrappedNativeSymbol(chain: ChainAssets): string {
  const declared = chain.deployment.extra["wrappedNative"];
  return typeof declared === "string" ? declared : "WETH";
}

export function hasAsset(chain: ChainAssets, symbol: string): boolean {
  return normaliseAsset(chain, symbol) in chain.deployment.tokens;
}

/** The native asset is routed through its wrapped token (ETH → WETH). */
export function normaliseAsset(chain: ChainAssets, symbol: string): string {
  const upper = symbol.toUpperCase();
  return upper === nativeSymbol(chain) ? wrappedNativeSymbol(chain) : upper;
}

/** The native coin's symbol: `extra.nativeAsset.symbol` in the deployment (default ETH). */
export function nativeSymbol(chain: ChainAssets): string {
  const declared = (chain.deployment.extra["nativeAsset"] as { symbol?: unknown } | undefined)
    ?.symbol;
  return typeof declared === "string" ? declared : "ETH";
}

export function tokenOf(chain: ChainAssets, symbol: string): { address: string; decimals: number } {
  const token = chain.deployment.tokens[normaliseAsset(chain, symbol)];
  if (!token) throw new Error(`asset ${symbol} is not deployed on ${chain.name}`);
  return token;
}
