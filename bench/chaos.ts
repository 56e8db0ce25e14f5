/**
 * `npm run chaos`: concurrent workflows on the JSON-RPC devnet (two `hardhat node` processes, each
 * behind an RPC front this script can stop) executed by a real worker process
 * (relayer/worker-main.ts, `npm run worker`) while the script injects faults on a seeded
 * schedule:
 *
 * - the worker is killed with SIGKILL at random moments (not at crash points) and restarted;
 * - one chain's RPC is stopped and started (connections refused, state kept);
 * - a chain's base fee is held above the engine's congestion cap for a while;
 * - mining stalls on a chain and one of the engine's pending transactions is dropped from the
 *   node's pool.
 *
 * Then a worker without faults finishes, and the run is checked from the chains and the database:
 * every execution terminal with an explicit reason, 0 lost and 0 duplicated transfers (each
 * recipient holds exactly what the executions' mined multisends paid it, each bridge deposit
 * released once with its amount), each account's balance change equal to what its mined
 * transactions moved, every journalled nonce used once. Results: bench/results/chaos.json.
 *
 *   CHAOS_WORKFLOWS (50)  CHAOS_SEED (15)  CHAOS_TENANTS (5)  CHAOS_DURATION_S (60: fault window)
 *   CHAOS_OUT (bench/results/chaos.json)  CHAOS_TIMEOUT_S (900: recovery limit)
 *
 * Exit code 1 when a check fails. Needs PostgreSQL (127.0.0.1:5432, user postgres, trust).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import os from "node:os";
import path from "node:path";
import { Contract, formatUnits, JsonRpcProvider, parseUnits, toQuantity, Wallet } from "ethers";
import { ensureAccount, fundFromDevnet } from "../relayer/accounts/index.ts";
import { createApiKey } from "../relayer/auth/index.ts";
import { masterKeyCipher } from "../relayer/auth/secrets.ts";
import { openChains, type ChainHandle, type ChainSet } from "../relayer/chains/index.ts";
import { loadConfig } from "../relayer/config/index.ts";
import { createContext, type AppContext } from "../relayer/context/index.ts";
import { writeDeployment } from "../relayer/deployments/index.ts";
import { DEVNET_ACCOUNTS, DEVNET_OPERATOR } from "../relayer/devnet/accounts.ts";
import { PROJECT_ROOT } from "../relayer/devnet/artifacts.ts";
import { DEVNET_CHAINS } from "../relayer/devnet/chains.ts";
import { startDevnetNode, type DevnetNode } from "../relayer/devnet/nodes.ts";
import { deployDevnetOverRpc } from "../relayer/devnet/rpc.ts";
import { DEFAULT_BASE_FEE_CAP_GWEI } from "../relayer/execution/health.ts";
import { createLogger } from "../relayer/http/logging.ts";
import { createMetrics } from "../relayer/http/metrics.ts";
import { ERC20_ABI } from "../relayer/routing/abis.ts";
import { buildCatalogue } from "../relayer/workflows/catalogue.ts";
import { newExecutionId } from "../relayer/model/ids.ts";
import { normaliseJsonWorkflow } from "../relayer/workflows/normalise.ts";
import { freePort } from "../test/fixtures/net.ts";
import { createTestDatabase } from "../test/fixtures/postgres.ts";
import { seededRandom } from "../test/fixtures/seeded.ts";
import { SERVICE_NODE_FLAGS } from "../test/fixtures/service-flags.ts";

const env = process.env;
const WORKFLOWS = Number(env.CHAOS_WORKFLOWS ?? 50);
const SEED = Number(env.CHAOS_SEED ?? 15);
const TENANTS = Number(env.CHAOS_TENANTS ?? 5);
const DURATION_MS = Number(env.CHAOS_DURATION_S ?? 60) * 1000;
const TIMEOUT_MS = Number(env.CHAOS_TIMEOUT_S ?? 900) * 1000;
const OUT = path.resolve(env.CHAOS_OUT ?? path.join(PROJECT_ROOT, "bench/results/chaos.json"));
const CHAIN_NAMES = ["arbitrum", "polygon"] as const;
/** Blocks the devnet's supervisor mines on its own (confirmation depth needs blocks). */
const BLOCK_MS = 500;
const RELIABILITY = { confirmations: 2, stuckAfterMs: 3_000 };

