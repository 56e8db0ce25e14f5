import type { Deployment } from "../deployments/index.ts";

/**
 * What a workflow may name: chains, their assets (with decimals), exchanges and bridge protocols,
 * derived from the chains' deployment records so validation accepts exactly what the relayer can
 * execute. Built once per process from the open chains.
 */
export interface CatalogueAsset {
  symbol: string;
  decimals: number;
  /** The chain's native coin (no token contract). */
  native: boolean;
}

export interface CatalogueChain {
  name: string;
  chainId: number;
  /** Keyed by upper-case symbol. */
  assets: Map<string, CatalogueAsset>;
  exchanges: Set<string>;
  bridgeProtocols: Set<string>;
}

export interface AssetCatalogue {
  /** Keyed by lower-case chain name. */
  chains: Map<string, CatalogueChain>;
  /**
   * The configured integrations a multisend's `recipients_from` may name (those whose pinned
   * schema lists orders); none when the relayer runs without integrations.
   */
  recipientSources?: ReadonlySet<string>;
}

/** The minimum of a chain handle the catalogue needs (`ChainHandle` satisfies it). */
export interface ChainDescription {
  name: string;
  chainId: number;
  deployment: Deployment;
}

/**
 * Where a deployment names its native coin and bridge protocols (in its free-form `extra`):
 * `extra.nativeSymbol` (as routing reads it) or `extra.nativeAsset = {symbol, decimals}` (default
 * ETH/18, true of every devnet chain) and
 * `extra.bridgeProtocols = ["lockmint", ...]` or `extra.bridges = {lockmint: {...}}`.
 */
function nativeAssetOf(deployment: Deployment): CatalogueAsset {
  const given = deployment.extra["nativeAsset"] as
    { symbol?: unknown; decimals?: unknown } | undefined;
  const symbol = typeof given?.symbol === "string" ? given.symbol : "ETH";
  const decimals = typeof given?.decimals === "number" ? given.decimals : 18;
  return { symbol, decimals, native: true };
}

function bridgeProtocolsOf(deployment: Deployment): string[] {
  const extra = deployment.extra;
  const listed = extra["bridgeProtocols"];
  if (Array.isArray(listed)) return listed.filter((p): p is string => typeof p === "string");
  const bridges = extra["bridges"] ?? extra["bridge"];
  if (bridges && typeof bridges === "object" && !Array.isArray(bridges)) {
    const record = bridges as Record<string, unknown>;
    if (typeof record["protocol"] === "string") return [record["protocol"]];
    return Object.keys(record);
  }
  return [];
}

export function buildCatalogue(chains: readonly ChainDescription[]): AssetCatalogue {
  const catalogue: AssetCatalogue = { chains: new Map() };
  for (const chain of chains) {
    const assets = new Map<string, CatalogueAsset>();
    const native = nativeAssetOf(chain.deployment);
    assets.set(native.symbol.toUpperCase(), native);
    for (const [symbol, token] of Object.entries(chain.deployment.tokens)) {
      assets.set(symbol.toUpperCase(), { symbol, decimals: token.decimals, native: false });
    }
    catalogue.chains.set(chain.name.toLowerCase(), {
      name: chain.name.toLowerCase(),
      chainId: chain.chainId,
      assets,
      exchanges: new Set(Object.keys(chain.deployment.exchanges).map((e) => e.toLowerCase())),
      bridgeProtocols: new Set(bridgeProtocolsOf(chain.deployment).map((p) => p.toLowerCase())),
    });
  }
  return catalogue;
}

/** Chains on which an asset exists (lower-case names). */
export function chainsWithAsset(catalogue: AssetCatalogue, symbol: string): CatalogueChain[] {
  const key = symbol.toUpperCase();
  return [...catalogue.chains.values()].filter((c) => c.assets.has(key));
}

/** Canonical spelling of an asset symbol, or undefined when no chain has it. */
export function canonicalAsset(catalogue: AssetCatalogue, symbol: string): string | undefined {
  for (const chain of catalogue.chains.values()) {
    const asset = chain.assets.get(symbol.toUpperCase());
    if (asset) return asset.symbol;
  }
  return undefined;
}

/**
 * Decimals an amount of `symbol` may carry: the asset's decimals on `chain` when pinned, else the
 * smallest across the chains that have it (so the amount is exact wherever the engine routes it).
 */
export function assetDecimals(
  catalogue: AssetCatalogue,
  symbol: string,
  chain?: string,
): number | undefined {
  const key = symbol.toUpperCase();
  if (chain) return catalogue.chains.get(chain)?.assets.get(key)?.decimals;
  const all = chainsWithAsset(catalogue, symbol).map((c) => c.assets.get(key)!.decimals);
  return all.length ? Math.min(...all) : undefined;
}

export function allExchanges(catalogue: AssetCatalogue): Set<string> {
  return new Set([...catalogue.chains.values()].flatMap((c) => [...c.exchanges]));
}

export function allBridgeProtocols(catalogue: AssetCatalogue): Set<string> {
  return new Set([...catalogue.chains.values()].flatMap((c) => [...c.bridgeProtocols]));
}
