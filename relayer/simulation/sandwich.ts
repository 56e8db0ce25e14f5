import { FEE_DENOMINATOR, FEE_NUMERATOR, getAmountOut, type Hop } from "../routing/index.ts";

/**
 * The sandwich model for swaps through Uniswap-V2 pools, in the pools' own integer arithmetic
 * (so a sandwich executed on chain at the computed size yields the computed profit to the wei).
 *
 * A victim swaps along `path` (one pool per hop). The attacker picks one hop, front-runs it by
 * selling `x` of that hop's input token into the pool, lets the victim's swap execute at the worse
 * price, then back-runs by selling everything the front-run bought back into the same pool.
 * The victim's swap only executes while its output stays at or above its `amountOutMin`
 * (exact-in) or its input at or below its `amountInMax` (exact-out); that bound caps `x`.
 * The attacker's profit, in the hop's input token, is `backRunOut - x`; it is unimodal in `x`,
 * so the optimum over the feasible range is found by ternary search. The attacker is assumed to
 * have unlimited capital (flash loans make this realistic) and to be the only one acting.
 */

/** One pool of the path, oriented along it (the routing module's `Hop`). */
export type PoolState = Hop;

export type VictimSwap =
  | { kind: "exact-in"; amountIn: bigint; amountOutMin: bigint }
  | { kind: "exact-out"; amountOut: bigint; amountInMax: bigint };

export interface SandwichPlan {
  /** Index of the attacked hop (pool `path[hop] → path[hop+1]`). */
  hop: number;
  frontRunIn: bigint;
  frontRunOut: bigint;
  backRunOut: bigint;
  /** backRunOut − frontRunIn, in the hop's input token. */
  profit: bigint;
  /** Victim's final output (exact-in) or input (exact-out) without and with the attack. */
  victimWithout: bigint;
  victimWith: bigint;
  /** Largest front-run that still lets the victim's swap through. */
  maxFrontRun: bigint;
}

/** UniswapV2Library.getAmountIn; undefined when the pool cannot deliver `amountOut`. */
export function getAmountIn(
  amountOut: bigint,
  reserveIn: bigint,
  reserveOut: bigint,
): bigint | undefined {
  if (amountOut <= 0n) return 0n;
  if (amountOut >= reserveOut || reserveIn <= 0n) return undefined;
  return (
    (reserveIn * amountOut * FEE_DENOMINATOR) / ((reserveOut - amountOut) * FEE_NUMERATOR) + 1n
  );
}

/** Victim's result along the path with the given pools: final output (exact-in) or input (exact-out). */
function victimResult(
  pools: readonly PoolState[],
  swap: VictimSwap,
): { value: bigint; hopInputs: bigint[]; hopOutputs: bigint[] } | undefined {
  if (swap.kind === "exact-in") {
    const hopInputs: bigint[] = [];
    const hopOutputs: bigint[] = [];
    let amount = swap.amountIn;
    for (const p of pools) {
      hopInputs.push(amount);
      amount = getAmountOut(amount, p.reserveIn, p.reserveOut);
      hopOutputs.push(amount);
    }
    return { value: amount, hopInputs, hopOutputs };
  }
  const amounts: bigint[] = new Array(pools.length + 1);
  amounts[pools.length] = swap.amountOut;
  for (let i = pools.length - 1; i >= 0; i--) {
    const p = pools[i]!;
    const needed = getAmountIn(amounts[i + 1]!, p.reserveIn, p.reserveOut);
    if (needed === undefined) return undefined;
    amounts[i] = needed;
  }
  // The router pays out exactly the requested amounts (getAmountsIn), not getAmountOut of the input.
  return {
    value: amounts[0]!,
    hopInputs: amounts.slice(0, pools.length),
    hopOutputs: amounts.slice(1),
  };
}

function victimAccepts(
  swap: VictimSwap,
  result: { value: bigint } | undefined,
): result is { value: bigint } {
  if (!result) return false;
  return swap.kind === "exact-in"
    ? result.value >= swap.amountOutMin && result.value > 0n
    : result.value <= swap.amountInMax;
}

/** The whole sandwich on hop `hop` with front-run size `x`; undefined when the victim's swap would revert. */
export function sandwichAt(
  pools: readonly PoolState[],
  swap: VictimSwap,
  hop: number,
  x: bigint,
): SandwichPlan | undefined {
  const clean = victimResult(pools, swap);
  if (!clean) return undefined;
  const pool = pools[hop]!;
  const frontRunOut = getAmountOut(x, pool.reserveIn, pool.reserveOut);
  if (x > 0n && frontRunOut === 0n) return undefined;
  const shifted = pools.map((p, i) =>
    i === hop ? { ...p, reserveIn: p.reserveIn + x, reserveOut: p.reserveOut - frontRunOut } : p,
  );
  const attacked = victimResult(shifted, swap);
  if (!victimAccepts(swap, attacked)) return undefined;
  // The victim's own trade through the attacked pool moves it further before the back-run.
  const victimIn = attacked.hopInputs[hop]!;
  const victimOut = attacked.hopOutputs[hop]!;
  const afterVictim = {
    reserveIn: shifted[hop]!.reserveIn + victimIn,
    reserveOut: shifted[hop]!.reserveOut - victimOut,
  };
  // Back-run: sell the bought tokens into the pool in the opposite direction.
  const backRunOut = getAmountOut(frontRunOut, afterVictim.reserveOut, afterVictim.reserveIn);
  return {
    hop,
    frontRunIn: x,
    frontRunOut,
    backRunOut,
    profit: backRunOut - x,
    victimWithout: clean.value,
    victimWith: attacked.value,
    maxFrontRun: 0n,
  };
}

/** Largest x in [0, cap] for which the victim still executes (its result is monotone in x). */
function maxFeasibleFrontRun(pools: readonly PoolState[], swap: VictimSwap, hop: number): bigint {
  if (!sandwichAt(pools, swap, hop, 0n)) return -1n;
  // Beyond ~1000× the pool's input reserve the output side is drained; no useful x lies there.
  let high = pools[hop]!.reserveIn * 1000n + 1n;
  if (sandwichAt(pools, swap, hop, high)) return high;
  let low = 0n;
  while (high - low > 1n) {
    const mid = (low + high) / 2n;
    if (sandwichAt(pools, swap, hop, mid)) low = mid;
    else high = mid;
  }
  return low;
}

/** The most profitable sandwich on one hop, or undefined when the victim's swap fails already. */
export function bestSandwichOnHop(
  pools: readonly PoolState[],
  swap: VictimSwap,
  hop: number,
): SandwichPlan | undefined {
  const maxX = maxFeasibleFrontRun(pools, swap, hop);
  if (maxX < 0n) return undefined;
  const profitAt = (x: bigint): bigint => sandwichAt(pools, swap, hop, x)?.profit ?? -(1n << 255n);
  let low = 0n;
  let high = maxX;
  while (high - low > 2n) {
    const m1 = low + (high - low) / 3n;
    const m2 = high - (high - low) / 3n;
    if (profitAt(m1) < profitAt(m2)) low = m1 + 1n;
    else high = m2 - 1n;
    if (high < low) high = low;
  }
  let best = sandwichAt(pools, swap, hop, 0n)!;
  for (let x = low; x <= high; x++) {
    const plan = sandwichAt(pools, swap, hop, x);
    if (plan && plan.profit > best.profit) best = plan;
  }
  const atMax = sandwichAt(pools, swap, hop, maxX);
  if (atMax && atMax.profit > best.profit) best = atMax;
  return { ...best, maxFrontRun: maxX };
}
