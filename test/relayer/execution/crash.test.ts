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
import { freePort } from "../../fixtures/net.ts";
import { createTestDatabase } from "../../fixtures/postgres.ts";

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
  function startWorker(crashAt?: string): { exited: Promise<NodeJS.Signals | number | null> } {
    const proc = spawn(process.execPath, [path.join(PROJECT_ROOT, "relayer/worker-main.ts")], {
      cwd: PROJECT_ROOT,
      env: {
        ...process.env,
        DATABASE_URL: db.url,
        DATA_DIR: root,
        VERIFLOW_MASTER_KEY: masterKey,
        VERIFLOW_CHAINS: chainsFile,
        VERIFLOW_ENGINE_LEASE_SECONDS: "2",
        LOG_LEVEL: "warn",
        NODE_ENV: "test",
        ...(crashAt ? { VERIFLOW_CRASH_AT: crashAt } : { VERIFLOW_CRASH_AT: "" }),
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
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

  it("should complete every execution exactly once across SIGKILLs at every step boundary", async function () {
    // A real key: the report the worker stores is an artifact owned by it.
    const { record } = await createApiKey(ctx.store, Buffer.from(masterKey, "hex"), {
      tier: "enterprise",
      label: "crash",
    });
    const apiKeyId = record.id;
    const { account } = await ensureAccount(
      ctx.store,
      masterKeyCipher(Buffer.from(masterKey, "hex")),
      apiKeyId,
    );
    const arbitrum = chains.byName("arbitrum");
    const polygon = chains.byName("polygon");
    for (const chain of [arbitrum, polygon]) {
      await fundFromDevnet(
        chain,
        new Wallet(DEVNET_ACCOUNTS[5]!.privateKey, chain.provider),
        account.address,
      );
    }
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
    let killed = 0;
    for (const crashAt of crashes) {
      if (await allDone(ids)) break;
      const { exited } = startWorker(crashAt);
      // Either the worker dies at its crash point or everything completes first.
      for (;;) {
        const outcome = await Promise.race([
          exited,
          new Promise((r) => setTimeout(() => r("tick"), 200)),
        ]);
        if (outcome === "SIGKILL") {
          killed++;
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
    expect(killed).to.be.at.least(3);
    // A final worker without faults finishes what is left.
    const started = Date.now();
    const { exited } = startWorker();
    while (!(await allDone(ids))) await new Promise((r) => setTimeout(r, 200));
    process.stderr.write(
      `      (final worker finished in ${Date.now() - started} ms after ${killed} kills)\n`,
    );
    child?.kill("SIGTERM");
    await exited;

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
});
