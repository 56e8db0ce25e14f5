import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect } from "chai";
import { Contract, parseUnits, Wallet } from "ethers";
import { ensureAccount, fundFromDevnet } from "../../../relayer/accounts/index.ts";
import { openChains, type ChainSet } from "../../../relayer/chains/index.ts";
import { writeDeployment } from "../../../relayer/deployments/index.ts";
import { loadConfig } from "../../../relayer/config/index.ts";
import { createContext, type AppContext } from "../../../relayer/context/index.ts";
import { DEVNET_ACCOUNTS, DEVNET_OPERATOR } from "../../../relayer/devnet/accounts.ts";
import { PROJECT_ROOT } from "../../../relayer/devnet/artifacts.ts";
import { DEVNET_CHAINS } from "../../../relayer/devnet/chains.ts";
import { keepBaseFee, startDevnetNode, type DevnetNode } from "../../../relayer/devnet/nodes.ts";
import { deployDevnetOverRpc } from "../../../relayer/devnet/rpc.ts";
import { createApiKey } from "../../../relayer/auth/index.ts";
import { masterKeyCipher } from "../../../relayer/auth/secrets.ts";
import { createLogger } from "../../../relayer/http/logging.ts";
import { createMetrics } from "../../../relayer/http/metrics.ts";
import { ERC20_ABI } from "../../../relayer/routing/abis.ts";
import { buildCatalogue } from "../../../relayer/workflows/catalogue.ts";
import { normaliseJsonWorkflow } from "../../../relayer/workflows/normalise.ts";
import { newExecutionId } from "../../../relayer/model/ids.ts";
import { settlementKey } from "../../../relayer/integrations/index.ts";
import type { ReportOrders } from "../../../relayer/report/report.ts";
import { freePort } from "../../fixtures/net.ts";
import { SERVICE_NODE_FLAGS } from "../../fixtures/service-flags.ts";
import { startCrm, startPaymentGateway } from "../../fixtures/standins/index.ts";
import { RECIPIENTS_FROM_JSON } from "../../fixtures/workflows.ts";
import {
  HMAC_KEY,
  JWT_SECRET,
  trustPayoutStandIns,
  writePayoutIntegrations,
} from "../integrations/world.ts";
import { createTestDatabase } from "../../fixtures/postgres.ts";

/** The workers' execution lease: a killed worker's executions wait this long to be resumed. */
const LEASE_SECONDS = 2;

/**
 * Exactly-once under crashes: a real worker process (`npm run worker`, relayer/worker-main.ts)
 * is killed with SIGKILL at several points of its executions (a transaction signed but not sent,
 * sent but its receipt not stored, confirmed but the step not completed, a step completed, a bridge
 * deposit made but not released), restarted each time, and the on-chain balances, bridge nonces
 * and account nonces prove that every action happened exactly once.
 */
