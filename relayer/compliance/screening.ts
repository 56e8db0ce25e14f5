import { z } from "zod";
import type { RoutingChain } from "../routing/index.ts";
import { askOracle, chainsWithOracle, readSanctionsOracle, type OracleChain } from "./oracle.ts";
import { CHAINALYSIS_ORACLE_LIST } from "./sanctions.ts";
import { CONTRACT_NAMES } from "../deployments/index.ts";

/** The result of screening one address against the sanctions sources. */
export const screenResultSchema = z.object({
  address: z.string(),
  sanctioned: z.boolean(),
  /** Sanctions list ids that flagged it (`chainalysis-oracle`, `ofac-sdn`, ...). */
  sources: z.array(z.string()),
  /** Every source consulted, flagged or not. */
  checked: z.array(z.string()),
  /**
   * The sources that answered: a list id, and for an oracle the chain and contract
   * (`eip155:<chain id>:<address>`) it was read on (absent in results stored before routing).
   */
  answered: z
    .array(
      z.object({ list: z.string(), chain: z.string().optional(), source: z.string().optional() }),
    )
    .optional(),
  /** The sources that did not answer and were routed around (spec 504), with why. */
  routed_around: z
    .array(
      z.object({ list: z.string(), chain: z.string(), source: z.string(), reason: z.string() }),
    )
    .optional(),
});
export type ScreenResult = z.infer<typeof screenResultSchema>;

/**
 * Screens an address (as a counterparty or recipient on `chain`). `required` is the list ids the
 * workflow's jurisdictions require (undefined: the workflow declared none, screen with every
 * source available); a screen that cannot consult one of them must throw, never skip it.
 */
export type ComplianceScreen = (
  address: string,
  chain: RoutingChain,
  required?: readonly string[],
  /** The execution and action screened for (external screenings are anchored under it). */
  context?: ScreenContext,
) => Promise<ScreenResult>;

export interface ScreenContext {
  executionId: string;
  actionIndex: number;
}

/**
 * The on-chain source: the chain's Chainalysis-compatible sanctions oracle (`isSanctioned`).
 * Extra sources (the aux engineer's file lists) are combined with {@link combineScreens}.
 */
export const oracleScreen: ComplianceScreen = async (address, chain) => {
  if (!chain.deployment.contracts[CONTRACT_NAMES.sanctionsOracle]) {
    return { address, sanctioned: false, sources: [], checked: [] };
  }
  const sanctioned = await readSanctionsOracle(chain, address);
  return {
    address,
    sanctioned,
    sources: sanctioned ? ["chainalysis-oracle"] : [],
    checked: ["chainalysis-oracle"],
  };
};

/**
 * The engine's on-chain source, routed around an oracle that does not answer (spec 504: "verify
 * the oracle is live; route around"): the action chain's oracle first; when it reverts or its RPC
 * is down, the other chains' oracles (the same list, read elsewhere). When none answers the
 * result consults nothing (`checked` without the oracle list) and names each oracle in
 * `routed_around`: the loaded list files may stand in (combineScreens), and `requireConsulted`
 * fails closed when nothing answered. A chain without an oracle in its deployment has none to ask.
 */
export function routedOracleScreen(chains: () => readonly OracleChain[]): ComplianceScreen {
  return async (address, chain) => {
    if (!chain.deployment.contracts[CONTRACT_NAMES.sanctionsOracle]) {
      return {
        address,
        sanctioned: false,
        sources: [],
        checked: [],
        answered: [],
        routed_around: [],
      };
    }
    const own = await askOracle(chain, address);
    const answers = own.answered
      ? [own]
      : [
          own,
          ...(await Promise.all(
            chainsWithOracle(chains())
              .filter((c) => c.chainId !== chain.chainId)
              .map((c) => askOracle(c, address)),
          )),
        ];
    const answered = answers.filter((a) => a.answered);
    const sanctioned = answered.some((a) => a.sanctioned);
    return {
      address,
      sanctioned,
      sources: sanctioned ? [CHAINALYSIS_ORACLE_LIST] : [],
      checked: answered.length > 0 ? [CHAINALYSIS_ORACLE_LIST] : [],
      answered: answered.map((a) => ({
        list: CHAINALYSIS_ORACLE_LIST,
        chain: a.chain.name,
        source: a.source,
      })),
      routed_around: answers
        .filter((a) => !a.answered)
        .map(({ chain: name, source, reason }) => ({
          list: CHAINALYSIS_ORACLE_LIST,
          chain: name,
          source,
          reason,
        })),
    };
  };
}

export function combineScreens(...screens: ComplianceScreen[]): ComplianceScreen {
  return async (address, chain, required, context) => {
    const results = await Promise.all(screens.map((s) => s(address, chain, required, context)));
    return {
      address,
      sanctioned: results.some((r) => r.sanctioned),
      sources: [...new Set(results.flatMap((r) => r.sources))],
      checked: [...new Set(results.flatMap((r) => r.checked))],
      answered: results.flatMap((r) => r.answered ?? r.checked.map((list) => ({ list }))),
      routed_around: results.flatMap((r) => r.routed_around ?? []),
    };
  };
}
