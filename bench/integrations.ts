/**
 * Cost of anchoring external interactions: latency of a signed, JWT-authorised CRM call
 * (`GET /crm/orders`, stand-in on 127.0.0.1, response HMAC verified) anchored at once
 * (logAPIInteraction before the caller gets the data) versus batched (recorded; one anchorBatch
 * later), and the gas per interaction of each. Embedded devnet (EDR, automine) and PGlite.
 * Writes bench/results/integrations.json. Run: `npm run bench:integrations`.
 */
import { mkdir, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { startCrm } from "../test/fixtures/standins/index.ts";
import {
  entry,
  HMAC_KEY,
  JWT_SECRET,
  openIntegrationWorld,
} from "../test/relayer/integrations/world.ts";

const CALLS = 50;
const root = path.resolve(import.meta.dirname, "..");
const world = await openIntegrationWorld();
const crm = await startCrm({ jwtSecret: JWT_SECRET, hmacKey: HMAC_KEY });

const summary = (samples: number[]) => {
  const sorted = [...samples].sort((a, b) => a - b);
  const q = (p: number) => Math.round(sorted[Math.ceil(p * sorted.length) - 1]! * 100) / 100;
  return { calls: samples.length, p50_ms: q(0.5), p95_ms: q(0.95), max_ms: q(1) };
};

async function run(name: string, interval: string) {
  const integrations = world.build({
    integrations: {
      [name]: entry(
        crm.url,
        {},
        {
          response_hmac: { key_vault: "local", credential_id: "crm-hmac" },
          blockchain_anchor: { interval, contract: "ProofRegistry" },
        },
      ),
    },
  });
  crm.setPublicKey(await world.publicKey(name));
  const call = () =>
    integrations.client(name).call({
      method: "GET",
      path: "/crm/orders",
      query: { status: "unpaid" },
      headers: { "X-Blockchain-Proof": "true" },
    });
  for (let i = 0; i < 3; i++) await call(); // warm-up
  const samples: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    const t = performance.now();
    await call();
    samples.push(performance.now() - t);
  }
  return { integrations, samples };
}

const immediate = await run("crm_immediate", "immediate");
const [gasRow] = await world.store.query<{ gas: string; n: string }>(
  "SELECT sum(gas_used::numeric)::text AS gas, count(*)::text AS n FROM engine_txs WHERE execution_id LIKE 'api_%'",
);
const batched = await run("crm_batched", "1h");
const t = performance.now();
const [batchId] = await batched.integrations.anchorDue({ force: true });
const anchorMs = performance.now() - t;
const [batchTx] = await world.store.query<{ gas_used: string }>(
  "SELECT gas_used FROM engine_txs WHERE execution_id = $1",
  [`ib_${batchId}`],
);
const batchCount = CALLS + 3;

const output = {
  generated_at: new Date().toISOString(),
  machine: {
    cpus: os.cpus().length,
    cpu: os.cpus()[0]?.model ?? "unknown",
    node: process.version,
    loadavg: os.loadavg(),
  },
  setup: {
    call: "GET /v2/crm/orders?status=unpaid: Ed25519-signed, JWT bearer, strict schema, response HMAC verified; stand-in on 127.0.0.1",
    store: "PGlite (embedded)",
    chain: "embedded devnet (EDR, automine, in process)",
    sequential: true,
    warmup_calls: 3,
  },
  immediate: {
    ...summary(immediate.samples),
    gas_per_interaction: Math.round(Number(gasRow!.gas) / Number(gasRow!.n)),
  },
  batched: {
    ...summary(batched.samples),
    anchor_batch: {
      interactions: batchCount,
      ms: Math.round(anchorMs),
      gas: Number(batchTx!.gas_used),
      gas_per_interaction: Math.round(Number(batchTx!.gas_used) / batchCount),
    },
  },
};
await mkdir(path.join(root, "bench/results"), { recursive: true });
await writeFile(
  path.join(root, "bench/results/integrations.json"),
  JSON.stringify(output, null, 2) + "\n",
);
console.log(JSON.stringify(output, null, 2));
await crm.close();
await world.close();
