import { formatUnits, parseUnits } from "ethers";
import { z } from "zod";
import {
  tokenOf,
  type ChainAssets,
  MULTISEND_CONTRACT,
  type ActionFlow,
} from "../routing/index.ts";
import type { WorkflowAction } from "../model/index.ts";
import { Agent, agentResultBase, type ExecuteOptions, type TaskOf } from "./base.ts";
import { AgentError } from "../errors/index.ts";

const recipientSchema = z.object({ address: z.string(), amount: z.string() });

export interface MultisendParams {
  asset: string;
  /** Decimal amounts of `asset` (percentages already resolved by {@link multisendTask}). */
  recipients: Array<z.infer<typeof recipientSchema>>;
  /** The first attempt's gas limit instead of the estimate. */
  gas_limit?: bigint;
  /** The recipients are fetched orders (`recipients_from`): none is a payout of nothing. */
  from_orders?: boolean;
}
export type MultisendTask = TaskOf<"multisend", MultisendParams>;

export const multisendResultSchema = agentResultBase.extend({
  action: z.literal("multisend"),
  asset: z.string(),
  total: z.string(),
  recipients: z.array(recipientSchema),
});
export type MultisendResult = z.infer<typeof multisendResultSchema>;

/**
 * The multisend task of a normalised action: a `<n>%` recipient gets that share of `input` (what
 * the multisend receives), rounded down in base units of the asset on `chain`.
 */
export function multisendTask(
  action: WorkflowAction & { type: "multisend" },
  input: Pick<ActionFlow, "asset" | "amount">,
  chain: ChainAssets,
  orders?: ReadonlyArray<{ address: string; amount: string }>,
): MultisendTask {
  if (action.recipientsFrom) {
    return {
      action: "multisend",
      params: {
        asset: input.asset,
        recipients: (orders ?? []).map((o) => ({ address: o.address, amount: o.amount })),
        from_orders: true,
      },
    };
  }
  const decimals = tokenOf(chain, input.asset).decimals;
  const total = parseUnits(input.amount, decimals);
  return {
    action: "multisend",
    params: {
      asset: input.asset,
      recipients: (action.recipients ?? []).map((r) => ({
        address: r.address,
        amount: formatUnits(
          r.amount.kind === "percent"
            ? (total * BigInt(r.amount.bps)) / 10_000n
            : parseUnits(r.amount.amount, decimals),
          decimals,
        ),
      })),
    },
  };
}

/** What a multisend hands on: the part of its input it did not send, where it is. */
export function multisendOutput(
  result: MultisendResult,
  input: Pick<ActionFlow, "amount">,
  chain: ChainAssets,
): ActionFlow {
  const decimals = tokenOf(chain, result.asset).decimals;
  const left = parseUnits(input.amount, decimals) - parseUnits(result.total, decimals);
  return {
    asset: result.asset,
    amount: formatUnits(left > 0n ? left : 0n, decimals),
    chain: result.chain,
  };
}

/**
 * Sends one asset to many recipients in one transaction (Disperse-style contract): screens every
 * recipient, approves the total and calls `disperseToken`.
 *
 * Task params: `asset`, `recipients` `[{address, amount}]` with decimal amounts (percentages are
 * resolved by the orchestrator), `gas_limit?`.
 */
export class MultisendAgent extends Agent<MultisendTask, MultisendResult> {
  async execute(
    task: MultisendTask,
    { complianceCheck = true }: ExecuteOptions = {},
  ): Promise<MultisendResult> {
    const p = task.params;
    const chain = this.chain;
    const asset = p.asset;
    const token = tokenOf(chain, asset);
    const recipients = p.recipients;
    if (recipients.length === 0) {
      if (!p.from_orders) throw new AgentError("NO_ROUTE", "multisend has no recipients");
      return {
        ...(await this.resultBase()),
        action: "multisend",
        asset,
        total: "0",
        recipients: [],
      };
    }
    if (!chain.deployment.contracts[MULTISEND_CONTRACT])
      throw new AgentError("NO_ROUTE", `no multisend contract on ${chain.name}`);
    if (complianceCheck)
      await this.screen(recipients.map((r) => ({ address: r.address, role: "recipient" })));
    const amounts = recipients.map((r) => parseUnits(r.amount, token.decimals));
    const total = amounts.reduce((s, a) => s + a, 0n);
    const multisend = chain.contract(MULTISEND_CONTRACT);
    const multisendAddress = await multisend.getAddress();
    await this.ensureAllowance(token.address, multisendAddress, total);
    const request = await multisend.getFunction("disperseToken").populateTransaction(
      token.address,
      recipients.map((r) => r.address),
      amounts,
    );
    await this.send("multisend", "multisend", request, {
      gasLimit: p.gas_limit,
      units: recipients.length,
      decode: multisend.interface,
    });
    return {
      ...(await this.resultBase()),
      action: "multisend",
      asset,
      total: formatUnits(total, token.decimals),
      recipients: recipients.map((r, i) => ({
        address: r.address,
        amount: formatUnits(amounts[i]!, token.decimals),
      })),
    };
  }
}
