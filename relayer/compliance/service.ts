import { ApiError } from "../http/index.ts";
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

/**
 * The process's compliance service, opened on first use (the composition root asks at start so
 * the lists load before the first request) and shared by the routes, the intake and the engine.
 * A failed load fails closed with 503 SANCTIONS_LIST_UNAVAILABLE and is retried on the next use
 * (the operator may have fixed the file); the reason stays in the log, never in the answer.
 */
export interface ComplianceSource {
  get(): Promise<ComplianceService>;
  /** Stops watching the list files and SIGHUP. */
  close(): Promise<void>;
}

export function complianceSource(options: {
  sanctionsFiles?: string | undefined;
  chains: () => readonly OracleChain[];
  logger: Logger;
}): ComplianceSource {
  let opening: Promise<ComplianceService> | null = null;
  return {
    get() {
      opening ??= openCompliance(options).catch((err: Error) => {
        options.logger.error({ error: err.message }, "sanctions lists failed to load");
        opening = null;
        throw new ApiError(
          503,
          "SANCTIONS_LIST_UNAVAILABLE",
          "the sanctions lists could not be loaded; the relayer's log names the file and the reason",
        );
      });
      return opening;
    },
    async close() {
      const opened = opening;
      opening = null;
      (await opened?.catch(() => null))?.close();
    },
  };
}
