import type { ComplianceSource } from "../compliance/index.ts";
import type { AppContext } from "../context/index.ts";
import type { Batcher } from "../store/index.ts";
import type { AssetCatalogue } from "./catalogue.ts";
import type { ReceiptSigner } from "../proofs/index.ts";
import type { NewExecution } from "../executions/index.ts";
import type { StoredResponse } from "./idempotency.ts";
import type { BodyFormat } from "./body.ts";
import type { SubmissionResult } from "./schemas.ts";

/**
 * The workflow intake's context: what every use case (submit.ts, deploy.ts, fire.ts) is given.
 * Each use case stores what it creates and sends the `workflow.execute` job in ONE transaction,
 * so no job exists without its execution row and no queued row lacks its job.
 */
/** The platform services the intake uses. */
export type IntakePlatform = Pick<AppContext, "store" | "queue" | "chains" | "limits" | "logger">;

export type WorkflowContext = IntakePlatform & {
  compliance: ComplianceSource;
  intake: WorkflowIntake;
};

/**
 * What the intake keeps for the life of a process, built once by the composition root: the asset
 * catalogue of the open chains (null without chains), the signer of submission receipts (null
 * when no open chain has an attestor) and the batcher that stores submissions arriving together
 * in one statement (see `submissionBatcher`).
 */
export interface WorkflowIntake {
  catalogue: AssetCatalogue | null;
  receiptSigner: ReceiptSigner | null;
  submissions: Batcher<PendingSubmission, Accepted>;
}

export interface Caller {
  id: string;
  tier: keyof AppContext["limits"];
}

export interface SubmittedRequest {
  format: BodyFormat;
  /** The body exactly as received (hashed for Idempotency-Key, kept for deployments). */
  text: string;
  mediaType: string;
  path: string;
  idempotencyKey?: string | undefined;
}

/** A submission waiting for the batch statement (intake.ts `submissions`). */
export interface PendingSubmission {
  caller: Caller;
  execution: NewExecution;
}
export type Accepted = StoredResponse & { body: SubmissionResult };
