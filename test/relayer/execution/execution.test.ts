import { expect } from "chai";
import { Contract, verifyMessage, Wallet } from "ethers";
import { parse } from "yaml";
import { minimumOut } from "../../../relayer/routing/amm.ts";
import { ERC20_ABI, ROUTER_ABI } from "../../../relayer/routing/abis.ts";
import { stepMemo } from "../../../relayer/executions/store.ts";
import { accountWallet } from "../../../relayer/accounts/index.ts";
import { DEVNET_ACCOUNTS } from "../../../relayer/devnet/accounts.ts";
import { TxJournal } from "../../../relayer/transactions/journal.ts";
import {
  DeFiTransactionArtifact,
  reportCid,
  type ReportBody,
  type SignedReport,
} from "../../../relayer/report/report.ts";
import { runExecution } from "../../../relayer/execution/orchestrator.ts";
import {
  checkReceipt,
  claimFromReport,
  computeCommitments,
  publicSignalsOf,
  type ClaimSource,
  type ReportedClaim,
  type SubmissionReceipt,
} from "../../../relayer/proofs/index.ts";
import type { Workflow } from "../../../relayer/model/workflow.ts";
import { quoteSwapCandidates, ReserveReader, selectRoute } from "../../../relayer/routing/index.ts";
import { treasuryRebalanceWorkflow } from "../../fixtures/workflows.ts";
import {
  balanceOf,
  devnetFunder,
  fundedAccount,
  normalise,
  useEngineWorld,
  submitExecution,
  units,
} from "../../fixtures/engine.ts";

/** Explicit fees for the third-party trader (above the devnet's pinned base fee). */
const FEES = { maxFeePerGas: 60n * 10n ** 9n, maxPriorityFeePerGas: 2n * 10n ** 9n };

