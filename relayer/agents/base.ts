import { Contract, Interface, MaxUint256, type Signer, type TransactionRequest } from "ethers";
import {
  ERC20_ABI,
  BRIDGE_CONTRACT,
  MULTISEND_CONTRACT,
  type RoutingChain,
  feeQuote,
  isGasStrategy,
  type FeeQuote,
  type GasStrategy,
  type TxKind,
} from "../routing/index.ts";
import { paddedGasLimit, type SentTx, type TxJournal } from "../transactions/index.ts";
import { isChainUnavailable } from "../chains/index.ts";
import { z } from "zod";
import {
  screenResultSchema,
  type ComplianceScreen,
  type ScreenResult,
} from "../compliance/index.ts";
import { AgentError } from "../errors/index.ts";
import type { NamedLocks } from "../store/index.ts";
import type { OwnMoves, ReferencePolicy } from "../routing/index.ts";

/**
 * Spec "Task": the input of an agent, `{action, params}`. One shape per action type (each agent
 * module declares its own and builds it from the normalised action); `Task` is their union.
 */
export interface TaskOf<A extends string, P> {
  action: A;
  params: P;
}

export interface ExecuteOptions {
  /** Screen every counterparty and recipient before anything is signed (spec default true). */
  complianceCheck?: boolean;
}

const TX_KINDS = [
  "approve",
  "swap",
  "bridge-deposit",
  "bridge-release",
  "multisend",
  "attest",
  "wrap",
] as const satisfies readonly TxKind[];

export const txRecordSchema = z.object({
  slot: z.string(),
  kind: z.enum(TX_KINDS),
  chain: z.string(),
  chainId: z.number().int(),
  hash: z.string(),
  gasUsed: z.string(),
  gasLimit: z.string(),
  status: z.enum(["confirmed", "reverted"]),
});
export type TxRecord = z.infer<typeof txRecordSchema>;

/** Metrics the risk engine scores (see relayer/report/risk.ts). */
export const agentMetricsSchema = z.object({
  gas_used: z.string(),
  gas_cost_wei: z.string(),
  /** Next base fee over the median of the last blocks when the agent ran (1 = normal). */
  gas_spike: z.number(),
  out_of_gas_retries: z.number().int(),
  price_impact_bps: z.number().optional(),
  /** Quoted output minus received output, basis points of the quote. */
  slippage_used_bps: z.number().optional(),
  slippage_tolerance_bps: z.number().optional(),
  /** Largest share of a pool's reserve the order took (0..1). */
  pool_share: z.number().optional(),
  flagged_counterparties: z.number().int(),
});
export type AgentMetrics = z.infer<typeof agentMetricsSchema>;

/**
 * What every agent returns: its transactions, metrics for the risk engine, compliance results.
 * Each agent module extends it with its own fields and a literal `action` (the discriminant of
 * `AgentResult`, relayer/agents/index.ts).
 */
export const agentResultBase = z.object({
  chain: z.string(),
  chainId: z.number().int(),
  tx_hashes: z.array(z.string()),
  txs: z.array(txRecordSchema),
  metrics: agentMetricsSchema,
  compliance: z.array(screenResultSchema),
});
export type AgentResultBase = z.infer<typeof agentResultBase>;

/** What agents need from the engine; the orchestrator builds one per action. */
export interface AgentEnvironment {
  chains: { list(): readonly RoutingChain[] };
  /** The account's key (a Wallet; connected to each chain as needed). */
  account: Signer & { connect(provider: RoutingChain["provider"]): Signer };
  journal: TxJournal;
  executionId: string;
  actionIndex: number;
  screen: ComplianceScreen;
  /** Records a compliance alert (the orchestrator persists it with the execution). */
  onSanctioned?: (result: ScreenResult, role: string) => Promise<void>;
  /**
   * Persists a value on first call and returns the stored one on a resumed run; with `replace`,
   * computes and stores a new value whatever was stored (a quote that was never sent is stale).
   */
  memo<T>(key: string, compute: () => Promise<T>, options?: { replace?: boolean }): Promise<T>;
  /**
   * The pool sequencer: swaps through a common pool hold its lock from quote to mined, across
   * workers and processes (relayer/store/locks.ts).
   */
  poolLocks: NamedLocks;
  /** The relayer's own swaps per pool, which the reference price takes out (routing/reference.ts). */
  ownMoves: OwnMoves;
  /** The reference price window and the deviation beyond which a quote is refused. */
  referencePolicy: ReferencePolicy;
  /** Bounded OUT_OF_GAS retries (default 3). */
  maxGasRetries?: number;
}

