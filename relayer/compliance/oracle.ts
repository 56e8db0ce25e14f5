import type { Contract, ContractRunner } from "ethers";
import { ApiError } from "../http/errors.ts";
import { CHAINALYSIS_ORACLE_LIST, type ListFileInfo, type ListMatch } from "./sanctions.ts";

/** Name of the Chainalysis-compatible oracle (`isSanctioned(address) → bool`) in a deployment. */
export const SANCTIONS_ORACLE_CONTRACT = "SanctionsOracle";

/** What the oracle check needs of a chain (a `ChainHandle` from `relayer/chains` fits). */
export interface OracleChain {
  name: string;
  chainId: number;
  deployment: { contracts: Record<string, { address: string }> };
  contract(name: string, runner?: ContractRunner): Contract;
  provider: { getBlock(tag: "latest"): Promise<{ number: number; timestamp: number } | null> };
}

export function chainsWithOracle(chains: readonly OracleChain[]): OracleChain[] {
  return chains.filter((c) => c.deployment.contracts[SANCTIONS_ORACLE_CONTRACT] !== undefined);
}

/**
 * Asks each chain's oracle. Fails closed: an oracle that does not answer is a 504 (spec: "verify
 * the oracle is live"), never a silent "not sanctioned".
 */
export async function checkOracles(
  chains: readonly OracleChain[],
  address: string,
): Promise<{ matches: ListMatch[]; lists: ListFileInfo[] }> {
  const answers = await Promise.all(
    chainsWithOracle(chains).map(async (chain) => {
      const oracle = chain.contract(SANCTIONS_ORACLE_CONTRACT);
      const source = `eip155:${chain.chainId}:${chain.deployment.contracts[SANCTIONS_ORACLE_CONTRACT]!.address}`;
      try {
        const [sanctioned, block] = await Promise.all([
          oracle.getFunction("isSanctioned").staticCall(address) as Promise<boolean>,
          chain.provider.getBlock("latest"),
        ]);
        return { chain, source, sanctioned, block };
      } catch (err) {
        throw new ApiError(
          504,
          "ORACLE_UNAVAILABLE",
          `the sanctions oracle on ${chain.name} (${source}) did not answer: ${(err as Error).message.slice(0, 200)}`,
        );
      }
    }),
  );
  return {
    matches: answers
      .filter((a) => a.sanctioned)
      .map((a) => ({
        list: CHAINALYSIS_ORACLE_LIST,
        entry: `${a.chain.name} oracle ${a.source}: isSanctioned = true`,
        address,
      })),
    lists: answers.map((a) => ({
      name: CHAINALYSIS_ORACLE_LIST,
      source: a.source,
      entries: null,
      updated_at: new Date(
        (a.block?.timestamp ?? Math.floor(Date.now() / 1000)) * 1000,
      ).toISOString(),
    })),
  };
}

/** The chains with a deployment among those open (a ChainSet's `list()`), for the oracle reads. */
export function oracleChains(list: readonly unknown[]): OracleChain[] {
  return list.filter(
    (c): c is OracleChain =>
      typeof c === "object" && c !== null && "deployment" in c && "contract" in c,
  );
}