const random = seededRandom(SEED);
const between = (lo: number, hi: number) => lo + Math.floor(random() * (hi - lo));
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

const started = Date.now();
const injected: Array<{ at_ms: number; fault: string; detail?: unknown }> = [];
function record(fault: string, detail?: unknown): void {
  injected.push({
    at_ms: Date.now() - started,
    fault,
    ...(detail === undefined ? {} : { detail }),
  });
  process.stdout.write(
    `[chaos ${((Date.now() - started) / 1000).toFixed(1)}s] ${fault}${detail ? ` ${JSON.stringify(detail)}` : ""}\n`,
  );
}

/** An RPC front for a node: stopping it refuses connections while the chain keeps its state. */
interface RpcFront {
  url: string;
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

async function rpcFront(target: string): Promise<RpcFront> {
  const port = await freePort();
  let server: Server | null = null;
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const s = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on("data", (c: Buffer) => chunks.push(c));
        req.on("end", () => {
          fetch(target, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: Buffer.concat(chunks),
          })
            .then(async (answer) => {
              res.writeHead(answer.status, { "content-type": "application/json" });
              res.end(Buffer.from(await answer.arrayBuffer()));
            })
            .catch(() => res.destroy());
        });
      });
      s.once("error", reject);
      s.listen(port, "127.0.0.1", () => {
        server = s;
        resolve();
      });
    });
  const stop = async () => {
    const s = server;
    if (!s) return;
    server = null;
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  };
  await listen();
  return { url: `http://127.0.0.1:${port}`, stop, start: listen, close: stop };
}

/**
 * Mines a block every BLOCK_MS (unless mining is stalled) and keeps the next block's base fee at
 * the chain's level, or at the held level during a congestion fault.
 */
function supervise(provider: JsonRpcProvider, level: bigint) {
  let held: bigint | null = null;
  let stalled = false;
  let busy = false;
  const timer = setInterval(() => {
    if (busy || stalled) return;
    busy = true;
    void (async () => {
      try {
        await provider.send("hardhat_setNextBlockBaseFeePerGas", [toQuantity(held ?? level)]);
        await provider.send("evm_mine", []);
      } catch {
        // The node answers again on the next tick.
      } finally {
        busy = false;
      }
    })();
  }, BLOCK_MS);
  return {
    hold(fee: bigint | null) {
      held = fee;
    },
    async stall(on: boolean) {
      stalled = on;
      while (busy) await sleep(10);
      await provider.send("evm_setAutomine", [!on]);
      if (!on) await provider.send("evm_mine", []);
    },
    stop: () => clearInterval(timer),
  };
}

interface Planned {
  id: string;
  tenant: number;
  kind: "multisend" | "bridge";
  chain: string;
  recipients: Array<{ address: string; amount: string }>;
  bridgeAmount?: string;
}

