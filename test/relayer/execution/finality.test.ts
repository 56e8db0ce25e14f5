import { expect } from "chai";
import { formatUnits, parseEther, parseUnits, Transaction, Wallet, type Provider } from "ethers";
import {
  DEVNET_RELIABILITY,
  openChains,
  type ChainHandle,
  type ChainReliability,
  type ChainSet,
} from "../../../relayer/chains/index.ts";
import { TransactionDroppedError, TxJournal } from "../../../relayer/execution/transactions.ts";
import type { RoutingChain } from "../../../relayer/routing/chain.ts";
import { openTestStore } from "../../fixtures/engine.ts";

/**
 * Chain reliability of the transaction journal against the in-process devnet: confirmation depth,
 * reorgs (evm_snapshot / evm_revert) that drop a mined transaction, stuck transactions replaced
 * with a fee bump up to the cap, transactions dropped from the pool, nonce drift.
 */
describe("# transaction finality, reorgs, stuck transactions and nonce drift (in process)", function () {
  this.timeout(120_000);
  let chains: ChainSet;
  let chain: ChainHandle;
  let store: Awaited<ReturnType<typeof openTestStore>>;
  let seq = 0;
  // A gas-observation key no engine test uses (observations are per chain id, kind and units).
  const UNITS = 997;

  before(async function () {
    // Own chain set: reorgs and stalled mining must not disturb the chains other files share.
    chains = await openChains({ mode: "embedded", chains: ["arbitrum"] });
    chain = chains.byName("arbitrum");
    store = await openTestStore();
  });

  after(async function () {
    await store?.close();
    await chains?.close();
  });

  afterEach(async function () {
    await chain.faults!.resumeMining();
    await chain.faults!.restoreBaseFee();
  });

  /** The chain with other reliability settings (what a chains configuration would give). */
  function tuned(settings: Partial<ChainReliability>, blockProducer = true): RoutingChain {
    const view: RoutingChain = {
      ...chain,
      reliability: { ...DEVNET_RELIABILITY, ...settings },
    };
    return blockProducer ? view : { ...view, produceBlock: undefined };
  }

  async function fundedWallet(): Promise<Wallet> {
    const wallet = new Wallet(Wallet.createRandom().privateKey, chain.provider);
    await (
      await chain.operator.sendTransaction({ to: wallet.address, value: parseEther("10") })
    ).wait();
    return wallet;
  }

  function slot() {
    seq += 1;
    return { executionId: `exec_finality_${seq}`, actionIndex: 0, slot: "transfer" };
  }

  const transfer = (to: string, value = 1_000n) => ({ to, value, gasLimit: 21_000n });

  async function until(check: () => Promise<boolean>, what: string, ms = 20_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  async function row(executionId: string) {
    const [r] = await store.query<{ id: string; hash: string; state: string; nonce: string }>(
      "SELECT id, hash, state, nonce FROM engine_txs WHERE execution_id = $1",
      [executionId],
    );
    return r!;
  }

  it("should resolve a send only once the transaction is under the configured depth", async function () {
    const wallet = await fundedWallet();
    const view = tuned({ confirmations: 4 });
    const sent = await new TxJournal(store).send(
      view,
      wallet,
      slot(),
      "wrap",
      transfer(Wallet.createRandom().address),
      { units: UNITS },
    );
    const head = await chain.provider.getBlockNumber();
    expect(head - sent.receipt.blockNumber + 1).to.be.at.least(4);
    const block = await chain.provider.getBlock(sent.receipt.blockNumber);
    expect(block!.hash).to.equal(sent.receipt.blockHash);
  });

  it("should re-broadcast a mined transaction a reorg dropped, with the same hash (the step resumed)", async function () {
    const wallet = await fundedWallet();
    const to = Wallet.createRandom().address;
    const journal = new TxJournal(store);
    const s = slot();
    const mark = await chain.faults!.markFork();
    const sent = await journal.send(tuned({}), wallet, s, "wrap", transfer(to), { units: UNITS });
    await chain.faults!.reorg(mark, 2);
    expect(await chain.provider.getTransactionReceipt(sent.hash)).to.equal(null);
    expect(await chain.provider.getBalance(to)).to.equal(0n);

    await journal.verifyFinal(s.executionId, [tuned({})]);

    const receipt = await chain.provider.getTransactionReceipt(sent.hash);
    expect(receipt?.status).to.equal(1);
    expect(await chain.provider.getBalance(to)).to.equal(1_000n);
    const r = await row(s.executionId);
    expect(r.state).to.equal("confirmed");
    expect(r.hash).to.equal(sent.hash);
  });

  it("should fail explicitly (TX_DROPPED) when the reorged chain used the transaction's nonce", async function () {
    const wallet = await fundedWallet();
    const to = Wallet.createRandom().address;
    const journal = new TxJournal(store);
    const s = slot();
    const mark = await chain.faults!.markFork();
    const sent = await journal.send(tuned({}), wallet, s, "wrap", transfer(to), { units: UNITS });
    await chain.faults!.reorg(mark, 1);
    // The other branch: the same account's nonce spent on something else.
    await (
      await wallet.sendTransaction({
        to: Wallet.createRandom().address,
        value: 5n,
        nonce: sent.nonce,
      })
    ).wait();

    let failure: unknown;
    try {
      await journal.verifyFinal(s.executionId, [tuned({})]);
    } catch (err) {
      failure = err;
    }
    expect(failure).to.be.instanceOf(TransactionDroppedError);
    const body = (failure as TransactionDroppedError).toBody();
    expect(body.error).to.equal("TX_DROPPED");
    expect(body.action_index).to.equal(0);
    expect(body.tx_hash).to.equal(sent.hash);
    expect((await row(s.executionId)).state).to.equal("dropped");
    expect(await chain.provider.getBalance(to)).to.equal(0n);
  });

  it("should notice a reorg while waiting for depth and wait for the re-mined transaction", async function () {
    const wallet = await fundedWallet();
    const to = Wallet.createRandom().address;
    const view = tuned({ confirmations: 3 }, false);
    const mark = await chain.faults!.markFork();
    const pending = new TxJournal(store).send(view, wallet, slot(), "wrap", transfer(to), {
      units: UNITS,
    });
    await until(async () => (await chain.provider.getBalance(to)) > 0n, "the first inclusion");
    await chain.faults!.reorg(mark, 0);
    // The journal broadcasts it again; blocks come from elsewhere (no block producer here).
    await until(async () => (await chain.provider.getBalance(to)) > 0n, "the re-inclusion");
    await chain.faults!.mine(3);
    const sent = await pending;
    const block = await chain.provider.getBlock(sent.receipt.blockNumber);
    expect(block!.hash).to.equal(sent.receipt.blockHash);
    expect(await chain.provider.getBalance(to)).to.equal(1_000n);
  });

  it("should replace a transaction not mined in time with a fee bump at the same nonce", async function () {
    const wallet = await fundedWallet();
    const to = Wallet.createRandom().address;
    const s = slot();
    await chain.faults!.stallMining();
    const pending = new TxJournal(store).send(
      tuned({ stuckAfterMs: 200, feeBumpPercent: 25 }),
      wallet,
      s,
      "wrap",
      transfer(to),
      { units: UNITS },
    );
    const versions = async () =>
      (
        await store.query<{ raw: string }>(
          "SELECT v.raw FROM engine_tx_versions v JOIN engine_txs t ON t.id = v.tx_id WHERE t.execution_id = $1 ORDER BY v.created_at",
          [s.executionId],
        )
      ).map((v) => Transaction.from(v.raw));
    await until(async () => (await versions()).length >= 3, "two replacements");
    await chain.faults!.resumeMining();
    const sent = await pending;
    const all = await versions();
    expect(new Set(all.map((t) => t.nonce)).size).to.equal(1);
    for (let i = 1; i < all.length; i++)
      expect(all[i]!.maxFeePerGas! * 100n).to.be.at.least(all[i - 1]!.maxFeePerGas! * 125n);
    expect(all.map((t) => t.hash)).to.include(sent.hash);
    expect(sent.hash).to.not.equal(all[0]!.hash);
    expect((await row(s.executionId)).hash).to.equal(sent.hash);
    expect(await chain.provider.getBalance(to)).to.equal(1_000n);
  });

  it("should wait at the fee cap without blocking another account's transactions, then complete", async function () {
    const stuck = await fundedWallet();
    const other = await fundedWallet();
    const to = Wallet.createRandom().address;
    const s = slot();
    const journal = new TxJournal(store);
    const stuckHashes: string[] = [];
    journal.onStuck = (_c, hash) => stuckHashes.push(hash);
    const reliability: ChainReliability = { ...DEVNET_RELIABILITY, stuckAfterMs: 600_000 };
    const view: RoutingChain = { ...chain, reliability };

    await chain.faults!.stallMining();
    const pending = journal.send(view, stuck, s, "wrap", transfer(to), { units: UNITS });
    await until(async () => (await row(s.executionId).catch(() => null))?.state === "sent", "sent");
    // The cap is what the transaction already offers: no replacement fits under it.
    const offered = Transaction.from(
      (await chain.provider.getTransaction((await row(s.executionId)).hash))!,
    ).maxFeePerGas!;
    const capGwei = Number(formatUnits(offered, "gwei"));
    reliability.maxFeePerGasGwei = capGwei;
    reliability.stuckAfterMs = 150;
    // Congestion: the next blocks' base fee is far above what the transaction offers.
    await chain.faults!.raiseBaseFee(50);
    await chain.faults!.intervalMining(100);
    await until(async () => stuckHashes.length > 0, "the cap to be reached");

    // Another account's transaction, quoted at today's base fee, is mined meanwhile.
    const otherSent = await new TxJournal(store).send(
      tuned({}),
      other,
      slot(),
      "wrap",
      transfer(Wallet.createRandom().address),
      { units: UNITS },
    );
    expect(otherSent.status).to.equal("confirmed");
    expect(await chain.provider.getBalance(to)).to.equal(0n);
    const [{ n }] = (await store.query<{ n: string }>(
      "SELECT count(*) AS n FROM engine_tx_versions v JOIN engine_txs t ON t.id = v.tx_id WHERE t.execution_id = $1",
      [s.executionId],
    )) as [{ n: string }];
    expect(Number(n)).to.equal(0);

    await chain.faults!.resumeMining();
    await chain.faults!.restoreBaseFee();
    const sent = await pending;
    expect(sent.status).to.equal("confirmed");
    expect(
      Transaction.from((await chain.provider.getTransaction(sent.hash))!).maxFeePerGas,
    ).to.be.at.most(parseUnits(String(capGwei), "gwei"));
    expect(await chain.provider.getBalance(to)).to.equal(1_000n);
  });

  it("should broadcast again a transaction dropped from the node's pool", async function () {
    const wallet = await fundedWallet();
    const to = Wallet.createRandom().address;
    const s = slot();
    await chain.faults!.stallMining();
    const pending = new TxJournal(store).send(
      tuned({ stuckAfterMs: 60_000 }),
      wallet,
      s,
      "wrap",
      transfer(to),
      { units: UNITS },
    );
    await until(async () => (await row(s.executionId).catch(() => null))?.state === "sent", "sent");
    const { hash } = await row(s.executionId);
    expect(await chain.faults!.dropTransaction(hash)).to.equal(true);
    expect(await chain.provider.getTransaction(hash)).to.equal(null);
    await until(async () => (await chain.provider.getTransaction(hash)) !== null, "re-broadcast");
    await chain.faults!.resumeMining();
    const sent = await pending;
    expect(sent.hash).to.equal(hash);
    expect(await chain.provider.getBalance(to)).to.equal(1_000n);
  });

  it("should repair a nonce-too-high jam left by a previous process from the chain and the journal", async function () {
    const wallet = await fundedWallet();
    const start = await chain.provider.getTransactionCount(wallet.address, "latest");
    const recipients = [0, 1].map(() => Wallet.createRandom().address);
    // What a process that died left: two signed transactions journalled as sent, which the node
    // no longer holds (its pool was lost), and the nonce counter past them.
    const fees = await chain.provider.getFeeData();
    for (const [i, to] of recipients.entries()) {
      const raw = await wallet.signTransaction({
        ...transfer(to),
        chainId: chain.chainId,
        nonce: start + i,
        type: 2,
        maxFeePerGas: fees.maxFeePerGas! * 2n,
        maxPriorityFeePerGas: fees.maxPriorityFeePerGas!,
      });
      await store.query(
        `INSERT INTO engine_txs (execution_id, action_index, slot, kind, chain_id, sender, nonce, hash, raw, gas_limit, state)
         VALUES ($1, 0, 'transfer', 'wrap', $2, $3, $4, $5, $6, 21000, 'sent')`,
        [
          `exec_jam_${seq}_${i}`,
          chain.chainId,
          wallet.address,
          start + i,
          Transaction.from(raw).hash,
          raw,
        ],
      );
    }
    await store.query(
      "INSERT INTO engine_nonces (chain_id, address, next_nonce) VALUES ($1, $2, $3)",
      [chain.chainId, wallet.address, start + 2],
    );

    // A new process: its first send meets "nonce too high" and repairs before retrying.
    const to = Wallet.createRandom().address;
    const sent = await new TxJournal(store).send(tuned({}), wallet, slot(), "wrap", transfer(to), {
      units: UNITS,
    });
    expect(sent.nonce).to.equal(start + 2);
    expect(await chain.provider.getTransactionCount(wallet.address, "latest")).to.equal(start + 3);
    for (const r of [...recipients, to])
      expect(await chain.provider.getBalance(r)).to.equal(1_000n);
  });

  it("should replace at once a journalled transaction whose fee the chain no longer takes", async function () {
    const wallet = await fundedWallet();
    const to = Wallet.createRandom().address;
    const s = slot();
    const nonce = await chain.provider.getTransactionCount(wallet.address, "latest");
    // Signed and journalled by a process that died before broadcasting it, at a fee below today's
    // base fee: an automining node refuses it outright instead of pooling it.
    const raw = await wallet.signTransaction({
      ...transfer(to),
      chainId: chain.chainId,
      nonce,
      type: 2,
      maxFeePerGas: 1_000n,
      maxPriorityFeePerGas: 1n,
    });
    await store.query(
      `INSERT INTO engine_txs (execution_id, action_index, slot, kind, chain_id, sender, nonce, hash, raw, gas_limit, state)
       VALUES ($1, 0, 'transfer', 'wrap', $2, $3, $4, $5, $6, 21000, 'signed')`,
      [s.executionId, chain.chainId, wallet.address, nonce, Transaction.from(raw).hash, raw],
    );
    const sent = await new TxJournal(store).send(tuned({}), wallet, s, "wrap", transfer(to), {
      units: UNITS,
    });
    expect(sent.resumed).to.equal(true);
    expect(sent.nonce).to.equal(nonce);
    expect(sent.hash).to.not.equal(Transaction.from(raw).hash);
    expect(await chain.provider.getBalance(to)).to.equal(1_000n);
    expect((await row(s.executionId)).hash).to.equal(sent.hash);
  });

  it("should sign again when a lagging node's nonce makes the broadcast fail with nonce too low", async function () {
    const wallet = await fundedWallet();
    const journal = new TxJournal(store);
    const first = await journal.send(
      tuned({}),
      wallet,
      slot(),
      "wrap",
      transfer(Wallet.createRandom().address),
      { units: UNITS },
    );
    // The account used outside the engine: the chain is one nonce ahead of the journal.
    await (await wallet.sendTransaction({ to: Wallet.createRandom().address, value: 1n })).wait();
    // A node behind the chain answers the pending count of before that transaction, once.
    let lagging = true;
    const provider = new Proxy(chain.provider, {
      get(target, key) {
        if (key === "getTransactionCount")
          return async (address: string, tag: string) => {
            const count = await target.getTransactionCount(address, tag);
            if (lagging && tag === "pending") {
              lagging = false;
              return count - 1;
            }
            return count;
          };
        const value = Reflect.get(target, key, target) as unknown;
        return typeof value === "function" ? (value as () => unknown).bind(target) : value;
      },
    }) as Provider;
    const view = { ...tuned({}), provider } as RoutingChain;
    const s = slot();
    const to = Wallet.createRandom().address;
    const sent = await journal.send(view, wallet.connect(chain.provider), s, "wrap", transfer(to), {
      units: UNITS,
    });
    expect(lagging).to.equal(false);
    expect(sent.nonce).to.equal(first.nonce + 2);
    expect(await chain.provider.getBalance(to)).to.equal(1_000n);
    const rows = await store.query("SELECT id FROM engine_txs WHERE execution_id = $1", [
      s.executionId,
    ]);
    expect(rows).to.have.length(1);
  });
});
