import { getAddress, Interface, parseUnits, type Log, type TransactionReceipt } from "ethers";
import type { TxRecord } from "../agents/index.ts";
import {
  ERC20_ABI,
  BRIDGE_CONTRACT,
  MULTISEND_CONTRACT,
  tokenOf,
  type RoutingChain,
} from "../routing/index.ts";
import {
  ExecutionClaimError,
  proveExecution,
  toReportedClaim,
  type ExecutedAction,
  type Groth16Prover,
} from "../proofs/index.ts";
import type { WorkflowAction } from "../model/index.ts";
import type { ExecutionProver } from "./finalize.ts";
import type { StepResult } from "../report/index.ts";

const erc20 = new Interface(ERC20_ABI);
const TRANSFER = erc20.getEvent("Transfer")!;

/**
 * The execution proof (relayer/proofs, Groth16 over circuits/src/execution.circom) of the workflow
 * exactly as submitted, under the salt of its submission receipt, with the execution side read
 * from the chains: every amount and hash comes from the transaction receipts, not from what the
 * agents reported. Per action:
 * - swap/convert: amount in = the input token's Transfers from the account, amount out = the
 *   output token's Transfers to the recipient, in the swap transaction; the quote is the router's
 *   `getAmountsOut` read before sending (the one value not on chain);
 * - bridge: amount in = the `Deposited` event's amount + fee, the fee cap = the deposit call's
 *   `maxFee`, amount out = the `Released` event of that deposit's nonce on the destination chain;
 * - multisend: the recipients' amounts = the token's Transfers from the account in the
 *   multisend contract's transaction, in order, each to the submitted recipient's address.
 * The witness and the proof are computed by `prover` (the relayer's ProverPool: off the event loop).
 */
