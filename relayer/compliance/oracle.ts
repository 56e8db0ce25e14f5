import type { Contract, ContractRunner } from "ethers";
import { ApiError } from "../http/index.ts";
import { CHAINALYSIS_ORACLE_LIST, type ListFileInfo, type ListMatch } from "./sanctions.ts";
import { CONTRACT_NAMES } from "../deployments/index.ts";

/** Name of the Chainalysis-compatible oracle (`isSanctioned(address) → bool`) in a deployment. */
export const SANCTIONS_ORACLE_CONTRACT = CONTRACT_NAMES.sanctionsOracle;

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

/** An oracle that did not answer and was routed around (spec 504: "verify the oracle is live; route around"). */
export interface UnansweredOracle {
  chain: string;
  source: string;
  reason: string;
}

export interface OracleCheck {
  matches: ListMatch[];
  /** The oracles that answered. */
  lists: ListFileInfo[];
  /** The oracles that did not. */
  unanswered: UnansweredOracle[];
}

/**
 * The one reader of a chain's Chainalysis-compatible sanctions oracle (`isSanctioned(address)`),
 * for the compliance endpoints (`checkOracles`) and the engine's screening (compliance/screening.ts).
 */
export async function readSanctionsOracle(
  chain: { contract(name: string): Contract },
  address: string,
): Promise<boolean> {
  const oracle = chain.contract(SANCTIONS_ORACLE_CONTRACT);
  return (await oracle.getFunction("isSanctioned").staticCall(address)) as boolean;
}

/** One oracle's answer about an address, or why it gave none. */
export type OracleAnswer =
  | {
      answered: true;
      chain: OracleChain;
      source: string;
      sanctioned: boolean;
      block: { number: number; timestamp: number } | null;
    }
  | { answered: false; chain: string; source: string; reason: string };

/** The oracle's CAIP-10 style id: `eip155:<chain id>:<contract>`. */
export function oracleSource(chain: OracleChain): string {
  return `eip155:${chain.chainId}:${chain.deployment.contracts[SANCTIONS_ORACLE_CONTRACT]!.address}`;
}

/**
 * How long an oracle may take before it counts as not answering: a node that accepts the request
 * and never answers is a gateway timeout (spec 504), routed around like a refused connection.
 */
export const ORACLE_ANSWER_TIMEOUT_MS = 10_000;

/**
 * Asks one chain's oracle (and its latest block, the answer's date). A revert, a refused
 * connection or no answer within `timeoutMs` is "no answer", with its reason; never "not
 * sanctioned".
 */
export async function askOracle(
  chain: OracleChain,
  address: string,
  timeoutMs = ORACLE_ANSWER_TIMEOUT_MS,
): Promise<OracleAnswer> {
  const source = oracleSource(chain);
  let timer: NodeJS.Timeout | undefined;
  const silence = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    const [sanctioned, block] = await Promise.race([
      Promise.all([readSanctionsOracle(chain, address), chain.provider.getBlock("latest")]),
      silence,
    ]);
    return { answered: true, chain, source, sanctioned, block };
  } catch (err) {
    return {
      answered: false,
      chain: chain.name,
      source,
      reason: (err as Error).message.slice(0, 200),
    };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Asks each chain's oracle. An oracle that does not answer is never read as "not sanctioned": it
 * is listed in `unanswered`, and the caller decides whether the sources that did answer (other
 * chains' oracles, the loaded lists) may stand in for it.
 */
export async function checkOracles(
  chains: readonly OracleChain[],
  address: string,
): Promise<OracleCheck> {
  const answers = await Promise.all(chainsWithOracle(chains).map((c) => askOracle(c, address)));
  const answered = answers.filter((a) => a.answered);
  return {
    matches: answered
      .filter((a) => a.sanctioned)
      .map((a) => ({
        list: CHAINALYSIS_ORACLE_LIST,
        entry: `${a.chain.name} oracle ${a.source}: isSanctioned = true`,
        address,
      })),
    lists: answered.map((a) => ({
      name: CHAINALYSIS_ORACLE_LIST,
      source: a.source,
      entries: null,
      updated_at: new Date(
        (a.block?.timestamp ?? Math.floor(Date.now() / 1000)) * 1000,
      ).toISOString(),
    })),
    unanswered: answers
      .filter((a) => !a.answered)
      .map(({ chain, source, reason }) => ({ chain, source, reason })),
  };
}

/**
 * The oracle check of one address, routed around the oracles that do not answer: another chain's
 * oracle stands in for the list, or, when no oracle answered, the loaded list files do, unless
 * the oracle list itself is required (`oracleRequired`) or nothing else was consulted. Then 504
 * ORACLE_UNAVAILABLE names each oracle.
 */
export async function checkOraclesRoutedAround(
  chains: readonly OracleChain[],
  address: string,
  options: { oracleRequired: boolean; otherSources: number },
): Promise<OracleCheck> {
  const check = await checkOracles(chains, address);
  if (check.unanswered.length === 0 || check.lists.length > 0) return check;
  if (options.oracleRequired || options.otherSources === 0) {
    throw new ApiError(
      504,
      "ORACLE_UNAVAILABLE",
      `no sanctions oracle answered (${check.unanswered.map((u) => `${u.chain} ${u.source}: ${u.reason}`).join("; ")})${options.oracleRequired ? "; the jurisdictions require the oracle list" : " and no sanctions list file is loaded"}`,
    );
  }
  return check;
}

/** The chains with a deployment among those open (a ChainSet's `list()`), for the oracle reads. */
export function oracleChains(list: readonly unknown[]): OracleChain[] {
  return list.filter(
    (c): c is OracleChain =>
      typeof c === "object" && c !== null && "deployment" in c && "contract" in c,
  );
}
