import { formatUnits, parseUnits, type Signer } from "ethers";
import type { RoutingChain } from "../routing/chain.ts";
import { tokenOf } from "../routing/chain.ts";
import { crashPoint } from "../execution/crash.ts";
import { Agent, type AgentResult, type ExecuteOptions, type Task } from "./base.ts";
import { AgentError } from "./errors.ts";

export const BRIDGE_CONTRACT = "LockMintBridge";
/** EIP-712 domain of the lockmint bridge (contracts/devnet/interfaces/ILockMintBridge.sol). */
const DOMAIN_NAME = "Veriflow LockMint";
const DOMAIN_VERSION = "1";
const RELEASE_TYPES = {
  Release: [
    { name: "sourceChainId", type: "uint256" },
    { name: "sourceBridge", type: "address" },
    { name: "nonce", type: "uint256" },
    { name: "token", type: "address" },
    { name: "recipient", type: "address" },
    { name: "amount", type: "uint256" },
  ],
};

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
 * with the operator key of the destination chain and release there. Returns `src_tx`, `dest_tx`
 * and `zk_proof` (the execution proof, attached when the workflow is proved; null until then).
 *
 * Task params: `asset`, `amount` (decimal), `destination` (chain name), `protocol` (`lockmint`),
 * `recipient?` (default: the account), `max_fee_bps?` (cap on the bridge fee, default 100 = 1%).
 */
export class BridgeAgent extends Agent {
  async execute(task: Task, { complianceCheck = true }: ExecuteOptions = {}): Promise<AgentResult> {
    const p = task.params;
    const protocol = String(p.protocol ?? "lockmint");
    if (protocol !== "lockmint")
      throw new AgentError(
        "NO_ROUTE",
        `bridge protocol ${protocol} is not supported (lockmint is)`,
      );
    const source = this.chain;
    const destination = this.env.chains.list().find((c) => c.name === p.destination);
    if (!destination)
      throw new AgentError("NO_ROUTE", `unknown destination chain ${String(p.destination)}`);
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
    const asset = String(p.asset);
    const token = tokenOf(source, asset);
    const amount = parseUnits(String(p.amount), token.decimals);
    const recipient = String(p.recipient ?? (await this.env.account.getAddress()));
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
    const capBps = BigInt(Number(p.max_fee_bps ?? 100));
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
        sourceChainId: source.chainId,
        sourceBridge: srcBridgeAddress,
        nonce: BigInt(deposit.nonce),
        token: deposit.remoteToken,
        recipient: deposit.recipient,
        amount: BigInt(deposit.amount),
      };
      const signature = await operator.signTypedData(
        {
          name: DOMAIN_NAME,
          version: DOMAIN_VERSION,
          chainId: destination.chainId,
          verifyingContract: destBridgeAddress,
        },
        RELEASE_TYPES,
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
    const base = await this.baseMetrics();
    const destToken = Object.entries(destination.deployment.tokens).find(
      ([, t]) => t.address.toLowerCase() === deposit.remoteToken.toLowerCase(),
    );
    return this.result(
      task.action,
      {
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
        zk_proof: null,
      },
      {},
      base,
    );
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
