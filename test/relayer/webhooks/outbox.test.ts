import { expect } from "chai";
import { Wallet } from "ethers";
import { verifyWebhook } from "../../../clients/sdk/index.ts";
import { DEVNET_SANCTIONED } from "../../../relayer/devnet/accounts.ts";
import { runExecution } from "../../../relayer/execution/orchestrator.ts";
import type { Store } from "../../../relayer/store/index.ts";
import {
  claimDue,
  createEndpoint,
  dispatchOnce,
  listDeliveries,
  markAttemptFailed,
  MAX_ATTEMPTS,
  resolveTarget,
  retryDelayMs,
  TargetRefusedError,
  type HostLookup,
} from "../../../relayer/webhooks/index.ts";
import { normalise, silentLogger, submitExecution, useEngineWorld } from "../../fixtures/engine.ts";
import {
  startWebhookReceiver,
  webhookHeaders,
  type WebhookReceiver,
} from "../../fixtures/webhook-receiver.ts";

/** A resolver that answers from a script and counts its calls (what a rebinding DNS server does). */
function scriptedLookup(answers: string[]): HostLookup & { calls: number } {
  const fn = (async () => {
    const address = answers[Math.min(fn.calls, answers.length - 1)]!;
    fn.calls++;
    return [{ address, family: address.includes(":") ? 6 : 4 }];
  }) as unknown as HostLookup & { calls: number };
  fn.calls = 0;
  return fn;
}

