import { ApiError } from "../http/index.ts";

/**
 * Which rule an execution claim broke. All but `shape`, `capacity` and `workflow` are the
 * execution circuit's constraint families (circuits/src/action.circom); `shape` and `capacity`
 * are checked before encoding, `workflow` when the executed actions do not line up with the
 * submitted workflow (another count, a multisend with another number of recipients).
 */
export type ConstraintFamily =
  | "shape"
  | "capacity"
  | "workflow"
  | "type"
  | "unused"
  | "range"
  | "quote"
  | "slippage"
  | "bridge"
  | "multisend"
  | "tx";

/**
 * An execution that does not satisfy its workflow, or input the circuits cannot encode. Raised in
 * TypeScript before witness generation so the message names the rule and the action instead of
 * a bare "Assert Failed". An `ApiError` (422) so a route can return it as is.
 */
export class ExecutionClaimError extends ApiError {
  readonly family: ConstraintFamily;
  /** Index of the offending action in `claim.actions`, or null for claim-level problems. */
  readonly actionIndex: number | null;

  constructor(family: ConstraintFamily, actionIndex: number | null, detail: string) {
    const where = actionIndex === null ? "claim" : `action ${actionIndex}`;
    super(422, "EXECUTION_CLAIM_INVALID", `${where}: ${family}: ${detail}`, {
      family,
      action_index: actionIndex,
    });
    this.name = "ExecutionClaimError";
    this.family = family;
    this.actionIndex = actionIndex;
  }
}

/** A CID list the artifact circuit cannot prove (bad CID, wrong hash, too many, none). */
export class ArtifactInputError extends ApiError {
  constructor(detail: string, extra: Record<string, unknown> = {}) {
    super(400, "INVALID_ARTIFACTS", detail, extra);
    this.name = "ArtifactInputError";
  }
}

/** Circuit build outputs are missing or stale: a deployment problem, not a client error. */
export class ProverUnavailableError extends ApiError {
  constructor(detail: string) {
    super(503, "PROVER_UNAVAILABLE", detail);
    this.name = "ProverUnavailableError";
  }
}
