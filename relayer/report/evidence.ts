import {
  getAddress,
  Interface,
  type InterfaceAbi,
  type Log,
  type Provider,
  type TransactionReceipt,
} from "ethers";
import type { Deployment } from "../deployments/index.ts";

/**
 * On-chain evidence of an execution: per transaction the chain, hash, block, sender and the
 * decoded events its amounts come from (ERC-20 `Transfer` and `Approval`, Uniswap V2 `Swap`,
 * lockmint `Deposited` / `Released`, multisend `Dispersed`, `ExecutionAttested`). The relayer
 * lists it in the final report; the auditor decodes the same receipts with the same code and
 * compares, so the report's copy is a convenience, never trusted.
 */

/** What the evidence needs of a chain: a provider, its deployment and its ABI set. */
export interface EvidenceChain {
  name: string;
  chainId: number;
  provider: Provider;
  deployment: Deployment;
  abi(name: string): InterfaceAbi;
}

export type EvidenceEvent =
  | {
      event: "Transfer";
      address: string;
      asset: string | null;
      from: string;
      to: string;
      value: string;
    }
  | {
      event: "Approval";
      address: string;
      asset: string | null;
      owner: string;
      spender: string;
      value: string;
    }
  | {
      event: "Swap";
      address: string;
      sender: string;
      to: string;
      amount0In: string;
      amount1In: string;
      amount0Out: string;
      amount1Out: string;
    }
  | {
      event: "Deposited";
      address: string;
      nonce: string;
      destination_chain_id: number;
      sender: string;
      recipient: string;
      token: string;
      remote_token: string;
      amount: string;
      fee: string;
    }
  | {
      event: "Released";
      address: string;
      source_chain_id: number;
      nonce: string;
      recipient: string;
      token: string;
      amount: string;
      attester: string;
    }
  | {
      event: "Dispersed";
      address: string;
      sender: string;
      token: string;
      total: string;
      recipients: number;
    }
  | {
      event: "ExecutionAttested";
      address: string;
      execution_id: string;
      workflow_commitment: string;
      execution_commitment: string;
      attester: string;
      /** The circuit variant (action-slot count) whose verifier checked the proof. */
      slots: number;
    };

export type EvidenceEventName = EvidenceEvent["event"];

/** One committed transaction as the chain holds it. */
export interface TxEvidence {
  /** The workflow action it belongs to; null for the attestation. */
  action_index: number | null;
  /** What the relayer sent it as (approve, swap, bridge-deposit, bridge-release, multisend, attest). */
  kind: string;
  chain: string;
  chain_id: number;
  hash: string;
  block_number: number;
  block_hash: string;
  /** Block time, seconds since the epoch (orders transactions across chains). */
  block_timestamp: number;
  from: string;
  to: string | null;
  status: "success" | "reverted";
  events: EvidenceEvent[];
}

/** A transaction to collect: where the relayer says it is. */
export interface TxRef {
  action_index: number | null;
  kind: string;
  chain_id: number;
  hash: string;
}

/** ABI files whose events the evidence decodes (deployment ABI set names). */
const EVENT_SOURCES: ReadonlyArray<{ abi: string; events: readonly EvidenceEventName[] }> = [
  { abi: "TestToken", events: ["Transfer", "Approval"] },
  { abi: "UniswapV2Pair", events: ["Swap"] },
  { abi: "LockMintBridge", events: ["Deposited", "Released"] },
  { abi: "Multisend", events: ["Dispersed"] },
  { abi: "ExecutionAttestor", events: ["ExecutionAttested"] },
];

/** The ABI set names the evidence decodes with. */
export const EVIDENCE_ABIS: readonly string[] = EVENT_SOURCES.map((s) => s.abi);

/**
 * Built once per chain object: an Interface costs milliseconds of ABI parsing, and a report
 * decodes every transaction's receipt with it. A chain's ABI set does not change while it is open.
 */
const evidenceInterfaces = new WeakMap<Pick<EvidenceChain, "abi">, Interface>();

/** An Interface of exactly the evidence events, from the chain's own ABI files. */
export function evidenceInterface(chain: Pick<EvidenceChain, "abi">): Interface {
  let iface = evidenceInterfaces.get(chain);
  if (!iface) evidenceInterfaces.set(chain, (iface = buildEvidenceInterface(chain)));
  return iface;
}

function buildEvidenceInterface(chain: Pick<EvidenceChain, "abi">): Interface {
  const fragments = EVENT_SOURCES.flatMap(({ abi, events }) => {
    const iface = new Interface(chain.abi(abi));
    return events.map((name) => iface.getEvent(name)!);
  });
  return new Interface(fragments);
}

/** Token symbol by address on a deployment (null for an address that is not one of its tokens). */
function assetOf(deployment: Deployment, address: string): string | null {
  const lower = address.toLowerCase();
  for (const [symbol, token] of Object.entries(deployment.tokens)) {
    if (token.address.toLowerCase() === lower) return symbol;
  }
  return null;
}

const text = (v: unknown) => String(v as bigint);
const addr = (v: unknown) => getAddress(v as string);