export interface AgentConfig {
  chain_id: number;
  gas_strategy?: string;
}

/** Spec: on OUT_OF_GAS raise the gas limit by a factor of 1.4. */
const GAS_RAISE_PERCENT = 140n;

/**
 * Common agent machinery: the chain, compliance screening, allowance handling and sending through
 * the journal with the OUT_OF_GAS policy (×1.4, bounded), reverts decoded into codes.
 */
export abstract class Agent<T extends TaskOf<string, unknown>, R extends AgentResultBase> {
  readonly chain_id: number;
  readonly gas_strategy: GasStrategy;
  protected readonly env: AgentEnvironment;
  protected readonly txs: TxRecord[] = [];
  protected outOfGasRetries = 0;
  protected screened: ScreenResult[] = [];
  private fees: FeeQuote | null = null;

  constructor(config: AgentConfig, env: AgentEnvironment) {
    const strategy = config.gas_strategy ?? "eco";
    if (!isGasStrategy(strategy)) throw new Error(`unknown gas strategy ${strategy}`);
    this.chain_id = config.chain_id;
    this.gas_strategy = strategy;
    this.env = env;
  }

  abstract execute(task: T, options?: ExecuteOptions): Promise<R>;

  protected chainById(chainId: number): RoutingChain {
    const chain = this.env.chains.list().find((c) => c.chainId === chainId);
    if (!chain) throw new AgentError("NO_ROUTE", `chain ${chainId} is not configured`);
    return chain;
  }

  protected get chain(): RoutingChain {
    return this.chainById(this.chain_id);
  }

  protected signerOn(chain: RoutingChain): Signer {
    return this.env.account.connect(chain.provider);
  }

  protected async feeQuote(): Promise<FeeQuote> {
    this.fees ??= await feeQuote(this.chain.provider, this.gas_strategy);
    return this.fees;
  }

  /** Screens every address; throws SANCTIONED_ADDRESS (after recording alerts) before anything is signed. */
  protected async screen(
    entries: Array<{ address: string; role: string }>,
    chain = this.chain,
  ): Promise<void> {
    const unique = [...new Map(entries.map((e) => [e.address.toLowerCase(), e])).values()];
    const results = await Promise.all(unique.map((e) => this.env.screen(e.address, chain)));
    this.screened.push(...results);
    const flagged = results
      .map((r, i) => ({ r, role: unique[i]!.role }))
      .filter(({ r }) => r.sanctioned);
    if (flagged.length === 0) return;
    for (const { r, role } of flagged) await this.env.onSanctioned?.(r, role);
    const first = flagged[0]!;
    throw new AgentError(
      "SANCTIONED_ADDRESS",
      `${first.role} ${first.r.address} is on ${first.r.sources.join(", ")}; nothing was sent`,
      { address: first.r.address, sources: first.r.sources },
    );
  }

