import { getAddress, verifyTypedData, type Signer, type TypedDataField } from "ethers";
import type { SubmittedWorkflow } from "./claim.ts";
import { workflowCommitment } from "./commitments.ts";
import { randomSalt } from "./field.ts";

/**
 * The submission receipt: what the relayer gives the client at intake (the 202 of
 * `POST /v1/workflows` and the execution's status) and signs with EIP-712. It fixes, before
 * anything runs, the execution id, the API key, the time and the commitment to the workflow
 * exactly as submitted under a salt drawn then. The proof must reproduce that commitment
 * (public signal 0), so the relayer cannot later prove another workflow or choose the salt.
 *
 * EIP-712 domain: name "Veriflow", version "1", the chain id and address of the
 * `ExecutionAttestor` the execution will be attested on; signed by that chain's relayer
 * operator (an account with ATTESTER_ROLE there, which auditors read from the chain).
 */
export const RECEIPT_DOMAIN_NAME = "Veriflow";
export const RECEIPT_DOMAIN_VERSION = "1";

/** The EIP-712 types of the receipt (primary type `SubmissionReceipt`). */
export const RECEIPT_TYPES: Record<string, TypedDataField[]> = {
  SubmissionReceipt: [
    { name: "executionId", type: "string" },
    { name: "apiKeyId", type: "string" },
    { name: "submittedAt", type: "uint64" },
    { name: "workflowCommitment", type: "uint256" },
    { name: "salt", type: "uint256" },
  ],
};

export type ReceiptDomain = {
  name: string;
  version: string;
  chainId: number;
  /** The ExecutionAttestor's address. */
  verifyingContract: string;
};

/** The receipt as the API returns it (`receipt` of the 202 and of the execution's status). */
export type SubmissionReceipt = {
  /** `wf_...`; on chain the attestation key is keccak256 of it. */
  execution_id: string;
  api_key_id: string;
  /** ISO 8601 with milliseconds; signed as milliseconds since the epoch. */
  submitted_at: string;
  /** Poseidon commitment to the workflow as submitted (decimal field element). */
  workflow_commitment: string;
  /** The commitments' blinding salt (decimal field element), drawn at submission. */
  salt: string;
  domain: ReceiptDomain;
  /** The address that signed (the relayer operator on the attestor's chain). */
  signer: string;
  /** EIP-712 signature over `receiptMessage(receipt)`. */
  signature: string;
};

/** Who signs receipts and under which domain (the attestor's chain and address). */
export type ReceiptSigner = { signer: Signer; domain: ReceiptDomain };

/** The deployment name of the attestor a receipt's domain is bound to. */
export const ATTESTOR_CONTRACT = "ExecutionAttestor";

/** What a chain must offer to sign receipts: a structural subset of the chains layer's handles. */
export type AttestorChain = {
  readonly chainId: number;
  readonly operator?: Signer;
  readonly deployment: { contracts: Record<string, { address: string }> };
};

/**
 * The receipt signer of a chain set: the operator of the chain holding the ExecutionAttestor
 * (the chain the engine attests on and whose operator signs the final report), or null when no
 * chain has an attestor (then nothing can be proved and no receipt is issued).
 */
export function receiptSignerOf(chains: readonly AttestorChain[]): ReceiptSigner | null {
  const home = chains.find((c) => c.deployment.contracts[ATTESTOR_CONTRACT]);
  if (!home?.operator) return null;
  return {
    signer: home.operator,
    domain: {
      name: RECEIPT_DOMAIN_NAME,
      version: RECEIPT_DOMAIN_VERSION,
      chainId: home.chainId,
      verifyingContract: home.deployment.contracts[ATTESTOR_CONTRACT]!.address,
    },
  };
}

/** The EIP-712 message of a receipt (the values `RECEIPT_TYPES` describes). */
export function receiptMessage(
  receipt: Pick<
    SubmissionReceipt,
    "execution_id" | "api_key_id" | "submitted_at" | "workflow_commitment" | "salt"
  >,
) {
  return {
    executionId: receipt.execution_id,
    apiKeyId: receipt.api_key_id,
    submittedAt: BigInt(Date.parse(receipt.submitted_at)),
    workflowCommitment: BigInt(receipt.workflow_commitment),
    salt: BigInt(receipt.salt),
  };
}

/**
 * Draws the salt, commits to the workflow as submitted and signs the receipt. `workflow` is the
 * normalised workflow exactly as stored for the execution (also for deployed-name runs and
 * schedule firings). Throws `ExecutionClaimError` (422) when the workflow cannot be proved
 * (more circuit slots than the circuit has).
 */
export async function issueReceipt(
  input: { executionId: string; apiKeyId: string; workflow: SubmittedWorkflow; at?: Date },
  { signer, domain }: ReceiptSigner,
): Promise<SubmissionReceipt> {
  const salt = randomSalt();
  const unsigned = {
    execution_id: input.executionId,
    api_key_id: input.apiKeyId,
    submitted_at: (input.at ?? new Date()).toISOString(),
    workflow_commitment: (await workflowCommitment(input.workflow, salt)).toString(),
    salt: salt.toString(),
  };
  const signature = await signer.signTypedData(domain, RECEIPT_TYPES, receiptMessage(unsigned));
  return {
    ...unsigned,
    domain: { ...domain, verifyingContract: getAddress(domain.verifyingContract) },
    signer: getAddress(await signer.getAddress()),
    signature,
  };
}

/** The address that signed a receipt (recovered from its EIP-712 signature and domain). */
export function receiptSigner(receipt: SubmissionReceipt): string {
  return verifyTypedData(receipt.domain, RECEIPT_TYPES, receiptMessage(receipt), receipt.signature);
}

export type ReceiptCheck = {
  /** The recovered signer equals `receipt.signer`. */
  signatureValid: boolean;
  recoveredSigner: string | null;
  /** The workflow and salt recompute `receipt.workflow_commitment`. */
  commitmentMatches: boolean;
};

/**
 * A client's or auditor's check of a receipt against the workflow it holds: the signature, and
 * that the workflow (with the receipt's salt) recomputes the receipt's commitment. Whether the
 * signer is the relayer is read from the chain (ATTESTER_ROLE on `receipt.domain.verifyingContract`).
 */
export async function checkReceipt(
  receipt: SubmissionReceipt,
  workflow: SubmittedWorkflow,
): Promise<ReceiptCheck> {
  // A malformed signature or salt is a failed check, not an error.
  let recoveredSigner: string | null;
  try {
    recoveredSigner = receiptSigner(receipt);
  } catch {
    recoveredSigner = null;
  }
  let commitmentMatches: boolean;
  try {
    commitmentMatches =
      (await workflowCommitment(workflow, receipt.salt)).toString() === receipt.workflow_commitment;
  } catch {
    commitmentMatches = false;
  }
  return {
    signatureValid:
      recoveredSigner !== null &&
      recoveredSigner.toLowerCase() === String(receipt.signer).toLowerCase(),
    recoveredSigner,
    commitmentMatches,
  };
}