describe("# webhooks outbox and dispatcher", function () {
  this.timeout(600_000);
  const apiKeyId = "key_webhooks_outbox";
  const world = useEngineWorld(apiKeyId);
  let hook: WebhookReceiver;
  const store = () => world.store as unknown as Store;

  before(async function () {
    hook = await startWebhookReceiver();
  });

  after(async function () {
    await hook?.close();
  });

  // What a describe left pending is not sent by the next one's dispatcher.
  const settle = () =>
    store().query("UPDATE webhook_deliveries SET state = 'failed' WHERE state = 'pending'");

  describe("# the target is resolved once and the attempt connects to the checked address", function () {
    afterEach(settle);

    it("should refuse a name that resolves to a private address before connecting", async function () {
      const lookup = scriptedLookup(["10.0.0.5"]);
      const err = await resolveTarget(
        "https://hooks.example.com/x",
        { allowPrivate: false },
        lookup,
      )
        .then(() => null)
        .catch((e: unknown) => e);
      expect(err).to.be.instanceOf(TargetRefusedError);
      expect((err as Error).message).to.contain("private address (10.0.0.5)");
      expect(lookup.calls).to.equal(1);
    });

    it("should not follow a rebinding name to a private address after the check passed", async function () {
      // Public at the check, loopback (our receiver) on any later resolution.
      const lookup = scriptedLookup(["198.51.100.7", "127.0.0.1"]);
      const { endpoint } = await createEndpoint(store(), world.cipher, {
        apiKeyId: "key_rebinding",
        url: `https://rebinding.example:${hook.port}/hook`,
        events: [],
      });
      await store().query(
        `INSERT INTO webhook_deliveries (endpoint_id, execution_id, type, payload)
         VALUES ($1, 'wf_rebinding', 'execution.state_changed', '{"type":"execution.state_changed"}')`,
        [endpoint.id],
      );
      const before = hook.hits.length;
      const attempted = await dispatchOnce({
        store: store(),
        cipher: world.cipher,
        logger: silentLogger,
        policy: { allowPrivate: false },
        lookup,
        attemptTimeoutMs: 1_500,
      });
      expect(attempted).to.equal(1);
      expect(lookup.calls).to.equal(1);
      expect(hook.hits.length).to.equal(before);
      const [delivery] = await listDeliveries(store(), endpoint.id, 10);
      expect(delivery!.state).to.equal("pending");
      expect(delivery!.attempts).to.equal(1);
      expect(delivery!.lastError).to.not.equal(null);
    });

    it("should connect to the resolved address with the URL's host in the Host header", async function () {
      const lookup = scriptedLookup(["127.0.0.1", "10.9.9.9"]);
      const target = await resolveTarget(
        `http://hooks.devnet.test:${hook.port}/in`,
        { allowPrivate: true },
        lookup,
      );
      expect(target).to.deep.include({ address: "127.0.0.1", family: 4 });
      const { endpoint, secret } = await createEndpoint(store(), world.cipher, {
        apiKeyId: "key_pinned",
        url: `http://hooks.devnet.test:${hook.port}/in`,
        events: [],
      });
      await store().query(
        `INSERT INTO webhook_deliveries (endpoint_id, execution_id, type, payload)
         VALUES ($1, 'wf_pinned', 'execution.report', '{"type":"execution.report","data":{}}')`,
        [endpoint.id],
      );
      const pinned = scriptedLookup(["127.0.0.1", "10.9.9.9"]);
      const before = hook.hits.length;
      await dispatchOnce({
        store: store(),
        cipher: world.cipher,
        logger: silentLogger,
        policy: { allowPrivate: true },
        lookup: pinned,
      });
      expect(pinned.calls).to.equal(1);
      const hit = hook.hits.slice(before).find((h) => h.headers.host?.startsWith("hooks.devnet"));
      expect(hit?.headers.host).to.equal(`hooks.devnet.test:${hook.port}`);
      const event = verifyWebhook<{ type: string }>(secret, hit!.body, webhookHeaders(hit!));
      expect(event.type).to.equal("execution.report");
      const [delivery] = await listDeliveries(store(), endpoint.id, 10);
      expect(delivery!.state).to.equal("delivered");
    });
  });

  describe("# the outbox is the queue: leases, order per execution, backoff", function () {
    let endpointId: string;
    after(settle);

    before(async function () {
      ({
        endpoint: { id: endpointId },
      } = await createEndpoint(store(), world.cipher, {
        apiKeyId: "key_queue",
        url: "https://hooks.example.com/q",
        events: [],
      }));
      for (const [execution, type] of [
        ["wf_a", "execution.state_changed"],
        ["wf_a", "execution.report"],
        ["wf_b", "execution.state_changed"],
      ]) {
        await store().query(
          `INSERT INTO webhook_deliveries (endpoint_id, execution_id, type, payload)
           VALUES ($1, $2, $3, jsonb_build_object('type', $3::text))`,
          [endpointId, execution, type],
        );
      }
    });

    const mine = async (lease = 60) =>
      (await claimDue(store(), world.cipher, 100, lease)).filter(
        (d) => d.endpointId === endpointId,
      );

    it("should hand each execution's oldest pending delivery only, and each once while leased", async function () {
      const first = await mine();
      expect(first.map((d) => JSON.parse(d.body).type)).to.deep.equal([
        "execution.state_changed",
        "execution.state_changed",
      ]);
      // A second dispatcher (another process) gets nothing while the leases hold.
      expect(await mine()).to.deep.equal([]);
      // wf_a's first delivery failed: it waits out its backoff, and wf_a's report waits behind it.
      const [a, b] = [...first].sort((x, y) => Number(x.id) - Number(y.id)) as [
        (typeof first)[0],
        (typeof first)[0],
      ];
      await markAttemptFailed(store(), a.id, {
        status: 500,
        error: "answered 500",
        retryInMs: 60_000,
      });
      await store().query("UPDATE webhook_deliveries SET state = 'delivered' WHERE id = $1", [
        b.id,
      ]);
      expect(await mine()).to.deep.equal([]);
    });

    it("should hand a delivery again when its dispatcher died holding the lease", async function () {
      // Make the backoff due and simulate a claim whose process died: the lease expires.
      await store().query(
        "UPDATE webhook_deliveries SET next_attempt_at = now() WHERE endpoint_id = $1",
        [endpointId],
      );
      const [claimed] = await mine(1);
      expect(claimed!.attempts).to.equal(2);
      await store().query(
        "UPDATE webhook_deliveries SET lease_until = now() - interval '1 second' WHERE id = $1",
        [claimed!.id],
      );
      const [again] = await mine();
      expect(again!.id).to.equal(claimed!.id);
      expect(again!.attempts).to.equal(3);
      expect(again!.body).to.equal(claimed!.body);
    });

    it("should back off exponentially, capped, and give up after the last attempt", function () {
      expect([1, 2, 3, 4].map(retryDelayMs)).to.deep.equal([1_000, 2_000, 4_000, 8_000]);
      expect(retryDelayMs(11)).to.equal(600_000);
      expect(retryDelayMs(MAX_ATTEMPTS)).to.equal(null);
    });
  });

  describe("# compliance alerts and failed steps reach the endpoint", function () {
    it("should deliver the alert and the step failure of a refused multisend, in order, signed", async function () {
      const { endpoint, secret } = await createEndpoint(store(), world.cipher, {
        apiKeyId,
        url: hook.url("/events"),
        events: ["execution.state_changed", "execution.step_failed", "execution.compliance_alert"],
      });
      const sanctioned = DEVNET_SANCTIONED[0]!.address;
      const workflow = normalise(world, {
        name: "webhook-sanctioned",
        actions: [
          {
            type: "multisend",
            chain: "arbitrum",
            from: "USDC",
            amount: "200",
            recipients: [
              { address: Wallet.createRandom().address, amount: "100" },
              { address: sanctioned, amount: "100" },
            ],
          },
        ],
      });
      const id = await submitExecution(world, apiKeyId, workflow);
      expect(await runExecution(world.deps, id)).to.equal("failed");
      const before = hook.hits.length;
      for (let i = 0; i < 10; i++) {
        await dispatchOnce({
          store: store(),
          cipher: world.cipher,
          logger: silentLogger,
          policy: { allowPrivate: true },
        });
      }
      const events = hook.hits
        .slice(before)
        .filter((h) => h.headers.host === `127.0.0.1:${hook.port}`)
        .map((h) =>
          verifyWebhook<{ type: string; data: Record<string, unknown> }>(
            secret,
            h.body,
            webhookHeaders(h),
          ),
        )
        .filter((e) => e.data.execution_id === id);
      const types = events.map((e) => e.type);
      // Only the subscribed types, in the order the engine recorded them.
      expect(new Set(types)).to.deep.equal(
        new Set(["execution.state_changed", "execution.compliance_alert", "execution.step_failed"]),
      );
      expect(types.indexOf("execution.compliance_alert")).to.be.lessThan(
        types.indexOf("execution.step_failed"),
      );
      expect(types.at(-1)).to.equal("execution.state_changed");
      const alert = events.find((e) => e.type === "execution.compliance_alert")!;
      expect(alert.data).to.deep.include({ index: 0, address: sanctioned, role: "recipient" });
      expect(alert.data.sources).to.include("chainalysis-oracle");
      const failed = events.find((e) => e.type === "execution.step_failed")!;
      expect(failed.data).to.deep.include({ index: 0, chain: "arbitrum", tx_hashes: [] });
      expect((failed.data.error as { error: string }).error).to.equal("SANCTIONED_ADDRESS");
      expect(events.at(-1)!.data).to.deep.include({ state: "failed" });
      const log = await listDeliveries(store(), endpoint.id, 100);
      expect(log.map((d) => d.state)).to.deep.equal(log.map(() => "delivered"));
      expect(log).to.have.length(events.length);
    });
  });
});
