import {
  parseUnits,
  Transaction,
  type Provider,
  type Signer,
  type TransactionReceipt,
  type TransactionRequest,
} from "ethers";
import type { EngineStore } from "../accounts/index.ts";
import { DEVNET_RELIABILITY, isChainUnavailable, type ChainReliability } from "../chains/index.ts";
import { VeriflowError } from "../errors/index.ts";
import {
  type RoutingChain,
  feeQuote,
  type FeeQuote,
  type GasStrategy,
  recordObservedGas,
  type TxKind,
} from "../routing/index.ts";
import { crashPoint } from "./crash.ts";

/**
 * The transaction journal and nonce manager. Each transaction has a slot (execution, action,
 * name). `send` is idempotent per slot: the first call allocates a nonce, signs and stores the
 * raw transaction and its hash in one database transaction, then broadcasts; any later call
 * (after a crash, or a retry of the job) finds the slot and waits for that hash's receipt,
 * re-broadcasting the stored bytes if the chain never saw them. So a transaction is sent at most
 * once, and an allocated nonce is always used by a stored, signed transaction (never skipped).
 *
 * A sent transaction counts only once it is final (docs/reliability.md): mined in a block that is
 * still canonical under the chain's confirmation depth (`chain.reliability`). While it waits:
 * - dropped (a pool eviction, a restarted node, a reorg that took its block): the stored bytes are
 *   broadcast again (same hash, same nonce);
 * - not mined within `stuckAfterMs`: replaced by the same transaction with fees raised by
 *   `feeBumpPercent` (every signed version is journalled before it is broadcast, so whichever is
 *   mined is found), never above `maxFeePerGasGwei`: above it, it waits;
 * - a node answering "nonce too high" (an earlier nonce of the account is missing from its pool):
 *   the account's journalled transactions from the chain's nonce on are broadcast again in order
 *   and gaps filled with no-ops, from the journal and the chain alone;
 * - its nonce used by a transaction that is none of its versions: it can never be mined; the
 *   journal marks it `dropped` and throws {@link TransactionDroppedError} (the step fails with it).
 */

/** A journalled transaction can never be mined (its nonce went to another transaction). */
export class TransactionDroppedError extends VeriflowError {
  constructor(detail: string, extra: Record<string, unknown> = {}) {
    super("TX_DROPPED", detail, extra);
  }
}

/** Whether a node refused a transaction for its nonce: "too low" (used) or "too high" (gap). */
export function nonceRefusal(err: unknown): "low" | "high" | null {
  for (let e: unknown = err, depth = 0; e && depth < 6; depth++) {
    const c = e as { message?: unknown; shortMessage?: unknown; info?: unknown; error?: unknown };
    for (const text of [c.message, c.shortMessage]) {
      if (typeof text !== "string") continue;
      const m = /nonce too (low|high)|nonce has already been used/i.exec(text);
      if (m) return m[1]?.toLowerCase() === "high" ? "high" : "low";
    }
    e = c.error ?? (c.info as { error?: unknown } | undefined)?.error;
  }
  return null;
}

/**
 * Whether a node refused a transaction for its fee: below the next block's base fee (an automining
 * node refuses it instead of pooling it) or an underpriced replacement.
 */
