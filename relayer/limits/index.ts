/** The limits area's public surface: other areas import it from here only. */
export { admissionBatcher } from "./admission.ts";
export { assertConcurrencyAvailable } from "./concurrency.ts";
export { rateLimit } from "./middleware.ts";
export { purgeRateLimitWindows } from "./rate-limit.ts";
export { chargeZkProof, purgeZkQuotaDays, ZK_QUOTA_EXCEEDED } from "./zk-quota.ts";
