import { createHash } from "node:crypto";
import { ApiError } from "./errors.ts";

/**
 * The `Idempotency-Key` rules every creating endpoint shares (POST /v1/workflows,
 * POST /workflows/deploy, POST /v1/analysis): the key's form, how long a first response is
 * replayed, what identifies "the same request", and the refusal of a key reused for another one.
 * Keys are scoped to the API key; each area keeps its own table of them.
 */
export const IDEMPOTENCY_TTL_HOURS = 24;
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

export function checkIdempotencyKey(key: string): string {
  if (!KEY_PATTERN.test(key)) {
    throw new ApiError(
      400,
      "VALIDATION_FAILED",
      "Idempotency-Key: 1 to 255 visible ASCII characters",
      {
        issues: [{ path: "header.idempotency-key", message: "1 to 255 visible ASCII characters" }],
      },
    );
  }
  return key;
}

/** sha256 of the method, path, media type and body bytes: what "the same request" means. */
export function requestHash(
  method: string,
  path: string,
  mediaType: string,
  body: Uint8Array | string,
): string {
  return createHash("sha256")
    .update(`${method} ${path}\n${mediaType}\n`)
    .update(body)
    .digest("hex");
}

export function idempotencyKeyReused(key: string): ApiError {
  return new ApiError(
    409,
    "IDEMPOTENCY_KEY_REUSED",
    `Idempotency-Key "${key}" was already used with a different request; use a new key for a new request`,
  );
}
