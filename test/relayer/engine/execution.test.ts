import { expect } from "chai";
import { verifyMessage, Wallet } from "ethers";
import { reportCid, type ReportBody } from "../../../relayer/execution/report.ts";
import { runExecution } from "../../../relayer/execution/orchestrator.ts";
import { quoteSwapCandidates, ReserveReader, selectRoute } from "../../../relayer/routing/index.ts";
import {
  balanceOf,
  fundedAccount,
  normalise,
  openEngineWorld,
  submitExecution,
  units,
  type EngineWorld,
} from "./harness.ts";

describe("# execution engine (embedded devnet)", function () {
  this.timeout(300_000);
  let world: EngineWorld;

  before(async function () {
    world = await openEngineWorld();
  });
  after(async function () {
    await world?.close();
  });

  it("should run the JSON workflow (convert by cost, swap, lockmint bridge, multisend with a percentage) to completion", async function () {
    const apiKeyId = "key_e2e_json";
    const account = await fundedAccount(world, apiKeyId);
    const alice = Wallet.createRandom().address;
    const bob = Wallet.createRandom().address;
    const workflow = normalise(world, {
      name: "treasury-rebalance",
      actions: [
        {
          type: "convert",
          from: "USDC",
          to: "WETH",
          amount: "3000",
          route_optimizer: { priority: "cost" },
        },
        { type: "swap", to: "DAI", slippage: 1 },
        { type: "bridge", destination: "polygon", protocol: "lockmint" },
        {
          type: "multisend",
          recipients: [
            { address: alice, amount: "50%" },
            { address: bob, amount: "100" },
          ],
        },
      ],
    });
    // The chain the convert should pick: the best output net of gas in USD right now.
    const candidates = await quoteSwapCandidates(
      world.chains.list(),
      { from: "USDC", to: "WETH", amount: "3000", account },
      new ReserveReader(),
    );
    const expected = selectRoute(candidates, { priority: "cost" }, "convert");
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
  });
});