async function main(): Promise<void> {
  const root = await mkdtemp(path.join(os.tmpdir(), "vf-chaos-"));
  const nodes: DevnetNode[] = [];
  const fronts: RpcFront[] = [];
  const supervisors: Array<ReturnType<typeof supervise>> = [];
  const direct: JsonRpcProvider[] = [];
  let chains: ChainSet | undefined;
  let ctx: AppContext | undefined;
  let db: { url: string; drop(): Promise<void> } | undefined;
  let worker: ChildProcess | null = null;
  const masterKey = randomBytes(32).toString("hex");
  try {
    const deploymentsDir = path.join(root, "deployments");
    for (const name of CHAIN_NAMES) {
      const node = await startDevnetNode(name, { port: await freePort() });
      nodes.push(node);
      const result = await deployDevnetOverRpc(name, node.url, deploymentsDir);
      await writeDeployment(deploymentsDir, result.deployment, result.abis);
      const provider = new JsonRpcProvider(node.url, node.chainId, {
        staticNetwork: true,
        batchMaxCount: 1,
      });
      direct.push(provider);
      supervisors.push(supervise(provider, DEVNET_CHAINS[name].initialBaseFeePerGas));
      fronts.push(await rpcFront(node.url));
    }
    const chainsFile = path.join(root, "chains.json");
    await writeFile(
      chainsFile,
      JSON.stringify({
        chains: nodes.map((n, i) => ({
          name: n.name,
          chainId: n.chainId,
          rpcUrl: fronts[i]!.url,
          operatorKey: { env: "VERIFLOW_CHAOS_OPERATOR_KEY" },
          deploymentsDir,
          pollingIntervalMs: 100,
          reliability: RELIABILITY,
        })),
      }),
    );
    process.env.VERIFLOW_CHAOS_OPERATOR_KEY = DEVNET_OPERATOR.privateKey;
    // The script's own view of the chains goes to the nodes directly (never through the fronts).
    const directFile = path.join(root, "chains-direct.json");
    await writeFile(
      directFile,
      JSON.stringify({
        chains: nodes.map((n) => ({
          name: n.name,
          chainId: n.chainId,
          rpcUrl: n.url,
          operatorKey: { env: "VERIFLOW_CHAOS_OPERATOR_KEY" },
          deploymentsDir,
          pollingIntervalMs: 100,
          reliability: { confirmations: 1 },
        })),
      }),
    );
    chains = await openChains({ mode: "file", file: directFile });
    db = await createTestDatabase("chaos");
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
    const store = ctx.store;

    // Tenants: a real API key each (a report is an artifact its key owns) with its account,
    // funded on both chains.
    const cipher = masterKeyCipher(Buffer.from(masterKey, "hex"));
    const accounts: string[] = [];
    const tenantKeys: string[] = [];
    for (let t = 0; t < TENANTS; t++) {
      const { record } = await createApiKey(store, Buffer.from(masterKey, "hex"), {
        tier: "enterprise",
        label: `chaos tenant ${t}`,
      });
      tenantKeys.push(record.id);
      const { account } = await ensureAccount(store, cipher, record.id);
      for (const chain of chains.list())
        await fundFromDevnet(
          chain,
          new Wallet(DEVNET_ACCOUNTS[5]!.privateKey, chain.provider),
          account.address,
        );
      accounts.push(account.address);
    }
    const usdc = (chain: ChainHandle) =>
      new Contract(chain.deployment.tokens.USDC!.address, ERC20_ABI, chain.provider);
    const balance = async (chain: ChainHandle, who: string) =>
      (await usdc(chain).getFunction("balanceOf")(who)) as bigint;
    const accountBefore = new Map<string, bigint>();
    const startBlock = new Map<string, number>();
    for (const chain of chains.list()) {
      startBlock.set(chain.name, (await chain.provider.getBlockNumber()) + 1);
      for (const a of accounts) accountBefore.set(`${chain.name}:${a}`, await balance(chain, a));
    }

    // The workflows: multisends of USDC on either chain, and bridges of USDC to polygon followed by
    // a multisend there; fresh recipients each, amounts drawn from the seed.
    const catalogue = buildCatalogue(chains.list());
    const planned: Planned[] = [];
    for (let i = 0; i < WORKFLOWS; i++) {
      const tenant = i % TENANTS;
      const kind = random() < 0.3 ? "bridge" : "multisend";
      const chain = kind === "bridge" ? "arbitrum" : CHAIN_NAMES[between(0, 2)]!;
      const recipients = Array.from({ length: between(1, 4) }, () => ({
        address: Wallet.createRandom().address,
        amount: `${between(1, 50)}.${between(0, 100).toString().padStart(2, "0")}`,
      }));
      const bridgeAmount = kind === "bridge" ? String(between(200, 400)) : undefined;
      const actions =
        kind === "bridge"
          ? [
              {
                type: "bridge",
                chain: "arbitrum",
                from: "USDC",
                amount: bridgeAmount,
                destination: "polygon",
                protocol: "lockmint",
              },
              { type: "multisend", recipients },
            ]
          : [
              {
                type: "multisend",
                chain,
                from: "USDC",
                recipients,
                fallback_chains: CHAIN_NAMES.filter((c) => c !== chain),
              },
            ];
      const workflow = normaliseJsonWorkflow({ name: `chaos-${i}`, actions }, catalogue);
      const id = newExecutionId();
      await store.query(
        "INSERT INTO workflow_executions (id, api_key_id, name, workflow) VALUES ($1, $2, $3, $4::jsonb)",
        [id, tenantKeys[tenant]!, workflow.name, JSON.stringify(workflow)],
      );
      planned.push({
        id,
        tenant,
        kind,
        chain,
        recipients,
        ...(bridgeAmount ? { bridgeAmount } : {}),
      });
    }
    for (const p of planned) await ctx.queue.send("workflow.execute", { executionId: p.id });
    record("submitted", { workflows: WORKFLOWS, tenants: TENANTS });

    const ids = planned.map((p) => p.id);
    const terminal = async () => {
      const rows = await store.query<{ state: string }>(
        "SELECT state FROM workflow_executions WHERE id = ANY($1)",
        [ids],
      );
      return rows.filter((r) => ["completed", "failed", "cancelled"].includes(r.state)).length;
    };

    let workerStarts = 0;
    let workerReady: Promise<void> = Promise.resolve();
    const startWorker = () => {
      workerStarts++;
      const proc = spawn(
        process.execPath,
        [...SERVICE_NODE_FLAGS, path.join(PROJECT_ROOT, "relayer/worker-main.ts")],
        {
          cwd: PROJECT_ROOT,
          env: {
            ...process.env,
            DATABASE_URL: db!.url,
            DATA_DIR: root,
            VERIFLOW_MASTER_KEY: masterKey,
            VERIFLOW_CHAINS: chainsFile,
            VERIFLOW_ENGINE_LEASE_SECONDS: "2",
            VERIFLOW_CRASH_AT: "",
            LOG_LEVEL: "warn",
            NODE_ENV: "test",
          },
          stdio: ["ignore", "pipe", "pipe"],
        },
      );
      workerReady = new Promise<void>((resolve) => {
        proc.stdout?.on("data", (c: Buffer) => {
          if (c.toString().includes("worker ready")) resolve();
        });
        proc.once("exit", () => resolve());
      });
      let tail = "";
      proc.stderr?.on("data", (c: Buffer) => (tail = (tail + c.toString()).slice(-2000)));
      proc.once("exit", (code, signal) => {
        if (signal !== "SIGKILL" && signal !== "SIGTERM" && code !== 0)
          process.stderr.write(`worker exited ${code}: ${tail}\n`);
      });
      worker = proc;
      return proc;
    };
    const killWorker = async (signal: NodeJS.Signals) => {
      const proc = worker;
      if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
      const exited = new Promise((r) => proc.once("exit", r));
      proc.kill(signal);
      await exited;
    };

    // The fault schedule, drawn from the seed: SIGKILLs spread over the window, one RPC outage,
    // one base-fee hold above the cap, one stalled pool with a dropped transaction.
    const faults: Array<{ at: number; run: () => Promise<void> }> = [];
    const faultKinds = new Map<object, "kill">();
    const kills = Math.max(3, Math.round(DURATION_MS / 8_000));
    for (let k = 0; k < kills; k++) {
      const at = between(1_000, DURATION_MS);
      const down = between(200, 2_000);
      const kill = {
        at,
        run: async () => {
          // Killed a random moment into a worker's work (not while it is still starting).
          await workerReady;
          await sleep(between(300, 4_000));
          record("worker SIGKILL", { restart_after_ms: down });
          await killWorker("SIGKILL");
          await sleep(down);
          startWorker();
          record("worker restarted");
        },
      };
      faults.push(kill);
      faultKinds.set(kill, "kill");
    }
    const outageChain = between(0, 2);
    faults.push({
      at: between(2_000, Math.max(2_001, DURATION_MS / 2)),
      run: async () => {
        const ms = between(2_000, 6_000);
        record("RPC stopped", { chain: CHAIN_NAMES[outageChain], for_ms: ms });
        await fronts[outageChain]!.stop();
        await sleep(ms);
        await fronts[outageChain]!.start();
        record("RPC started", { chain: CHAIN_NAMES[outageChain] });
      },
    });
    const feeChain = between(0, 2);
    faults.push({
      at: between(1_000, Math.max(1_001, DURATION_MS / 2)),
      run: async () => {
        const ms = between(10_000, 20_000);
        // Twice the engine's congestion cap: new actions there move to the other chain or wait.
        const level = parseUnits(String(DEFAULT_BASE_FEE_CAP_GWEI * 2), "gwei");
        record("base fee held above the cap", {
          chain: CHAIN_NAMES[feeChain],
          gwei: Number(formatUnits(level, "gwei")),
          cap_gwei: DEFAULT_BASE_FEE_CAP_GWEI,
          for_ms: ms,
        });
        supervisors[feeChain]!.hold(level);
        await direct[feeChain]!.send("hardhat_setNextBlockBaseFeePerGas", [toQuantity(level)]);
        await direct[feeChain]!.send("evm_mine", []);
        await sleep(ms);
        supervisors[feeChain]!.hold(null);
        record("base fee released", { chain: CHAIN_NAMES[feeChain] });
      },
    });
    const dropChain = between(0, 2);
    faults.push({
      at: between(3_000, Math.max(3_001, DURATION_MS - 5_000)),
      run: async () => {
        const provider = direct[dropChain]!;
        await supervisors[dropChain]!.stall(true);
        record("mining stalled", { chain: CHAIN_NAMES[dropChain] });
        // The first engine transaction that arrives in the stalled pool is dropped.
        let dropped: string | null = null;
        const until = Date.now() + 60_000;
        while (!dropped && Date.now() < until) {
          const pending = (await provider.send("eth_getBlockByNumber", ["pending", false])) as {
            transactions?: string[];
          } | null;
          const hash = pending?.transactions?.[0];
          if (hash && (await provider.send("hardhat_dropTransaction", [hash]))) dropped = hash;
          else await sleep(100);
        }
        record("transaction dropped from the pool", {
          chain: CHAIN_NAMES[dropChain],
          hash: dropped,
        });
        // Stalled past the stuck timeout: the waiting transactions are replaced with fee bumps.
        await sleep(RELIABILITY.stuckAfterMs + 2_000);
        await supervisors[dropChain]!.stall(false);
        record("mining resumed", { chain: CHAIN_NAMES[dropChain] });
      },
    });
    faults.sort((a, b) => a.at - b.at);

    startWorker();
    record("worker started");
    const windowStart = Date.now();
    const running: Array<Promise<void>> = [];
    for (const fault of faults) {
      const wait = windowStart + fault.at - Date.now();
      if (wait > 0) await sleep(wait);
      const isKill = faultKinds.has(fault);
      // Faults of different kinds overlap; kills wait for the previous restart.
      const run = fault.run().catch((err: unknown) => record("fault failed", String(err)));
      running.push(run);
      if (isKill) await run;
    }
    await Promise.all(running);
    record("faults over; recovery");

    // Recovery: the last worker (restart it if a kill left none) runs until every execution ends.
    if (
      !worker ||
      (worker as ChildProcess).exitCode !== null ||
      (worker as ChildProcess).signalCode !== null
    )
      startWorker();
    const recoveryStart = Date.now();
    while ((await terminal()) < ids.length && Date.now() - recoveryStart < TIMEOUT_MS)
      await sleep(500);
    const recoveryMs = Date.now() - recoveryStart;
    await killWorker("SIGTERM");
    record("recovered", { terminal: await terminal(), of: ids.length, recovery_ms: recoveryMs });

    // Checks, from the database and the chains.
    const rows = await store.query<{
      id: string;
      state: string;
      error: ({ error?: string } & Record<string, unknown>) | null;
    }>("SELECT id, state, error FROM workflow_executions WHERE id = ANY($1)", [ids]);
    const byId = new Map(rows.map((r) => [r.id, r]));
    const outcomes: Record<string, number> = {};
    const reasons: Record<string, number> = {};
    // Each failure's whole error body (a risk stop carries its agent and every metric), so a run's
    // failures are read from the results, not inferred after the database is gone.
    const failures: { execution: string; state: string; error: unknown }[] = [];
    let unexplained = 0;
    for (const r of rows) {
      outcomes[r.state] = (outcomes[r.state] ?? 0) + 1;
      if (r.state === "failed" || r.state === "cancelled") {
        failures.push({ execution: r.id, state: r.state, error: r.error });
        const reason = r.error?.error;
        if (!reason) unexplained++;
        else reasons[reason] = (reasons[reason] ?? 0) + 1;
      }
    }
    const notTerminal =
      ids.length -
      rows.filter((r) => ["completed", "failed", "cancelled"].includes(r.state)).length;

    // Which multisends and deposits the chains executed: the journal's mined transactions.
    const mined = await store.query<{
      execution_id: string;
      action_index: number;
      kind: string;
      chain_id: number;
      hash: string;
      state: string;
    }>(
      "SELECT execution_id, action_index, kind, chain_id, hash, state FROM engine_txs WHERE execution_id = ANY($1) AND state = 'confirmed'",
      [ids],
    );
    const minedMultisend = new Map<string, number>();
    for (const t of mined)
      if (t.kind === "multisend") minedMultisend.set(t.execution_id, Number(t.chain_id));
    let lost = 0;
    let duplicated = 0;
    let completedUnpaid = 0;
    const polygon = chains.byName("polygon");
    for (const p of planned) {
      const paidOn = minedMultisend.get(p.id);
      for (const r of p.recipients) {
        let held = 0n;
        for (const chain of chains.list()) held += await balance(chain, r.address);
        const expected = paidOn === undefined ? 0n : parseUnits(r.amount, 6);
        if (held > expected) duplicated++;
        if (held < expected) lost++;
      }
      if (byId.get(p.id)?.state === "completed" && paidOn === undefined) completedUnpaid++;
    }
    // Bridges: every deposit of an execution released exactly once with its amount.
    const arbitrum = chains.byName("arbitrum");
    const srcBridge = arbitrum.contract("LockMintBridge");
    const destBridge = polygon.contract("LockMintBridge");
    const deposits = await srcBridge.queryFilter(srcBridge.filters.Deposited!(), 0, "latest");
    let unreleased = 0;
    let doubleReleased = 0;
    for (const d of deposits) {
      const args = (d as unknown as { args: { nonce: bigint; amount: bigint } }).args;
      const releases = await destBridge.queryFilter(
        destBridge.filters.Released!(arbitrum.chainId, args.nonce),
        0,
        "latest",
      );
      if (releases.length === 0) unreleased++;
      if (releases.length > 1) doubleReleased++;
    }
    // Accounts: what left each account equals what its mined transfers moved (multisends paid,
    // bridge amounts deposited, released amounts received).
    let accountMismatches = 0;
    const accountChecks: Array<{
      chain: string;
      account: string;
      delta: string;
      explained: string;
    }> = [];
    for (const chain of chains.list()) {
      for (const [t, a] of accounts.entries()) {
        const delta = (await balance(chain, a)) - accountBefore.get(`${chain.name}:${a}`)!;
        let explained = 0n;
        for (const p of planned.filter((q) => q.tenant === t)) {
          if (minedMultisend.get(p.id) === chain.chainId)
            for (const r of p.recipients) explained -= parseUnits(r.amount, 6);
        }
        const transfers = await usdc(chain).queryFilter(
          usdc(chain).filters.Transfer!(),
          startBlock.get(chain.name)!,
          "latest",
        );
        for (const ev of transfers) {
          const { from, to, value } = (
            ev as unknown as { args: { from: string; to: string; value: bigint } }
          ).args;
          const bridge = chain.deployment.contracts.LockMintBridge!.address.toLowerCase();
          if (from.toLowerCase() === a.toLowerCase() && to.toLowerCase() === bridge)
            explained -= value;
          if (to.toLowerCase() === a.toLowerCase() && from.toLowerCase() === bridge)
            explained += value;
          if (
            to.toLowerCase() === a.toLowerCase() &&
            from === "0x0000000000000000000000000000000000000000"
          )
            explained += value;
        }
        if (delta !== explained) accountMismatches++;
        accountChecks.push({
          chain: chain.name,
          account: a,
          delta: delta.toString(),
          explained: explained.toString(),
        });
      }
    }
    // Nonces: every journalled transaction of an account used one nonce, none skipped or reused.
    let nonceProblems = 0;
    for (const chain of chains.list()) {
      for (const a of accounts) {
        const journal = await store.query<{ nonce: string; state: string }>(
          "SELECT nonce, state FROM engine_txs WHERE chain_id = $1 AND sender = $2 ORDER BY nonce",
          [chain.chainId, a],
        );
        const onChain = await chain.provider.getTransactionCount(a, "latest");
        const used = journal.filter((r) => r.state !== "released" && r.state !== "dropped").length;
        const fillers = journal.filter((r) => r.state === "released").length;
        if (onChain !== used + fillers && onChain !== used) nonceProblems++;
      }
    }
    const versions = await store.query<{ n: string }>(
      "SELECT count(*) AS n FROM engine_tx_versions v JOIN engine_txs t ON t.id = v.tx_id WHERE t.execution_id = ANY($1)",
      [ids],
    );
    const fallbacks = await store.query<{ n: string }>(
      "SELECT count(*) AS n FROM engine_steps WHERE execution_id = ANY($1) AND fallback_from IS NOT NULL",
      [ids],
    );

    const checks = {
      every_execution_terminal: notTerminal === 0,
      every_failure_explained: unexplained === 0,
      lost_transfers: lost,
      duplicated_transfers: duplicated,
      completed_without_payment: completedUnpaid,
      deposits_unreleased: unreleased,
      deposits_released_twice: doubleReleased,
      account_balance_mismatches: accountMismatches,
      nonce_problems: nonceProblems,
    };
    const held =
      checks.every_execution_terminal &&
      checks.every_failure_explained &&
      lost +
        duplicated +
        completedUnpaid +
        unreleased +
        doubleReleased +
        accountMismatches +
        nonceProblems ===
        0;
    const result = {
      suite: "chaos",
      command: "npm run chaos",
      seed: SEED,
      workflows: WORKFLOWS,
      tenants: TENANTS,
      fault_window_ms: DURATION_MS,
      chains: CHAIN_NAMES,
      reliability: RELIABILITY,
      block_interval_ms: BLOCK_MS,
      machine: { cpus: os.cpus().length, loadavg: os.loadavg() },
      injected,
      worker_starts: workerStarts,
      recovery_ms: recoveryMs,
      outcomes,
      failure_reasons: reasons,
      failures,
      fee_replacements: Number(versions[0]?.n ?? 0),
      steps_on_fallback_chains: Number(fallbacks[0]?.n ?? 0),
      bridge_deposits: deposits.length,
      checks,
      held,
      account_checks: accountChecks,
      total_ms: Date.now() - started,
    };
    await mkdir(path.dirname(OUT), { recursive: true });
    await writeFile(OUT, JSON.stringify(result, null, 2) + "\n");
    process.stdout.write(
      `${JSON.stringify({ outcomes, reasons, failures, checks, held }, null, 2)}\nwritten ${OUT}\n`,
    );
    process.exitCode = held ? 0 : 1;
  } finally {
    if (worker) (worker as ChildProcess).kill("SIGKILL");
    supervisors.forEach((s) => s.stop());
    await ctx?.queue.stop(1_000).catch(() => {});
    await ctx?.store.close().catch(() => {});
    await db?.drop().catch(() => {});
    await chains?.close();
    direct.forEach((p) => p.destroy());
    await Promise.allSettled(fronts.map((f) => f.close()));
    await Promise.allSettled(nodes.map((n) => n.stop()));
    await rm(root, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`chaos failed: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