export function feeRefusal(err: unknown): boolean {
  return /too low for the next block|less than (the )?block base fee|fee cap less than|underpriced/i.test(
    String((err as { message?: unknown })?.message ?? err),
  );
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** How often a waiting transaction's chain is asked again. */
function pollMs(chain: RoutingChain): number {
  const interval = (chain.provider as Provider & { pollingInterval?: number }).pollingInterval;
  return Math.max(10, Math.min(typeof interval === "number" ? interval : 250, 1_000));
}

function reliabilityOf(chain: RoutingChain): ChainReliability {
  return chain.reliability ?? DEVNET_RELIABILITY;
}

/** A journalled transaction being waited for. */
interface Waiting {
  id: string;
  hash: string;
  raw: string | null;
  nonce: number;
  sender: string;
  actionIndex: number;
}

/** A journalled row as the transaction to wait for. */
function waitingOf(
  row: Pick<TxRow, "id" | "hash" | "raw" | "nonce" | "sender" | "action_index">,
): Waiting {
  return {
    id: String(row.id),
    hash: row.hash,
    raw: row.raw,
    nonce: Number(row.nonce),
    sender: row.sender,
    actionIndex: Number(row.action_index),
  };
}

/** Journals a transaction of `slot` (signed, or sent by a signer that cannot sign raw); its row id. */
async function insertTx(
  store: Pick<EngineStore, "query">,
  slot: TxSlot,
  kind: TxKind,
  chainId: number,
  gasLimit: bigint,
  tx: { sender: string; nonce: number; hash: string; raw: string | null; state: "signed" | "sent" },
): Promise<string> {
  const [row] = await store.query<{ id: string }>(
    `INSERT INTO engine_txs (execution_id, action_index, slot, kind, chain_id, sender, nonce, hash, raw, gas_limit, state)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING id`,
    [
      slot.executionId,
      slot.actionIndex,
      slot.slot,
      kind,
      chainId,
      tx.sender,
      tx.nonce,
      tx.hash,
      tx.raw,
      gasLimit.toString(),
      tx.state,
    ],
  );
  return String(row!.id);
}

/** Where `verifyFinal` is: the chain it reads, the transactions it broadcast again. */
export interface VerifyProgress {
  chain: string | null;
  resent: Set<string>;
}

export interface TxSlot {
  executionId: string;
  actionIndex: number;
  slot: string;
}

export interface SentTx {
  hash: string;
  chainId: number;
  nonce: number;
  gasLimit: bigint;
  gasUsed: bigint;
  effectiveGasPrice: bigint;
  status: "confirmed" | "reverted";
  receipt: TransactionReceipt;
  /** True when this call found the transaction already journalled (resume). */
  resumed: boolean;
}

export interface TxRow {
  id: string;
  sender: string;
  action_index: number;
  hash: string;
  raw: string | null;
  nonce: string | number;
  gas_limit: string | number;
  state: string;
}

/** Headroom over `eth_estimateGas` for every transaction the relayer signs. */
export const GAS_PADDING_PERCENT = 120n;

/** `eth_estimateGas` of `request` with the relayer's headroom. */
export async function paddedGasLimit(
  chain: RoutingChain,
  request: TransactionRequest,
): Promise<bigint> {
  return ((await chain.provider.estimateGas(request)) * GAS_PADDING_PERCENT) / 100n;
}

/**
 * Broadcasts signed bytes: `eth_sendRawTransaction` itself where the provider speaks JSON-RPC.
 * ethers' `broadcastTransaction` also asks for the block number and recovers the sender from the
 * signature (a few milliseconds of secp256k1 on the event loop, per transaction) to build a
 * response the journal never reads: it waits for the hash it stored. Refusals are the same errors
 * either way (both go through the provider's RPC error mapping).
 */
async function sendRawTransaction(provider: Provider, raw: string): Promise<void> {
  const rpc = provider as Provider & {
    send?: (method: string, params: unknown[]) => Promise<unknown>;
  };
  if (typeof rpc.send === "function") await rpc.send("eth_sendRawTransaction", [raw]);
  else await provider.broadcastTransaction(raw);
}

/** A signer that can sign raw transactions (a Wallet); others are sent directly (see below). */
function canSignRaw(signer: Signer): boolean {
  return typeof (signer as Signer & { signingKey?: unknown }).signingKey === "object";
}

export class TxJournal {
  private readonly store: EngineStore;

  constructor(store: EngineStore) {
    this.store = store;
  }

  async find(slot: TxSlot): Promise<TxRow | null> {
    const [row] = await this.store.query<TxRow>(
      "SELECT id, sender, action_index, hash, raw, nonce, gas_limit, state FROM engine_txs WHERE execution_id = $1 AND action_index = $2 AND slot = $3",
      [slot.executionId, slot.actionIndex, slot.slot],
    );
    return row ?? null;
  }

  /**
   * Whether an action is committed to its chain: a transaction of it may still be mined (signed,
   * maybe broadcast, not yet mined), or one that moves value was mined (anything but an approval).
   * Such an action must be finished: reported failed, it could have paid, or be about to.
   */
  async committed(executionId: string, actionIndex: number): Promise<boolean> {
    const rows = await this.store.query<{ id: string }>(
      `SELECT id FROM engine_txs
        WHERE execution_id = $1 AND action_index = $2
          AND (state IN ('signed', 'sent') OR (state = 'confirmed' AND kind <> 'approve'))
        LIMIT 1`,
      [executionId, actionIndex],
    );
    return rows.length > 0;
  }

  /** Every journalled transaction of an execution, in order (for the report). */
  async list(executionId: string): Promise<
    Array<{
      action_index: number;
      slot: string;
      kind: string;
      chain_id: number;
      hash: string;
      state: string;
      gas_used: string | null;
    }>
  > {
    return this.store.query(
      "SELECT action_index, slot, kind, chain_id, hash, state, gas_used FROM engine_txs WHERE execution_id = $1 ORDER BY id",
      [executionId],
    );
  }

  /** The execution's mined transactions (confirmed or reverted) with what they paid for gas. */
  async mined(executionId: string): Promise<
    Array<{
      hash: string;
      chainId: number;
      raw: string | null;
      gasUsed: bigint;
      effectiveGasPrice: bigint;
    }>
  > {
    const rows = await this.store.query<{
      hash: string;
      raw: string | null;
      gas_used: string | null;
      effective_gas_price: string | null;
      chain_id: number;
    }>(
      "SELECT hash, raw, gas_used, effective_gas_price, chain_id FROM engine_txs WHERE execution_id = $1 AND state IN ('confirmed', 'reverted') ORDER BY id",
      [executionId],
    );
    return rows.map((r) => ({
      hash: r.hash,
      chainId: Number(r.chain_id),
      raw: r.raw,
      gasUsed: BigInt(r.gas_used ?? "0"),
      effectiveGasPrice: BigInt(r.effective_gas_price ?? "0"),
    }));
  }

  /**
   * An operator call (attestation, anchor, receipt) under `slot`: the journalled transaction is
   * resumed (or, if it was released unsent, sent again with its stored gas limit); a new one gets
   * `eth_estimateGas` padded by {@link GAS_PADDING_PERCENT}.
   */
  async sendCall(
    chain: RoutingChain,
    signer: Signer,
    slot: TxSlot,
    kind: TxKind,
    request: TransactionRequest,
    options: { gasStrategy?: GasStrategy; units?: number } = {},
  ): Promise<SentTx> {
    const journalled = await this.find(slot);
    if (journalled && journalled.state !== "released")
      return this.resume(chain, signer, journalled);
    const gasLimit = journalled
      ? BigInt(journalled.gas_limit)
      : await paddedGasLimit(chain, { ...request, from: await signer.getAddress() });
    return this.send(chain, signer, slot, kind, { ...request, gasLimit }, options);
  }

  /**
   * Sign and send `request` from `signer` on `chain` under `slot`, or resume the journalled one.
   * `request.gasLimit` is required (the agents estimate and pad it, or raise it after OUT_OF_GAS).
   */
  async send(
    chain: RoutingChain,
    signer: Signer,
    slot: TxSlot,
    kind: TxKind,
    request: TransactionRequest & { gasLimit: bigint },
    options: { gasStrategy?: GasStrategy; units?: number } = {},
    attempt = 0,
  ): Promise<SentTx> {
    const existing = await this.find(slot);
    if (existing && existing.state !== "released") return this.resume(chain, signer, existing);
    const sender = await signer.getAddress();
    await this.fillAbandoned(chain, signer, sender);
    const fees = await feeQuote(chain.provider, options.gasStrategy ?? "eco");
    if (!canSignRaw(signer))
      return this.sendUnjournalledRaw(chain, signer, slot, kind, request, fees, sender);
    const chainNonce = await chain.provider.getTransactionCount(sender, "pending");
    const { id, hash, raw, nonce } = await this.store.transaction(async (tx) => {
      // Allocated and locked in one statement: the row stays locked until the signed transaction
      // is stored in this same transaction. The chain may be ahead when the account was used
      // outside the engine (a faucet, a wallet): the nonce is the larger of the two.
      const [row] = await tx.query<{ nonce: string }>(
        `INSERT INTO engine_nonces AS n (chain_id, address, next_nonce) VALUES ($1, $2, $3::bigint + 1)
         ON CONFLICT (chain_id, address) DO UPDATE SET next_nonce = GREATEST(n.next_nonce, $3::bigint) + 1
         RETURNING next_nonce - 1 AS nonce`,
        [chain.chainId, sender, chainNonce],
      );
      const nonce = Number(row!.nonce);
      const signed = await signer.signTransaction({
        ...request,
        from: sender,
        chainId: chain.chainId,
        nonce,
        type: 2,
        maxFeePerGas: fees.maxFeePerGas,
        maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
      });
      const hash = Transaction.from(signed).hash!;
      const id = await insertTx(tx, slot, kind, chain.chainId, request.gasLimit, {
        sender,
        nonce,
        hash,
        raw: signed,
        state: "signed",
      });
      return { id, hash, raw: signed, nonce };
    });
    crashPoint("tx.signed");
    try {
      await this.broadcastRepairing(chain, signer, sender, raw, hash);
    } catch (err) {
      // A connection that failed mid-request may have delivered the bytes: the stored
      // transaction is kept, and a resume broadcasts the same bytes once the node answers.
      if (isChainUnavailable(err)) throw err;
      await this.afterFailedBroadcast(chain, sender, slot, nonce);
      // Its nonce went to another transaction between the read and the broadcast: sign again.
      if (nonceRefusal(err) === "low" && attempt < 3)
        return this.send(chain, signer, slot, kind, request, options, attempt + 1);
      throw err;
    }
    await this.mark(hash, chain.chainId, "sent");
    crashPoint("tx.sent");
    const waiting = { id, hash, raw, nonce, sender, actionIndex: slot.actionIndex };
    const sent = await this.confirm(chain, waiting, signer, request.gasLimit, false);
    if (sent.status === "confirmed")
      recordObservedGas(chain.chainId, kind, options.units ?? 1, sent.gasUsed);
    return sent;
  }

  /**
   * The chain refused a stored transaction (reachable RPC, transaction unknown): give its nonce
   * back when nobody allocated after it, otherwise mark it abandoned so the next send on this
   * chain fills the gap with a no-op. An unreachable RPC leaves it stored: a resume re-broadcasts.
   */
  private async afterFailedBroadcast(
    chain: RoutingChain,
    sender: string,
    slot: TxSlot,
    nonce: number,
  ): Promise<void> {
    try {
      await chain.provider.getBlockNumber();
    } catch {
      return;
    }
    await this.store.transaction(async (tx) => {
      const [row] = await tx.query<{ next_nonce: string }>(
        "SELECT next_nonce FROM engine_nonces WHERE chain_id = $1 AND address = $2 FOR UPDATE",
        [chain.chainId, sender],
      );
      if (Number(row!.next_nonce) === nonce + 1) {
        await tx.query(
          "UPDATE engine_nonces SET next_nonce = $3 WHERE chain_id = $1 AND address = $2",
          [chain.chainId, sender, nonce],
        );
        await tx.query(
          "DELETE FROM engine_txs WHERE execution_id = $1 AND action_index = $2 AND slot = $3",
          [slot.executionId, slot.actionIndex, slot.slot],
        );
      } else {
        await this.abandonRow(tx, slot);
      }
    });
  }

  private async abandonRow(tx: EngineStore, slot: TxSlot): Promise<void> {
    await tx.query(
      `UPDATE engine_txs SET state = 'released', slot = slot || '.released.' || id, updated_at = now()
       WHERE execution_id = $1 AND action_index = $2 AND slot = $3 AND state = 'signed'`,
      [slot.executionId, slot.actionIndex, slot.slot],
    );
  }

  /**
   * Marks the signed-but-unsent transactions of an action on a chain abandoned (the action moved to
   * a fallback chain): they will never be broadcast; their nonces are filled by no-ops.
   */
  async abandonAction(executionId: string, actionIndex: number, chainId: number): Promise<void> {
    await this.store.query(
      `UPDATE engine_txs SET state = 'released', slot = slot || '.released.' || id, updated_at = now()
       WHERE execution_id = $1 AND action_index = $2 AND chain_id = $3 AND state = 'signed'`,
      [executionId, actionIndex, chainId],
    );
  }

  /** Sends a 0-value self-transfer at each abandoned nonce the chain has not passed yet. */
  private async fillAbandoned(chain: RoutingChain, signer: Signer, sender: string): Promise<void> {
    const rows = await this.store.query<{
      id: string;
      nonce: string;
      execution_id: string;
      action_index: number;
    }>(
      "SELECT id, nonce, execution_id, action_index FROM engine_txs WHERE chain_id = $1 AND sender = $2 AND state = 'released' AND filled_at IS NULL ORDER BY nonce",
      [chain.chainId, sender],
    );
    if (rows.length === 0 || !canSignRaw(signer)) return;
    const chainNonce = await chain.provider.getTransactionCount(sender, "pending");
    for (const row of rows) {
      const nonce = Number(row.nonce);
      if (nonce >= chainNonce) await this.sendFiller(chain, signer, sender, nonce, true);
      await this.store.query(
        "UPDATE engine_txs SET filled_at = now(), updated_at = now() WHERE id = $1",
        [row.id],
      );
    }
  }

  private async resume(chain: RoutingChain, signer: Signer, row: TxRow): Promise<SentTx> {
    const waiting = waitingOf(row);
    if (row.state === "signed" || row.state === "sent") {
      const known = await chain.provider.getTransaction(row.hash);
      try {
        if (!known && row.raw)
          await this.broadcastRepairing(chain, signer, row.sender, row.raw, row.hash);
      } catch (err) {
        // Signed before a crash at a fee the chain no longer takes: the wait replaces it.
        if (!feeRefusal(err)) throw err;
      }
      await this.mark(row.hash, chain.chainId, "sent");
    }
    return this.confirm(chain, waiting, signer, BigInt(row.gas_limit), true);
  }

  private async broadcast(provider: Provider, raw: string, hash: string): Promise<void> {
    try {
      await sendRawTransaction(provider, raw);
    } catch (err) {
      // Already in the pool or mined (a resumed send): the hash is what we wait for.
      if (await provider.getTransaction(hash)) return;
      throw err;
    }
  }

  /** Broadcasts; on "nonce too high" repairs the account's nonces from the journal and retries once. */
  private async broadcastRepairing(
    chain: RoutingChain,
    signer: Signer | null,
    sender: string,
    raw: string,
    hash: string,
  ): Promise<void> {
    try {
      await this.broadcast(chain.provider, raw, hash);
    } catch (err) {
      if (nonceRefusal(err) !== "high") throw err;
      await this.repairNonces(chain, sender, signer);
      await this.broadcast(chain.provider, raw, hash);
    }
  }

  /**
   * Repairs nonce drift of `sender` on `chain` from the chain and the journal alone: from the
   * chain's mined nonce on, every journalled transaction the node does not hold is broadcast again
   * in nonce order (its stored bytes), and a nonce with nothing to send (released unsent, or no
   * row) gets a no-op self-transfer, so the account's later transactions are not jammed behind a
   * gap (a dropped transaction, a node that lost its pool across a restart).
   */
  async repairNonces(chain: RoutingChain, sender: string, signer: Signer | null): Promise<number> {
    const mined = await chain.provider.getTransactionCount(sender, "latest");
    const rows = await this.store.query<{
      id: string;
      nonce: string;
      hash: string;
      raw: string | null;
      state: string;
    }>(
      `SELECT id, nonce, hash, raw, state FROM engine_txs
        WHERE chain_id = $1 AND sender = $2 AND nonce >= $3 AND state <> 'dropped' ORDER BY nonce`,
      [chain.chainId, sender, mined],
    );
    const canFill = signer !== null && canSignRaw(signer);
    let repaired = 0;
    let expected = mined;
    for (const row of rows) {
      const nonce = Number(row.nonce);
      for (; expected < nonce && canFill; expected++) {
        await this.sendFiller(chain, signer!, sender, expected, false);
        repaired++;
      }
      expected = nonce + 1;
      if (row.state !== "released" && row.raw) {
        if (await chain.provider.getTransaction(row.hash)) continue;
        try {
          await this.broadcast(chain.provider, row.raw, row.hash);
          repaired++;
        } catch (err) {
          // Its nonce was used meanwhile: the waiter of that transaction finds out and reports it.
          if (nonceRefusal(err) !== "low") throw err;
        }
      } else if (row.state === "released" && canFill) {
        await this.sendFiller(chain, signer!, sender, nonce, false);
        await this.store.query(
          "UPDATE engine_txs SET filled_at = now(), updated_at = now() WHERE id = $1",
          [row.id],
        );
        repaired++;
      }
    }
    return repaired;
  }

  /** A 0-value self-transfer at `nonce` (a nonce nothing else will use). */
  private async sendFiller(
    chain: RoutingChain,
    signer: Signer,
    sender: string,
    nonce: number,
    wait: boolean,
  ): Promise<void> {
    const fees = await feeQuote(chain.provider, "fast");
    const filler = await signer.signTransaction({
      to: sender,
      value: 0n,
      chainId: chain.chainId,
      nonce,
      type: 2,
      gasLimit: 21_000n,
      maxFeePerGas: fees.maxFeePerGas,
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
    });
    try {
      const response = await chain.provider.broadcastTransaction(filler);
      if (wait) await chain.provider.waitForTransaction(response.hash);
    } catch (err) {
      if (nonceRefusal(err) !== "low") throw err; // already used: nothing to fill
    }
  }

  /** Every signed version of a journalled transaction: the current one first. */
  private async versions(tx: Waiting): Promise<Array<{ hash: string; raw: string | null }>> {
    const older = await this.store.query<{ hash: string; raw: string }>(
      "SELECT hash, raw FROM engine_tx_versions WHERE tx_id = $1 AND hash <> $2 ORDER BY created_at DESC",
      [tx.id, tx.hash],
    );
    return [{ hash: tx.hash, raw: tx.raw }, ...older];
  }

  /** The receipt of whichever version is mined in a block that is still canonical, if any. */
  private async minedVersion(
    chain: RoutingChain,
    versions: ReadonlyArray<{ hash: string }>,
  ): Promise<{ hash: string; receipt: TransactionReceipt } | null> {
    for (const { hash } of versions) {
      const receipt = await chain.provider.getTransactionReceipt(hash);
      if (!receipt) continue;
      // A receipt from a block the chain no longer has (a node answering from a stale index).
      const block = await chain.provider.getBlock(receipt.blockNumber);
      if (block?.hash === receipt.blockHash) return { hash, receipt };
    }
    return null;
  }

  /**
   * Waits until one version of `tx` is final (canonical at the chain's confirmation depth),
   * broadcasting it again when the node lost it and replacing it when stuck (see the class
   * comment). `signer` null: no replacement and no fillers (the re-check before proving).
   * An RPC outage is waited through (the transaction is where it was), unless `outages` is
   * "throw": then the caller bounds the wait (the re-check before proving, through outage.ts).
   */
  async awaitFinal(
    chain: RoutingChain,
    tx: Waiting,
    signer: Signer | null,
    options: { outages?: "wait" | "throw"; onResent?: (hash: string) => void } = {},
  ): Promise<{ hash: string; receipt: TransactionReceipt }> {
    const reliability = reliabilityOf(chain);
    const poll = pollMs(chain);
    let current = { hash: tx.hash, raw: tx.raw };
    let since = Date.now();
    let lastHead = -1;
    let capLogged = false;
    for (;;) {
      try {
        const versions = await this.versions({ ...tx, ...current });
        const mined = await this.minedVersion(chain, versions);
        if (mined) {
          const head = await chain.provider.getBlockNumber();
          if (head - mined.receipt.blockNumber + 1 >= reliability.confirmations) return mined;
          if (chain.produceBlock && head === lastHead) await chain.produceBlock();
          lastHead = head;
          await sleep(poll);
          continue;
        }
        let known = false;
        for (const v of versions) {
          if (await chain.provider.getTransaction(v.hash)) {
            known = true;
            break;
          }
        }
        if (!known) {
          // Dropped from the pool, or its block reorged away: the stored bytes again.
          if (!current.raw) {
            await this.markDropped(tx.id);
            throw new TransactionDroppedError(
              `transaction ${current.hash} on ${chain.name} disappeared and its bytes are not journalled`,
              { tx_hash: current.hash, chain: chain.name, action_index: tx.actionIndex },
            );
          }
          try {
            await this.broadcastRepairing(chain, signer, tx.sender, current.raw, current.hash);
            options.onResent?.(current.hash);
          } catch (err) {
            if (feeRefusal(err) && signer && canSignRaw(signer)) {
              // Its fee is below what the chain takes now: replaced at once (up to the cap).
              const replaced = await this.replace(chain, tx, current.raw, signer, reliability);
              if (replaced) current = replaced;
              else if (!capLogged) {
                capLogged = true;
                this.onStuck?.(chain, current.hash);
              }
              await sleep(poll);
              continue;
            }
            if (nonceRefusal(err) !== "low") throw err;
            if (await this.minedVersion(chain, versions)) continue;
            await this.markDropped(tx.id);
            throw new TransactionDroppedError(
              `transaction ${current.hash} on ${chain.name} was dropped (reorg or pool) and its nonce ${tx.nonce} was used by another transaction: not re-sent`,
              { tx_hash: current.hash, chain: chain.name, action_index: tx.actionIndex },
            );
          }
          since = Date.now();
        } else if (
          signer &&
          current.raw &&
          canSignRaw(signer) &&
          Date.now() - since >= reliability.stuckAfterMs
        ) {
          const replaced = await this.replace(chain, tx, current.raw, signer, reliability);
          if (replaced) current = replaced;
          else if (!capLogged) {
            capLogged = true;
            this.onStuck?.(chain, current.hash);
          }
          since = Date.now();
        }
        await sleep(poll);
      } catch (err) {
        // An RPC outage: the transaction is where it was; ask again once the node answers.
        if (!isChainUnavailable(err) || options.outages === "throw") throw err;
        await sleep(Math.max(poll * 10, 250));
      }
    }
  }

  /** Called once per transaction that waits with its fee at the cap (for logs and tests). */
  onStuck?: (chain: RoutingChain, hash: string) => void;

  /**
   * The same transaction (nonce, call, gas limit) with both fees raised by `feeBumpPercent` and at
   * least today's `fast` quote, at most the cap; journalled before it is broadcast. Null when even
   * the smallest acceptable bump is above the cap.
   */
  private async replace(
    chain: RoutingChain,
    tx: Waiting,
    raw: string,
    signer: Signer,
    reliability: ChainReliability,
  ): Promise<{ hash: string; raw: string } | null> {
    const old = Transaction.from(raw);
    if ((await signer.getAddress()).toLowerCase() !== tx.sender.toLowerCase()) return null;
    const bump = BigInt(100 + reliability.feeBumpPercent);
    const cap = parseUnits(String(reliability.maxFeePerGasGwei), "gwei");
    const minFee = ((old.maxFeePerGas ?? 0n) * bump + 99n) / 100n;
    const minTip = ((old.maxPriorityFeePerGas ?? 0n) * bump + 99n) / 100n;
    if (minFee > cap || minTip > cap) return null;
    const fast = await feeQuote(chain.provider, "fast");
    const maxFeePerGas = [minFee, fast.maxFeePerGas].reduce((a, b) => (a > b ? a : b));
    const capped = maxFeePerGas > cap ? cap : maxFeePerGas;
    const tip = [minTip, fast.maxPriorityFeePerGas].reduce((a, b) => (a > b ? a : b));
    const signed = await signer.signTransaction({
      type: 2,
      chainId: chain.chainId,
      nonce: old.nonce,
      to: old.to,
      data: old.data,
      value: old.value,
      gasLimit: old.gasLimit,
      accessList: old.accessList ?? [],
      maxFeePerGas: capped,
      maxPriorityFeePerGas: tip > capped ? capped : tip,
    });
    const hash = Transaction.from(signed).hash!;
    await this.store.transaction(async (db) => {
      await db.query(
        "INSERT INTO engine_tx_versions (tx_id, hash, raw) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
        [tx.id, old.hash, raw],
      );
      await db.query(
        "INSERT INTO engine_tx_versions (tx_id, hash, raw) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
        [tx.id, hash, signed],
      );
      await db.query(
        "UPDATE engine_txs SET hash = $2, raw = $3, updated_at = now() WHERE id = $1",
        [tx.id, hash, signed],
      );
    });
    try {
      await sendRawTransaction(chain.provider, signed);
    } catch (err) {
      // Mined meanwhile (nonce used) or refused as underpriced: the waiter sees which next turn.
      if (nonceRefusal(err) === null && !feeRefusal(err) && !/already known/i.test(String(err)))
        throw err;
    }
    return { hash, raw: signed };
  }

  private async markDropped(id: string): Promise<void> {
    await this.store.query(
      "UPDATE engine_txs SET state = 'dropped', updated_at = now() WHERE id = $1",
      [id],
    );
  }

  private async confirm(
    chain: RoutingChain,
    tx: Waiting,
    signer: Signer | null,
    gasLimit: bigint,
    resumed: boolean,
  ): Promise<SentTx> {
    const { hash, receipt } = await this.awaitFinal(chain, tx, signer);
    const status = receipt.status === 1 ? "confirmed" : "reverted";
    await this.store.query(
      `UPDATE engine_txs SET state = $3, gas_used = $4, effective_gas_price = $5, block_number = $6,
              hash = $2, raw = COALESCE((SELECT raw FROM engine_tx_versions WHERE tx_id = $1 AND hash = $2), raw),
              updated_at = now()
       WHERE id = $1`,
      [
        tx.id,
        hash,
        status,
        receipt.gasUsed.toString(),
        receipt.gasPrice.toString(),
        receipt.blockNumber,
      ],
    );
    crashPoint("tx.confirmed");
    return {
      hash,
      chainId: chain.chainId,
      nonce: tx.nonce,
      gasLimit,
      gasUsed: receipt.gasUsed,
      effectiveGasPrice: receipt.gasPrice,
      status,
      receipt,
      resumed,
    };
  }

  /**
   * Before an execution is proved and reported: every transaction it had mined is still in a
   * canonical block at its chain's depth, with the status its step recorded. One dropped by a reorg
   * is broadcast again (same bytes: the step is resumed as it was); one that cannot be (its nonce
   * went to another transaction) or that now ends differently throws TransactionDroppedError.
   * An RPC outage is thrown as it is: the caller decides how long to wait for the chain, and
   * `progress` tells it which chain was being read and which transactions were broadcast again
   * (those may still be mined).
   */
  async verifyFinal(
    executionId: string,
    chains: readonly RoutingChain[],
    progress: VerifyProgress = { chain: null, resent: new Set() },
  ): Promise<void> {
    const rows = await this.store.query<{
      id: string;
      action_index: number;
      hash: string;
      raw: string | null;
      nonce: string;
      sender: string;
      chain_id: number;
      state: string;
      block_number: string | null;
    }>(
      `SELECT id, action_index, hash, raw, nonce, sender, chain_id, state, block_number FROM engine_txs
        WHERE execution_id = $1 AND state IN ('confirmed', 'reverted') ORDER BY id`,
      [executionId],
    );
    for (const row of rows) {
      const chain = chains.find((c) => c.chainId === Number(row.chain_id));
      if (!chain) continue;
      const waiting = waitingOf(row);
      progress.chain = chain.name;
      const { hash, receipt } = await this.awaitFinal(chain, waiting, null, {
        outages: "throw",
        onResent: (sent) => progress.resent.add(sent),
      });
      const status = receipt.status === 1 ? "confirmed" : "reverted";
      if (hash !== row.hash || status !== row.state) {
        await this.markDropped(waiting.id);
        throw new TransactionDroppedError(
          `transaction ${row.hash} on ${chain.name} was reorged and now ends ${status} as ${hash}: the recorded step no longer matches the chain`,
          { tx_hash: row.hash, chain: chain.name, action_index: waiting.actionIndex },
        );
      }
      // Re-mined in another block at the same depth (a reorg that kept it): the row follows.
      if (Number(row.block_number) !== receipt.blockNumber) {
        await this.store.query(
          "UPDATE engine_txs SET block_number = $2, updated_at = now() WHERE id = $1",
          [waiting.id, receipt.blockNumber],
        );
      }
    }
  }

  private async mark(hash: string, chainId: number, state: string): Promise<void> {
    await this.store.query(
      "UPDATE engine_txs SET state = $3, updated_at = now() WHERE hash = $1 AND chain_id = $2 AND state IN ('signed', 'sent')",
      [hash, chainId, state],
    );
  }

  /**
   * Signers that cannot sign raw transactions (a node-managed account): send, then journal the
   * hash. A crash between the two loses the journal entry; callers of this path (operator
   * transactions) are idempotent on chain (a bridge release of a nonce succeeds once).
   */
  private async sendUnjournalledRaw(
    chain: RoutingChain,
    signer: Signer,
    slot: TxSlot,
    kind: TxKind,
    request: TransactionRequest & { gasLimit: bigint },
    fees: FeeQuote,
    sender: string,
  ): Promise<SentTx> {
    const response = await signer.sendTransaction({
      ...request,
      maxFeePerGas: fees.maxFeePerGas,
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
    });
    const tx = { sender, nonce: response.nonce, hash: response.hash, raw: null };
    const id = await insertTx(this.store, slot, kind, chain.chainId, request.gasLimit, {
      ...tx,
      state: "sent",
    });
    const waiting: Waiting = { id, ...tx, actionIndex: slot.actionIndex };
    return this.confirm(chain, waiting, null, request.gasLimit, false);
  }
}
