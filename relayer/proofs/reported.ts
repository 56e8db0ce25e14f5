import type { ExecutedAction, ExecutionClaim, SubmittedWorkflow } from "./claim.ts";

/**
 * The execution side of the claim as the final report carries it (`report.claim`): per submitted
 * action, in order, the values read from its transaction receipts, amounts as decimal strings of
 * base units. With the report's `workflow` and its submission receipt's `salt` it rebuilds the
 * whole claim (`claimFromReport`), from which `computeCommitments` recomputes the public signals.
 */
export type ReportedAction = {
  amount_in: string;
  amount_out?: string;
  quoted_out?: string;
  fee_cap?: string;
  recipient_amounts?: string[];
  tx_hashes: string[];
};

export type ReportedClaim = { actions: ReportedAction[] };

/** The parts of a final report the claim is rebuilt from. */
export type ClaimSource = {
  execution_id: string;
  /** The normalised workflow as submitted (the report's `workflow`). */
  workflow: SubmittedWorkflow;
  /** The salt of the submission receipt (`report.receipt.salt`). */
  receipt: { salt: string };
  claim: ReportedClaim;
};

const text = (v: bigint | string | undefined) => (v === undefined ? undefined : String(v));

/** Executed actions → the report's JSON form. */
export function toReportedClaim(actions: readonly ExecutedAction[]): ReportedClaim {
  return {
    actions: actions.map((a) => {
      const out: ReportedAction = { amount_in: String(a.amountIn), tx_hashes: [...a.txHashes] };
      if (a.amountOut !== undefined) out.amount_out = text(a.amountOut)!;
      if (a.quotedOut !== undefined) out.quoted_out = text(a.quotedOut)!;
      if (a.feeCap !== undefined) out.fee_cap = text(a.feeCap)!;
      if (a.recipientAmounts !== undefined) out.recipient_amounts = a.recipientAmounts.map(String);
      return out;
    }),
  };
}

/** The whole claim from a report (no database, no relayer): what an auditor proves it against. */
export function claimFromReport(report: ClaimSource): ExecutionClaim {
  return {
    executionId: report.execution_id,
    salt: report.receipt.salt,
    workflow: report.workflow,
    actions: report.claim.actions.map((a): ExecutedAction => ({
      amountIn: a.amount_in,
      ...(a.amount_out !== undefined ? { amountOut: a.amount_out } : {}),
      ...(a.quoted_out !== undefined ? { quotedOut: a.quoted_out } : {}),
      ...(a.fee_cap !== undefined ? { feeCap: a.fee_cap } : {}),
      ...(a.recipient_amounts !== undefined ? { recipientAmounts: a.recipient_amounts } : {}),
      txHashes: a.tx_hashes,
    })),
  };
}