export function groth16Prover(
  chains: { list(): readonly RoutingChain[] },
  prover?: Groth16Prover,
): ExecutionProver {
  const chainNamed = (name: string): RoutingChain => {
    const chain = chains.list().find((c) => c.name === name);
    if (!chain) throw new Error(`no chain ${name}`);
    return chain;
  };
  const receiptOf = async (chain: RoutingChain, hash: string): Promise<TransactionReceipt> => {
    const receipt = await chain.provider.getTransactionReceipt(hash);
    if (!receipt || receipt.status !== 1) {
      throw new ExecutionClaimError(
        "tx",
        null,
        `${hash} has no successful receipt on ${chain.name}`,
      );
    }
    return receipt;
  };
  const lastHash = (txs: readonly TxRecord[], kind: string) =>
    [...txs].reverse().find((t) => t.kind === kind && t.status === "confirmed")?.hash;

  const claimAction = async (action: WorkflowAction, r: StepResult): Promise<ExecutedAction> => {
    const chain = chainNamed(r.chain);
    if (r.action !== action.type) {
      throw new ExecutionClaimError("workflow", action.index, `the step ran a ${r.action}`);
    }
    switch (r.action) {
      case "swap":
      case "convert": {
        const hash = lastHash(r.txs ?? [], "swap");
        if (!hash) throw new ExecutionClaimError("tx", action.index, "no confirmed swap");
        const receipt = await receiptOf(chain, hash);
        const tokenIn = tokenOf(chain, r.from).address;
        const tokenOut = tokenOf(chain, r.to).address;
        const recipient = r.recipient ?? receipt.from;
        return {
          amountIn: transfers(receipt.logs, tokenIn, { from: receipt.from }),
          amountOut: transfers(receipt.logs, tokenOut, { to: recipient }),
          quotedOut: parseUnits(r.quoted_out, tokenOf(chain, r.to).decimals),
          txHashes: [hash],
        };
      }
      case "bridge": {
        const source = chain;
        const destination = chainNamed(r.destination);
        const bridge = source.contract(BRIDGE_CONTRACT).interface;
        const srcHash = r.src_tx;
        const destHash = r.dest_tx;
        const [deposit, sent, release] = await Promise.all([
          receiptOf(source, srcHash),
          source.provider.getTransaction(srcHash),
          receiptOf(destination, destHash),
        ]);
        const deposited = eventOf(deposit.logs, bridge, "Deposited", source, BRIDGE_CONTRACT);
        const released = eventOf(
          release.logs,
          destination.contract(BRIDGE_CONTRACT).interface,
          "Released",
          destination,
          BRIDGE_CONTRACT,
        );
        if (
          BigInt(released.args.sourceChainId) !== BigInt(source.chainId) ||
          BigInt(released.args.nonce) !== BigInt(deposited.args.nonce)
        ) {
          throw new ExecutionClaimError(
            "bridge",
            action.index,
            `release ${destHash} is not the one of deposit ${srcHash}`,
          );
        }
        const call = bridge.parseTransaction({ data: sent!.data });
        return {
          amountIn: BigInt(deposited.args.amount) + BigInt(deposited.args.fee),
          feeCap: BigInt(call!.args.maxFee),
          amountOut: BigInt(released.args.amount),
          txHashes: [srcHash, destHash],
        };
      }
      case "multisend": {
        const hash = lastHash(r.txs ?? [], "multisend");
        if (!hash) throw new ExecutionClaimError("tx", action.index, "no confirmed multisend");
        const receipt = await receiptOf(chain, hash);
        const token = tokenOf(chain, r.asset).address;
        const multisend = chain.deployment.contracts[MULTISEND_CONTRACT]!.address;
        if (!sameAddress(receipt.to ?? "", multisend)) {
          throw new ExecutionClaimError(
            "multisend",
            action.index,
            `${hash} is not a call of the multisend contract`,
          );
        }
        // disperseToken moves each amount from the sender straight to its recipient, in order.
        const paid = receipt.logs
          .filter(
            (l) => isTransfer(l, token) && sameAddress(topicAddress(l.topics[1]), receipt.from),
          )
          .map((l) => ({ to: topicAddress(l.topics[2]), amount: BigInt(l.data) }));
        // recipients_from: the recipients are the fetched orders the step paid (its result).
        const submitted = action.recipientsFrom ? r.recipients : (action.recipients ?? []);
        if (
          paid.length !== submitted.length ||
          paid.some((p, i) => !sameAddress(p.to, submitted[i]!.address))
        ) {
          throw new ExecutionClaimError(
            "multisend",
            action.index,
            `the multisend transaction ${hash} did not pay the ${action.recipientsFrom ? "fetched orders" : "submitted recipients"} in order`,
          );
        }
        const amounts = paid.map((p) => p.amount);
        const total = amounts.reduce((a, b) => a + b, 0n);
        return {
          amountIn: total,
          // One slot, its one recipient amount the payout's total (see SubmittedAction).
          recipientAmounts: action.recipientsFrom ? [total] : amounts,
          txHashes: [hash],
        };
      }
    }
  };

  return {
    async prove({ executionId, workflow, results, receipt }) {
      if (!receipt) {
        throw new ExecutionClaimError("workflow", null, "the execution has no submission receipt");
      }
      const actions = await Promise.all(
        workflow.actions.map((action, i) => {
          const result = results[i];
          if (!result) throw new ExecutionClaimError("workflow", i, "the action has no result");
          return claimAction(action, result);
        }),
      );
      const proved = await proveExecution(
        { executionId, salt: receipt.salt, workflow, actions },
        receipt.workflow_commitment,
        prover,
      );
      // JSON-safe (bigints as decimal strings): the proof is memoised in the database.
      const [, slots, proof, commitments] = proved.calldata.args;
      const toStrings = (v: unknown): unknown =>
        typeof v === "bigint"
          ? v.toString()
          : Array.isArray(v)
            ? v.map(toStrings)
            : v && typeof v === "object"
              ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, toStrings(x)]))
              : v;
      return {
        proof: proved.proof,
        publicSignals: proved.publicSignals,
        attestArgs: [slots, toStrings(proof), toStrings(commitments)],
        salt: receipt.salt,
        commitments: {
          workflow: proved.commitments.workflowCommitment.toString(),
          execution: proved.commitments.executionCommitment.toString(),
        },
        claim: toReportedClaim(actions),
      };
    },
  };
}

const sameAddress = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
const topicAddress = (topic: string | undefined) => getAddress("0x" + (topic ?? "").slice(26));
const isTransfer = (log: Log, token: string) =>
  sameAddress(log.address, token) && log.topics[0] === TRANSFER.topicHash;

/** Sum of a token's Transfer events in a receipt, from and/or to an address. */
function transfers(logs: readonly Log[], token: string, side: { from?: string; to?: string }) {
  return logs
    .filter(
      (l) =>
        isTransfer(l, token) &&
        (side.from === undefined || sameAddress(topicAddress(l.topics[1]), side.from)) &&
        (side.to === undefined || sameAddress(topicAddress(l.topics[2]), side.to)),
    )
    .reduce((sum, l) => sum + BigInt(l.data), 0n);
}

/** The one event `name` a deployed contract emitted in a receipt. */
function eventOf(
  logs: readonly Log[],
  iface: Interface,
  name: string,
  chain: RoutingChain,
  contract: string,
) {
  const address = chain.deployment.contracts[contract]!.address;
  for (const log of logs) {
    if (!sameAddress(log.address, address)) continue;
    const parsed = iface.parseLog({ topics: [...log.topics], data: log.data });
    if (parsed?.name === name) return parsed;
  }
  throw new ExecutionClaimError("tx", null, `no ${name} event of ${contract} on ${chain.name}`);
}
