import { ApiError } from "../http/errors.ts";
import { createComplianceChecker, type ComplianceChecker } from "./check.ts";
import type { OracleChain } from "./oracle.ts";
import { parseSanctionsFiles, SanctionsLists } from "./sanctions.ts";
import { COMPLIANCE_SPECS_PATH, INVALID_COMPLIANCE_RULES, resolveCompliance } from "./specs.ts";

/**
 * The relayer's compliance service: the configured list files (loaded at start, then watched and
 * reloaded on SIGHUP), every chain's oracle, and the jurisdiction catalogue of `specs.ts`.
 */

/** Jurisdictions → list ids through the catalogue; an unknown code is 400 INVALID_COMPLIANCE_RULES. */
export function resolveJurisdictions(codes: readonly string[]): string[] {
  const { value, issues } = resolveCompliance(
    { jurisdictions: codes },
    { jurisdictions: "jurisdictions", taxForms: "tax_forms" },
  );
  if (issues.length > 0) {
    throw new ApiError(
      400,
      INVALID_COMPLIANCE_RULES,
      `${issues.map((i) => i.message).join("; ")}; supported jurisdictions: GET ${COMPLIANCE_SPECS_PATH}`,
      { issues },
    );
  }
  return value.sanctionsLists;
}

export interface ComplianceService extends ComplianceChecker {
  /** Stops watching the list files and SIGHUP. */
  close(): void;
}

interface Logger {
  info(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export async function openCompliance(options: {
  /** `VERIFLOW_SANCTIONS_FILES` syntax: `path` or `list-id=path`, comma-separated. */
  sanctionsFiles?: string;
  chains: () => readonly OracleChain[];
  logger?: Logger;
  /** Watch the files and SIGHUP (default true). */
  watch?: boolean;
}): Promise<ComplianceService> {
  const lists = await SanctionsLists.load(
    parseSanctionsFiles(options.sanctionsFiles),
    options.logger,
  );
  const stop = options.watch === false ? () => undefined : lists.watch();
  const checker = createComplianceChecker({ lists, chains: options.chains, resolveJurisdictions });
  return { ...checker, lists, close: stop };
}
