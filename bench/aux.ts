/**
 * Latency of each aux endpoint over real HTTP (node-server on 127.0.0.1), sequential requests,
 * each freshly signed: the relayer on PGlite with the embedded devnet's ethereum chain.
 * Writes bench/results/aux.json. Run: `npm run bench:aux`.
 */
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { MaxUint256, parseUnits, Wallet, type BrowserProvider } from "ethers";
import { signedHeaders } from "../relayer/auth/hmac.ts";
import { DEVNET_ACCOUNTS } from "../relayer/devnet/accounts.ts";
import { startAuxService } from "../test/relayer/aux/service.ts";

const root = path.resolve(import.meta.dirname, "..");
const REAL_LIST = [
  path.resolve(root, "../shared/data/ofac-sanctioned-eth.txt"),
  path.resolve(root, "../../shared/data/ofac-sanctioned-eth.txt"),
].find(existsSync);
const SAMPLE_LIST = path.join(root, "test/relayer/aux/fixtures/sdn-advanced-sample.xml");
process.env.VERIFLOW_SANCTIONS_FILES = REAL_LIST ?? SAMPLE_LIST;

const TORNADO_ROUTER = "0x8589427373D6D84E98730D7795D8f6f8731FDA16";

interface Stats {
  requests: number;
  mean_ms: number;
  p50_ms: number;
  p95_ms: number;
  p99_ms: number;
  max_ms: number;
}

function stats(samples: number[]): Stats {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
  const round = (v: number) => Math.round(v * 100) / 100;
  return {
    requests: samples.length,
    mean_ms: round(samples.reduce((a, b) => a + b, 0) / samples.length),
    p50_ms: round(at(0.5)),
    p95_ms: round(at(0.95)),
    p99_ms: round(at(0.99)),
    max_ms: round(sorted[sorted.length - 1]!),
  };
}

const svc = await startAuxService({
  VERIFLOW_LIMITS: JSON.stringify(
    Object.fromEntries(
      ["free", "pro", "enterprise"].map((t) => [t, { requestsPerMinute: 10_000_000 }]),
    ),
  ),
});
const server = serve({ fetch: svc.app.fetch, hostname: "127.0.0.1", port: 0 });
await new Promise<void>((resolve) => server.once("listening", () => resolve()));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const { key, secret } = svc.credentials;

async function call(
  method: string,
  target: string,
  body?: unknown,
  auth: "hmac" | "bearer" = "hmac",
): Promise<Response> {
  const text = body === undefined ? undefined : JSON.stringify(body);
  const headers: Record<string, string> =
    auth === "hmac"
      ? signedHeaders(key, secret, text ?? "", String(Date.now()))
      : { Authorization: `Bearer ${key}` };
  if (text !== undefined) headers["Content-Type"] = "application/json";
  return fetch(`${base}${target}`, { method, headers, body: text });
}

async function measure(
  name: string,
  runs: number,
  request: () => Promise<Response>,
  expected = 200,
): Promise<[string, Stats]> {
  const samples: number[] = [];
  for (let i = 0; i < runs + 3; i++) {
    const started = performance.now();
    const res = await request();
    await res.arrayBuffer();
    const elapsed = performance.now() - started;
    if (res.status !== expected)
      throw new Error(`${name}: HTTP ${res.status}, expected ${expected}`);
    if (i >= 3) samples.push(elapsed); // the first three warm caches and JIT
  }
  const result = stats(samples);
  console.log(`${name.padEnd(40)} p50 ${result.p50_ms} ms  p95 ${result.p95_ms} ms  (n=${runs})`);
  return [name, result];
}

// A swap to simulate: a funded devnet account, approved on the router.
const chain = svc.chains.byName("ethereum");
const trader = new Wallet(DEVNET_ACCOUNTS[8]!.privateKey, chain.provider as BrowserProvider);
const router = chain.contract("UniswapRouter");
const usdc = chain.contract("USDC", trader);
await (await usdc.getFunction("approve")(await router.getAddress(), MaxUint256)).wait();
const swap = {
  chain_id: chain.chainId,
  tx_data: {
    from: trader.address,
    to: await router.getAddress(),
    data: router.interface.encodeFunctionData("swapExactTokensForTokens", [
      parseUnits("10000", 6),
      0n,
      [await usdc.getAddress(), chain.deployment.tokens.WETH!.address],
      trader.address,
      2n ** 40n,
    ]),
  },
  block_count: 12,
};
const transfer = {
  chain_id: chain.chainId,
  tx_data: {
    from: trader.address,
    to: await usdc.getAddress(),
    data: usdc.interface.encodeFunctionData("transfer", [TORNADO_ROUTER, 1n]),
  },
};
let counter = 0;
const cid = (
  (await (await call("POST", "/artifacts", { bench: "artifact", n: 0 })).json()) as { cid: string }
).cid;

const results = Object.fromEntries([
  await measure("GET /compliance/check", 200, () =>
    call("GET", `/compliance/check?address=${TORNADO_ROUTER}`),
  ),
  await measure("GET /v3/compliance (Bearer)", 200, () =>
    call("GET", `/v3/compliance?address=${TORNADO_ROUTER}`, undefined, "bearer"),
  ),
  await measure("POST /compliance (Bearer)", 200, () =>
    call("POST", "/compliance", { address: TORNADO_ROUTER }, "bearer"),
  ),
  await measure("POST /tx/simulate (uniswap swap)", 50, () => call("POST", "/tx/simulate", swap)),
  await measure("POST /tx/simulate (token transfer)", 50, () =>
    call("POST", "/tx/simulate", transfer),
  ),
  await measure(
    "POST /artifacts",
    200,
    () => call("POST", "/artifacts", { bench: "artifact", n: ++counter }),
    201,
  ),
  await measure("GET /artifacts/{cid}", 200, () => call("GET", `/artifacts/${cid}`)),
  await measure("GET /artifacts/{cid}/car", 200, () => call("GET", `/artifacts/${cid}/car`)),
]);

const output = {
  generated_at: new Date().toISOString(),
  machine: { cpus: os.cpus().length, cpu: os.cpus()[0]?.model ?? "unknown", node: process.version },
  setup: {
    transport:
      "HTTP/1.1 on 127.0.0.1 (node-server), sequential requests, HMAC signed per request unless Bearer",
    store: "PGlite (embedded)",
    chain: "embedded devnet ethereum (EDR, in process)",
    sanctions_list: REAL_LIST ? "published OFAC ETH list (shared/data)" : "SDN advanced XML sample",
    warmup_requests: 3,
  },
  endpoints: results,
};
await mkdir(path.join(root, "bench/results"), { recursive: true });
await writeFile(path.join(root, "bench/results/aux.json"), JSON.stringify(output, null, 2) + "\n");
console.log("wrote bench/results/aux.json");
server.close();
await svc.close();
