import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import type { createApp, Services } from "../../../relayer/app/index.ts";
import { newApiKey, signedRequest, startInProcessRelayer } from "../../fixtures/relayer.ts";
import { PGlite, type Transaction } from "@electric-sql/pglite";
import { Contract, formatUnits, parseUnits, Wallet } from "ethers";
import pino from "pino";
import type { SecretCipher } from "../../../relayer/accounts/index.ts";
import { ensureAccount, fundFromDevnet } from "../../../relayer/accounts/index.ts";
import type { EngineStore } from "../../../relayer/accounts/store.ts";
import { openChains, type ChainSet } from "../../../relayer/chains/index.ts";
import { DEVNET_ACCOUNTS } from "../../../relayer/devnet/accounts.ts";
import { ERC20_ABI } from "../../../relayer/routing/abis.ts";
import type { RoutingChain } from "../../../relayer/routing/chain.ts";
import { buildCatalogue } from "../../../relayer/workflows/catalogue.ts";
import {
  normaliseJsonWorkflow,
  normaliseYamlWorkflow,
} from "../../../relayer/workflows/normalise.ts";
import type { Workflow } from "../../../relayer/workflows/model.ts";
import { newExecutionId } from "../../../relayer/workflows/ids.ts";
import type { EngineDeps } from "../../../relayer/execution/orchestrator.ts";
import { groth16Prover } from "../../../relayer/execution/proof.ts";
import { issueReceipt, receiptSignerOf } from "../../../relayer/proofs/index.ts";
import { collectEvidence } from "../../../relayer/audit/evidence.ts";

/**
 * Fixtures of the engine tests: the embedded devnet, a migrated PGlite database, an AES-256-GCM
 * cipher for account keys, helpers to submit executions and read balances.
 */
const MIGRATIONS = path.resolve(import.meta.dirname, "../../../relayer/store/migrations");

type Queryable = PGlite | Transaction;
function adapt(db: Queryable, root: PGlite): EngineStore & { exec(sql: string): Promise<void> } {
  return {
    async query<T>(sql: string, params?: unknown[]) {
      return (await db.query<T>(sql, params as unknown[])).rows;
    },
    async exec(sql: string) {
      await db.exec(sql);
    },
    async transaction<T>(fn: (tx: EngineStore) => Promise<T>): Promise<T> {
      if (db !== root) return fn(adapt(db, root));
      return root.transaction((tx) => fn(adapt(tx, root)));
    },
  };
}

export async function openTestStore(): Promise<
  EngineStore & { exec(sql: string): Promise<void>; close(): Promise<void> }
> {
  const db = new PGlite();
  const files = (await readdir(MIGRATIONS)).filter((f) => /^\d{3}_.*\.sql$/.test(f)).sort();
  for (const f of files) await db.exec(await readFile(path.join(MIGRATIONS, f), "utf8"));
  return { ...adapt(db, db), close: () => db.close() };
}

export function testCipher(key = randomBytes(32)): SecretCipher {
  return {
    encrypt(plaintext, context) {
      const iv = randomBytes(12);
      const c = createCipheriv("aes-256-gcm", key, iv);
      c.setAAD(Buffer.from(context));
      const body = Buffer.concat([c.update(plaintext, "utf8"), c.final()]);
      return [iv, body, c.getAuthTag()].map((b) => b.toString("base64url")).join(".");
    },
    decrypt(blob, context) {
      const [iv, body, tag] = blob.split(".").map((p) => Buffer.from(p, "base64url"));
      const d = createDecipheriv("aes-256-gcm", key, iv!);
      d.setAAD(Buffer.from(context));
      d.setAuthTag(tag!);
      return Buffer.concat([d.update(body!), d.final()]).toString("utf8");
    },
  };
}

export const silentLogger = pino({ level: "silent" });

export interface EngineWorld {
  chains: ChainSet;
  store: Awaited<ReturnType<typeof openTestStore>>;
  cipher: SecretCipher;
  deps: EngineDeps;
  close(): Promise<void>;
}

export async function openEngineWorld(overrides: Partial<EngineDeps> = {}): Promise<EngineWorld> {
  const chains = await openChains({ mode: "embedded" });
  const store = await openTestStore();
  const cipher = testCipher();
  const deps: EngineDeps = {
    store,
    cipher,
    chains,
    logger: silentLogger,
    prover: groth16Prover(chains),
    evidence: (refs) => collectEvidence(chains.list(), refs),
    ...overrides,
  };
  return {
    chains,
    store,
    cipher,
    deps,
    async close() {
      await store.close();
      await chains.close();
    },
  };
}

