import { formatUnits, parseUnits } from "ethers";
import { tokenOf } from "../routing/chain.ts";
import { Agent, type AgentResult, type ExecuteOptions, type Task } from "./base.ts";
import { AgentError } from "./errors.ts";

export const MULTISEND_CONTRACT = "Multisend";

/**
 * Sends one asset to many recipients in one transaction (Disperse-style contract): screens every
 * recipient, approves the total and calls `disperseToken`.
 *
 * Task params: `asset`, `recipients` `[{address, amount}]` with decimal amounts (percentages are
 * resolved by the orchestrator), `gas_limit?`.
 */
export class MultisendAgent extends Agent {
  async execute(task: Task, { complianceCheck = true }: ExecuteOptions = {}): Promise<AgentResult> {
    const p = task.params;
    const chain = this.chain;
    const asset = String(p.asset);
    const token = tokenOf(chain, asset);
    const recipients = (p.recipients as Array<{ address: string; amount: string }>) ?? [];
    if (recipients.length === 0) throw new AgentError("NO_ROUTE", "multisend has no recipients");
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
    const gasLimit = p.gas_limit !== undefined ? BigInt(p.gas_limit as string | number) : undefined;
    await this.send("multisend", "multisend", request, {
      gasLimit,
      units: recipients.length,
      decode: multisend.interface,
    });
    const base = await this.baseMetrics();
    return this.result(
      task.action,
      {
        asset,
        total: formatUnits(total, token.decimals),
        recipients: recipients.map((r, i) => ({
          address: r.address,
          amount: formatUnits(amounts[i]!, token.decimals),
        })),
      },
      {},
      base,
    );
  }
}
