import { formatUnits, parseUnits, type Signer } from "ethers";
import { type RoutingChain, BRIDGE_CONTRACT, tokenOf, type ActionFlow } from "../routing/index.ts";
import { crashPoint } from "../transactions/index.ts";
import { signRelease } from "../chains/index.ts";
import { z } from "zod";
import type { WorkflowAction } from "../model/index.ts";
import { Agent, agentResultBase, type ExecuteOptions, type TaskOf } from "./base.ts";
import { AgentError } from "../errors/index.ts";

/** The bridge protocol of an action that names none: the only one the chains offer. */
export const DEFAULT_BRIDGE_PROTOCOL = "lockmint";

export interface BridgeParams {
  asset: string;
  /** Decimal amount of `asset`. */
  amount: string;
  /** Destination chain name. */
  destination: string;
  protocol: string;
  /** Default: the account. */
  recipient?: string;
  /** Cap on the bridge fee, basis points of the amount (default 100 = 1%). */
  max_fee_bps?: number;
}
export type BridgeTask = TaskOf<"bridge", BridgeParams>;

export const bridgeResultSchema = agentResultBase.extend({
  action: z.literal("bridge"),
  protocol: z.string(),
  asset: z.string(),
  destination: z.string(),
  destination_chain_id: z.number().int(),
  amount_in: z.string(),
  amount_out: z.string(),
  bridge_fee: z.string(),
  max_fee: z.string(),
  deposit_nonce: z.string(),
  recipient: z.string(),
  src_tx: z.string(),
  dest_tx: z.string(),
});
export type BridgeResult = z.infer<typeof bridgeResultSchema>;

export function bridgeTask(
  action: WorkflowAction & { type: "bridge" },
  input: Pick<ActionFlow, "asset" | "amount">,
): BridgeTask {
  if (!action.destination)
    throw new AgentError("NO_ROUTE", `action ${action.index + 1} has no destination chain`);
  return {
    action: "bridge",
    params: {
      asset: input.asset,
      amount: input.amount,
      destination: action.destination,
      protocol: action.protocol ?? DEFAULT_BRIDGE_PROTOCOL,
    },
  };
}

/** What a bridge hands to the next action: the amount delivered, on the destination chain. */
export function bridgeOutput(result: BridgeResult): ActionFlow {
  return { asset: result.asset, amount: result.amount_out, chain: result.destination };
}

interface DepositRecord {
  nonce: string;
  remoteToken: string;
  recipient: string;
  amount: string;
  fee: string;
}

/**
 * Cross-chain transfer over the `lockmint` bridge: approve and deposit on the source chain (the
 * agent's chain), read the deposit's nonce from its `Deposited` event, sign the EIP-712 `Release`
 * with the operator key of the destination chain and release there. Returns `src_tx` and
 * `dest_tx`; the spec's `zk_proof` of a cross-chain agent is the execution proof, which exists
 * only once the whole workflow is proved: the final report attaches it to every bridge action.
 */