  /** Sends `request` under `slot` with the OUT_OF_GAS policy; returns the successful transaction. */
  protected async send(
    slot: string,
    kind: TxKind,
    request: TransactionRequest,
    options: {
      chain?: RoutingChain;
      signer?: Signer;
      gasLimit?: bigint;
      units?: number;
      decode?: Interface;
    } = {},
  ): Promise<SentTx> {
    const chain = options.chain ?? this.chain;
    const signer = options.signer ?? this.signerOn(chain);
    const from = await signer.getAddress();
    // A journalled slot (a resumed run) is awaited as signed: no estimate (the state it would be
    // estimated against has moved on: the transaction itself may already be mined).
    const journalled = await this.env.journal.find({
      executionId: this.env.executionId,
      actionIndex: this.env.actionIndex,
      slot,
    });
    let gasLimit =
      journalled && journalled.state !== "released"
        ? BigInt(journalled.gas_limit)
        : (options.gasLimit ?? (await this.estimate(chain, { ...request, from }, options.decode)));
    const maxRetries = this.env.maxGasRetries ?? 3;
    for (let attempt = 0; ; attempt++) {
      const name = attempt === 0 ? slot : `${slot}.retry${attempt}`;
      const sent = await this.env.journal.send(
        chain,
        signer,
        { executionId: this.env.executionId, actionIndex: this.env.actionIndex, slot: name },
        kind,
        { ...request, gasLimit },
        { gasStrategy: this.gas_strategy, units: options.units },
      );
      this.txs.push({
        slot: name,
        kind,
        chain: chain.name,
        chainId: chain.chainId,
        hash: sent.hash,
        gasUsed: sent.gasUsed.toString(),
        gasLimit: sent.gasLimit.toString(),
        status: sent.status,
      });
      if (sent.status === "confirmed") return sent;
      // Ran out of gas: the whole limit (all but the 1/64 kept by a caller frame) was used.
      if (sent.gasUsed * 64n >= sent.gasLimit * 63n) {
        if (attempt >= maxRetries) {
          throw new AgentError(
            "OUT_OF_GAS",
            `${kind} ran out of gas ${attempt + 1} times (last limit ${gasLimit})`,
            {
              tx_hash: sent.hash,
            },
          );
        }
        this.outOfGasRetries++;
        gasLimit = (gasLimit * GAS_RAISE_PERCENT) / 100n;
        continue;
      }
      const reason = await this.revertReason(
        chain,
        sent.hash,
        { ...request, from },
        sent.receipt.blockNumber,
        options.decode,
      );
      if (/INSUFFICIENT_OUTPUT_AMOUNT/.test(reason)) {
        throw new AgentError(
          "SLIPPAGE_EXCEEDED",
          `${kind} reverted on chain: output below the minimum (${reason})`,
          {
            tx_hash: sent.hash,
          },
        );
      }
      throw new AgentError("TX_REVERTED", `${kind} reverted on ${chain.name}: ${reason}`, {
        tx_hash: sent.hash,
      });
    }
  }

  private async estimate(
    chain: RoutingChain,
    request: TransactionRequest,
    decode?: Interface,
  ): Promise<bigint> {
    try {
      return await paddedGasLimit(chain, request);
    } catch (err) {
      // No answer is no verdict on the call: the engine waits for the chain (orchestrator.ts).
      if (isChainUnavailable(err)) throw err;
      const reason = describeRevert(err, decode);
      // The price already moved past the tolerance: report it without paying for a revert.
      if (/INSUFFICIENT_OUTPUT_AMOUNT/.test(reason)) {
        throw new AgentError(
          "SLIPPAGE_EXCEEDED",
          `the swap would return less than its minimum output; not sent (${reason})`,
        );
      }
      throw new AgentError("TX_REVERTED", `would revert on ${chain.name}: ${reason}`);
    }
  }

  /** Replays a reverted transaction as a call against the state before its block to read the reason. */
  private async revertReason(
    chain: RoutingChain,
    hash: string,
    request: TransactionRequest,
    block: number,
    decode?: Interface,
  ): Promise<string> {
    // The transaction's own trace has the revert data even when the block reordered state
    // (a front-run in the same block); a call replay against the previous block is the fallback.
    const rpc = chain.provider as RoutingChain["provider"] & {
      send?: (m: string, p: unknown[]) => Promise<unknown>;
    };
    if (typeof rpc.send === "function") {
      try {
        const trace = (await rpc.send("debug_traceTransaction", [
          hash,
          { disableStorage: true, disableMemory: true, disableStack: true },
        ])) as { failed?: boolean; returnValue?: string };
        if (trace.failed && trace.returnValue) {
          const data = trace.returnValue.startsWith("0x")
            ? trace.returnValue
            : `0x${trace.returnValue}`;
          return decodeRevertData(data, decode);
        }
      } catch {
        // Tracing not offered by this node.
      }
    }
    try {
      await chain.provider.call({ ...request, blockTag: block - 1 });
      return "reverted (no reason on replay)";
    } catch (err) {
      return describeRevert(err, decode);
    }
  }

