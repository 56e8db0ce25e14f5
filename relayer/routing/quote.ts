import { formatUnits, parseUnits } from "ethers";
import { ROUTER_INTERFACE } from "./abis.ts";
import { quotePath } from "./amm.ts";
import type { RoutingChain } from "./chain.ts";
import { hasAsset, normaliseAsset, tokenOf, wrappedNativeSymbol } from "./chain.ts";
import { estimateTxGas } from "./gas.ts";
import type { FeeQuote, GasStrategy } from "./fees.ts";
import type { ReserveReader } from "./pools.ts";
import { nativeUsdPrice, usdPrice } from "./prices.ts";

/** One way to execute a swap: a chain, an exchange and a path (direct or via the wrapped native asset). */
export interface SwapCandidate {
  chain: string;
  chainId: number;
  exchange: string;
  router: string;
  /** Asset symbols along the path. */
  path: string[];
  pathAddresses: string[];
  amountIn: bigint;
  amountOut: bigint;
  amountOutDecimal: string;
  /** Price impact excluding the 0.3% pool fee, basis points. */
  priceImpactBps: number;
  /** Largest share of a pool's input reserve this order takes along the path (0..1). */
  poolShare: number;
  gas: bigint;
  gasSource: "estimateGas" | "baseline";
  gasUsd: number;
  outputUsd: number;
  /** Output value net of the gas cost, USD: the `cost` priority's score. */
  netUsd: number;
}

export interface SwapQuoteRequest {
  from: string;
  to: string;
  /** Decimal amount of `from`. */
  amount: string;
  /** Restrict to these chains (the previous action's chain, a `chain` pin, fallback order). */
  chains?: readonly string[];
  /** Restrict to one exchange (YAML `dex`). */
  dex?: string;
  /** The account that will send the swap (gas is estimated from it when it can execute now). */
  account?: string;
  gasStrategy?: GasStrategy;
}

/** Quote every candidate: each chain with both assets × each exchange × {direct, via wrapped native}. */
export async function quoteSwapCandidates(
  chains: readonly RoutingChain[],
  request: SwapQuoteRequest,
  reader: ReserveReader,
): Promise<SwapCandidate[]> {
  const candidates: SwapCandidate[] = [];
  const eligible = chains.filter(
    (c) =>
      hasAsset(c, request.from) &&
      hasAsset(c, request.to) &&
      (!request.chains || request.chains.includes(c.name)),
  );
  await Promise.all(
    eligible.map(async (chain) => {
      const from = normaliseAsset(chain, request.from);
      const to = normaliseAsset(chain, request.to);
      const tokenIn = tokenOf(chain, from);
      const tokenOut = tokenOf(chain, to);
      const amountIn = parseUnits(request.amount, tokenIn.decimals);
      const wrapped = wrappedNativeSymbol(chain);
      const paths: string[][] = [[from, to]];
      if (from !== wrapped && to !== wrapped && hasAsset(chain, wrapped))
        paths.push([from, wrapped, to]);
      const exchanges = Object.keys(chain.deployment.exchanges).filter(
        (e) => !request.dex || e === request.dex,
      );
      let fees: FeeQuote | null = null;
      let nativeUsd = 0;
      let outUsd: number | null = null;
      for (const exchange of exchanges) {
        for (const path of paths) {
          const addresses = path.map((s) => tokenOf(chain, s).address);
          const hops = await reader.path(chain, exchange, addresses);
          if (!hops) continue;
          const { amountOut, priceImpactBps, poolShare } = quotePath(amountIn, hops);
          fees ??= await reader.feeQuote(chain, request.gasStrategy ?? "eco");
          if (!nativeUsd) nativeUsd = await nativeUsdPrice(chain, reader);
          outUsd ??= (await usdPrice(chain, to, reader)) ?? 0;
          const router = chain.deployment.exchanges[exchange]!.router;
          const swapRequest = request.account
            ? {
                to: router,
                from: request.account,
                data: ROUTER_INTERFACE.encodeFunctionData("swapExactTokensForTokens", [
                  amountIn,
                  0n,
                  addresses,
                  request.account,
                  BigInt(Math.floor(Date.now() / 1000) + 600),
                ]),
              }
            : null;
          const gas = await estimateTxGas(
            chain,
            "swap",
            swapRequest,
            hops.length,
            await reader.snapshot(chain),
          );
          const gasUsd = (Number(gas.gas * fees.expectedPricePerGas) / 1e18) * nativeUsd;
          const amountOutDecimal = formatUnits(amountOut, tokenOut.decimals);
          const outputUsd = Number(amountOutDecimal) * outUsd;
          candidates.push({
            chain: chain.name,
            chainId: chain.chainId,
            exchange,
            router,
            path,
            pathAddresses: addresses,
            amountIn,
            amountOut,
            amountOutDecimal,
            priceImpactBps,
            poolShare,
            gas: gas.gas,
            gasSource: gas.source,
            gasUsd,
            outputUsd,
            netUsd: outputUsd - gasUsd,
          });
        }
      }
    }),
  );
  return candidates;
}
