import {
  Transaction,
  type Provider,
  type Signer,
  type TransactionReceipt,
  type TransactionRequest,
} from "ethers";
import type { EngineStore } from "../accounts/index.ts";
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
 */
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
      "SELECT hash, raw, nonce, gas_limit, state FROM engine_txs WHERE execution_id = $1 AND action_index = $2 AND slot = $3",
      [slot.executionId, slot.actionIndex, slot.slot],
    );
    return row ?? null;
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
    if (journalled && journalled.state !== "released") return this.resume(chain, slot, journalled);
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
  ): Promise<SentTx> {
    const existing = await this.find(slot);
    if (existing && existing.state !== "released") return this.resume(chain, slot, existing);
    const sender = await signer.getAddress();
    await this.fillAbandoned(chain, signer, sender);
    const fees = await feeQuote(chain.provider, options.gasStrategy ?? "eco");
    if (!canSignRaw(signer))
      return this.sendUnjournalledRaw(chain, signer, slot, kind, request, fees, sender);
    const chainNonce = await chain.provider.getTransactionCount(sender, "pending");
    const { hash, raw, nonce } = await this.store.transaction(async (tx) => {
      await tx.query(
        "INSERT INTO engine_nonces (chain_id, address, next_nonce) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
        [chain.chainId, sender, chainNonce],
      );
      const [row] = await tx.query<{ next_nonce: string }>(
        "SELECT next_nonce FROM engine_nonces WHERE chain_id = $1 AND address = $2 FOR UPDATE",
        [chain.chainId, sender],
      );
      // The chain may be ahead when the account was used outside the engine (a faucet, a wallet).
      const nonce = Math.max(Number(row!.next_nonce), chainNonce);
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
      await tx.query(
        `INSERT INTO engine_txs (execution_id, action_index, slot, kind, chain_id, sender, nonce, hash, raw, gas_limit, state)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 'signed')`,
        [
          slot.executionId,
          slot.actionIndex,
          slot.slot,
          kind,
          chain.chainId,
          sender,
          nonce,
          hash,
          signed,
          request.gasLimit.toString(),
        ],
      );
      await tx.query(
        "UPDATE engine_nonces SET next_nonce = $3 WHERE chain_id = $1 AND address = $2",
        [chain.chainId, sender, nonce + 1],
      );
      return { hash, raw: signed, nonce };
    });
    crashPoint("tx.signed");
    try {
      await this.broadcast(chain.provider, raw, hash);
    } catch (err) {
      await this.afterFailedBroadcast(chain, sender, slot, nonce);
      throw err;
    }
    await this.mark(hash, chain.chainId, "sent");
    crashPoint("tx.sent");
    const sent = await this.confirm(chain, hash, nonce, request.gasLimit, false);
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
      if (nonce >= chainNonce) {
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
        const response = await chain.provider.broadcastTransaction(filler);
        await chain.provider.waitForTransaction(response.hash);
      }
      await this.store.query(
        "UPDATE engine_txs SET filled_at = now(), updated_at = now() WHERE id = $1",
        [row.id],
      );
    }
  }

  private async resume(chain: RoutingChain, _slot: TxSlot, row: TxRow): Promise<SentTx> {
    if (row.state === "signed" || row.state === "sent") {
      const known = await chain.provider.getTransaction(row.hash);
      if (!known && row.raw) await this.broadcast(chain.provider, row.raw, row.hash);
      await this.mark(row.hash, chain.chainId, "sent");
    }
    return this.confirm(chain, row.hash, Number(row.nonce), BigInt(row.gas_limit), true);
  }

  private async broadcast(provider: Provider, raw: string, hash: string): Promise<void> {
    try {
      await provider.broadcastTransaction(raw);
    } catch (err) {
      // Already in the pool or mined (a resumed send): the hash is what we wait for.
      if (await provider.getTransaction(hash)) return;
      throw err;
    }
  }

  private async confirm(
    chain: RoutingChain,
    hash: string,
    nonce: number,
    gasLimit: bigint,
    resumed: boolean,
  ): Promise<SentTx> {
    const receipt = await chain.provider.waitForTransaction(hash);
    if (!receipt) throw new Error(`no receipt for ${hash} on ${chain.name}`);
    const status = receipt.status === 1 ? "confirmed" : "reverted";
    await this.store.query(
      `UPDATE engine_txs SET state = $3, gas_used = $4, effective_gas_price = $5, block_number = $6, updated_at = now()
       WHERE hash = $1 AND chain_id = $2`,
      [
        hash,
        chain.chainId,
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
      nonce,
      gasLimit,
      gasUsed: receipt.gasUsed,
      effectiveGasPrice: receipt.gasPrice,
      status,
      receipt,
      resumed,
    };
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
    await this.store.query(
      `INSERT INTO engine_txs (execution_id, action_index, slot, kind, chain_id, sender, nonce, hash, raw, gas_limit, state)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, NULL, $9, 'sent')`,
      [
        slot.executionId,
        slot.actionIndex,
        slot.slot,
        kind,
        chain.chainId,
        sender,
        response.nonce,
        response.hash,
        request.gasLimit.toString(),
      ],
    );
    return this.confirm(chain, response.hash, response.nonce, request.gasLimit, false);
  }
}
