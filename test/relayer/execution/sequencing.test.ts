import { expect } from "chai";
import { Contract, parseUnits } from "ethers";
import { ensureAccount, fundFromDevnet } from "../../../relayer/accounts/index.ts";
import { runExecution } from "../../../relayer/execution/orchestrator.ts";
import { poolMoves } from "../../../relayer/execution/pool-moves.ts";
import { checkReferencePrice } from "../../../relayer/routing/reference.ts";
import { PAIR_ABI } from "../../../relayer/routing/abis.ts";
import { nativeSymbol } from "../../../relayer/routing/chain.ts";
import { getAmountOut, minimumOut, quotePath } from "../../../relayer/routing/amm.ts";
import {
  balanceOf,
  devnetFunder,
  normalise,
  openEngineWorld,
  submitExecution,
  type EngineWorld,
} from "../../fixtures/engine.ts";

/**
 * Issue 19: the relayer's own concurrent swaps through one pool must not fail each other. 50
 * workflows from 5 keys, each selling 300 USDC for WETH on polygon's sushiswap pool (the shallowest
 * WETH/USDC venue, ~$250k a side) within 0.5%: alone each has ~0.12% price impact, together
 * ~6% (more than 8 times the tolerance), so quoted against one state most would fail; sequenced,
 * all complete.
 */