describe("# execution engine (embedded devnet)", function () {
  this.timeout(300_000);
  const world = useEngineWorld();

  it("should run the JSON workflow (convert by cost, swap, lockmint bridge, multisend with a percentage) to completion", async function () {
    const apiKeyId = "key_e2e_json";
    const account = await fundedAccount(world, apiKeyId);
    const alice = Wallet.createRandom().address;
    const bob = Wallet.createRandom().address;
    const workflow = normalise(
      world,
      treasuryRebalanceWorkflow("treasury-rebalance", "3000", [
        { address: alice, amount: "50%" },
        { address: bob, amount: "100" },
      ]),
    );
    // The chain the convert should pick: the best output net of gas in USD right now.
    const candidates = await quoteSwapCandidates(
      world.chains.list(),
      { from: "USDC", to: "WETH", amount: "3000", account },
      new ReserveReader(),
    );
    // The best by cost among the chains that leave the chained bridge to polygon a valid plan.
    const expected = selectRoute(
      candidates.filter((c) => c.chain !== "polygon"),
      { priority: "cost" },
      "convert",
    );
    const source = world.chains.byName(expected.chain);
    const polygon = world.chains.byName("polygon");
    const usdcBefore = await balanceOf(source, "USDC", account);
    const daiOnPolygonBefore = await balanceOf(polygon, "DAI", account);

    const id = await submitExecution(world, apiKeyId, workflow);
    const state = await runExecution(world.deps, id);
    expect(state).to.equal("completed");

    const steps = await world.store.query<{
      action_index: number;
      state: string;
      chain: string;
      result: Record<string, unknown>;
    }>(
      "SELECT action_index, state, chain, result FROM engine_steps WHERE execution_id = $1 AND action_index >= 0 ORDER BY action_index",
      [id],
    );
    expect(steps.map((s) => s.state)).to.deep.equal([
      "completed",
      "completed",
      "completed",
      "completed",
    ]);
    expect(steps[0]!.chain).to.equal(expected.chain);
    expect(steps[1]!.chain).to.equal(expected.chain);
    expect(steps[2]!.result.src_tx).to.match(/^0x[0-9a-f]{64}$/);
    expect(steps[2]!.result.dest_tx).to.match(/^0x[0-9a-f]{64}$/);
    expect(steps[3]!.chain).to.equal("polygon");

    // On-chain balances: USDC spent on the source chain, recipients paid on polygon.
    expect(usdcBefore - (await balanceOf(source, "USDC", account))).to.equal(
      units(source, "USDC", "3000"),
    );
    const bridged = units(polygon, "DAI", String(steps[2]!.result.amount_out));
    const aliceGot = await balanceOf(polygon, "DAI", alice);
    const bobGot = await balanceOf(polygon, "DAI", bob);
    expect(aliceGot).to.equal(bridged / 2n);
    expect(bobGot).to.equal(units(polygon, "DAI", "100"));
    expect((await balanceOf(polygon, "DAI", account)) - daiOnPolygonBefore).to.equal(
      bridged - aliceGot - bobGot,
    );

    const [report] = await world.store.query<{ cid: string; report: Record<string, unknown> }>(
      "SELECT cid, report FROM engine_reports WHERE execution_id = $1",
      [id],
    );
    // artifact_id: CIDv1 (json codec, sha2-256) of the canonical report body; signed by the operator.
    const { artifact_id, signer, signature, ...body } = report!.report as Record<string, string>;
    expect(artifact_id).to.equal(report!.cid);
    expect(await reportCid(body as unknown as ReportBody)).to.equal(report!.cid);
    expect(verifyMessage(report!.cid, signature!)).to.equal(signer);
    expect(signer).to.equal(await world.chains.list()[0]!.operator.getAddress());
    expect(report!.report.tx_hashes).to.be.an("array").with.length.greaterThan(5);
    expect(Object.keys(report!.report.gas_metrics as object).length).to.be.at.least(2);
    expect(report!.report.liquidation_protection).to.equal(true);

    // The Groth16 proof is attested on chain under the execution id, with the report's signals.
    const attestation = report!.report.attestation as {
      chain: string;
      contract: string;
      execution_key: string;
      tx_hash: string;
    };
    expect(String(report!.report.proof_note ?? ""), "proof note").to.equal("");
    const home = world.chains.byName(attestation.chain);
    const attestor = home.contract("ExecutionAttestor");
    expect(await attestor.getFunction("isAttested")(attestation.execution_key)).to.equal(true);
    const onChain = (await attestor.getFunction("getAttestation")(attestation.execution_key)) as {
      workflowCommitment: bigint;
      executionCommitment: bigint;
    };
    const signals = report!.report.public_signals as string[];
    expect(onChain.workflowCommitment.toString()).to.equal(signals[0]);
    expect(onChain.executionCommitment.toString()).to.equal(signals[1]);
    // The proof opens the submission receipt's commitment, and the claim rebuilt from the report
    // (workflow, receipt salt, chain-read amounts) recomputes every public signal.
    const receipt = report!.report.receipt as SubmissionReceipt;
    expect(receipt.workflow_commitment).to.equal(signals[0]);
    expect(await checkReceipt(receipt, report!.report.workflow as Workflow)).to.include({
      signatureValid: true,
      commitmentMatches: true,
    });
    expect(receipt.signer).to.equal(signer);
    const recomputed = await computeCommitments(
      claimFromReport(report!.report as unknown as ClaimSource),
    );
    expect(publicSignalsOf(recomputed)).to.deep.equal(signals);
    // The claim's amounts are the chain's: the bridge's amount out is its release on polygon.
    const claimed = (report!.report.claim as ReportedClaim).actions;
    expect(claimed[2]!.amount_out).to.equal(bridged.toString());
    expect(claimed[3]!.recipient_amounts).to.deep.equal([aliceGot.toString(), bobGot.toString()]);
    expect(claimed[2]!.tx_hashes).to.deep.equal([
      steps[2]!.result.src_tx,
      steps[2]!.result.dest_tx,
    ]);
    expect((await home.provider.getTransactionReceipt(attestation.tx_hash))!.status).to.equal(1);

    // The bridge (the cross-chain agent) carries the execution proof as its zk_proof.
    const bridgeResult = (report!.report as unknown as SignedReport).actions[2]!.result;
    expect(bridgeResult?.action).to.equal("bridge");
    expect(bridgeResult?.zk_proof).to.be.a("string").and.equal(report!.report.zk_proof);
    // ... and the circuit slot that holds it.
    expect(bridgeResult?.zk_proof_slots).to.deep.equal([2]);

    // Spec artifact operations.
    const artifact = new DeFiTransactionArtifact(report!.report as unknown as SignedReport);
    const audit = JSON.parse(artifact.to_audit_json()) as { proof: string; cid: string };
    expect(audit.cid).to.equal(report!.cid);
    expect(JSON.parse(audit.proof).protocol).to.equal("groth16");
    expect(artifact.operations.map((o) => o.action)).to.deep.equal([
      "convert",
      "swap",
      "bridge",
      "multisend",
    ]);
    expect(artifact.simulate_liquidation(0.5)).to.equal(false);
  });
});

