import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import { startChildRelayer, type ChildRelayer } from "../../fixtures/child.ts";
import { signedHeaders } from "../../../relayer/auth/hmac.ts";
import { PAYMENT_RATE_LIMIT } from "../../../relayer/config/integrations.ts";
import { signingPublicKey } from "../../../relayer/integrations/index.ts";
import { openStore, type Store } from "../../../relayer/store/index.ts";
import { migrate } from "../../../relayer/store/migrate.ts";
import { createTestDatabase } from "../../fixtures/postgres.ts";
import { startPaymentGateway, type StandIn } from "../../fixtures/standins/index.ts";
import { JWT_SECRET } from "./world.ts";

const PAYER = path.join(import.meta.dirname, "payer-extension.ts");

describe("# integration rate limits shared by two relayer processes on one PostgreSQL", function () {
  this.timeout(240_000);
  let drop: () => Promise<void>;
  let store: Store;
  let gateway: StandIn;
  let children: ChildRelayer[] = [];
  let dir: string;
  const masterKey = randomBytes(32);
  const bootstrap = {
    key: "vfk_bootstrap_payer",
    secret: `vfs_${randomBytes(24).toString("hex")}`,
  };

  before(async () => {
    const db = await createTestDatabase("ratelimit");
    drop = db.drop;
    store = await openStore({ databaseUrl: db.url, dataDir: "unused" });
    await migrate(store);
    gateway = await startPaymentGateway({ jwtSecret: JWT_SECRET });
    // The signing key exists before both processes start (they share it through the database).
    gateway.setPublicKey(await signingPublicKey(store, masterKey, "payments"));
    dir = await mkdtemp(path.join(os.tmpdir(), "vf-ratelimit-"));
    const file = path.join(dir, "integrations.json");
    await writeFile(
      file,
      JSON.stringify({
        integrations: {
          payments: {
            url: gateway.url,
            auth: { type: "jwt_bearer", key_vault: "env", credential_id: "STANDIN_JWT" },
            // Batched: the test is about the limit, not about one anchoring transaction per call.
            validation: { schema: "payments.create", blockchain_anchor: { interval: "1h" } },
          },
        },
      }),
    );
    const env = (n: number) => ({
      DATABASE_URL: db.url,
      DATA_DIR: path.join(dir, `data-${n}`),
      PORT: "0",
      LOG_LEVEL: "warn",
      NODE_ENV: "test",
      VERIFLOW_MASTER_KEY: masterKey.toString("hex"),
      VERIFLOW_API_KEY: bootstrap.key,
      VERIFLOW_SIGNING_SECRET: bootstrap.secret,
      VERIFLOW_TIER: "enterprise",
      VERIFLOW_INTEGRATIONS: file,
      STANDIN_JWT: JWT_SECRET,
    });
    children = await Promise.all([
      startChildRelayer(env(1), { extension: PAYER }),
      startChildRelayer(env(2), { extension: PAYER }),
    ]);
  });

  after(async () => {
    for (const child of children) child.process.kill("SIGTERM");
    await Promise.all(children.map((c) => c.exited));
    await gateway?.close();
    await store?.close();
    await drop?.();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("should hold the payments limit (25 rps, burst 100) across both processes, retries included", async () => {
    const { rps, burst } = PAYMENT_RATE_LIMIT;
    const perProcess = 80;
    // Each attempt takes a token: 10 of the calls are answered 503 once and retried.
    gateway.failNext(503, 10);
    const pay = (child: ChildRelayer, i: number) => {
      const body = JSON.stringify({ count: perProcess });
      return fetch(`${child.url}/probe/pay`, {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          ...signedHeaders(bootstrap.key, bootstrap.secret, body, String(Date.now() + i)),
        },
        body,
      }).then(async (res) => {
        expect(res.status).to.equal(200);
        return (await res.json()) as { pid: number; statuses: Array<number | string> };
      });
    };
    const answers = await Promise.all(children.map((c, i) => pay(c, i)));
    for (const a of answers)
      expect(
        a.statuses.every((s) => s === 201),
        String(a.statuses),
      ).to.equal(true);

    const requests = 2 * perProcess + 10;
    expect(gateway.hits).to.have.length(requests);
    const times = gateway.hits.map((h) => h.at).sort((a, b) => a - b);
    const start = times[0]!;
    // Request k (0-based) cannot be sent before its token: the burst at once, then one per 1/rps
    // from the first reservation. Times are arrivals, measured from the first arrival, so the
    // slack covers the first request's own latency (under load, a few hundred ms).
    const slack = 250;
    times.forEach((t, k) => {
      const earliest = k < burst ? 0 : ((k - burst + 1) * 1000) / rps;
      expect(t - start, `request ${k}`).to.be.at.least(earliest - slack);
    });
    // Each process alone could have sent its 80 (+ retries) at once within a burst of its own:
    // a span of (170 - 100) / 25 = 2.8 s proves they drew from one bucket.
    expect(times.at(-1)! - start).to.be.at.least(((requests - burst) * 1000) / rps - slack);
    const [bucket] = await store.query<{ integration: string }>(
      "SELECT integration FROM integration_rate_buckets",
    );
    expect(bucket!.integration).to.equal("payments");
  });
});
