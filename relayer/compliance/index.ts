/** The compliance area's public surface: other areas import it from here only. */
export { oracleChains } from "./oracle.ts";
export { howToConfigure, listScreen, missingListFiles, requireConsulted } from "./screen.ts";
export {
  combineScreens,
  oracleScreen,
  routedOracleScreen,
  screenResultSchema,
} from "./screening.ts";
export type { ComplianceScreen, ScreenResult } from "./screening.ts";
export { complianceSource } from "./service.ts";
export type { ComplianceSource } from "./service.ts";
export {
  COMPLIANCE_SPECS_PATH,
  INVALID_COMPLIANCE_RULES,
  complianceSpecs,
  complianceSpecsSchema,
  resolveCompliance,
} from "./specs.ts";