describe("# pool sequencer: concurrent workflows through one shallow pool (embedded devnet)", function () {
  this.timeout(900_000);
  // The engine without a prover (a supported configuration: the report says there is no proof):
  // this test is about the swaps, and 50 Groth16 proofs would multiply its time by ten on a loaded
  // machine without touching what it checks. The proof path has its own tests.
  let opened: EngineWorld | undefined;
  before(async function () {
    opened = await openEngineWorld({ prover: undefined });
  });
  after(async function () {
    await opened?.close();
  });
  const world = {
    get chains() {
      return opened!.chains;
    },
    get store() {
      return opened!.store;
    },
    get cipher() {
      return opened!.cipher;
    },
    get deps() {
      return opened!.deps;
    },
  } as EngineWorld;
  const KEYS = 5;
  const WORKFLOWS = 50;
  const AMOUNT = "300";
  const SLIPPAGE_PERCENT = 0.5;

  it("should complete all 50, each within its slippage of the pool it executed on, balances conserved on chain", async function () {
    const polygon = world.chains.byName("polygon");
    const usdc = polygon.deployment.tokens.USDC!;
    const weth = polygon.deployment.tokens.WETH!;
    const pairAddress = polygon.deployment.pools.find(
      (p) => p.exchange === "sushiswap" && p.tokens.includes("WETH") && p.tokens.includes("USDC"),
    )!.pair;
    const pair = new Contract(pairAddress, PAIR_ABI, polygon.provider);
    const usdcIsToken0 = usdc.address.toLowerCase() < weth.address.toLowerCase();
    const reservesAt = async (blockTag: number | "latest") => {
      const [r0, r1] = (await pair.getFunction("getReserves")({ blockTag })) as [bigint, bigint];
      return usdcIsToken0 ? { usdc: r0, weth: r1 } : { usdc: r1, weth: r0 };
    };

    const amountIn = parseUnits(AMOUNT, usdc.decimals);
    const start = await reservesAt("latest");
    // Alone, each is well within its tolerance: its own price impact is under half of it.
    const hop = { reserveIn: start.usdc, reserveOut: start.weth };
    expect(quotePath(amountIn, [hop]).priceImpactBps).to.be.lessThan((SLIPPAGE_PERCENT * 100) / 2);
    // Together, against that one state, they move it by many times the tolerance.
    expect(quotePath(amountIn * BigInt(WORKFLOWS), [hop]).priceImpactBps).to.be.greaterThan(
      SLIPPAGE_PERCENT * 100 * 8,
    );

    const accounts: string[] = [];
    for (let k = 0; k < KEYS; k++) {
      const { account } = await ensureAccount(world.store, world.cipher, `key_seq_${k}`);
      await fundFromDevnet(polygon, devnetFunder(polygon), account.address, {
        [nativeSymbol(polygon)]: "1",
        USDC: String(Number(AMOUNT) * (WORKFLOWS / KEYS)),
      });
      accounts.push(account.address);
    }
    const before = await Promise.all(
      accounts.map(async (a) => ({
        usdc: await balanceOf(polygon, "USDC", a),
        weth: await balanceOf(polygon, "WETH", a),
      })),
    );
    const pairBefore = {
      usdc: await balanceOf(polygon, "USDC", pairAddress),
      weth: await balanceOf(polygon, "WETH", pairAddress),
    };

    const ids = await Promise.all(
      Array.from({ length: WORKFLOWS }, (_, i) =>
        submitExecution(
          world,
          `key_seq_${i % KEYS}`,
          normalise(world, {
            name: `seq-${i}`,
            actions: [
              {
                type: "swap",
                chain: "polygon",
                dex: "sushiswap",
                from: "USDC",
                to: "WETH",
                amount: AMOUNT,
                slippage: SLIPPAGE_PERCENT,
              },
            ],
          }),
        ),
      ),
    );
    const states = await Promise.all(ids.map((id) => runExecution(world.deps, id)));
    const errors = await world.store.query<{ error: unknown }>(
      "SELECT error FROM workflow_executions WHERE id = ANY($1) AND state <> 'completed'",
      [ids],
    );
    expect(errors, JSON.stringify(errors.slice(0, 3))).to.deep.equal([]);
    expect(states.every((s) => s === "completed")).to.equal(true);

    // Each swap: quoted against the pool it executed on (the state of the block before its own),
    // received exactly that quote, which is within its tolerance.
    const swaps = await world.store.query<{
      hash: string;
      block_number: string;
      result: Record<string, unknown>;
    }>(
      `SELECT t.hash, t.block_number, s.result FROM engine_txs t
         JOIN engine_steps s ON s.execution_id = t.execution_id AND s.action_index = t.action_index
        WHERE t.execution_id = ANY($1) AND t.kind = 'swap' AND t.state = 'confirmed'`,
      [ids],
    );
    expect(swaps).to.have.length(WORKFLOWS);
    const blocks = new Set<number>();
    let wethOut = 0n;
    for (const swap of swaps) {
      const block = Number(swap.block_number);
      blocks.add(block);
      const receipt = (await polygon.provider.getTransactionReceipt(swap.hash))!;
      const atBlock = await polygon.provider.getBlock(block);
      // Alone in its block: the state before it is the previous block's.
      expect(atBlock!.transactions).to.have.length(1);
      const r = await reservesAt(block - 1);
      const expected = getAmountOut(amountIn, r.usdc, r.weth);
      const received = receipt.logs
        .filter((l) => l.address.toLowerCase() === weth.address.toLowerCase())
        .reduce((s, l) => s + BigInt(l.data), 0n);
      expect(received).to.equal(expected);
      expect(parseUnits(String(swap.result.quoted_out), weth.decimals)).to.equal(expected);
      expect(parseUnits(String(swap.result.min_out), weth.decimals)).to.equal(
        minimumOut(expected, SLIPPAGE_PERCENT),
      );
      expect(received >= minimumOut(expected, SLIPPAGE_PERCENT)).to.equal(true);
      expect(Number(swap.result.quote_block)).to.be.lessThan(block);
      wethOut += received;
    }
    expect(blocks.size).to.equal(WORKFLOWS);
    // The reference price: every quote passed with the relayer's earlier swaps taken out, though
    // together they moved the pool beyond the allowed deviation.
    for (const swap of swaps) {
      const [reference] = swap.result.reference as Array<{ deviation_bps: number }>;
      expect(reference!.deviation_bps).to.be.lessThan(5);
    }
    const head = await polygon.provider.getBlockNumber();
    const none = { record: async () => {}, since: async () => [] };
    const unadjusted = await checkReferencePrice(polygon, pairAddress, head, none);
    expect(unadjusted.passed, String(unadjusted.deviationBps)).to.equal(false);
    expect(
      (await checkReferencePrice(polygon, pairAddress, head, poolMoves(world.store, 3_600))).passed,
    ).to.equal(true);

    // Conservation, from the chain: what the accounts paid is what the pool took, and what the
    // pool gave is what the accounts received.
    const after = await Promise.all(
      accounts.map(async (a) => ({
        usdc: await balanceOf(polygon, "USDC", a),
        weth: await balanceOf(polygon, "WETH", a),
      })),
    );
    const paid = before.reduce((s, b, i) => s + (b.usdc - after[i]!.usdc), 0n);
    const got = after.reduce((s, a, i) => s + (a.weth - before[i]!.weth), 0n);
    expect(paid).to.equal(amountIn * BigInt(WORKFLOWS));
    expect(got).to.equal(wethOut);
    expect((await balanceOf(polygon, "USDC", pairAddress)) - pairBefore.usdc).to.equal(paid);
    expect(pairBefore.weth - (await balanceOf(polygon, "WETH", pairAddress))).to.equal(got);
  });
});
