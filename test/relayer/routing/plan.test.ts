import { expect } from "chai";
import { openChains, type ChainSet } from "../../../relayer/chains/index.ts";
import {
  ChainUnavailableError,
  InsufficientLiquidityError,
  NoRouteError,
  planWorkflow,
  quoteSwapCandidates,
  ReserveReader,
  selectRoute,
  type PlannedAction,
  type RoutableAction,
} from "../../../relayer/routing/index.ts";
import { seededRandom } from "../../fixtures/seeded.ts";

/**
 * One routing decision for the whole workflow (relayer/routing/plan.ts): a plan never strands a
 * later action, and re-planning around unavailable chains keeps the whole plan valid.
 */
const CHAINS = ["ethereum", "arbitrum", "polygon"] as const;
const AMOUNTS: Record<string, string> = { USDC: "10", DAI: "10", WETH: "0.01" };

/** The chain a cost-priority swap of `amount` `from` → `to` would take on its own (greedy). */
async function greedyChain(chains: ChainSet, from: string, to: string, amount: string) {
  const candidates = await quoteSwapCandidates(
    chains.list(),
    { from, to, amount },
    new ReserveReader(),
  );
  return selectRoute(candidates, { priority: "cost" }, "greedy").chain;
}

interface Case {
  actions: RoutableAction[];
  unavailable: Map<string, string>;
}

