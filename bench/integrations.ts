/**
 * Cost of anchoring external interactions: latency of a signed, JWT-authorised CRM call
 * (`GET /crm/orders`, stand-in on 127.0.0.1, response HMAC verified) anchored at once
 * (logAPIInteraction before the caller gets the data) versus batched (recorded; one anchorBatch
 * later), and the gas per interaction of each. Embedded devnet (EDR, automine) and PGlite.
 *
 * Then a CRM-fed payout end to end (docs/integrations.md#orders-from-the-crm-as-payout-recipients-recipients_from):
 * the whole relayer in process with the CRM and payment gateway stand-ins, one workflow whose
 * multisend pays BENCH_PAYOUT_ORDERS (default 100) unpaid orders, from submission to the signed
 * report (fetch, payout, proof and attestation, one settlement per order), its gas per order, and
 * the anchoring gas per interaction when the fetch and the settlements are anchored in one batch.
 *
 * Writes bench/results/integrations.json. Run: `npm run bench:integrations`.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Wallet } from "ethers";
import { putCredential, signingPublicKey } from "../relayer/integrations/index.ts";
import { startEngineService } from "../test/fixtures/engine.ts";
import { startCrm, startPaymentGateway } from "../test/fixtures/standins/index.ts";
import {
  entry,
  HMAC_KEY,
  JWT_SECRET,
  openIntegrationWorld,
} from "../test/relayer/integrations/world.ts";
import { quantile, rounded } from "./stats.ts";

const CALLS = 50;
const root = path.resolve(import.meta.dirname, "..");
const world = await openIntegrationWorld();
const crm = await startCrm({ jwtSecret: JWT_SECRET, hmacKey: HMAC_KEY });

const summary = (samples: number[]) => {
  const q = (p: number) => rounded(quantile(samples, p), 2);
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
await crm.close();
await world.close();

const PAYOUT_ORDERS = Number(process.env.BENCH_PAYOUT_ORDERS ?? 100);

/** One CRM-fed payout of PAYOUT_ORDERS orders through the whole relayer. */
async function payout() {
  const orders = Array.from({ length: PAYOUT_ORDERS }, (_, i) => ({
    id: `ord_${String(i).padStart(4, "0")}`,
    customer: `customer-${i}`,
    amount: `${1 + (i % 7)}.25`,
    currency: "USDC",
    status: "unpaid",
    wallet: Wallet.createRandom().address,
  }));
  const payoutCrm = await startCrm({ jwtSecret: JWT_SECRET, hmacKey: HMAC_KEY, orders });
  const gateway = await startPaymentGateway({ jwtSecret: JWT_SECRET });
  const dir = await mkdtemp(path.join(os.tmpdir(), "vf-bench-payout-"));
  const auth = { type: "jwt_bearer", key_vault: "local", credential_id: "standin-jwt" };
  const batched = { blockchain_anchor: { interval: "1h", contract: "ProofRegistry" } };
  const file = path.join(dir, "integrations.json");
  await writeFile(
    file,
    JSON.stringify({
      integrations: {
        crm: {
          url: payoutCrm.url,
          auth,
          validation: {
            schema: "crm.orders",
            version: "2.5",
            response_hmac: { key_vault: "local", credential_id: "crm-hmac" },
            ...batched,
          },
        },
        payments: {
          url: gateway.url,
          auth,
          validation: { schema: "payments.create", version: "1.0", ...batched },
          retry: { attempts: 5, backoff: "fibonacci", initial_delay: "50ms", max_delay: "2s" },
        },
      },
      payments: { integration: "payments", service_fee: "1.00", currency: "USDC" },
    }),
  );
  const service = await startEngineService({ env: { VERIFLOW_INTEGRATIONS: file } });
  try {
    const { store, masterKey } = service.ctx;
    await putCredential(store, masterKey, "standin-jwt", JWT_SECRET);
    await putCredential(store, masterKey, "crm-hmac", HMAC_KEY);
    payoutCrm.setPublicKey(await signingPublicKey(store, masterKey, "crm"));
    gateway.setPublicKey(await signingPublicKey(store, masterKey, "payments"));
    const key = await service.newKey();
    const body = JSON.stringify({
      name: "bench-payout",
      actions: [
        {
          type: "multisend",
          chain: "arbitrum",
          from: "USDC",
          amount: "10000",
          recipients_from: {
            integration: "crm",
            path: "/crm/orders",
            query: { status: "unpaid" },
            address: "wallet",
            amount: "amount",
            asset: "currency",
            max_orders: Math.max(PAYOUT_ORDERS, 1),
          },
        },
      ],
    });
    const started = performance.now();
    const submitted = await service.request(key, "POST", "/v1/workflows", body);
    if (submitted.status !== 202) throw new Error(`submission: ${await submitted.text()}`);
    const { execution_id: id } = (await submitted.json()) as { execution_id: string };
    type View = { state: string; report: { report: Record<string, unknown> } | null };
    let view: View;
    for (;;) {
      view = (await (await service.request(key, "GET", `/v1/workflows/${id}`)).json()) as View;
      if (["completed", "failed", "cancelled"].includes(view.state)) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const seconds = (performance.now() - started) / 1000;
    if (view.state !== "completed")
      throw new Error(`payout ${view.state}: ${JSON.stringify(view)}`);
    const report = view.report!.report as {
      actions: Array<{ result: { txs: Array<{ kind: string; gasUsed: string }> } }>;
      orders: { settlements: unknown[]; unsettled: unknown[] };
      zk_proof: string | null;
      proof_note?: string;
    };
    const txs = report.actions[0]!.result.txs;
    const gasOf = (kind: string) =>
      txs.filter((t) => t.kind === kind).reduce((sum, t) => sum + Number(t.gasUsed), 0);
    const multisendGas = gasOf("multisend");
    const allGas = txs.reduce((sum, t) => sum + Number(t.gasUsed), 0);
    const anchorStarted = performance.now();
    const batches = await service.ctx.integrations!.anchorDue({ force: true });
    const anchorMs = performance.now() - anchorStarted;
    const anchored = await store.query<{ gas_used: string; n: string }>(
      `SELECT t.gas_used, (SELECT count(*) FROM integration_interactions i WHERE i.batch_id = b.id)::text AS n
         FROM integration_batches b JOIN engine_txs t ON t.execution_id = 'ib_' || b.id
        WHERE b.id = ANY($1)`,
      [batches],
    );
    const anchorGas = anchored.reduce((sum, r) => sum + Number(r.gas_used), 0);
    const interactions = anchored.reduce((sum, r) => sum + Number(r.n), 0);
    return {
      orders: PAYOUT_ORDERS,
      seconds_end_to_end: Math.round(seconds * 100) / 100,
      includes: "submission → fetch → payout → proof + attestation → settlements → signed report",
      proved: report.zk_proof !== null,
      ...(report.proof_note ? { proof_note: report.proof_note } : {}),
      settled: report.orders.settlements.length,
      unsettled: report.orders.unsettled.length,
      gateway_requests: gateway.hits.length,
      gas: {
        multisend: multisendGas,
        multisend_per_order: PAYOUT_ORDERS ? Math.round(multisendGas / PAYOUT_ORDERS) : null,
        all_payout_txs: allGas,
        all_per_order: PAYOUT_ORDERS ? Math.round(allGas / PAYOUT_ORDERS) : null,
      },
      anchoring: {
        batches: anchored.length,
        interactions,
        ms: Math.round(anchorMs),
        gas: anchorGas,
        gas_per_interaction: interactions ? Math.round(anchorGas / interactions) : null,
      },
    };
  } finally {
    await service.close();
    await payoutCrm.close();
    await gateway.close();
    await rm(dir, { recursive: true, force: true });
  }
}
const crmPayout = await payout();

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
  crm_payout: crmPayout,
};
await mkdir(path.join(root, "bench/results"), { recursive: true });
await writeFile(
  path.join(root, "bench/results/integrations.json"),
  JSON.stringify(output, null, 2) + "\n",
);
console.log(JSON.stringify(output, null, 2));
