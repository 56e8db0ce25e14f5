import { z } from "zod";

/**
 * What the auditor reads: the final report exactly as `GET /v1/workflows/{id}` returns it under
 * `report` (`{cid, signer, signature, report}`), or the signed report alone (`report` of that
 * envelope, or `GET /artifacts/{cid}` of a report stored with its signature). Only the fields the
 * checks read are described; everything else is kept, because the CID covers the whole body.
 */

const hex32 = z.string().regex(/^0x[0-9a-fA-F]{64}$/, "a 32-byte hex value");
const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/, "an address");

const txRecordSchema = z.looseObject({
  kind: z.string(),
  chainId: z.number().int(),
  hash: z.string(),
  status: z.string(),
});

const receiptSchema = z.looseObject({
  execution_id: z.string(),
  api_key_id: z.string(),
  submitted_at: z.string(),
  workflow_commitment: z.string(),
  salt: z.string(),
  domain: z.looseObject({
    name: z.string(),
    version: z.string(),
    chainId: z.number().int(),
    verifyingContract: z.string(),
  }),
  signer: z.string(),
  signature: z.string(),
});

export type AuditedReceipt = z.infer<typeof receiptSchema>;

export const auditedActionSchema = z.looseObject({
  index: z.number().int().nonnegative(),
  type: z.string(),
  state: z.string(),
  chain: z.string().nullable(),
  chain_id: z.number().int().nullable(),
  result: z.looseObject({ txs: z.array(txRecordSchema) }).nullable(),
});

export const auditedInteractionSchema = z.looseObject({
  chain_id: z.number().int(),
  registry: z.string(),
  endpoint_hash: z.string(),
  response_hash: z.string(),
  observed_at: z.number(),
  mode: z.enum(["immediate", "batch"]),
  status: z.string(),
  request_id: z.string().nullable(),
  batch: z.looseObject({ root: z.string(), proof: z.array(z.string()) }).nullable(),
});

export const auditedReportSchema = z.looseObject({
  kind: z.literal("veriflow.execution-report"),
  version: z.number(),
  execution_id: z.string().min(1),
  state: z.string(),
  workflow: z.looseObject({
    actions: z.array(z.looseObject({ index: z.number().int(), type: z.string() })),
  }),
  actions: z.array(auditedActionSchema),
  analyses: z.array(z.looseObject({ analysis_id: z.string(), audit_id: z.string() })).optional(),
  zk_proof: z.string().nullable().optional(),
  public_signals: z.array(z.string()).nullable().optional(),
  attestation: z
    .looseObject({
      chain_id: z.number().int(),
      contract: address,
      execution_key: hex32,
      tx_hash: hex32,
      salt: z.string().nullable(),
    })
    .nullable()
    .optional(),
  claim: z
    .looseObject({
      actions: z.array(z.looseObject({ amount_in: z.string(), tx_hashes: z.array(z.string()) })),
    })
    .nullable()
    .optional(),
  receipt: receiptSchema.nullable().optional(),
  api_interactions: z.array(auditedInteractionSchema).optional(),
  evidence: z.looseObject({ account: address.nullable() }).nullable().optional(),
  relayer: z.looseObject({ chain_id: z.number().int() }).optional(),
  artifact_id: z.string(),
  signer: address,
  signature: z.string(),
});

export type AuditedReport = z.infer<typeof auditedReportSchema>;
export type AuditedAction = z.infer<typeof auditedActionSchema>;

const envelopeSchema = z.looseObject({
  cid: z.string(),
  signer: z.string(),
  signature: z.string(),
  report: z.unknown(),
});

/** Thrown for input that is not a signed report (the command exits 2). */
export class AuditInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "AuditInputError";
  }
}

export interface AuditInput {
  report: AuditedReport;
  /** The signed report as given (every field: the CID covers the whole body). */
  raw: Record<string, unknown>;
  /** The envelope's own `cid`, `signer`, `signature` when the input was an envelope. */
  envelope: { cid: string; signer: string; signature: string } | null;
}

/** The signed report inside `input` (the envelope's `report`, or `input` itself), parsed. */
export function parseAuditInput(input: unknown): AuditInput {
  const envelope = envelopeSchema.safeParse(input);
  const candidate = envelope.success ? envelope.data.report : input;
  const parsed = auditedReportSchema.safeParse(candidate);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new AuditInputError(
      `not a signed Veriflow execution report: ${issue.path.join(".") || "(root)"}: ${issue.message}`,
    );
  }
  const e = envelope.success ? envelope.data : null;
  return {
    report: parsed.data,
    raw: candidate as Record<string, unknown>,
    envelope: e ? { cid: e.cid, signer: e.signer, signature: e.signature } : null,
  };
}

/**
 * The submission receipt the client kept: the 202 of `POST /v1/workflows` or the execution's
 * status (both carry it under `receipt`), or the receipt alone.
 */
export function parseClientReceipt(input: unknown): AuditedReceipt {
  if (z.looseObject({ kind: z.literal("veriflow.execution-report") }).safeParse(input).success)
    throw new AuditInputError(
      "this is a report, not the receipt the client kept: give the 202 of POST /v1/workflows (or its `receipt`)",
    );
  const wrapped = z.looseObject({ receipt: receiptSchema }).safeParse(input);
  if (wrapped.success) return wrapped.data.receipt;
  const parsed = receiptSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new AuditInputError(
      `not a Veriflow submission receipt (the 202's \`receipt\`): ${issue.path.join(".") || "(root)"}: ${issue.message}`,
    );
  }
  return parsed.data;
}