/**
 * The engine world of one `describe`, opened in its `before` hook (with the API key's account
 * funded on every chain when `apiKeyId` is given) and closed in its `after` hook.
 */
export function useEngineWorld(apiKeyId?: string): EngineWorld & { readonly account: string } {
  let world: EngineWorld | undefined;
  let account: string | undefined;
  const opened = () => {
    if (!world) throw new Error("the engine world opens in the before hook");
    return world;
  };
  before(async function () {
    world = await openEngineWorld();
    if (apiKeyId) account = await fundedAccount(world, apiKeyId);
  });
  after(async function () {
    await world?.close();
  });
  return {
    get chains() {
      return opened().chains;
    },
    get store() {
      return opened().store;
    },
    get cipher() {
      return opened().cipher;
    },
    get deps() {
      return opened().deps;
    },
    close: () => opened().close(),
    get account() {
      if (account === undefined) throw new Error("this engine world has no funded account");
      return account;
    },
  };
}

/** Devnet funder: a Hardhat test account the deployer funded with every token (#5, unused elsewhere). */
export function devnetFunder(chain: RoutingChain): Wallet {
  return new Wallet(DEVNET_ACCOUNTS[5]!.privateKey, chain.provider);
}

/** Creates the API key's account and funds it on every chain. */
export async function fundedAccount(
  world: EngineWorld,
  apiKeyId: string,
  grant?: Record<string, string>,
): Promise<string> {
  const { account } = await ensureAccount(world.store, world.cipher, apiKeyId);
  for (const chain of world.chains.list())
    await fundFromDevnet(chain, devnetFunder(chain), account.address, grant);
  return account.address;
}

export function normalise(
  world: EngineWorld,
  doc: unknown,
  format: "json" | "yaml" = "json",
): Workflow {
  const catalogue = buildCatalogue(world.chains.list());
  return format === "json"
    ? normaliseJsonWorkflow(doc, catalogue)
    : normaliseYamlWorkflow(doc, catalogue);
}

/** Inserts a queued execution the way the intake does, with its signed submission receipt. */
export async function submitExecution(
  world: EngineWorld,
  apiKeyId: string,
  workflow: Workflow,
): Promise<string> {
  const id = newExecutionId();
  const signer = receiptSignerOf(world.chains.list());
  const receipt = signer
    ? await issueReceipt({ executionId: id, apiKeyId, workflow }, signer)
    : null;
  await world.store.query(
    "INSERT INTO workflow_executions (id, api_key_id, name, workflow, receipt) VALUES ($1, $2, $3, $4::jsonb, $5::jsonb)",
    [id, apiKeyId, workflow.name, JSON.stringify(workflow), JSON.stringify(receipt)],
  );
  return id;
}

export async function balanceOf(
  chain: RoutingChain,
  symbol: string,
  address: string,
): Promise<bigint> {
  const token = chain.deployment.tokens[symbol];
  if (!token) throw new Error(`no ${symbol} on ${chain.name}`);
  return (await new Contract(token.address, ERC20_ABI, chain.provider).getFunction("balanceOf")(
    address,
  )) as bigint;
}

export function units(chain: RoutingChain, symbol: string, amount: string): bigint {
  return parseUnits(amount, chain.deployment.tokens[symbol]!.decimals);
}

export function decimal(chain: RoutingChain, symbol: string, amount: bigint): string {
  return formatUnits(amount, chain.deployment.tokens[symbol]!.decimals);
}

export interface EngineService {
  ctx: Services;
  app: ReturnType<typeof createApp>;
  chains: ChainSet;
  request(
    credentials: { key: string; secret: string },
    method: string,
    path: string,
    body?: string,
    headers?: Record<string, string>,
  ): Promise<Response>;
  newKey(
    tier?: "free" | "pro" | "enterprise",
  ): Promise<{ key: string; id: string; secret: string }>;
  close(): Promise<void>;
}

/** The whole relayer in process: embedded devnet, PGlite (or PostgreSQL), the app and its workers. */
export async function startEngineService(
  options: {
    databaseUrl?: string;
    env?: Record<string, string>;
  } = {},
): Promise<EngineService> {
  const chains = await openChains({ mode: "embedded" });
  const relayer = await startInProcessRelayer({
    label: "engine",
    ...options,
    chains,
    closeGraceMs: 2_000,
  });
  return {
    ctx: relayer.ctx,
    app: relayer.app,
    chains,
    request: (credentials, method, p, body, headers) =>
      signedRequest(relayer.app, credentials, method, p, body, { headers }),
    newKey: (tier = "enterprise") => newApiKey(relayer.ctx, tier, "engine test"),
    close: () => relayer.close(),
  };
}