  /** Approves `spender` for `amount` of `token` unless the allowance suffices (resumes a journalled approval). */
  protected async ensureAllowance(
    token: string,
    spender: string,
    amount: bigint,
    chain = this.chain,
  ): Promise<void> {
    const slot = `approve.${spender.toLowerCase()}`;
    const journalled = await this.env.journal.find({
      executionId: this.env.executionId,
      actionIndex: this.env.actionIndex,
      slot,
    });
    const signer = this.signerOn(chain);
    const erc20 = new Contract(token, ERC20_ABI, signer);
    if (!journalled) {
      const allowance = (await erc20.getFunction("allowance")(
        await signer.getAddress(),
        spender,
      )) as bigint;
      if (allowance >= amount) return;
    }
    // Spenders of our own deployment (routers, bridge, multisend) get an unlimited allowance: with
    // exact approvals, concurrent workflows of one account overwrite each other's allowance (approve
    // sets, it does not add) and a swap fails with TRANSFER_FROM_FAILED. Anything else: the amount.
    const trusted = trustedSpenders(chain).has(spender.toLowerCase());
    const request = await erc20
      .getFunction("approve")
      .populateTransaction(spender, trusted ? MaxUint256 : amount);
    await this.send(slot, "approve", request, { chain, signer });
  }

  private async baseMetrics(): Promise<AgentMetrics> {
    const fees = await this.feeQuote();
    const gasUsed = this.txs.reduce((s, t) => s + BigInt(t.gasUsed), 0n);
    const spike =
      fees.medianBaseFeePerGas > 0n
        ? Number((fees.nextBaseFeePerGas * 1000n) / fees.medianBaseFeePerGas) / 1000
        : 1;
    return {
      gas_used: gasUsed.toString(),
      gas_cost_wei: (gasUsed * fees.expectedPricePerGas).toString(),
      gas_spike: spike,
      out_of_gas_retries: this.outOfGasRetries,
      flagged_counterparties: this.screened.filter((s) => s.sanctioned).length,
    };
  }

  /** The fields every result carries (the agent adds its own and its `action`). */
  protected async resultBase(metrics: Partial<AgentMetrics> = {}): Promise<AgentResultBase> {
    const base = await this.baseMetrics();
    return {
      chain: this.chain.name,
      chainId: this.chain.chainId,
      tx_hashes: this.txs.map((t) => t.hash),
      txs: this.txs,
      metrics: { ...base, ...metrics },
      compliance: this.screened,
    };
  }
}

/** The deployment's own contracts that may hold an unlimited allowance of the account's tokens. */
export function trustedSpenders(chain: RoutingChain): Set<string> {
  const spenders = new Set<string>();
  for (const exchange of Object.values(chain.deployment.exchanges))
    spenders.add(exchange.router.toLowerCase());
  for (const name of [BRIDGE_CONTRACT, MULTISEND_CONTRACT]) {
    const address = chain.deployment.contracts[name]?.address;
    if (address) spenders.add(address.toLowerCase());
  }
  return spenders;
}

/** Decodes revert data: `Error(string)`, `Panic(uint256)`, or one of the contract's custom errors. */
export function decodeRevertData(data: string, decode?: Interface): string {
  try {
    const standard = STANDARD_ERRORS.parseError(data);
    if (standard?.name === "Error") return String(standard.args[0]);
    if (standard) return `Panic(${String(standard.args[0])})`;
  } catch {
    // Not a standard error.
  }
  if (decode) {
    try {
      const parsed = decode.parseError(data);
      if (parsed) return `${parsed.name}(${parsed.args.map(String).join(", ")})`;
    } catch {
      // Not one of this contract's errors.
    }
  }
  return `reverted with data ${data.slice(0, 74)}`;
}

const STANDARD_ERRORS = new Interface(["error Error(string)", "error Panic(uint256)"]);

/** The revert reason of an ethers call error: a require string, a custom error name, or the message. */
export function describeRevert(err: unknown, decode?: Interface): string {
  const e = err as {
    reason?: string;
    data?: string;
    info?: { error?: { data?: string } };
    shortMessage?: string;
    message?: string;
  };
  if (e.reason) return e.reason;
  const data = e.data ?? e.info?.error?.data;
  if (decode && typeof data === "string" && data.length >= 10) {
    try {
      const parsed = decode.parseError(data);
      if (parsed) return `${parsed.name}(${parsed.args.map(String).join(", ")})`;
    } catch {
      // Not one of this contract's errors.
    }
  }
  return e.shortMessage ?? e.message ?? String(err);
}
