import { z } from "zod";
import type { RoutingChain } from "../routing/index.ts";
import { readSanctionsOracle } from "../compliance/oracle.ts";
import { CONTRACT_NAMES } from "../deployments/index.ts";

/** The result of screening one address against the sanctions sources. */
export const screenResultSchema = z.object({
  address: z.string(),
  sanctioned: z.boolean(),
  /** Sanctions list ids that flagged it (`chainalysis-oracle`, `ofac-sdn`, ...). */
  sources: z.array(z.string()),
  /** Every source consulted, flagged or not. */
  checked: z.array(z.string()),
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

export function combineScreens(...screens: ComplianceScreen[]): ComplianceScreen {
  return async (address, chain, required, context) => {
    const results = await Promise.all(screens.map((s) => s(address, chain, required, context)));
    return {
      address,
      sanctioned: results.some((r) => r.sanctioned),
      sources: [...new Set(results.flatMap((r) => r.sources))],
      checked: [...new Set(results.flatMap((r) => r.checked))],
    };
  };
}
