import type { z } from "zod";
import { ApiError } from "./errors.ts";

export interface ValidationIssue {
  /** Dotted path into the input, e.g. `actions.0.amount` (empty for the whole input). */
  path: string;
  message: string;
}

export function issuesFromZod(
  error: z.ZodError,
  prefix: (string | number)[] = [],
): ValidationIssue[] {
  return error.issues.map((issue) => ({
    path: [...prefix, ...issue.path].map(String).join("."),
    message: issue.message,
  }));
}

/** 400 `{error: "VALIDATION_FAILED", detail, issues: [{path, message}]}`. */
export function validationFailed(issues: ValidationIssue[], detail?: string): ApiError {
  const first = issues[0];
  return new ApiError(
    400,
    "VALIDATION_FAILED",
    detail ??
      (first
        ? `${first.path || "body"}: ${first.message}${issues.length > 1 ? ` (and ${issues.length - 1} more)` : ""}`
        : "the request is invalid"),
    { issues },
  );
}