/** A random workflow over the devnet: swaps, bridges, a final multisend; pins, chaining, fallbacks. */
function generate(seed: number): Case {
  const next = seededRandom(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
  const actions: RoutableAction[] = [];
  let asset = pick(Object.keys(AMOUNTS));
  const count = 1 + Math.floor(next() * 4);
  for (let i = 0; i < count; i++) {
    const chained = i > 0 && next() < 0.6;
    const pin = next() < 0.25 ? pick(CHAINS) : undefined;
    const fallbackChains = next() < 0.5 ? CHAINS.filter(() => next() < 0.5) : [];
    const input = chained
      ? {}
      : { from: (asset = pick(Object.keys(AMOUNTS))), amount: AMOUNTS[asset] };
    const last = i === count - 1;
    const type = last && next() < 0.3 ? "multisend" : next() < 0.5 ? "swap" : "bridge";
    if (type === "swap") {
      const to = pick(Object.keys(AMOUNTS).filter((a) => a !== asset));
      actions.push({ type, ...input, to, chain: pin, fallbackChains, slippageBps: 100 });
      asset = to;
    } else if (type === "bridge") {
      actions.push({ type, ...input, destination: pick(CHAINS), chain: pin, fallbackChains });
    } else {
      actions.push({
        type,
        ...input,
        chain: pin,
        fallbackChains,
        recipients: [{ address: "0x" + "11".repeat(20), amount: { kind: "percent", bps: 5000 } }],
      });
    }
  }
  const unavailable = new Map<string, string>();
  if (next() < 0.4) unavailable.set(pick(CHAINS), "RPC unavailable: test");
  return { actions, unavailable };
}

/**
 * Whether some assignment of chains satisfies every structural rule (pins or their fallbacks
 * when the pin is unavailable, chaining, routed actions on available chains, a bridge leaving
 * its destination): the oracle the planner is held to, by brute force over every assignment.
 */
function validPlanExists({ actions, unavailable }: Case): boolean {
  const open = CHAINS.filter((c) => !unavailable.has(c));
  const options = (a: RoutableAction, previousChain: string | undefined): string[] => {
    const pinned = a.chain ?? (a.amount === undefined ? previousChain : undefined);
    if (!pinned) return [...open];
    if (!unavailable.has(pinned)) return [pinned];
    return (a.fallbackChains ?? []).filter((c) => c !== pinned && !unavailable.has(c));
  };
  const search = (i: number, previousChain: string | undefined): boolean => {
    const a = actions[i];
    if (!a) return true;
    return options(a, previousChain).some((chain) => {
      if (a.type === "bridge" && chain === a.destination) return false;
      return search(i + 1, a.type === "bridge" ? a.destination : chain);
    });
  };
  return search(0, undefined);
}

/** Every structural rule on a plan the planner returned. */
function expectValid({ actions, unavailable }: Case, plan: PlannedAction[]): void {
  expect(plan).to.have.length(actions.length);
  plan.forEach((step, i) => {
    const a = actions[i]!;
    const pinned = a.chain ?? (a.amount === undefined ? plan[i - 1]?.outputChain : undefined);
    expect(unavailable.has(step.chain), `action ${i} on an unavailable chain`).to.equal(false);
    if (pinned && !unavailable.has(pinned)) expect(step.chain).to.equal(pinned);
    if (pinned && unavailable.has(pinned)) {
      expect(a.fallbackChains).to.include(step.chain);
      expect(step.fallbackFrom).to.equal(pinned);
    }
    if (a.type === "bridge") {
      expect(step.chain, `action ${i} bridges to its own chain`).to.not.equal(a.destination);
      expect(step.outputChain).to.equal(a.destination);
    } else {
      expect(step.outputChain).to.equal(step.chain);
    }
  });
}

describe("# routing: one plan for the whole workflow (embedded devnet)", function () {
  this.timeout(600_000);
  let chains: ChainSet;
  before(async function () {
    chains = await openChains({ mode: "embedded" });
  });
  after(async function () {
    await chains?.close();
  });

  it("should not strand a bridge: the swap before it avoids the chain the bridge goes to", async function () {
    // The destination is the chain the swap would take on its own: greedily, the bridge strands.
    const destination = await greedyChain(chains, "USDC", "DAI", "100");
    const plan = await planWorkflow(chains.list(), {
      actions: [
        { type: "swap", from: "USDC", to: "DAI", amount: "100", slippageBps: 100 },
        { type: "bridge", destination },
      ],
    });
    expect(plan[0]!.chain).to.not.equal(destination);
    expect(plan[1]!.chain).to.equal(plan[0]!.chain);
    expect(plan[1]!.outputChain).to.equal(destination);
  });

  it("should refuse a pinned swap whose chained bridge goes to the same chain (NO_ROUTE), not price it", async function () {
    const err = await planWorkflow(chains.list(), {
      actions: [
        { type: "swap", chain: "polygon", from: "USDC", to: "DAI", amount: "100" },
        { type: "bridge", destination: "polygon" },
      ],
    }).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(NoRouteError);
    expect((err as NoRouteError).detail).to.match(
      /bridge source and destination are the same chain/,
    );
  });

  it("should move a pinned action off an unavailable chain to a fallback that keeps the later bridge valid", async function () {
    const actions: RoutableAction[] = [
      {
        type: "swap",
        chain: "ethereum",
        from: "USDC",
        to: "DAI",
        amount: "100",
        fallbackChains: ["polygon", "arbitrum"],
      },
      { type: "bridge", destination: "polygon" },
    ];
    const unavailable = new Map([["ethereum", "base fee above the cap"]]);
    const plan = await planWorkflow(chains.list(), { actions }, { unavailable });
    // polygon (the first fallback) would strand the bridge: the plan takes arbitrum.
    expect(plan.map((p) => p.chain)).to.deep.equal(["arbitrum", "arbitrum"]);
    expect(plan[0]!.fallbackFrom).to.equal("ethereum");
    expect(plan[0]!.fallbackReason).to.equal("ethereum: base fee above the cap");

    const onlyStranding = await planWorkflow(
      chains.list(),
      { actions: [{ ...actions[0]!, fallbackChains: ["polygon"] }, actions[1]!] },
      { unavailable },
    ).catch((e: unknown) => e);
    expect(onlyStranding).to.be.instanceOf(NoRouteError);
  });

  it("should fail with CHAIN_UNAVAILABLE when a pinned chain and all its fallbacks are unavailable", async function () {
    const err = await planWorkflow(
      chains.list(),
      {
        actions: [
          {
            type: "swap",
            chain: "ethereum",
            from: "USDC",
            to: "DAI",
            amount: "10",
            fallbackChains: ["arbitrum"],
          },
        ],
      },
      {
        unavailable: new Map([
          ["ethereum", "RPC unavailable: down"],
          ["arbitrum", "base fee above the cap"],
        ]),
      },
    ).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(ChainUnavailableError);
    expect((err as ChainUnavailableError).toBody()).to.deep.include({
      error: "CHAIN_UNAVAILABLE",
      retry_in: 60,
    });
    expect((err as ChainUnavailableError).detail).to.match(/no chain available for action 1/);
  });

  it("should keep the routing error of a pinned chain without liquidity (no move to a fallback)", async function () {
    const err = await planWorkflow(chains.list(), {
      actions: [
        {
          type: "swap",
          chain: "polygon",
          dex: "sushiswap",
          from: "WBTC",
          to: "USDC",
          amount: "1",
          fallbackChains: ["arbitrum"],
        },
      ],
    }).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(InsufficientLiquidityError);
  });

  it("should give up a search that cannot succeed within its budget, with the failing action's error", async function () {
    // Six routed swaps, then one no choice of theirs can help: 3^6 combinations without a budget.
    const swaps: RoutableAction[] = Array.from({ length: 6 }, (_, i) => ({
      type: "swap",
      from: i % 2 ? "DAI" : "USDC",
      to: i % 2 ? "USDC" : "DAI",
      amount: "10",
    }));
    const err = await planWorkflow(chains.list(), {
      actions: [
        ...swaps,
        { type: "swap", chain: "polygon", dex: "sushiswap", from: "WBTC", to: "USDC", amount: "1" },
      ],
    }).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(InsufficientLiquidityError);
    expect((err as InsufficientLiquidityError).detail).to.match(/^action 7 /);
  });

  it("should plan every generated workflow that has a valid plan, validly, and refuse the others", async function () {
    const counts = { planned: 0, refused: 0 };
    for (let seed = 1; seed <= 40; seed++) {
      const c = generate(seed);
      const exists = validPlanExists(c);
      const outcome = await planWorkflow(
        chains.list(),
        { actions: c.actions },
        { unavailable: c.unavailable },
      ).catch((e: unknown) => e);
      const where = `seed ${seed}: ${JSON.stringify(c.actions)} unavailable ${[...c.unavailable.keys()]}`;
      if (exists) {
        expect(outcome, where).to.be.an("array");
        expectValid(c, outcome as PlannedAction[]);
        counts.planned++;
      } else {
        expect(
          outcome instanceof NoRouteError || outcome instanceof ChainUnavailableError,
          `${where}: ${String(outcome)}`,
        ).to.equal(true);
        counts.refused++;
      }
    }
    // The generator covers both sides of the property.
    expect(counts.planned).to.be.greaterThan(10);
    expect(counts.refused).to.be.greaterThan(0);
  });
});
