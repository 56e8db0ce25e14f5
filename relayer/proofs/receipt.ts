import {
  BaseWallet,
  TypedDataEncoder,
  getAddress,
  keccak256,
  toUtf8Bytes,
  verifyTypedData,
  type Signer,
  type TypedDataField,
} from "ethers";
import type { SubmittedWorkflow } from "./claim.ts";
import { workflowCommitment } from "./commitments.ts";
import { randomSalt } from "./field.ts";
import { CONTRACT_NAMES } from "../deployments/index.ts";

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

/**
 * Who signs receipts and under which domain (the attestor's chain and address), with the
 * domain's EIP-712 separator hashed once (`receiptSignerFor`) rather than per receipt.
 */
export type ReceiptSigner = { signer: Signer; domain: ReceiptDomain; domainSeparator: string };

/** The deployment name of the attestor a receipt's domain is bound to. */
export const ATTESTOR_CONTRACT = CONTRACT_NAMES.attestor;

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
  return receiptSignerFor(home.operator, {
    name: RECEIPT_DOMAIN_NAME,
    version: RECEIPT_DOMAIN_VERSION,
    chainId: home.chainId,
    verifyingContract: home.deployment.contracts[ATTESTOR_CONTRACT]!.address,
  });
}

/** A receipt signer for a signer and domain (its contract address checksummed, as receipts show it). */
export function receiptSignerFor(signer: Signer, domain: ReceiptDomain): ReceiptSigner {
  return {
    signer,
    domain: { ...domain, verifyingContract: getAddress(domain.verifyingContract) },
    domainSeparator: receiptDomainSeparator(domain),
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

type ReceiptMessage = ReturnType<typeof receiptMessage>;

// The EIP-712 hash written out for this one struct: ethers' generic `signTypedData` resolves ENS
// names asynchronously and rebuilds its encoders on every call, which cost most of a
// submission's CPU time. The type hashes come from ethers once, so the type string stays the one
// `RECEIPT_TYPES` describes; `test/relayer/proofs/receipt.test.ts` holds the digest equal to
// `TypedDataEncoder.hash` on random receipts.
const DOMAIN_TYPE_HASH = keccak256(
  toUtf8Bytes("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"),
);
const RECEIPT_TYPE_HASH = keccak256(
  toUtf8Bytes(TypedDataEncoder.from(RECEIPT_TYPES).encodeType("SubmissionReceipt")),
);
const UINT64_MAX = (1n << 64n) - 1n;
const UINT256_MAX = (1n << 256n) - 1n;

function word(value: bigint, max: bigint, field: string): string {
  if (value < 0n || value > max) throw new RangeError(`receipt ${field} out of range: ${value}`);
  return value.toString(16).padStart(64, "0");
}

function stringWord(text: string): string {
  return keccak256(toUtf8Bytes(text)).slice(2);
}

/** The EIP-712 domain separator of a receipt domain. */
export function receiptDomainSeparator(domain: ReceiptDomain): string {
  return keccak256(
    DOMAIN_TYPE_HASH +
      stringWord(domain.name) +
      stringWord(domain.version) +
      word(BigInt(domain.chainId), UINT256_MAX, "chainId") +
      getAddress(domain.verifyingContract).slice(2).toLowerCase().padStart(64, "0"),
  );
}

/**
 * The EIP-712 digest a receipt's signature signs, under a domain's separator
 * (`receiptDomainSeparator`): equal to ethers' `TypedDataEncoder.hash`.
 */
export function receiptDigest(domainSeparator: string, message: ReceiptMessage): string {
  const structHash = keccak256(
    RECEIPT_TYPE_HASH +
      stringWord(message.executionId) +
      stringWord(message.apiKeyId) +
      word(message.submittedAt, UINT64_MAX, "submittedAt") +
      word(message.workflowCommitment, UINT256_MAX, "workflowCommitment") +
      word(message.salt, UINT256_MAX, "salt"),
  );
  return keccak256("0x1901" + domainSeparator.slice(2) + structHash.slice(2));
}

/**
 * Draws the salt, commits to the workflow as submitted and signs the receipt. `workflow` is the
 * normalised workflow exactly as stored for the execution (also for deployed-name runs and
 * schedule firings). Throws `ExecutionClaimError` (422) when the workflow cannot be proved
 * (more circuit slots than the circuit has).
 */
export async function issueReceipt(
  input: { executionId: string; apiKeyId: string; workflow: SubmittedWorkflow; at?: Date },
  { signer, domain, domainSeparator }: ReceiptSigner,
): Promise<SubmissionReceipt> {
  const salt = randomSalt();
  const unsigned = {
    execution_id: input.executionId,
    api_key_id: input.apiKeyId,
    submitted_at: (input.at ?? new Date()).toISOString(),
    workflow_commitment: (await workflowCommitment(input.workflow, salt)).toString(),
    salt: salt.toString(),
  };
  const message = receiptMessage(unsigned);
  // A key held in process signs the digest synchronously; any other signer (a remote or hardware
  // one) goes through its own EIP-712 signing.
  const signature =
    signer instanceof BaseWallet
      ? signer.signingKey.sign(receiptDigest(domainSeparator, message)).serialized
      : await signer.signTypedData(domain, RECEIPT_TYPES, message);
  return {
    ...unsigned,
    domain: { ...domain },
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
