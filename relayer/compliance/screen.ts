import type { ComplianceScreen } from "../agents/compliance.ts";
import { parseAddress } from "./check.ts";
import type { SanctionsLists } from "./sanctions.ts";

/**
 * The engine's screening hook for the list files (`ofac-sdn` and any other configured id); combine
 * it with the agents' `oracleScreen` (the chain's oracle) through `combineScreens`. `listIds`
 * restricts it to the lists a workflow's jurisdictions require (`resolveJurisdictions`).
 */
export function listScreen(lists: SanctionsLists, listIds?: readonly string[]): ComplianceScreen {
  const wanted = listIds ? new Set(listIds) : undefined;
  return async (address) => {
    const checked = lists.listIds().filter((id) => !wanted || wanted.has(id));
    const matches = lists.lookup(parseAddress(address), wanted);
    return {
      address,
      sanctioned: matches.length > 0,
      sources: [...new Set(matches.map((m) => m.list))],
      checked,
    };
  };
}
