import { z } from "@hono/zod-openapi";
import { ApiError } from "../http/index.ts";

/**
 * What Veriflow supports for `compliance` in workflows, served by `GET /v1/compliance/specs`
 * (spec: "400 invalid compliance rules → consult /v1/compliance/specs").
 *
 * Jurisdictions are region codes (ISO 3166-1 alpha-2, plus `EU`). Each names the sanctions lists
 * the relayer screens every counterparty and recipient against when a workflow declares it; list
 * ids are those of the sanctions sources (`ofac-sdn`: OFAC SDN list files; `chainalysis-oracle`:
 * the on-chain Chainalysis-compatible sanctions oracle). A workflow that declares no jurisdiction is
 * screened against every list. Tax forms are the reports the final report can be mapped to; a tax
 * form must belong to one of the workflow's jurisdictions when jurisdictions are given.
 */

export const SANCTIONS_LISTS = [
  {
    id: "ofac-sdn",
    name: "OFAC Specially Designated Nationals (digital currency addresses)",
    source: "files",
  },
  {
    id: "chainalysis-oracle",
    name: "Chainalysis sanctions oracle",
    source: "on-chain",
  },
] as const;

export type SanctionsListId = (typeof SANCTIONS_LISTS)[number]["id"];

export const TAX_FORMS = [
  {
    id: "1099-DA",
    name: "IRS Form 1099-DA, Digital Asset Proceeds From Broker Transactions",
    jurisdictions: ["US"],
  },
  {
    id: "1099-B",
    name: "IRS Form 1099-B, Proceeds From Broker and Barter Exchange Transactions",
    jurisdictions: ["US"],
  },
  {
    id: "8949",
    name: "IRS Form 8949, Sales and Other Dispositions of Capital Assets",
    jurisdictions: ["US"],
  },
  {
    id: "DAC8",
    name: "EU Directive 2023/2226 (DAC8) crypto-asset reporting",
    jurisdictions: ["EU", "DE", "FR", "NL", "IE", "ES", "IT"],
  },
  {
    id: "CARF",
    name: "OECD Crypto-Asset Reporting Framework",
    jurisdictions: ["EU", "DE", "FR", "NL", "IE", "ES", "IT", "GB", "CA", "AU", "JP", "SG", "CH"],
  },
] as const;

export type TaxFormId = (typeof TAX_FORMS)[number]["id"];

const ALL_LISTS: SanctionsListId[] = ["ofac-sdn", "chainalysis-oracle"];

export const JURISDICTIONS: ReadonlyArray<{
  code: string;
  name: string;
  sanctions_lists: SanctionsListId[];
}> = [
  { code: "US", name: "United States", sanctions_lists: ALL_LISTS },
  { code: "EU", name: "European Union", sanctions_lists: ALL_LISTS },
  { code: "DE", name: "Germany", sanctions_lists: ALL_LISTS },
  { code: "FR", name: "France", sanctions_lists: ALL_LISTS },
  { code: "NL", name: "Netherlands", sanctions_lists: ALL_LISTS },
  { code: "IE", name: "Ireland", sanctions_lists: ALL_LISTS },
  { code: "ES", name: "Spain", sanctions_lists: ALL_LISTS },
  { code: "IT", name: "Italy", sanctions_lists: ALL_LISTS },
  { code: "GB", name: "United Kingdom", sanctions_lists: ALL_LISTS },
  { code: "CA", name: "Canada", sanctions_lists: ALL_LISTS },
  { code: "AU", name: "Australia", sanctions_lists: ALL_LISTS },
  { code: "JP", name: "Japan", sanctions_lists: ALL_LISTS },
  { code: "SG", name: "Singapore", sanctions_lists: ALL_LISTS },
  { code: "CH", name: "Switzerland", sanctions_lists: ALL_LISTS },
];

export const complianceSpecsSchema = z
  .object({
    jurisdictions: z.array(
      z.object({
        code: z.string().openapi({ example: "US" }),
        name: z.string(),
        sanctions_lists: z
          .array(z.string())
          .openapi({ example: ["ofac-sdn", "chainalysis-oracle"] }),
        tax_forms: z.array(z.string()).openapi({ example: ["1099-DA", "1099-B", "8949"] }),
      }),
    ),
    sanctions_lists: z.array(z.object({ id: z.string(), name: z.string(), source: z.string() })),
    tax_forms: z.array(
      z.object({ id: z.string(), name: z.string(), jurisdictions: z.array(z.string()) }),
    ),
    default_sanctions_lists: z.array(z.string()),
  })
  .openapi("ComplianceSpecs");

