/**
 * The configuration's public surface: other areas import it from here only. It holds the file
 * formats of the areas' own configuration too (integrations, legal rules, the shipped sanctions
 * snapshot), so that configuration is parsed once at start and imports no area.
 */
export { ConfigError, DEFAULT_PROVER_THREADS, loadConfig, loadConfigOrExit } from "./config.ts";
export type { ArtifactSettings, Config } from "./config.ts";

export { environmentVariable } from "./environment.ts";
export { resolveMasterKey } from "./master-key.ts";
export { resolveTierLimits } from "./tiers.ts";
export type { TierLimits, TierName } from "./tiers.ts";
export {
  BIAS_THRESHOLD,
  CRITICAL_RETRY,
  DEFAULT_REDACTION_THREADS,
  DEFAULT_RETRY,
  IntegrationsConfigError,
  PAYMENT_RATE_LIMIT,
  TEXT_ANALYSIS_RATE_LIMIT,
  loadIntegrationsFile,
  parseCondition,
  parseDuration,
  parseIntegrations,
  type IntegrationConfig,
  type IntegrationsConfig,
  type JwtBearerAuth,
  type MonitorConfig,
  type MtlsAuth,
  type RetryCondition,
  type RetryPolicy,
  type TextAnalysisConfig,
} from "./integrations.ts";
export { loadRulesFile, type ClmViolation, type LegalRules, type RuleKind } from "./legal-rules.ts";
export { PEM_CERTIFICATE, pemCertificates } from "./pem.ts";
export {
  MONITORED_COLLECTIONS,
  RESPONSE_SCHEMAS,
  responseSchema,
  type InventoryResponse,
  type PaymentResponse,
  type ScreeningResponse,
} from "./response-schemas.ts";
export {
  OFAC_SDN_LIST,
  SHIPPED_OFAC_SNAPSHOT,
  describeSnapshot,
  snapshotFilesSpec,
  type SanctionsSnapshot,
} from "./sanctions.ts";
