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
} from "../routing/index.ts";
import { z } from "zod";
import type { WorkflowAction } from "../workflows/model.ts";
import { Agent, agentResultBase, type ExecuteOptions, type TaskOf } from "./base.ts";
import { AgentError } from "./errors.ts";

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
  recipient: z.string(),
});
export type SwapResult = z.infer<typeof swapResultSchema>;

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

/** The quote an agent commits to (persisted, so a resumed run uses the same one). */
interface CommittedQuote {
  exchange: string;
  router: string;
  path: string[];
  pathAddresses: string[];
  amountIn: string;
  quoted: string;
  minOut: string;
  priceImpactBps: number;
  poolShare: number;
  deadline: number;
}

/**
 * Swaps one asset for another on the agent's chain through a Uniswap-V2 router: quotes every
 * exchange and path on the chain (or the pinned `dex`), commits to the best by priority, approves
 * the router and swaps with `amountOutMin` = quote × (1 − slippage), so slippage beyond the
 * tolerance reverts on chain (SLIPPAGE_EXCEEDED, not retried).
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

    const quote = await this.env.memo<CommittedQuote>("quote", async () => {
      const route = await this.route(from, to, amount, p.dex, p.priority, account);
      return {
        exchange: route.exchange,
        router: route.router,
        path: route.path,
        pathAddresses: route.pathAddresses,
        amountIn: route.amountIn.toString(),
        quoted: route.amountOut.toString(),
        minOut: minimumOut(route.amountOut, slippageBps / 100).toString(),
        priceImpactBps: route.priceImpactBps,
        poolShare: route.poolShare,
        deadline: Math.floor(Date.now() / 1000) + DEADLINE_SECONDS,
      };
    });

    if (complianceCheck) {
      const reader = new ReserveReader();
      const pairs: Array<{ address: string; role: string }> = [];
      for (let i = 0; i + 1 < quote.pathAddresses.length; i++) {
        const pool = await reader.reserves(
          chain,
          quote.exchange,
          quote.pathAddresses[i]!,
          quote.pathAddresses[i + 1]!,
        );
        if (pool) pairs.push({ address: pool.pair, role: "pool" });
      }
      await this.screen([
        { address: recipient, role: "recipient" },
        { address: quote.router, role: "router" },
        ...pairs,
      ]);
    }

    const amountIn = BigInt(quote.amountIn);
    await this.ensureAllowance(quote.pathAddresses[0]!, quote.router, amountIn);
    const router = new Contract(quote.router, ROUTER_ABI, chain.provider);
    const request = await router
      .getFunction("swapExactTokensForTokens")
      .populateTransaction(
        amountIn,
        BigInt(quote.minOut),
        quote.pathAddresses,
        recipient,
        BigInt(quote.deadline),
      );
    const sent = await this.send("swap", "swap", request, {
      gasLimit: p.gas_limit,
      units: quote.path.length - 1,
    });

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
      exchange: quote.exchange,
      path: quote.path,
      from,
      to,
      amount_in: formatUnits(amountIn, tokenOf(chain, from).decimals),
      amount_out: formatUnits(received, tokenOut.decimals),
      quoted_out: formatUnits(quoted, tokenOut.decimals),
      min_out: formatUnits(BigInt(quote.minOut), tokenOut.decimals),
      slippage_bps: slippageBps,
      recipient,
    };
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
    const all = await quoteSwapCandidates(
      chains,
      { from, to, amount, account, gasStrategy: this.gas_strategy },
      new ReserveReader(),
    );
    try {
      return selectRoute(
        all,
        { priority: priority ?? "cost", chains: [this.chain.name], dex },
        `swap ${amount} ${from} → ${to}`,
      );
    } catch (err) {
      if (err instanceof InsufficientLiquidityError) {
        throw new AgentError("INSUFFICIENT_LIQUIDITY", err.detail, {
          retry_in: err.retry_in,
          ...(err.alternative ? { alternative: err.alternative } : {}),
        });
      }
      if (err instanceof NoRouteError) throw new AgentError("NO_ROUTE", err.detail);
      throw err;
    }
  }
}

/**
 * Convert: a swap whose route is chosen by `route_optimizer.priority` (spec: `cost`). The chain is
 * chosen by the orchestrator with the same priority before the agent is built.
 */
export class ConvertAgent extends SwapAgent {}
