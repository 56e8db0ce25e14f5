import { Contract, formatUnits, id, zeroPadValue } from "ethers";
import {
  ROUTER_ABI,
  minimumOut,
  tokenOf,
  InsufficientLiquidityError,
  NoRouteError,
  ReserveReader,
  quoteSwapCandidates,
  type SwapCandidate,
  selectRoute,
  type RoutePriority,
  type ActionFlow,
  pathPairs,
  quotePathNow,
  checkReferencePrice,
  ownMoveOf,
} from "../routing/index.ts";
import { z } from "zod";
import type { WorkflowAction } from "../model/index.ts";
import { Agent, agentResultBase, type ExecuteOptions, type TaskOf } from "./base.ts";
import { AgentError } from "../errors/index.ts";

const TRANSFER_TOPIC = id("Transfer(address,address,uint256)");
/** Default tolerance when a task gives none: 0.5% (the intake's default). */
const DEFAULT_SLIPPAGE_BPS = 50;

export interface SwapParams {
  from: string;
  to: string;
  /** Decimal amount of `from`. */
  amount: string;
  slippage_bps?: number;
  dex?: string;
  priority?: RoutePriority;
  /** Default: the account. */
  recipient?: string;
  /** The first attempt's gas limit instead of the estimate. */
  gas_limit?: bigint;
}
export type SwapTask = TaskOf<"swap" | "convert", SwapParams>;

/** One pool's price at the quote against its reference price (relayer/routing/reference.ts). */
const referenceEntrySchema = z.object({
  pair: z.string(),
  spot: z.number(),
  reference: z.number(),
  deviation_bps: z.number(),
  max_deviation_bps: z.number(),
  window_seconds: z.number(),
  own_moves: z.number().int(),
});

export const swapResultSchema = agentResultBase.extend({
  action: z.enum(["swap", "convert"]),
  exchange: z.string(),
  path: z.array(z.string()),
  from: z.string(),
  to: z.string(),
  amount_in: z.string(),
  amount_out: z.string(),
  quoted_out: z.string(),
  min_out: z.string(),
  slippage_bps: z.number().int(),
  /** The block whose pool state the quote (and so `min_out`) was computed against. */
  quote_block: z.number().int().optional(),
  /** Each pool of the path against its reference price when quoted. */
  reference: z.array(referenceEntrySchema).optional(),
  recipient: z.string(),
});
export type SwapResult = z.infer<typeof swapResultSchema>;
type ReferenceEntry = z.infer<typeof referenceEntrySchema>;

/** The swap/convert task of a normalised action, selling `input` (the chained or explicit amount). */
export function swapTask(
  action: WorkflowAction & { type: "swap" | "convert" },
  input: Pick<ActionFlow, "asset" | "amount">,
): SwapTask {
  if (!action.to) throw new NoRouteError(`action ${action.index + 1} has no target asset`);
  return {
    action: action.type,
    params: {
      from: input.asset,
      to: action.to,
      amount: input.amount,
      ...(action.slippageBps !== undefined ? { slippage_bps: action.slippageBps } : {}),
      ...(action.dex ? { dex: action.dex } : {}),
      ...(action.priority ? { priority: action.priority } : {}),
    },
  };
}

/** What a swap hands to the next action: what it received, where it received it. */
export function swapOutput(result: SwapResult): ActionFlow {
  return { asset: result.to, amount: result.amount_out, chain: result.chain };
}
/** Swap deadline: the router rejects the transaction after this many seconds. */
const DEADLINE_SECONDS = 1_200;

/** The route an agent commits to (persisted, so a resumed run takes the same exchange and path). */
interface CommittedRoute {
  exchange: string;
  router: string;
  path: string[];
  pathAddresses: string[];
  /** The pools along the path, in order. */
  pairs: string[];
  amountIn: string;
  deadline: number;
}

/**
 * The quote the swap is sent with: taken while the path's pools are held (see `execute`), against
 * the state the swap executes on; persisted with the reserves it was computed from.
 */
interface CommittedQuote {
  block: number;
  quoted: string;
  minOut: string;
  priceImpactBps: number;
  poolShare: number;
  /** Reserves (input, output token of each hop) at `block`. */
  reserves: Array<{ pair: string; reserveIn: string; reserveOut: string }>;
  /** Each pool's price against its reference at `block`. */
  reference: ReferenceEntry[];
}

/** The name under which swaps through one pool are sequenced (relayer/store/locks.ts). */
export function poolLockName(chainId: number, pair: string): string {
  return `pool:${chainId}:${pair.toLowerCase()}`;
}

