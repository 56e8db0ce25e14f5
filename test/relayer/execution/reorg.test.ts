import { expect } from "chai";
import { Wallet } from "ethers";
import { accountWallet } from "../../../relayer/accounts/index.ts";
import type { EngineStore } from "../../../relayer/accounts/store.ts";
import { runExecution } from "../../../relayer/execution/orchestrator.ts";
import {
  balanceOf,
  fundedAccount,
  normalise,
  openEngineWorld,
  submitExecution,
  units,
  type EngineWorld,
} from "../../fixtures/engine.ts";

/**
 * A reorg after a step completed and before the execution is proved (the engine's re-check before
 * the proof and the report): the dropped transaction is broadcast again and the execution completes
 * with the same transaction, or, when the other branch spent the account's nonce, the step and the
 * execution fail with TX_DROPPED. Never reported as done with a transaction the chain does not hold.
 */
describe("# reorg between a completed step and the report (embedded devnet)", function () {
  this.timeout(300_000);
  const apiKeyId = "key_reorg";
  let world: EngineWorld;
  let account: string;

  before(async function () {
    world = await openEngineWorld({ prover: undefined });
    account = await fundedAccount(world, apiKeyId);
  });

  after(async function () {
    await world?.close();
  });

  /**
   * The engine's store, with a hook that runs once right after the first action's step is stored
   * as completed: the moment between the step and the re-check before the proof.
   */
  function hookedStore(afterStep: () => Promise<void>): EngineStore {
    let fired = false;
    const store = world.store;
    const hooked: EngineStore = {
      async query<T>(sql: string, params?: unknown[]) {
        const rows = await store.query<T>(sql, params);
        if (
          !fired &&
          sql.includes("UPDATE engine_steps SET state") &&
          params?.[1] === 0 &&
          params?.[2] === "completed"
        ) {
          fired = true;
          await afterStep();
        }
        return rows;
      },
      transaction: (fn) => store.transaction(fn),
    };
    return hooked;
  }

  function payout(to: string) {
    return normalise(world, {
      name: "reorg-payout",
      actions: [
        {
          type: "multisend",
          chain: "arbitrum",
          from: "USDC",
          recipients: [{ address: to, amount: "12.5" }],
        },
      ],
    });
  }

  async function steps(id: string) {
    return world.store.query<{ state: string; error: Record<string, unknown> | null }>(
      "SELECT state, error FROM engine_steps WHERE execution_id = $1 AND action_index = 0",
      [id],
    );
  }

  it("should broadcast the dropped transaction again and complete with it (resumed)", async function () {
    const arbitrum = world.chains.byName("arbitrum");
    const to = Wallet.createRandom().address;
    const id = await submitExecution(world, apiKeyId, payout(to));
    const mark = await arbitrum.faults!.markFork();
    const store = hookedStore(async () => {
      await arbitrum.faults!.reorg(mark, 3);
      expect(await balanceOf(arbitrum, "USDC", to)).to.equal(0n);
    });
    const state = await runExecution({ ...world.deps, store }, id);
    expect(state).to.equal("completed");
    expect(await balanceOf(arbitrum, "USDC", to)).to.equal(units(arbitrum, "USDC", "12.5"));
    const txs = await world.store.query<{ hash: string; state: string }>(
      "SELECT hash, state FROM engine_txs WHERE execution_id = $1 AND kind = 'multisend'",
      [id],
    );
    expect(txs).to.have.length(1);
    expect(txs[0]!.state).to.equal("confirmed");
    const receipt = await arbitrum.provider.getTransactionReceipt(txs[0]!.hash);
    const block = await arbitrum.provider.getBlock(receipt!.blockNumber);
    expect(block!.hash).to.equal(receipt!.blockHash);
    const [report] = await world.store.query<{ report: { tx_hashes?: string[] } }>(
      "SELECT report FROM engine_reports WHERE execution_id = $1",
      [id],
    );
    expect(JSON.stringify(report!.report)).to.include(txs[0]!.hash);
  });

  it("should fail the step and the execution with TX_DROPPED when the other branch spent its nonce", async function () {
    const arbitrum = world.chains.byName("arbitrum");
    const to = Wallet.createRandom().address;
    const id = await submitExecution(world, apiKeyId, payout(to));
    const wallet = (await accountWallet(world.store, world.cipher, apiKeyId)).connect(
      arbitrum.provider,
    );
    const mark = await arbitrum.faults!.markFork();
    const store = hookedStore(async () => {
      await arbitrum.faults!.reorg(mark, 1);
      // The other branch: the account's first dropped nonce went to another transaction.
      await (await wallet.sendTransaction({ to: Wallet.createRandom().address, value: 1n })).wait();
    });
    const before = await balanceOf(arbitrum, "USDC", account);
    const state = await runExecution({ ...world.deps, store }, id);
    expect(state).to.equal("failed");
    const [row] = await world.store.query<{ error: Record<string, unknown> }>(
      "SELECT error FROM workflow_executions WHERE id = $1",
      [id],
    );
    expect(row!.error.error).to.equal("TX_DROPPED");
    expect(row!.error.action_index).to.equal(0);
    const [step] = await steps(id);
    expect(step!.state).to.equal("failed");
    expect(step!.error!.error).to.equal("TX_DROPPED");
    expect(await balanceOf(arbitrum, "USDC", to)).to.equal(0n);
    // Nothing left the account on the surviving branch (the approval may have been dropped too).
    expect(await balanceOf(arbitrum, "USDC", account)).to.equal(before);
  });
});
