import { AgentError } from "../errors/index.ts";
import type { ComplianceScreen } from "./screening.ts";
import { parseAddress } from "./check.ts";
import type { SanctionsLists } from "./sanctions.ts";
import { SANCTIONS_LISTS } from "./specs.ts";

/**
 * The engine's screening hook for the list files (`ofac-sdn` and any other configured id); combine
 * it with the agents' `oracleScreen` (the chain's oracle) through `combineScreens`. `listIds`
 * restricts it to the lists a workflow's jurisdictions require (`resolveJurisdictions`).
 */
export function listScreen(lists: SanctionsLists, listIds?: readonly string[]): ComplianceScreen {
  return async (address, _chain, required) => {
    const ids = listIds ?? required;
    const wanted = ids ? new Set(ids) : undefined;
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

/**
 * Fails closed. On the lists a workflow's jurisdictions require: every id in `required` must be
 * among the sources `screen` actually consulted for the address (a list file not configured, a
 * chain without its sanctions oracle, oracles that did not answer), otherwise
 * SANCTIONS_LIST_UNAVAILABLE is thrown before anything is signed. Without `required` (no
 * jurisdictions declared) whatever answered stands, but when sources were asked and none
 * answered (every oracle routed around, no list file or provider), ORACLE_UNAVAILABLE: no answer
 * is never read as "not sanctioned".
 */
export function requireConsulted(screen: ComplianceScreen): ComplianceScreen {
  return async (address, chain, required, context) => {
    const result = await screen(address, chain, required, context);
    const unanswered = (result.routed_around ?? [])
      .map((r) => `${r.chain} ${r.source}: ${r.reason}`)
      .join("; ");
    const missing = (required ?? []).filter((id) => !result.checked.includes(id));
    if (missing.length > 0) {
      throw new AgentError(
        "SANCTIONS_LIST_UNAVAILABLE",
        `the workflow's jurisdictions require sanctions list ${missing.join(", ")}, which could not be consulted on ${chain.name} (${unanswered ? `no sanctions oracle answered: ${unanswered}` : missing.map(howToConfigure).join("; ")}); nothing was sent`,
        { lists: missing },
      );
    }
    if (result.checked.length === 0 && unanswered) {
      throw new AgentError(
        "ORACLE_UNAVAILABLE",
        `no sanctions source answered for ${address} on ${chain.name} (${unanswered}) and no sanctions list file is loaded; nothing was sent`,
        { address, routed_around: result.routed_around },
      );
    }
    return result;
  };
}

/** What an operator does to make a list available (named in errors). */
export function howToConfigure(listId: string): string {
  return listId === "chainalysis-oracle"
    ? "chainalysis-oracle is the SanctionsOracle contract of the chain's deployment"
    : `load ${listId} with VERIFLOW_SANCTIONS_FILES=${listId}=/path/to/list`;
}

/**
 * The list files (source `files` in the catalogue) among `required` that `lists` has not loaded;
 * intake refuses a submission needing one of them (the on-chain oracle is checked per chain when
 * the action runs).
 */
export function missingListFiles(lists: SanctionsLists, required: readonly string[]): string[] {
  const loaded = new Set(lists.listIds());
  const fileLists = new Set<string>(
    SANCTIONS_LISTS.filter((l) => l.source === "files").map((l) => l.id),
  );
  return required.filter((id) => fileLists.has(id) && !loaded.has(id));
}
