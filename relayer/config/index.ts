/** The configuration's public surface: other areas import it from here only. */
export { ConfigError, loadConfig, loadConfigOrExit } from "./config.ts";
export type { ArtifactSettings, Config } from "./config.ts";

export { environmentVariable } from "./environment.ts";
export { resolveMasterKey } from "./master-key.ts";
export { resolveTierLimits } from "./tiers.ts";
export type { TierLimits, TierName } from "./tiers.ts";
