/**
 * Latency of each aux endpoint over real HTTP (node-server on 127.0.0.1), sequential requests,
 * each freshly signed: the relayer on PGlite with the embedded devnet's ethereum chain.
 * Writes bench/results/aux.json. Run: `npm run bench:aux`.
 */
import { createWriteStream, existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import {
  getAddress,
  keccak256,
  MaxUint256,
  parseUnits,
  toBeHex,
  Wallet,
  type BrowserProvider,
} from "ethers";
import { signedHeaders } from "../relayer/auth/hmac.ts";
import { loadListFile } from "../relayer/compliance/lists.ts";
import { DEVNET_ACCOUNTS } from "../relayer/devnet/accounts.ts";
import { startAuxService } from "../test/fixtures/aux-service.ts";
import { quantile, rounded } from "./stats.ts";

const root = path.resolve(import.meta.dirname, "..");
const REAL_LIST = [
  path.resolve(root, "../shared/data/ofac-sanctioned-eth.txt"),
  path.resolve(root, "../../shared/data/ofac-sanctioned-eth.txt"),
].find(existsSync);
const SAMPLE_LIST = path.join(root, "test/fixtures/sanctions/sdn-advanced-sample.xml");
const SANCTIONS_FILES = REAL_LIST ?? SAMPLE_LIST;

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
  const at = (q: number) => rounded(quantile(samples, q), 2);
  return {
    requests: samples.length,
    mean_ms: rounded(samples.reduce((a, b) => a + b, 0) / samples.length, 2),
    p50_ms: at(0.5),
    p95_ms: at(0.95),
    p99_ms: at(0.99),
    max_ms: at(1),
  };
}

/**
 * Load time of the list formats: the published ETH list when present, and a synthetic file in the
 * sdn_advanced.xml layout of the real list's size class (every party with names, programs and
 * features, one in ten with an ETH address), since the real advanced file is over 100 MB.
 */
async function listLoading() {
  const figures: Record<string, unknown> = {};
  if (REAL_LIST) {
    const started = performance.now();
    const loaded = await loadListFile("ofac-sdn", REAL_LIST);
    figures.published_eth_text = {
      entries: loaded.entries.size,
      load_ms: Math.round(performance.now() - started),
    };
  }
  const dir = await mkdtemp(path.join(os.tmpdir(), "vf-bench-sdn-"));
  const file = path.join(dir, "sdn_advanced.xml");
  const parties = 60_000;
  const out = createWriteStream(file);
  const write = (text: string) =>
    new Promise<void>((resolve) =>
      out.write(text) ? resolve() : out.once("drain", () => resolve()),
    );
  await write(
    `<?xml version="1.0" encoding="utf-8"?>\n<Sanctions xmlns="http://www.un.org/sanctions/1.0"><ReferenceValueSets><FeatureTypeValues><FeatureType ID="344">Digital Currency Address - XBT</FeatureType><FeatureType ID="345">Digital Currency Address - ETH</FeatureType><FeatureType ID="8">Birthdate</FeatureType></FeatureTypeValues></ReferenceValueSets><DistinctParties>\n`,
  );
  for (let i = 0; i < parties; i++) {
    const eth =
      i % 10 === 0
        ? `<Feature ID="${i}5" FeatureTypeID="345"><FeatureVersion ID="${i}6" ReliabilityID="1"><VersionDetail DetailTypeID="1432">${getAddress("0x" + keccak256(toBeHex(i, 32)).slice(26))}</VersionDetail></FeatureVersion></Feature>`
        : "";
    await write(
      `<DistinctParty FixedRef="${i}"><Comment/><Profile ID="${i}" PartySubTypeID="4"><Identity ID="${i}1" FixedRef="${i}" Primary="true" False="false"><Alias FixedRef="${i}" AliasTypeID="1403" Primary="true" LowQuality="false"><DocumentedName ID="${i}2" FixedRef="${i}" DocNameStatusID="1"><DocumentedNamePart><NamePartValue NamePartGroupID="${i}3" ScriptID="215" ScriptStatusID="1" Acronym="false">PARTY NUMBER ${i} TRADING COMPANY LIMITED</NamePartValue></DocumentedNamePart></DocumentedName></Alias></Identity><Feature ID="${i}4" FeatureTypeID="8"><FeatureVersion ID="${i}7" ReliabilityID="1"><DatePeriod CalendarTypeID="1" YearFixed="false" MonthFixed="false" DayFixed="false"><Start Approximate="false" YearFixed="false" MonthFixed="false" DayFixed="false"><From><Year>1970</Year><Month>1</Month><Day>1</Day></From><To><Year>1970</Year><Month>1</Month><Day>1</Day></To></Start></DatePeriod></FeatureVersion></Feature>${eth}</Profile></DistinctParty>\n`,
    );
  }
  await write("</DistinctParties></Sanctions>\n");
  await new Promise<void>((resolve) => out.end(() => resolve()));
  const size = (await stat(file)).size;
  const heapBefore = process.memoryUsage().heapUsed;
  const started = performance.now();
  const loaded = await loadListFile("ofac-sdn", file);
  const ms = performance.now() - started;
  figures.synthetic_sdn_advanced_xml = {
    bytes: size,
    parties,
    eth_entries: loaded.entries.size,
    load_ms: Math.round(ms),
    mb_per_s: Math.round((size / 1e6 / (ms / 1000)) * 10) / 10,
    heap_growth_mb: Math.round((process.memoryUsage().heapUsed - heapBefore) / 1e6),
  };
  await rm(dir, { recursive: true, force: true });
  console.log("list loading", JSON.stringify(figures));
  return figures;
}

const lists = await listLoading();

const svc = await startAuxService({
  VERIFLOW_SANCTIONS_FILES: SANCTIONS_FILES,
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
  // Each run proves four fresh artifacts and anchors a new root (Groth16 proof + on-chain anchor).
  await measure("POST /zk/generate (4 artifacts)", 5, async () => {
    const fresh: string[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await call("POST", "/artifacts", { bench: "zk", run: ++counter, i });
      fresh.push(((await res.json()) as { cid: string }).cid);
    }
    return call("POST", "/zk/generate", { artifacts: fresh });
  }),
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
  sanctions_list_loading: lists,
};
await mkdir(path.join(root, "bench/results"), { recursive: true });
await writeFile(path.join(root, "bench/results/aux.json"), JSON.stringify(output, null, 2) + "\n");
console.log("wrote bench/results/aux.json");
server.close();
await svc.close();
