import { randomUUID } from "node:crypto";
import { dataSlice, getAddress, id as keccakText, type Contract } from "ethers";
import type { EngineStore } from "../accounts/index.ts";
import { GAS_PADDING_PERCENT, TxJournal } from "../execution/transactions.ts";
import type { RoutingChain } from "../routing/index.ts";
import { CONTRACT_NAMES } from "../deployments/index.ts";

/**
 * The on-chain circuit breaker of an integration (CircuitBreakerGateway, spec "States and
 * transitions"): each failed call (no response, or a final status >= 500 after the retry policy) is
 * reported with `recordFailure(gateway)` (REPORTER_ROLE, the operator); once the count exceeds the
 * contract's threshold (10) the relayer calls `trigger(gateway)` and the circuit is OPEN until the
 * contract's cooldown ends. While OPEN, calls are refused without touching the network.
 *
 * The gateway address of an integration is `circuit_breaker.gateway` when configured, otherwise
 * derived from its base URL's origin: the last 20 bytes of `keccak256("veriflow.integration:" +
 * origin)` (`https://crm.example.com` → the same address on every relayer), so integrations
 * pointing at the same system share one circuit.
 */
export const CIRCUIT_BREAKER = CONTRACT_NAMES.circuitBreaker;

export function gatewayAddress(config: { url: string; gateway?: string }): string {
  if (config.gateway) return getAddress(config.gateway);
  return getAddress(
    dataSlice(keccakText(`veriflow.integration:${new URL(config.url).origin}`), 12),
  );
}

export class OnChainBreaker {
  readonly gateway: string;
  private readonly chain: RoutingChain;
  private readonly contract: Contract;
  private readonly store: EngineStore;

  constructor(store: EngineStore, chain: RoutingChain, gateway: string) {
    if (!chain.deployment.contracts[CIRCUIT_BREAKER])
      throw new Error(`chain ${chain.name} has no ${CIRCUIT_BREAKER}`);
    this.store = store;
    this.chain = chain;
    this.contract = chain.contract(CIRCUIT_BREAKER);
    this.gateway = gateway;
  }

  async isOpen(): Promise<boolean> {
    return (await this.contract.getFunction("isOpen")(this.gateway)) as boolean;
  }

  async failureCount(): Promise<number> {
    return Number(await this.contract.getFunction("failureCount")(this.gateway));
  }

  /** Records one failure; triggers the circuit when the count exceeds the threshold. */
  async reportFailure(): Promise<{ failures: number; opened: boolean }> {
    if (await this.isOpen()) return { failures: await this.failureCount(), opened: true };
    await this.send("recordFailure");
    const [failures, threshold] = await Promise.all([
      this.failureCount(),
      this.contract.getFunction("threshold")() as Promise<bigint>,
    ]);
    if (BigInt(failures) <= threshold) return { failures, opened: false };
    await this.send("trigger");
    return { failures, opened: await this.isOpen() };
  }

  private async send(fn: "recordFailure" | "trigger"): Promise<void> {
    const signer = this.chain.operator;
    if (!signer) throw new Error(`no operator key on ${this.chain.name}`);
    const data = this.contract.interface.encodeFunctionData(fn, [this.gateway]);
    const to = await this.contract.getAddress();
    let estimate: bigint;
    try {
      estimate = await this.chain.provider.estimateGas({
        from: await signer.getAddress(),
        to,
        data,
      });
    } catch {
      // Another reporter opened the circuit meanwhile ("Threshold not met" cannot happen here:
      // the count was read above and only grows while closed).
      return;
    }
    // Through the journal for the operator's nonce sequence; a lost report is harmless.
    await new TxJournal(this.store).send(
      this.chain,
      signer,
      { executionId: `cb_${randomUUID()}`, actionIndex: 0, slot: fn },
      "attest",
      { to, data, gasLimit: (estimate * GAS_PADDING_PERCENT) / 100n },
      { units: -1 },
    );
  }
}
