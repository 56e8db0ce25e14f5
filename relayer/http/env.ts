import type { Logger } from "pino";
import type { RateDecision } from "../limits/rate-limit.ts";
import type { TierName } from "../limits/tiers.ts";

/** The authenticated caller, set by the auth middleware (`c.get("apiKey")`). */
export interface AuthenticatedKey {
  id: string;
  key: string;
  tier: TierName;
  /** How the request authenticated: the HMAC headers, or a Bearer token (compliance endpoints). */
  method: "hmac" | "bearer";
}

/** Hono environment of every route: `new OpenAPIHono<AppEnv>()`. */
export interface AppEnv {
  Variables: {
    requestId: string;
    logger: Logger;
    apiKey: AuthenticatedKey;
    /** The raw request body bytes exactly as signed (empty for bodiless requests). */
    rawBody: Uint8Array;
    /** Set when authentication already counted the request against the key's rate. */
    rateDecision?: RateDecision;
  };
}