/**
 * Swaps one asset for another on the agent's chain through a Uniswap-V2 router: quotes every
 * exchange and path on the chain (or the pinned `dex`), commits to the best by priority, approves
 * the router, then, holding the path's pools (the pool sequencer: every swap the relayer sends
 * through a pool, from any worker or process, takes its turn), re-quotes the committed path against
 * the state right now, sets `amountOutMin` = quote × (1 − slippage), sends and waits until it is
 * mined before the next swap through those pools is quoted. So the relayer's own swaps never move
 * a pool between another one's quote and its execution: each user's slippage is measured against
 * the price of the pool when its turn came, and only a third party trading the pool in between
 * can use it up (SLIPPAGE_EXCEEDED with `cause: "market"`, not retried).
 *
 * Task params: `from`, `to`, `amount` (decimal), `slippage_bps`, `dex?`, `priority?`, `recipient?`
 * (default: the account), `gas_limit?` (first attempt's limit instead of the estimate).
 */
export class SwapAgent extends Agent<SwapTask, SwapResult> {
  async execute(
    task: SwapTask,
    { complianceCheck = true }: ExecuteOptions = {},
  ): Promise<SwapResult> {
    const p = task.params;
    const { from, to, amount } = p;
    const slippageBps = p.slippage_bps ?? DEFAULT_SLIPPAGE_BPS;
    const account = await this.env.account.getAddress();
    const recipient = p.recipient ?? account;
    const chain = this.chain;
    const tokenOut = tokenOf(chain, to);

    const route = await this.env.memo<CommittedRoute>("route", async () => {
      const best = await this.route(from, to, amount, p.dex, p.priority, account);
      return {
        exchange: best.exchange,
        router: best.router,
        path: best.path,
        pathAddresses: best.pathAddresses,
        pairs: await pathPairs(chain, best.exchange, best.pathAddresses, new ReserveReader()),
        amountIn: best.amountIn.toString(),
        deadline: Math.floor(Date.now() / 1000) + DEADLINE_SECONDS,
      };
    });

    if (complianceCheck) {
      await this.screen([
        { address: recipient, role: "recipient" },
        { address: route.router, role: "router" },
        ...route.pairs.map((address) => ({ address, role: "pool" })),
      ]);
    }

    const amountIn = BigInt(route.amountIn);
    await this.ensureAllowance(route.pathAddresses[0]!, route.router, amountIn);
    const router = new Contract(route.router, ROUTER_ABI, chain.provider);

    const { quote, sent } = await this.env.poolLocks.hold(
      route.pairs.map((pair) => poolLockName(chain.chainId, pair)),
      async () => {
        // A swap already signed (a resumed run) keeps the quote it was signed with.
        const signed = await this.env.journal.find({
          executionId: this.env.executionId,
          actionIndex: this.env.actionIndex,
          slot: "swap",
        });
        const quote = await this.env.memo<CommittedQuote>(
          "quote",
          async () => {
            const live = await quotePathNow(chain, route.pathAddresses, route.pairs, amountIn);
            const checks = await Promise.all(
              route.pairs.map((pair) =>
                checkReferencePrice(
                  chain,
                  pair,
                  live.block,
                  this.env.ownMoves,
                  this.env.referencePolicy,
                ),
              ),
            );
            return {
              reference: checks.map((c) => ({
                pair: c.pair,
                spot: c.spot,
                reference: c.reference,
                deviation_bps: c.deviationBps,
                max_deviation_bps: c.maxDeviationBps,
                window_seconds: c.windowSeconds,
                own_moves: c.ownMoves,
              })),
              block: live.block,
              quoted: live.amountOut.toString(),
              minOut: minimumOut(live.amountOut, slippageBps / 100).toString(),
              priceImpactBps: live.priceImpactBps,
              poolShare: live.poolShare,
              reserves: live.pools.map((pool) => ({
                pair: pool.pair,
                reserveIn: pool.reserveIn.toString(),
                reserveOut: pool.reserveOut.toString(),
              })),
            };
          },
          { replace: !signed },
        );
        const off = quote.reference.find((r) => r.deviation_bps > r.max_deviation_bps);
        if (off && !signed) {
          throw new AgentError(
            "REFERENCE_PRICE_DEVIATION",
            `pool ${off.pair} is ${(off.deviation_bps / 100).toFixed(2)}% from its reference price (time-weighted over ${off.window_seconds} s, the relayer's own swaps taken out; at most ${(off.max_deviation_bps / 100).toFixed(2)}%): it was moved just before the quote, which would set the minimum output; nothing was sent`,
            { pool: off.pair, quote_block: quote.block, reference: quote.reference },
          );
        }
        const request = await router
          .getFunction("swapExactTokensForTokens")
          .populateTransaction(
            amountIn,
            BigInt(quote.minOut),
            route.pathAddresses,
            recipient,
            BigInt(route.deadline),
          );
        try {
          const sent = await this.send("swap", "swap", request, {
            gasLimit: p.gas_limit,
            units: route.path.length - 1,
          });
          // Recorded before the pools are released: the next quote's reference takes it out.
          for (const pair of route.pairs) {
            const move = await ownMoveOf(chain, pair, sent.receipt);
            if (move) await this.env.ownMoves.record(chain.chainId, pair, move);
          }
          return { quote, sent };
        } catch (err) {
          if (err instanceof AgentError && err.code === "SLIPPAGE_EXCEEDED")
            throw await this.marketMove(err, route, quote);
          throw err;
        }
      },
    );

    // Output: the final pool's Transfer of the output token to the recipient.
    const recipientTopic = zeroPadValue(recipient.toLowerCase(), 32);
    const received = sent.receipt.logs
      .filter(
        (l) =>
          l.address.toLowerCase() === tokenOut.address.toLowerCase() &&
          l.topics[0] === TRANSFER_TOPIC &&
          l.topics[2]?.toLowerCase() === recipientTopic,
      )
      .reduce((s, l) => s + BigInt(l.data), 0n);
    const quoted = BigInt(quote.quoted);
    const slippageUsed =
      quoted > 0n && received < quoted ? Number(((quoted - received) * 10_000n) / quoted) : 0;
    return {
      ...(await this.resultBase({
        price_impact_bps: quote.priceImpactBps,
        slippage_used_bps: slippageUsed,
        slippage_tolerance_bps: slippageBps,
        pool_share: quote.poolShare,
      })),
      action: task.action,
      exchange: route.exchange,
      path: route.path,
      from,
      to,
      amount_in: formatUnits(amountIn, tokenOf(chain, from).decimals),
      amount_out: formatUnits(received, tokenOut.decimals),
      quoted_out: formatUnits(quoted, tokenOut.decimals),
      min_out: formatUnits(BigInt(quote.minOut), tokenOut.decimals),
      slippage_bps: slippageBps,
      quote_block: quote.block,
      reference: quote.reference,
      recipient,
    };
  }