export class BridgeAgent extends Agent<BridgeTask, BridgeResult> {
  async execute(
    task: BridgeTask,
    { complianceCheck = true }: ExecuteOptions = {},
  ): Promise<BridgeResult> {
    const p = task.params;
    const protocol = p.protocol;
    if (protocol !== DEFAULT_BRIDGE_PROTOCOL)
      throw new AgentError(
        "NO_ROUTE",
        `bridge protocol ${protocol} is not supported (lockmint is)`,
      );
    const source = this.chain;
    const destination = this.env.chains.list().find((c) => c.name === p.destination);
    if (!destination)
      throw new AgentError("NO_ROUTE", `unknown destination chain ${p.destination}`);
    if (destination.chainId === source.chainId)
      throw new AgentError("NO_ROUTE", "bridge source and destination are the same chain");
    if (
      !source.deployment.contracts[BRIDGE_CONTRACT] ||
      !destination.deployment.contracts[BRIDGE_CONTRACT]
    ) {
      throw new AgentError(
        "NO_ROUTE",
        `no lockmint bridge between ${source.name} and ${destination.name}`,
      );
    }
    const asset = p.asset;
    const token = tokenOf(source, asset);
    const amount = parseUnits(p.amount, token.decimals);
    const recipient = p.recipient ?? (await this.env.account.getAddress());
    const srcBridge = source.contract(BRIDGE_CONTRACT);
    const destBridge = destination.contract(BRIDGE_CONTRACT);
    const srcBridgeAddress = await srcBridge.getAddress();
    const destBridgeAddress = await destBridge.getAddress();

    if (complianceCheck) {
      await this.screen([
        { address: recipient, role: "recipient" },
        { address: srcBridgeAddress, role: "bridge" },
      ]);
      await this.screen([{ address: destBridgeAddress, role: "bridge" }], destination);
    }

    const fee = (await srcBridge.getFunction("quoteFee")(amount)) as bigint;
    const capBps = BigInt(p.max_fee_bps ?? 100);
    const maxFee = (amount * capBps) / 10_000n;
    if (fee > maxFee) {
      throw new AgentError(
        "TX_REVERTED",
        `bridge fee ${formatUnits(fee, token.decimals)} ${asset} exceeds the cap of ${capBps} bps`,
      );
    }
    await this.ensureAllowance(token.address, srcBridgeAddress, amount);
    const depositRequest = await srcBridge
      .getFunction("deposit")
      .populateTransaction(token.address, amount, destination.chainId, recipient, maxFee);
    const depositTx = await this.send("deposit", "bridge-deposit", depositRequest, {
      decode: srcBridge.interface,
    });
    const deposit = this.depositFrom(depositTx.receipt.logs, srcBridge.interface, srcBridgeAddress);
    crashPoint("bridge.deposited");

    const operator = this.operatorOf(destination);
    const released = (await destBridge.getFunction("isReleased")(
      source.chainId,
      BigInt(deposit.nonce),
    )) as boolean;
    let destTx: string;
    const journalled = await this.env.journal.find({
      executionId: this.env.executionId,
      actionIndex: this.env.actionIndex,
      slot: "release",
    });
    if (released && !journalled) {
      // Released by someone else (another relayer instance): find that transaction.
      const events = await destBridge.queryFilter(
        destBridge.filters.Released!(source.chainId, BigInt(deposit.nonce)),
      );
      destTx = events[0]?.transactionHash ?? "";
    } else {
      const release = {
        sourceChainId: BigInt(source.chainId),
        sourceBridge: srcBridgeAddress,
        nonce: BigInt(deposit.nonce),
        token: deposit.remoteToken,
        recipient: deposit.recipient,
        amount: BigInt(deposit.amount),
      };
      const signature = await signRelease(
        operator,
        { chainId: destination.chainId, bridge: destBridgeAddress },
        release,
      );
      const releaseRequest = await destBridge
        .getFunction("release")
        .populateTransaction(release, signature);
      const sent = await this.send("release", "bridge-release", releaseRequest, {
        chain: destination,
        signer: operator,
        decode: destBridge.interface,
      });
      destTx = sent.hash;
    }
    const destToken = Object.entries(destination.deployment.tokens).find(
      ([, t]) => t.address.toLowerCase() === deposit.remoteToken.toLowerCase(),
    );
    return {
      ...(await this.resultBase()),
      action: "bridge",
      protocol,
      asset,
      destination: destination.name,
      destination_chain_id: destination.chainId,
      amount_in: formatUnits(amount, token.decimals),
      amount_out: formatUnits(BigInt(deposit.amount), destToken?.[1].decimals ?? token.decimals),
      bridge_fee: formatUnits(BigInt(deposit.fee), token.decimals),
      max_fee: formatUnits(maxFee, token.decimals),
      deposit_nonce: deposit.nonce,
      recipient: deposit.recipient,
      src_tx: depositTx.hash,
      dest_tx: destTx,
    };
  }

  private operatorOf(chain: RoutingChain): Signer {
    if (!chain.operator)
      throw new AgentError("NO_ROUTE", `no operator key configured for ${chain.name}`);
    return chain.operator;
  }

  private depositFrom(
    logs: readonly { address: string; topics: readonly string[]; data: string }[],
    iface: import("ethers").Interface,
    bridge: string,
  ): DepositRecord {
    for (const log of logs) {
      if (log.address.toLowerCase() !== bridge.toLowerCase()) continue;
      const parsed = iface.parseLog({ topics: [...log.topics], data: log.data });
      if (parsed?.name === "Deposited") {
        return {
          nonce: parsed.args.nonce.toString(),
          remoteToken: parsed.args.remoteToken as string,
          recipient: parsed.args.recipient as string,
          amount: parsed.args.amount.toString(),
          fee: parsed.args.fee.toString(),
        };
      }
    }
    throw new AgentError("TX_REVERTED", "the deposit emitted no Deposited event");
  }
}
