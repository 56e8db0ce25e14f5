/**
 * `npm run bench:devnet`: time to start the three devnet chains and deploy everything on them,
 * in process (the relayer's embedded mode, `npm start`, tests) and over JSON-RPC (`npm run devnet`).
 * Target: the three in-process chains deployed in under 20 s. Writes bench/results/devnet.json.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { PROJECT_ROOT } from "../relayer/devnet/artifacts.ts";
import { freePort } from "../test/fixtures/net.ts";
import { median } from "./stats.ts";

const RUNS = Number(process.env.BENCH_DEVNET_RUNS ?? 3);
const TARGET_MS = 20_000;

const importStarted = performance.now();
const { startEmbeddedDevnet } = await import("../relayer/devnet/embedded.ts");
const importMs = performance.now() - importStarted;

const embedded: { totalMs: number; blocks: number[]; contracts: number; pools: number }[] = [];
for (let run = 0; run < RUNS; run++) {
  const started = performance.now();
  const chains = await startEmbeddedDevnet();
  const totalMs = performance.now() - started;
  const blocks = await Promise.all(chains.map((c) => c.provider.getBlockNumber()));
  embedded.push({
    totalMs: Math.round(totalMs),
    blocks,
    contracts: Object.keys(chains[0]!.deployment.contracts).length,
    pools: chains[0]!.deployment.pools.length,
  });
  await Promise.all(chains.map((c) => c.close()));
  console.log(`embedded run ${run + 1}/${RUNS}: ${Math.round(totalMs)} ms`);
}

// One JSON-RPC run: spawn three `hardhat node` processes and deploy over HTTP.
const { startDevnetNode } = await import("../relayer/devnet/nodes.ts");
const { deployDevnetOverRpc } = await import("../relayer/devnet/rpc.ts");
const { DEVNET_CHAIN_NAMES } = await import("../relayer/devnet/plan.ts");
const scratch = await mkdtemp(path.join(os.tmpdir(), "veriflow-bench-devnet-"));
const rpcStarted = performance.now();
const nodes = await Promise.all(
  DEVNET_CHAIN_NAMES.map(async (name) => startDevnetNode(name, { port: await freePort() })),
);
const nodesMs = performance.now() - rpcStarted;
await Promise.all(nodes.map((n) => deployDevnetOverRpc(n.name, n.url, scratch)));
const rpcMs = performance.now() - rpcStarted;
await Promise.all(nodes.map((n) => n.stop()));
await rm(scratch, { recursive: true, force: true });
console.log(`json-rpc: nodes up in ${Math.round(nodesMs)} ms, deployed in ${Math.round(rpcMs)} ms`);

const totals = embedded.map((r) => r.totalMs);
const medianMs = median(totals);
const maxMs = Math.max(...totals);
const result = {
  benchmark: "devnet",
  measuredAt: new Date().toISOString(),
  machine: { cpus: os.cpus().length, node: process.version },
  target: { embeddedThreeChainsDeployedMs: TARGET_MS },
  embedded: {
    description:
      "network.create x3 + full deployment (tokens, 2 exchanges x 7 pools, bridge, multisend, oracle, core via Ignition), concurrently",
    hardhatImportMs: Math.round(importMs),
    runs: embedded,
    medianMs,
    maxMs,
    meetsTarget: maxMs < TARGET_MS,
  },
  jsonRpc: {
    description: "spawn 3 `hardhat node` processes + deploy over HTTP (npm run devnet)",
    nodesUpMs: Math.round(nodesMs),
    totalMs: Math.round(rpcMs),
  },
};
await mkdir(path.join(PROJECT_ROOT, "bench", "results"), { recursive: true });
await writeFile(
  path.join(PROJECT_ROOT, "bench", "results", "devnet.json"),
  JSON.stringify(result, null, 2) + "\n",
);
console.log(JSON.stringify(result, null, 2));