  /**
   * A swap below its minimum while its pools were held: nothing the relayer sent moved them, so
   * the pools moved by another party's trade since the quote. The error says so and names them.
   */
  private async marketMove(
    err: AgentError,
    route: CommittedRoute,
    quote: CommittedQuote,
  ): Promise<AgentError> {
    const chain = this.chain;
    const now = await quotePathNow(chain, route.pathAddresses, route.pairs, BigInt(route.amountIn));
    const moved = now.pools
      .map((pool, i) => ({ pool, then: quote.reserves[i]! }))
      .filter(
        ({ pool, then }) =>
          pool.reserveIn.toString() !== then.reserveIn ||
          pool.reserveOut.toString() !== then.reserveOut,
      )
      .map(({ pool, then }) => ({
        pair: pool.pair,
        quoted_reserves: [then.reserveIn, then.reserveOut],
        reserves_now: [pool.reserveIn.toString(), pool.reserveOut.toString()],
      }));
    const detail =
      moved.length > 0
        ? `${err.detail}; the market moved: ${moved.length} pool(s) of the path traded by another party since the quote at block ${quote.block} (the relayer's own swaps through them are sequenced), output now ${now.amountOut} < minimum ${quote.minOut}`
        : err.detail;
    return new AgentError("SLIPPAGE_EXCEEDED", detail, {
      ...err.extra,
      cause: moved.length > 0 ? "market" : "unknown",
      quote_block: quote.block,
      moved_pools: moved,
    });
  }

  /** Best route on this chain; INSUFFICIENT_LIQUIDITY names where else the order fits. */
  private async route(
    from: string,
    to: string,
    amount: string,
    dex: string | undefined,
    priority: RoutePriority | undefined,
    account: string,
  ): Promise<SwapCandidate> {
    const chains = this.env.chains.list();
    const reader = new ReserveReader();
    const request = { from, to, amount, account, gasStrategy: this.gas_strategy };
    const constraints = { priority: priority ?? "cost", chains: [this.chain.name], dex };
    const label = `swap ${amount} ${from} → ${to}`;
    // Only this chain's candidates can be chosen; the other chains' are quoted (gas estimates
    // included) only when none fits, for the error to name where else the order would.
    const own = await quoteSwapCandidates(
      chains,
      { ...request, chains: [this.chain.name] },
      reader,
    );
    try {
      try {
        return selectRoute(own, constraints, label);
      } catch (err) {
        if (!(err instanceof InsufficientLiquidityError || err instanceof NoRouteError)) throw err;
        return selectRoute(await quoteSwapCandidates(chains, request, reader), constraints, label);
      }
    } catch (err) {
      if (err instanceof InsufficientLiquidityError || err instanceof NoRouteError) {
        throw new AgentError(err.code, err.detail, err.extra);
      }
      throw err;
    }
  }
}

/**
 * Convert: a swap whose route is chosen by `route_optimizer.priority` (spec: `cost`). The chain is
 * chosen by the orchestrator with the same priority before the agent is built.
 */
export class ConvertAgent extends SwapAgent {}
