import type { RoutingChain } from "./chain.ts";
import { tokenOf, wrappedNativeSymbol, hasAsset, normaliseAsset } from "./chain.ts";
import type { ReserveReader } from "./pools.ts";

/**
 * USD prices from the chain's own pools: the mid price (reserve ratio) of the deepest pool between
 * the asset and a USD stablecoin, across the chain's exchanges. Stablecoins are the numeraire
 * (1 USD) on the devnet; production would plug a price source here.
 */
export const USD_STABLECOINS = ["USDC", "USDT", "DAI"] as const;

export async function usdPrice(
  chain: RoutingChain,
  symbol: string,
  reader: ReserveReader,
): Promise<number | null> {
  const asset = normaliseAsset(chain, symbol);
  if ((USD_STABLECOINS as readonly string[]).includes(asset)) return 1;
  if (!hasAsset(chain, asset)) return null;
  const token = tokenOf(chain, asset);
  let best: { depthUsd: number; price: number } | null = null;
  for (const stable of USD_STABLECOINS) {
    if (!hasAsset(chain, stable)) continue;
    const usd = tokenOf(chain, stable);
    for (const exchange of Object.keys(chain.deployment.exchanges)) {
      const pool = await reader.reserves(chain, exchange, token.address, usd.address);
      if (!pool || pool.reserveIn === 0n) continue;
      const price =
        Number(pool.reserveOut) /
        10 ** usd.decimals /
        (Number(pool.reserveIn) / 10 ** token.decimals);
      const depthUsd = Number(pool.reserveOut) / 10 ** usd.decimals;
      if (!best || depthUsd > best.depthUsd) best = { depthUsd, price };
    }
  }
  return best?.price ?? null;
}

/** USD price of the chain's native gas asset, through its wrapped token's pools. */
export async function nativeUsdPrice(chain: RoutingChain, reader: ReserveReader): Promise<number> {
  const price = await usdPrice(chain, wrappedNativeSymbol(chain), reader);
  if (price === null) throw new Error(`no USD pool for the native asset on ${chain.name}`);
  return price;
}
