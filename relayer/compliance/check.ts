import { getAddress } from "ethers";
import { ApiError } from "../http/index.ts";
import {
  checkOraclesRoutedAround,
  chainsWithOracle,
  type OracleChain,
  type UnansweredOracle,
} from "./oracle.ts";
import { CHAINALYSIS_ORACLE_LIST, type ListFileInfo, type SanctionsLists } from "./sanctions.ts";

export interface ComplianceResult {
  /** EIP-55 checksummed. */
  address: string;
  sanctioned: boolean;
  matches: { list: string; entry: string }[];
  /** Every list consulted for this answer, matched or not: the sources that answered. */
  lists: ListFileInfo[];
  /** Oracles that did not answer and were routed around (the sources in `lists` answered). */
  routed_around: UnansweredOracle[];
  checked_at: string;
}

export interface CheckOptions {
  /** Region codes (workflow `compliance.jurisdictions`): only the lists that apply to them. */
  jurisdictions?: readonly string[];
  /** List ids to consult directly (overrides `jurisdictions`). */
  lists?: readonly string[];
}

/** Maps jurisdictions to list ids; throws an `ApiError` 400 for an unknown region code. */
export type JurisdictionResolver = (jurisdictions: readonly string[]) => string[];

const HEX_ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/**
 * Validates an address as a user typed it: 20 bytes of hex; all-lower or all-upper case is
 * accepted as is, mixed case must carry a correct EIP-55 checksum (a typo guard). Returns the
 * checksummed form.
 */
export function parseAddress(input: unknown, field = "address"): string {
  if (typeof input !== "string" || input.trim() === "") {
    throw new ApiError(
      400,
      "INVALID_ADDRESS",
      `${field} is required: a 0x-prefixed 20-byte hex address`,
    );
  }
  const value = input.trim();
  if (!HEX_ADDRESS.test(value)) {
    throw new ApiError(
      400,
      "INVALID_ADDRESS",
      `${field} "${value.slice(0, 64)}" is not a 0x-prefixed 20-byte hex address`,
    );
  }
  const body = value.slice(2);
  const checksummed = getAddress(value.toLowerCase());
  if (body !== body.toLowerCase() && body !== body.toUpperCase() && checksummed !== value) {
    throw new ApiError(
      400,
      "INVALID_ADDRESS",
      `${field} "${value}" has a wrong EIP-55 checksum (mixed case must match ${checksummed}); check for a typo`,
    );
  }
  return checksummed;
}

export interface ComplianceChecker {
  checkAddress(address: string, options?: CheckOptions): Promise<ComplianceResult>;
  readonly lists: SanctionsLists;
}

/**
 * The sanctions check the API and the execution engine share (the engine calls it before signing,
 * for every counterparty). Fails closed: a list the jurisdictions require but that is not loaded,
 * or an oracle that does not answer, is an error, never a "not sanctioned".
 */
export function createComplianceChecker(deps: {
  lists: SanctionsLists;
  /** Chains whose `SanctionsOracle` is consulted (list `chainalysis-oracle`). */
  chains: () => readonly OracleChain[];
  resolveJurisdictions?: JurisdictionResolver;
  now?: () => Date;
}): ComplianceChecker {
  const now = deps.now ?? (() => new Date());

  function selectLists(options: CheckOptions): Set<string> | undefined {
    let wanted: readonly string[] | undefined = options.lists;
    if (!wanted && options.jurisdictions && options.jurisdictions.length > 0) {
      if (!deps.resolveJurisdictions) {
        throw new ApiError(
          503,
          "COMPLIANCE_SPECS_UNAVAILABLE",
          "no jurisdiction catalogue is configured",
        );
      }
      wanted = deps.resolveJurisdictions(options.jurisdictions);
    }
    if (!wanted) return undefined;
    const available = new Set([
      ...deps.lists.listIds(),
      ...(chainsWithOracle(deps.chains()).length > 0 ? [CHAINALYSIS_ORACLE_LIST] : []),
    ]);
    const missing = wanted.filter((id) => !available.has(id));
    if (missing.length > 0) {
      throw new ApiError(
        503,
        "SANCTIONS_LIST_UNAVAILABLE",
        `required sanctions list(s) not loaded: ${missing.join(", ")} (configure VERIFLOW_SANCTIONS_FILES or a chain oracle)`,
      );
    }
    return new Set(wanted);
  }

  return {
    lists: deps.lists,
    async checkAddress(input, options = {}) {
      const address = parseAddress(input);
      const listIds = selectLists(options);
      const fileMatches = deps.lists.lookup(address, listIds);
      const useOracle = !listIds || listIds.has(CHAINALYSIS_ORACLE_LIST);
      const fileLists = deps.lists.describe(listIds);
      const oracle = useOracle
        ? await checkOraclesRoutedAround(deps.chains(), address, {
            oracleRequired: listIds?.has(CHAINALYSIS_ORACLE_LIST) ?? false,
            otherSources: fileLists.length,
          })
        : { matches: [], lists: [], unanswered: [] };
      const matches = [...fileMatches, ...oracle.matches].map((m) => ({
        list: m.list,
        entry: m.entry,
      }));
      return {
        address,
        sanctioned: matches.length > 0,
        matches,
        lists: [...fileLists, ...oracle.lists],
        routed_around: oracle.unanswered,
        checked_at: now().toISOString(),
      };
    },
  };
}