describe("# crash safety (SIGKILL a worker process, restart, exactly once)", function () {
  this.timeout(600_000);
  const nodes: DevnetNode[] = [];
  const keepers: Array<() => void> = [];
  let root: string;
  let chainsFile: string;
  let chains: ChainSet;
  let db: { url: string; drop: () => Promise<void> };
  let ctx: AppContext;
  const masterKey = randomBytes(32).toString("hex");
  let child: ChildProcess | null = null;

  before(async function () {
    root = await mkdtemp(path.join(tmpdir(), "vf-crash-"));
    const deploymentsDir = path.join(root, "deployments");
    const names = ["arbitrum", "polygon"] as const;
    for (const name of names) {
      const node = await startDevnetNode(name, { port: await freePort() });
      nodes.push(node);
      const result = await deployDevnetOverRpc(name, node.url, deploymentsDir);
      await writeDeployment(deploymentsDir, result.deployment, result.abis);
      keepers.push(keepBaseFee(node.url, node.chainId, DEVNET_CHAINS[name].initialBaseFeePerGas));
    }
    chainsFile = path.join(root, "chains.json");
    await writeFile(
      chainsFile,
      JSON.stringify({
        chains: nodes.map((n) => ({
          name: n.name,
          chainId: n.chainId,
          rpcUrl: n.url,
          operatorKey: { env: "VERIFLOW_TEST_OPERATOR_KEY" },
          deploymentsDir,
          pollingIntervalMs: 50,
          // Automining devnet nodes: one block is final (no blocks come on their own).
          reliability: { confirmations: 1 },
        })),
      }),
    );
    process.env.VERIFLOW_TEST_OPERATOR_KEY = DEVNET_OPERATOR.privateKey;
    chains = await openChains({ mode: "file", file: chainsFile });
    db = await createTestDatabase("engine_crash");
    ctx = await createContext(
      loadConfig({
        DATA_DIR: root,
        DATABASE_URL: db.url,
        VERIFLOW_MASTER_KEY: masterKey,
        LOG_LEVEL: "silent",
        NODE_ENV: "test",
      }),
      {
        logger: createLogger("silent"),
        metrics: createMetrics({ defaultMetrics: false }),
        queueSchedule: false,
      },
    );
  });

  after(async function () {
    child?.kill("SIGKILL");
    await ctx?.queue.stop(1_000).catch(() => {});
    await ctx?.store.close().catch(() => {});
    await db?.drop().catch(() => {});
    await chains?.close();
    keepers.forEach((stop) => stop());
    await Promise.allSettled(nodes.map((n) => n.stop()));
    await rm(root, { recursive: true, force: true });
  });

  /** Starts a worker process; resolves with its exit signal (or null if it is still running). */
  function startWorker(
    crashAt?: string,
    env: Record<string, string> = {},
  ): { exited: Promise<NodeJS.Signals | number | null> } {
    const proc = spawn(
      process.execPath,
      [...SERVICE_NODE_FLAGS, path.join(PROJECT_ROOT, "relayer/worker-main.ts")],
      {
        cwd: PROJECT_ROOT,
        env: {
          ...process.env,
          DATABASE_URL: db.url,
          DATA_DIR: root,
          VERIFLOW_MASTER_KEY: masterKey,
          VERIFLOW_CHAINS: chainsFile,
          VERIFLOW_ENGINE_LEASE_SECONDS: String(LEASE_SECONDS),
          LOG_LEVEL: "warn",
          NODE_ENV: "test",
          ...env,
          ...(crashAt ? { VERIFLOW_CRASH_AT: crashAt } : { VERIFLOW_CRASH_AT: "" }),
        },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    child = proc;
    let output = "";
    proc.stdout?.on("data", (c: Buffer) => (output = (output + c.toString()).slice(-4000)));
    proc.stderr?.on("data", (c: Buffer) => (output = (output + c.toString()).slice(-4000)));
    const exited = new Promise<NodeJS.Signals | number | null>((resolve) =>
      proc.once("exit", (code, signal) => {
        if (code !== null && code !== 0) process.stderr.write(`worker exited ${code}: ${output}\n`);
        resolve(signal ?? code);
      }),
    );
    return { exited };
  }

  async function states(ids: string[]): Promise<string[]> {
    const rows = await ctx.store.query<{ id: string; state: string }>(
      "SELECT id, state FROM workflow_executions WHERE id = ANY($1) ORDER BY id",
      [ids],
    );
    return rows.map((r) => r.state);
  }

  async function allDone(ids: string[]): Promise<boolean> {
    return (await states(ids)).every(
      (s) => s === "completed" || s === "failed" || s === "cancelled",
    );
  }

  /**
   * One worker per crash point, each killed there (SIGKILL) unless everything completes first,
   * then a worker without faults finishes what is left. Returns how many workers were killed.
   */
  async function workThrough(
    crashes: readonly string[],
    ids: string[],
    env: Record<string, string> = {},
  ): Promise<number> {
    let killed = 0;
    for (const crashAt of crashes) {
      if (await allDone(ids)) break;
      const { exited } = startWorker(crashAt, env);
      // Either the worker dies at its crash point or everything completes first.
      for (;;) {
        const outcome = await Promise.race([
          exited,
          new Promise((r) => setTimeout(() => r("tick"), 200)),
        ]);
        if (outcome === "SIGKILL") {
          killed++;
          // The worker took its leases for VERIFLOW_ENGINE_LEASE_SECONDS, not the default 30 s:
          // the next one resumes within two seconds of the kill.
          const leases = await ctx.store.query<{ left: number }>(
            "SELECT extract(epoch FROM expires_at - now())::float8 AS left FROM engine_leases WHERE execution_id = ANY($1)",
            [ids],
          );
          for (const { left } of leases) expect(left, crashAt).to.be.at.most(LEASE_SECONDS);
          break;
        }
        if (outcome !== "tick") throw new Error(`worker exited unexpectedly: ${String(outcome)}`);
        if (await allDone(ids)) {
          child?.kill("SIGKILL");
          await exited;
          break;
        }
      }
    }
    const started = Date.now();
    const { exited } = startWorker(undefined, env);
    while (!(await allDone(ids))) await new Promise((r) => setTimeout(r, 200));
    process.stderr.write(
      `      (final worker finished in ${Date.now() - started} ms after ${killed} kills)\n`,
    );
    child?.kill("SIGTERM");
    await exited;
    return killed;
  }

  /**
   * A real key (the report a worker stores is an artifact owned by it) and its relayer-managed
   * account, funded on both chains.
   */
  async function fundedKey(label: string) {
    const { record } = await createApiKey(ctx.store, Buffer.from(masterKey, "hex"), {
      tier: "enterprise",
      label,
    });
    const { account } = await ensureAccount(
      ctx.store,
      masterKeyCipher(Buffer.from(masterKey, "hex")),
      record.id,
    );
    for (const chain of chains.list()) {
      await fundFromDevnet(
        chain,
        new Wallet(DEVNET_ACCOUNTS[5]!.privateKey, chain.provider),
        account.address,
      );
    }
    return { apiKeyId: record.id, account };
  }

  it("should complete every execution exactly once across SIGKILLs at every step boundary", async function () {
    const { apiKeyId, account } = await fundedKey("crash");
    const arbitrum = chains.byName("arbitrum");
    const polygon = chains.byName("polygon");
    const catalogue = buildCatalogue(chains.list());
    const recipients = [
      Wallet.createRandom().address,
      Wallet.createRandom().address,
      Wallet.createRandom().address,
    ];
    const runs = 2;
    const ids: string[] = [];
    for (let i = 0; i < runs; i++) {
      const workflow = normaliseJsonWorkflow(
        {
          name: `crash-${i}`,
          actions: [
            {
              type: "swap",
              chain: "arbitrum",
              from: "USDC",
              to: "DAI",
              amount: "1000",
              slippage: 2,
            },
            { type: "bridge", destination: "polygon", protocol: "lockmint" },
            {
              type: "multisend",
              recipients: [
                { address: recipients[0]!, amount: "10" },
                { address: recipients[1]!, amount: "20" },
                { address: recipients[2]!, amount: "50%" },
              ],
            },
          ],
        },
        catalogue,
      );
      const id = newExecutionId();
      await ctx.store.query(
        "INSERT INTO workflow_executions (id, api_key_id, name, workflow) VALUES ($1, $2, $3, $4::jsonb)",
        [id, apiKeyId, workflow.name, JSON.stringify(workflow)],
      );
      await ctx.queue.send("workflow.execute", { executionId: id });
      ids.push(id);
    }
    const usdc = (c: typeof arbitrum) =>
      new Contract(c.deployment.tokens.USDC!.address, ERC20_ABI, c.provider);
    const dai = (c: typeof arbitrum) =>
      new Contract(c.deployment.tokens.DAI!.address, ERC20_ABI, c.provider);
    const usdcBefore = (await usdc(arbitrum).getFunction("balanceOf")(account.address)) as bigint;
    const bridgeNonceBefore = (await arbitrum
      .contract("LockMintBridge")
      .getFunction("nextNonce")()) as bigint;

    // Crash points, in order; each worker is killed there, the next one resumes.
    const crashes = [
      "tx.signed:1",
      "tx.sent:2",
      "tx.confirmed:3",
      "step.completed:2",
      "bridge.deposited:1",
      "tx.signed:4",
      "tx.confirmed:5",
    ];
    const killed = await workThrough(crashes, ids);
    expect(killed).to.be.at.least(3);

    const errors = await ctx.store.query<{ error: unknown }>(
      "SELECT error FROM workflow_executions WHERE id = ANY($1)",
      [ids],
    );
    expect(await states(ids), JSON.stringify(errors)).to.deep.equal(ids.map(() => "completed"));

    // Exactly once, from the chains: USDC spent once per execution, one bridge deposit each,
    // recipients paid once per execution.
    const usdcAfter = (await usdc(arbitrum).getFunction("balanceOf")(account.address)) as bigint;
    expect(usdcBefore - usdcAfter).to.equal(BigInt(runs) * 1000n * 10n ** 6n);
    const bridgeNonceAfter = (await arbitrum
      .contract("LockMintBridge")
      .getFunction("nextNonce")()) as bigint;
    expect(bridgeNonceAfter - bridgeNonceBefore).to.equal(BigInt(runs));
    expect((await dai(polygon).getFunction("balanceOf")(recipients[0])) as bigint).to.equal(
      BigInt(runs) * 10n * 10n ** 18n,
    );
    expect((await dai(polygon).getFunction("balanceOf")(recipients[1])) as bigint).to.equal(
      BigInt(runs) * 20n * 10n ** 18n,
    );
    const steps = await ctx.store.query<{ action_index: number; result: { amount_out?: string } }>(
      "SELECT action_index, result FROM engine_steps WHERE execution_id = ANY($1) AND action_index = 1",
      [ids],
    );
    const halfOfBridged = steps.reduce(
      (sum, r) => sum + parseUnits(String(r.result.amount_out), 18) / 2n,
      0n,
    );
    const third = (await dai(polygon).getFunction("balanceOf")(recipients[2])) as bigint;
    expect(third).to.equal(halfOfBridged);

    // Nonces: every journalled transaction of the account used one nonce, none reused or skipped.
    for (const chain of [arbitrum, polygon]) {
      const rows = await ctx.store.query<{ nonce: string; state: string }>(
        "SELECT nonce, state FROM engine_txs WHERE chain_id = $1 AND sender = $2 ORDER BY nonce",
        [chain.chainId, account.address],
      );
      const sent = rows.filter((r) => r.state !== "released").map((r) => Number(r.nonce));
      expect(sent).to.deep.equal([...Array(sent.length).keys()]);
      expect(await chain.provider.getTransactionCount(account.address)).to.equal(sent.length);
    }
  });

  it("should settle each paid order exactly once and pay once across SIGKILLs between the payout and its settlements", async function () {
    const dir = await mkdtemp(path.join(root, "integrations-"));
    const wallets = [0, 1, 2].map(() => Wallet.createRandom().address);
    const orders = [
      { id: "ord_1", amount: "12.5", status: "unpaid" },
      { id: "ord_2", amount: "80", status: "paid" },
      { id: "ord_3", amount: "3.25", status: "unpaid" },
      { id: "ord_4", amount: "40", status: "unpaid" },
    ].map((o, i) => ({ ...o, customer: `c${i}`, currency: "USDC", wallet: wallets[i % 3]! }));
    const unpaid = ["ord_1", "ord_3", "ord_4"];
    const crm = await startCrm({ jwtSecret: JWT_SECRET, hmacKey: HMAC_KEY, orders });
    const gateway = await startPaymentGateway({ jwtSecret: JWT_SECRET });
    try {
      const integrations = path.join(dir, "integrations.json");
      await writePayoutIntegrations(integrations, { crm, gateway });
      await trustPayoutStandIns(ctx, { crm, gateway });

      const { apiKeyId } = await fundedKey("crash-settlement");
      const arbitrum = chains.byName("arbitrum");
      const catalogue = { ...buildCatalogue(chains.list()), recipientSources: new Set(["crm"]) };
      const { schedule: _s, timezone: _t, ...body } = structuredClone(RECIPIENTS_FROM_JSON);
      body.actions[0]!.amount = "500";
      const workflow = normaliseJsonWorkflow({ ...body, name: "crash-settlement" }, catalogue);
      const id = newExecutionId();
      await ctx.store.query(
        "INSERT INTO workflow_executions (id, api_key_id, name, workflow) VALUES ($1, $2, $3, $4::jsonb)",
        [id, apiKeyId, workflow.name, JSON.stringify(workflow)],
      );
      await ctx.queue.send("workflow.execute", { executionId: id });
      const balances = () =>
        Promise.all(
          wallets.map(
            (w) =>
              new Contract(
                arbitrum.deployment.tokens.USDC!.address,
                ERC20_ABI,
                arbitrum.provider,
              ).getFunction("balanceOf")(w) as Promise<bigint>,
          ),
        );
      const before = await balances();

      // Killed once the payout's step is complete (receipt stored, nothing settled), then once the
      // gateway has answered the second settlement but before the worker recorded it.
      const killed = await workThrough(["step.completed:1", "settlement.answered:2"], [id], {
        VERIFLOW_INTEGRATIONS: integrations,
      });
      const [row] = await ctx.store.query<{ state: string; error: unknown }>(
        "SELECT state, error FROM workflow_executions WHERE id = $1",
        [id],
      );
      expect(row!.state, JSON.stringify(row!.error)).to.equal("completed");
      expect(killed).to.equal(2);

      // Paid once, from the chain: ord_1 (12.5) and ord_4 (40) to wallet 0, ord_3 (3.25) to wallet 2.
      const after = await balances();
      expect(after.map((b, i) => b - before[i]!)).to.deep.equal([
        parseUnits("52.5", 6),
        0n,
        parseUnits("3.25", 6),
      ]);
      const multisends = await ctx.store.query<{ kind: string }>(
        "SELECT kind FROM engine_txs WHERE execution_id = $1 AND kind = 'multisend' AND state <> 'released'",
        [id],
      );
      expect(multisends).to.have.length(1);

      // Settled once, from the gateway's request log and ledger: every request for an order
      // carried that order's idempotency key; the second order was asked twice (the worker died
      // after its answer), and the replay created nothing: one 201 Created payment per order.
      const keyOf = (o: string) => settlementKey(id, o);
      const orderHits = gateway.hits.filter(
        (h) => (JSON.parse(h.body || "{}") as { order_id?: string }).order_id,
      );
      expect(orderHits.map((h) => h.headers["idempotency-key"])).to.deep.equal(
        ["ord_1", "ord_3", "ord_3", "ord_4"].map(keyOf),
      );
      for (const h of orderHits) {
        const sent = JSON.parse(h.body) as { order_id: string; reference: string };
        expect(h.headers["idempotency-key"]).to.equal(keyOf(sent.order_id));
        expect(sent.reference).to.equal(keyOf(sent.order_id));
      }
      const createdForOrders = gateway.created.filter(
        (c) => (JSON.parse(c.body || "{}") as { order_id?: string }).order_id,
      );
      expect(createdForOrders.map((c) => c.key)).to.deep.equal(unpaid.map(keyOf));

      // The report lists the three settlements with the gateway's payment ids, nothing unsettled.
      const [stored] = await ctx.store.query<{ report: { orders: ReportOrders } }>(
        "SELECT report FROM engine_reports WHERE execution_id = $1",
        [id],
      );
      const section = stored!.report.orders;
      expect(section.unsettled).to.deep.equal([]);
      expect(
        section.settlements.map((s) => [s.order_id, s.settlement_key, s.gateway_payment_id]),
      ).to.deep.equal(createdForOrders.map((c, i) => [unpaid[i], c.key, c.id]));
      expect(crm.hits).to.have.length(1);
    } finally {
      await crm.close();
      await gateway.close();
    }
  });
});
