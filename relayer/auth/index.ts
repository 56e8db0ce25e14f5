/** The auth area's public surface: other areas import it from here only. */
export { TIMESTAMP_TOLERANCE_MS } from "./hmac.ts";
export {
  checkMasterKey,
  countApiKeys,
  createApiKey,
  ensureBootstrapKey,
  keyFingerprint,
  listApiKeys,
} from "./keys.ts";
export { authenticate } from "./middleware.ts";
export { forgetSignatures, purgeExpiredSignatures, recordSignaturesStatement } from "./replay.ts";
export { decryptSecret, encryptSecret, masterKeyCipher } from "./secrets.ts";
