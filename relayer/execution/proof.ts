import { parseUnits } from "ethers";
import type { TxRecord } from "../agents/index.ts";
import {
  actionParamsDigest,
  proveExecution,
  randomSalt,
  type ExecutedAction,
} from "../proofs/index.ts";
import { tokenOf, type RoutingChain } from "../routing/chain.ts";
import type { ExecutionProver } from "./finalize.ts";
import type { StepResult } from "./steps.ts";

/** The confirmed transaction of that kind (the last one: earlier attempts ran out of gas). */
function confirmedHash(txs: readonly TxRecord[], kind: TxRecord["kind"]): string {
  const tx = [...txs].reverse().find((t) => t.kind === kind && t.status === "confirmed");
  if (!tx) throw new Error(`a completed action has no confirmed ${kind} transaction`);
  return tx.hash;
}

/**
 * A completed action's result as the prover's `ExecutedAction` (amounts in base units of the
 * chain's tokens). Pure: the auditor rebuilds the claim from a report's action results with it.
 */
export function executedActionOf(
  r: StepResult,
  decimalsOf: (chainName: string, asset: string) => number,
): ExecutedAction {
  switch (r.action) {
    case "swap":
    case "convert":
      return {
        type: r.action,
        amountIn: parseUnits(r.amount_in, decimalsOf(r.chain, r.from)),
        amountOut: parseUnits(r.amount_out, decimalsOf(r.chain, r.to)),
        quotedOut: parseUnits(r.quoted_out, decimalsOf(r.chain, r.to)),
        slippageBps: r.slippage_bps,
        paramsDigest: actionParamsDigest({
          type: r.action,
          chain: r.chain,
          from: r.from,
          to: r.to,
          exchange: r.exchange,
          path: r.path,
        }),
        txHashes: [confirmedHash(r.txs, "swap")],
      };
    case "bridge": {
      const decimals = decimalsOf(r.chain, r.asset);
      return {
        type: "bridge",
        amountIn: parseUnits(r.amount_in, decimals),
        amountOut: parseUnits(r.amount_out, decimalsOf(r.destination, r.asset)),
        feeCap: parseUnits(r.max_fee, decimals),
        paramsDigest: actionParamsDigest({
          type: "bridge",
          chain: r.chain,
          destination: r.destination,
          asset: r.asset,
          protocol: r.protocol,
          recipient: r.recipient,
        }),
        txHashes: [r.src_tx, r.dest_tx],
      };
    }
    case "multisend": {
      const decimals = decimalsOf(r.chain, r.asset);
      return {
        type: "multisend",
        amountIn: parseUnits(r.total, decimals),
        recipientAmounts: r.recipients.map((x) => parseUnits(x.amount, decimals)),
        paramsDigest: actionParamsDigest({
          type: "multisend",
          chain: r.chain,
          asset: r.asset,
          recipients: r.recipients.map((x) => x.address),
        }),
        txHashes: [confirmedHash(r.txs, "multisend")],
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
    if (!chain) throw new Error(`no chain ${chainName}`);
    // The native coin (ETH) counts in its wrapped token's units, as the swap routed it.
    return tokenOf(chain, asset).decimals;
  };
  return {
    async prove({ executionId, results }) {
      const salt = randomSalt();
      const proved = await proveExecution({
        executionId,
        salt,
        actions: results.map((r) => executedActionOf(r, decimalsOf)),
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
