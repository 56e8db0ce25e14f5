import type { Logger } from "pino";
import type { TierName } from "../config/index.ts";

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

/** One request counted against its key's rate (computed by limits/, carried as a request variable). */
export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Epoch ms at which the current window ends. */
  resetAt: number;
  /** Whole seconds until the window ends (at least 1): the `Retry-After` value. */
  retryAfterSeconds: number;
}