describe("# execution engine: YAML, cancel, slippage (embedded devnet)", function () {
  this.timeout(300_000);
  const apiKeyId = "key_e2e_yaml";
  const world = useEngineWorld(apiKeyId);

  it("should run a scheduled YAML workflow with a dex pin on the pinned exchange", async function () {
    const carol = Wallet.createRandom().address;
    const dave = Wallet.createRandom().address;
    const yaml = parse(`
name: weekly-payroll
trigger:
  frequency: every Monday at 09:00 EST
actions:
  - action: swap
    params:
      from: USDC
      to: DAI
      amount: 2500
      dex: sushiswap
      chain: polygon
  - action: multisend
    params:
      recipients:
        - "${carol}": 1000
        - "${dave}": 25%
compliance:
  tax_forms: [1099-DA]
`);
    const workflow = normalise(world, yaml, "yaml");
    expect(workflow.schedule?.cron).to.be.a("string");
    const polygon = world.chains.byName("polygon");
    const usdcBefore = await balanceOf(polygon, "USDC", world.account);
    const daiBefore = await balanceOf(polygon, "DAI", world.account);
    const id = await submitExecution(world, apiKeyId, workflow);
    expect(await runExecution(world.deps, id)).to.equal("completed");
    const steps = await world.store.query<{ chain: string; result: Record<string, unknown> }>(
      "SELECT chain, result FROM engine_steps WHERE execution_id = $1 AND action_index >= 0 ORDER BY action_index",
      [id],
    );
    expect(steps[0]!.result.exchange).to.equal("sushiswap");
    expect(steps[1]!.chain).to.equal("polygon");
    const received = units(polygon, "DAI", String(steps[0]!.result.amount_out));
    expect(usdcBefore - (await balanceOf(polygon, "USDC", world.account))).to.equal(
      units(polygon, "USDC", "2500"),
    );
    expect(await balanceOf(polygon, "DAI", carol)).to.equal(units(polygon, "DAI", "1000"));
    expect(await balanceOf(polygon, "DAI", dave)).to.equal(received / 4n);
    expect((await balanceOf(polygon, "DAI", world.account)) - daiBefore).to.equal(
      received - units(polygon, "DAI", "1000") - received / 4n,
    );
  });

  it("should not strand a chained bridge: the swap avoids the chain the bridge goes to, though it is the swap's best on its own", async function () {
    const candidates = await quoteSwapCandidates(
      world.chains.list(),
      { from: "USDC", to: "DAI", amount: "100", account: world.account },
      new ReserveReader(),
    );
    const destination = selectRoute(candidates, { priority: "cost" }, "greedy").chain;
    const workflow = normalise(world, {
      name: "stranded-bridge",
      actions: [
        { type: "swap", from: "USDC", to: "DAI", amount: "100", slippage: 1 },
        { type: "bridge", destination, protocol: "lockmint" },
      ],
    });
    const id = await submitExecution(world, apiKeyId, workflow);
    expect(await runExecution(world.deps, id)).to.equal("completed");
    const steps = await world.store.query<{ chain: string; state: string }>(
      "SELECT chain, state FROM engine_steps WHERE execution_id = $1 AND action_index >= 0 ORDER BY action_index",
      [id],
    );
    expect(steps.map((s) => s.state)).to.deep.equal(["completed", "completed"]);
    expect(steps[0]!.chain).to.not.equal(destination);
    expect(steps[1]!.chain).to.equal(steps[0]!.chain);
  });

  it("should stop before the next action when cancelled, and report what ran", async function () {
    const workflow = normalise(world, {
      name: "cancel-me",
      actions: [
        { type: "swap", chain: "arbitrum", from: "USDC", to: "DAI", amount: "10", slippage: 1 },
        {
          type: "multisend",
          recipients: [{ address: Wallet.createRandom().address, amount: "100%" }],
        },
      ],
    });
    const id = await submitExecution(world, apiKeyId, workflow);
    // The first action completes, then the cancel request arrives (the step row is written after).
    await world.store.query(
      `CREATE OR REPLACE FUNCTION cancel_after_first() RETURNS trigger AS $$
       BEGIN
         IF NEW.state = 'completed' AND NEW.action_index = 0 THEN
           UPDATE workflow_executions SET cancel_requested_at = now() WHERE id = NEW.execution_id;
         END IF;
         RETURN NEW;
       END $$ LANGUAGE plpgsql`,
    );
    await world.store.query(
      "CREATE TRIGGER cancel_after_first AFTER UPDATE ON engine_steps FOR EACH ROW EXECUTE FUNCTION cancel_after_first()",
    );
    try {
      expect(await runExecution(world.deps, id)).to.equal("cancelled");
    } finally {
      await world.store.query("DROP TRIGGER cancel_after_first ON engine_steps");
    }
    const [report] = await world.store.query<{ report: Record<string, unknown> }>(
      "SELECT report FROM engine_reports WHERE execution_id = $1",
      [id],
    );
    expect(report!.report.state).to.equal("cancelled");
    expect(report!.report.completed_actions).to.deep.equal([0]);
    expect(report!.report.not_run).to.deep.equal([1]);
  });

  /** Queues a swap of 5 WETH to USDC on arbitrum's uniswap within 0.5 % of the quote. */
  function submitWethSwap(name: string): Promise<string> {
    const workflow = normalise(world, {
      name,
      actions: [
        {
          type: "swap",
          chain: "arbitrum",
          dex: "uniswap",
          from: "WETH",
          to: "USDC",
          amount: "5",
          slippage: 0.5,
        },
      ],
    });
    return submitExecution(world, apiKeyId, workflow);
  }

  it("should quote a swap against the pool as it is when its turn comes, not as it was when its route was chosen", async function () {
    const arbitrum = world.chains.byName("arbitrum");
    const id = await submitWethSwap("moved-after-routing");
    // The route is chosen and persisted first (the agent memoises it), then the pool moves.
    await world.store.query(
      `INSERT INTO engine_steps (execution_id, action_index, agent, state, chain, input)
       VALUES ($1, 0, 'SwapAgent', 'running', 'arbitrum', '{}'::jsonb)`,
      [id],
    );
    const candidates = await quoteSwapCandidates(
      [arbitrum],
      { from: "WETH", to: "USDC", amount: "5", dex: "uniswap" },
      new ReserveReader(),
    );
    const route = candidates.find((c) => c.path.length === 2)!;
    const pair = arbitrum.deployment.pools.find(
      (p) => p.exchange === "uniswap" && p.tokens.includes("WETH") && p.tokens.includes("USDC"),
    )!.pair;
    await stepMemo(
      world.store,
      id,
      0,
    )("route", async () => ({
      exchange: route.exchange,
      router: route.router,
      path: route.path,
      pathAddresses: route.pathAddresses,
      pairs: [pair],
      amountIn: route.amountIn.toString(),
      deadline: Math.floor(Date.now() / 1000) + 600,
    }));
    // Another trader sells WETH into the same pool: at the old quote, 5 WETH would now miss 0.5%.
    const trader = devnetFunder(arbitrum);
    const weth = new Contract(route.pathAddresses[0]!, ERC20_ABI, trader);
    const sold = units(arbitrum, "WETH", "3");
    await (await weth.getFunction("approve")(route.router, sold, FEES)).wait();
    const traded = await (
      await new Contract(route.router, ROUTER_ABI, trader).getFunction("swapExactTokensForTokens")(
        sold,
        0n,
        route.pathAddresses,
        await trader.getAddress(),
        2n ** 40n,
        FEES,
      )
    ).wait();
    const moved = await quoteSwapCandidates(
      [arbitrum],
      { from: "WETH", to: "USDC", amount: "5", dex: "uniswap" },
      new ReserveReader(),
    );
    const now = moved.find((c) => c.path.length === 2)!;
    expect(now.amountOut < minimumOut(route.amountOut, 0.5)).to.equal(true);

    expect(await runExecution(world.deps, id)).to.equal("completed");
    const [step] = await world.store.query<{ result: Record<string, unknown> }>(
      "SELECT result FROM engine_steps WHERE execution_id = $1 AND action_index = 0",
      [id],
    );
    expect(Number(step!.result.quote_block)).to.be.at.least(traded!.blockNumber);
    expect(units(arbitrum, "USDC", String(step!.result.quoted_out))).to.equal(now.amountOut);
    expect(step!.result.amount_out).to.equal(step!.result.quoted_out);
  });

  it("should refuse a swap whose pool was pushed just before the quote (REFERENCE_PRICE_DEVIATION), named in the report", async function () {
    const arbitrum = world.chains.byName("arbitrum");
    const router = arbitrum.deployment.exchanges.uniswap!.router;
    const path = [
      arbitrum.deployment.tokens.WETH!.address,
      arbitrum.deployment.tokens.USDC!.address,
    ];
    // A manipulator sells 25 WETH into the pool (~8% off its recent average) right before.
    const trader = devnetFunder(arbitrum);
    const pushed = units(arbitrum, "WETH", "25");
    await (
      await new Contract(path[0]!, ERC20_ABI, trader).getFunction("approve")(router, pushed)
    ).wait();
    await (
      await new Contract(router, ROUTER_ABI, trader).getFunction("swapExactTokensForTokens")(
        pushed,
        0n,
        path,
        await trader.getAddress(),
        2n ** 40n,
        FEES,
      )
    ).wait();
    const id = await submitWethSwap("pushed-before-quote");
    try {
      expect(await runExecution(world.deps, id)).to.equal("failed");
      const [row] = await world.store.query<{ error: Record<string, unknown> }>(
        "SELECT error FROM workflow_executions WHERE id = $1",
        [id],
      );
      expect(row!.error.error, String(row!.error.detail)).to.equal("REFERENCE_PRICE_DEVIATION");
      expect(String(row!.error.detail)).to.match(/from its reference price/);
      const [reference] = row!.error.reference as Array<Record<string, number>>;
      expect(reference!.deviation_bps).to.be.greaterThan(reference!.max_deviation_bps);
      const [report] = await world.store.query<{ report: Record<string, unknown> }>(
        "SELECT report FROM engine_reports WHERE execution_id = $1",
        [id],
      );
      expect((report!.report.error as Record<string, unknown>).error).to.equal(
        "REFERENCE_PRICE_DEVIATION",
      );
      const txs = await new TxJournal(world.store).list(id);
      expect(txs.filter((t) => t.kind === "swap")).to.deep.equal([]);
    } finally {
      // Put the pool back where it was for the tests after this one.
      const usdcBack = (await new Contract(router, ROUTER_ABI, trader).getFunction("getAmountsIn")(
        pushed,
        [path[1], path[0]],
      )) as bigint[];
      await (
        await new Contract(path[1]!, ERC20_ABI, trader).getFunction("approve")(
          router,
          usdcBack[0]!,
          FEES,
        )
      ).wait();
      await (
        await new Contract(router, ROUTER_ABI, trader).getFunction("swapTokensForExactTokens")(
          pushed,
          usdcBack[0]!,
          [path[1], path[0]],
          await trader.getAddress(),
          2n ** 40n,
          FEES,
        )
      ).wait();
    }
  });

  it("should report a swap front-run past its tolerance that reverted on chain at amountOutMin, without retrying", async function () {
    const arbitrum = world.chains.byName("arbitrum");
    const wallet = await accountWallet(world.store, world.cipher, apiKeyId, arbitrum.provider);
    const router = arbitrum.deployment.exchanges.uniswap!.router;
    const weth = arbitrum.deployment.tokens.WETH!.address;
    // A standing allowance, so the only transaction of the action is the swap itself.
    await (
      await new Contract(weth, ERC20_ABI, wallet).getFunction("approve")(
        router,
        units(arbitrum, "WETH", "100"),
      )
    ).wait();
    const id = await submitWethSwap("sandwiched");
    await arbitrum.faults!.stallMining();
    const running = runExecution(world.deps, id);
    // Wait until the engine has broadcast its swap (it sits in the mempool), then front-run it.
    for (;;) {
      const [tx] = await world.store.query<{ state: string }>(
        "SELECT state FROM engine_txs WHERE execution_id = $1 AND slot = 'swap'",
        [id],
      );
      if (tx?.state === "sent") break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const trader = new Wallet(DEVNET_ACCOUNTS[6]!.privateKey, arbitrum.provider);
    const wethAsTrader = new Contract(weth, ERC20_ABI, trader);
    await wethAsTrader.getFunction("approve")(router, units(arbitrum, "WETH", "30"), {
      maxPriorityFeePerGas: 50n * 10n ** 9n,
      maxFeePerGas: 60n * 10n ** 9n,
    });
    await new Contract(router, ROUTER_ABI, trader).getFunction("swapExactTokensForTokens")(
      units(arbitrum, "WETH", "30"),
      0n,
      [weth, arbitrum.deployment.tokens.USDC!.address],
      await trader.getAddress(),
      2n ** 40n,
      { maxPriorityFeePerGas: 50n * 10n ** 9n, maxFeePerGas: 60n * 10n ** 9n, gasLimit: 300_000n },
    );
    await arbitrum.faults!.resumeMining();
    expect(await running).to.equal("failed");
    const [row] = await world.store.query<{ error: Record<string, unknown> }>(
      "SELECT error FROM workflow_executions WHERE id = $1",
      [id],
    );
    expect(row!.error.error, String(row!.error.detail)).to.equal("SLIPPAGE_EXCEEDED");
    expect(row!.error.tx_hash).to.match(/^0x[0-9a-f]{64}$/);
    // The relayer held the pool from quote to mined: the move was another party's.
    expect(row!.error.cause).to.equal("market");
    expect(row!.error.moved_pools).to.have.length(1);
    const txs = await new TxJournal(world.store).list(id);
    expect(txs.filter((t) => t.kind === "swap").map((t) => t.state)).to.deep.equal(["reverted"]);
    const receipt = await arbitrum.provider.getTransactionReceipt(String(row!.error.tx_hash));
    expect(receipt!.status).to.equal(0);
  });
});