export type ComplianceSpecs = z.infer<typeof complianceSpecsSchema>;

export function complianceSpecs(): ComplianceSpecs {
  return {
    jurisdictions: JURISDICTIONS.map((j) => ({
      code: j.code,
      name: j.name,
      sanctions_lists: [...j.sanctions_lists],
      tax_forms: TAX_FORMS.filter((f) =>
        (f.jurisdictions as readonly string[]).includes(j.code),
      ).map((f) => f.id),
    })),
    sanctions_lists: SANCTIONS_LISTS.map((l) => ({ ...l })),
    tax_forms: TAX_FORMS.map((f) => ({
      id: f.id,
      name: f.name,
      jurisdictions: [...f.jurisdictions],
    })),
    default_sanctions_lists: [...ALL_LISTS],
  };
}

/** The error code of invalid compliance rules; its body points at `GET /v1/compliance/specs`. */
export const INVALID_COMPLIANCE_RULES = "INVALID_COMPLIANCE_RULES";
export const COMPLIANCE_SPECS_PATH = "/v1/compliance/specs";

export interface ComplianceIssue {
  path: string;
  message: string;
}

export interface ResolvedCompliance {
  jurisdictions: string[];
  taxForms: string[];
  sanctionsLists: string[];
}

/**
 * Checks declared rules against the catalogue. Codes are matched case-insensitively and returned
 * canonical; `pathPrefix` locates the fields in the submitted document for the issues.
 */
export function resolveCompliance(
  rules: { jurisdictions?: readonly string[]; taxForms?: readonly string[] },
  paths: { jurisdictions: string; taxForms: string },
): { value: ResolvedCompliance; issues: ComplianceIssue[] } {
  const issues: ComplianceIssue[] = [];
  const jurisdictions: string[] = [];
  (rules.jurisdictions ?? []).forEach((code, i) => {
    const found = JURISDICTIONS.find((j) => j.code === code.trim().toUpperCase());
    if (!found) {
      issues.push({
        path: `${paths.jurisdictions}.${i}`,
        message: `unsupported jurisdiction "${code}"`,
      });
    } else if (!jurisdictions.includes(found.code)) {
      jurisdictions.push(found.code);
    }
  });
  const taxForms: string[] = [];
  (rules.taxForms ?? []).forEach((id, i) => {
    const found = TAX_FORMS.find((f) => f.id === id.trim().toUpperCase());
    if (!found) {
      issues.push({ path: `${paths.taxForms}.${i}`, message: `unsupported tax form "${id}"` });
      return;
    }
    const applies = (found.jurisdictions as readonly string[]).some((j) =>
      jurisdictions.includes(j),
    );
    if (jurisdictions.length > 0 && !applies) {
      issues.push({
        path: `${paths.taxForms}.${i}`,
        message: `tax form ${found.id} does not apply to jurisdictions ${jurisdictions.join(", ")} (it applies to ${found.jurisdictions.join(", ")})`,
      });
      return;
    }
    if (!taxForms.includes(found.id)) taxForms.push(found.id);
  });
  const lists = jurisdictions.length
    ? ALL_LISTS.filter((l) =>
        jurisdictions.some((code) =>
          JURISDICTIONS.find((j) => j.code === code)!.sanctions_lists.includes(l),
        ),
      )
    : [...ALL_LISTS];
  return { value: { jurisdictions, taxForms, sanctionsLists: lists }, issues };
}

/**
 * The sanctions list ids that apply to `jurisdictions` (all lists when none is given): the
 * `JurisdictionResolver` of the sanctions checks (relayer/compliance/check.ts). An unknown region
 * code is a 400 INVALID_COMPLIANCE_RULES pointing at the catalogue.
 */
export function sanctionsListsFor(jurisdictions: readonly string[]): string[] {
  const { value, issues } = resolveCompliance(
    { jurisdictions },
    { jurisdictions: "jurisdictions", taxForms: "tax_forms" },
  );
  if (issues.length) {
    throw new ApiError(
      400,
      INVALID_COMPLIANCE_RULES,
      `${issues.map((i) => i.message).join("; ")}; supported jurisdictions are listed at GET ${COMPLIANCE_SPECS_PATH}`,
      { specs: COMPLIANCE_SPECS_PATH, issues },
    );
  }
  return value.sanctionsLists;
}
