import { parseUnits } from "ethers";
import type { AgentResult, TxRecord } from "../agents/base.ts";
import {
  actionParamsDigest,
  proveExecution,
  randomSalt,
  type ExecutedAction,
} from "../proofs/index.ts";
import type { RoutingChain } from "../routing/chain.ts";
import type { ExecutionProver } from "./finalize.ts";

const lastHash = (txs: readonly TxRecord[], kind: string) =>
  [...txs].reverse().find((t) => t.kind === kind && t.status === "confirmed")?.hash;

/**
 * One agent result as the prover's `ExecutedAction` (amounts in base units of the chain's
 * tokens). Pure: the auditor rebuilds the claim from a report's action results with it.
 */
export function executedActionOf(
  r: AgentResult & Record<string, unknown>,
  decimalsOf: (chainName: string, asset: string) => number,
): ExecutedAction {
  const txs = r.txs ?? [];
  switch (r.action) {
    case "swap":
    case "convert": {
      const from = String(r.from);
      const to = String(r.to);
      return {
        type: r.action,
        amountIn: parseUnits(String(r.amount_in), decimalsOf(r.chain, from)),
        amountOut: parseUnits(String(r.amount_out), decimalsOf(r.chain, to)),
        quotedOut: parseUnits(String(r.quoted_out), decimalsOf(r.chain, to)),
        slippageBps: Number(r.slippage_bps),
        paramsDigest: actionParamsDigest({
          type: r.action,
          chain: r.chain,
          from,
          to,
          exchange: r.exchange,
          path: r.path,
        }),
        txHashes: [lastHash(txs, "swap")!],
      };
    }
    case "bridge": {
      const asset = String(r.asset);
      const decimals = decimalsOf(r.chain, asset);
      return {
        type: "bridge",
        amountIn: parseUnits(String(r.amount_in), decimals),
        amountOut: parseUnits(String(r.amount_out), decimalsOf(String(r.destination), asset)),
        feeCap: parseUnits(String(r.max_fee), decimals),
        paramsDigest: actionParamsDigest({
          type: "bridge",
          chain: r.chain,
          destination: r.destination,
          asset,
          protocol: r.protocol,
          recipient: r.recipient,
        }),
        txHashes: [String(r.src_tx), String(r.dest_tx)],
      };
    }
    default: {
      const asset = String(r.asset);
      const decimals = decimalsOf(r.chain, asset);
      const recipients = (r.recipients as Array<{ address: string; amount: string }>) ?? [];
      return {
        type: "multisend",
        amountIn: parseUnits(String(r.total), decimals),
        recipientAmounts: recipients.map((x) => parseUnits(x.amount, decimals)),
        paramsDigest: actionParamsDigest({
          type: "multisend",
          chain: r.chain,
          asset,
          recipients: recipients.map((x) => x.address),
        }),
        txHashes: [lastHash(txs, "multisend")!],
      };
    }
  }
}

/**
 * The execution proof (relayer/proofs, Groth16 over circuits/src/execution.circom) built from the
 * agents' results: per action its type, amounts in base units, the quote and slippage (swap,
 * convert), the fee cap (bridge), the recipient amounts (multisend) and the transaction hashes.
 * The salt is random per execution and published in the report, so a client holding the report
 * recomputes both public commitments.
 */
export function groth16Prover(chains: { list(): readonly RoutingChain[] }): ExecutionProver {
  const decimalsOf = (chainName: string, asset: string): number => {
    const chain = chains.list().find((c) => c.name === chainName);
    const token = chain?.deployment.tokens[asset];
    if (!token) throw new Error(`no ${asset} on ${chainName}`);
    return token.decimals;
  };
  return {
    async prove({ executionId, results }) {
      const salt = randomSalt();
      const proved = await proveExecution({
        executionId,
        salt,
        actions: results.map((r) =>
          executedActionOf(r as AgentResult & Record<string, unknown>, decimalsOf),
        ),
      });
      // JSON-safe (bigints as decimal strings): the proof is memoised in the database.
      const [, proof, signals] = proved.calldata.args;
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
        attestArgs: [toStrings(proof), toStrings(signals)],
        salt: salt.toString(),
        commitments: {
          workflow: proved.commitments.workflowCommitment.toString(),
          execution: proved.commitments.executionCommitment.toString(),
        },
      };
    },
  };
}