/** The evidence events of a list of logs, in log order; other logs (Sync, Mint, ...) are skipped. */
export function decodeEvidenceEvents(
  chain: Pick<EvidenceChain, "abi" | "deployment">,
  logs: readonly Pick<Log, "address" | "topics" | "data">[],
  iface: Interface = evidenceInterface(chain),
): EvidenceEvent[] {
  const out: EvidenceEvent[] = [];
  for (const log of logs) {
    let parsed;
    try {
      parsed = iface.parseLog({ topics: [...log.topics], data: log.data });
    } catch {
      continue; // same topic, other indexing (e.g. ERC-721 Transfer): not an evidence event
    }
    if (!parsed) continue;
    const address = getAddress(log.address);
    const a = parsed.args;
    switch (parsed.name as EvidenceEventName) {
      case "Transfer":
        out.push({
          event: "Transfer",
          address,
          asset: assetOf(chain.deployment, address),
          from: addr(a[0]),
          to: addr(a[1]),
          value: text(a[2]),
        });
        break;
      case "Approval":
        out.push({
          event: "Approval",
          address,
          asset: assetOf(chain.deployment, address),
          owner: addr(a[0]),
          spender: addr(a[1]),
          value: text(a[2]),
        });
        break;
      case "Swap":
        out.push({
          event: "Swap",
          address,
          sender: addr(a.sender),
          to: addr(a.to),
          amount0In: text(a.amount0In),
          amount1In: text(a.amount1In),
          amount0Out: text(a.amount0Out),
          amount1Out: text(a.amount1Out),
        });
        break;
      case "Deposited":
        out.push({
          event: "Deposited",
          address,
          nonce: text(a.nonce),
          destination_chain_id: Number(a.destinationChainId),
          sender: addr(a.sender),
          recipient: addr(a.recipient),
          token: addr(a.token),
          remote_token: addr(a.remoteToken),
          amount: text(a.amount),
          fee: text(a.fee),
        });
        break;
      case "Released":
        out.push({
          event: "Released",
          address,
          source_chain_id: Number(a.sourceChainId),
          nonce: text(a.nonce),
          recipient: addr(a.recipient),
          token: addr(a.token),
          amount: text(a.amount),
          attester: addr(a.attester),
        });
        break;
      case "Dispersed":
        out.push({
          event: "Dispersed",
          address,
          sender: addr(a.sender),
          token: addr(a.token),
          total: text(a.total),
          recipients: Number(a.recipients),
        });
        break;
      case "ExecutionAttested":
        out.push({
          event: "ExecutionAttested",
          address,
          execution_id: String(a.executionId),
          workflow_commitment: text(a.workflowCommitment),
          execution_commitment: text(a.executionCommitment),
          attester: addr(a.attester),
          slots: Number(a.slots),
        });
        break;
    }
  }
  return out;
}

/** Thrown when a transaction the report names is not on its chain (or the chain is unknown). */
export class EvidenceNotFoundError extends Error {
  readonly ref: TxRef;
  constructor(ref: TxRef, reason: string) {
    super(`transaction ${ref.hash} (${ref.kind}) on chain ${ref.chain_id}: ${reason}`);
    this.name = "EvidenceNotFoundError";
    this.ref = ref;
  }
}

/** The evidence of one transaction, read from its receipt and block. */
export async function transactionEvidence(
  chains: readonly EvidenceChain[],
  ref: TxRef,
): Promise<TxEvidence> {
  const chain = chains.find((c) => c.chainId === ref.chain_id);
  if (!chain) throw new EvidenceNotFoundError(ref, "no such chain configured");
  let receipt: TransactionReceipt | null;
  try {
    receipt = /^0x[0-9a-fA-F]{64}$/.test(ref.hash)
      ? await chain.provider.getTransactionReceipt(ref.hash)
      : null;
  } catch (err) {
    throw new EvidenceNotFoundError(ref, `receipt unreadable: ${(err as Error).message}`);
  }
  if (!receipt) throw new EvidenceNotFoundError(ref, "no receipt on this chain");
  const block = await chain.provider.getBlock(receipt.blockNumber);
  if (!block) throw new EvidenceNotFoundError(ref, `block ${receipt.blockNumber} not found`);
  return {
    action_index: ref.action_index,
    kind: ref.kind,
    chain: chain.name,
    chain_id: chain.chainId,
    hash: receipt.hash,
    block_number: receipt.blockNumber,
    block_hash: receipt.blockHash,
    block_timestamp: block.timestamp,
    from: getAddress(receipt.from),
    to: receipt.to ? getAddress(receipt.to) : null,
    status: receipt.status === 1 ? "success" : "reverted",
    events: decodeEvidenceEvents(chain, receipt.logs),
  };
}

/** The evidence of every transaction, in the order given. */
export function collectEvidence(
  chains: readonly EvidenceChain[],
  refs: readonly TxRef[],
): Promise<TxEvidence[]> {
  return Promise.all(refs.map((ref) => transactionEvidence(chains, ref)));
}
