import { expect } from "chai";
import pino from "pino";
import { openStore, migrate, type Store } from "../../../relayer/store/index.ts";
import { createEndpoint, startDispatcher } from "../../../relayer/webhooks/index.ts";
import { testCipher } from "../../fixtures/engine.ts";
import { createTestDatabase, type TestDatabase } from "../../fixtures/postgres.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../../fixtures/webhook-receiver.ts";

/**
 * When the dispatcher sends: woken by the database's notification of a due delivery, by its
 * timer at the next retry, by its slow poll for what nothing announced. A slow poll of an hour
 * (longer than any test here runs) shows that a delivery sent came through the wake-up.
 */
const NEVER_MS = 3_600_000;
const cipher = testCipher();
const logger = pino({ level: "silent" });

async function until(what: string, check: () => Promise<boolean> | boolean): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** An execution of `apiKeyId` inserted as the intake does: the outbox trigger enqueues its event. */
async function submitted(store: Store, apiKeyId: string, id: string): Promise<void> {
  await store.query(
    "INSERT INTO workflow_executions (id, api_key_id, name, workflow) VALUES ($1, $2, 'hooked', '{}'::jsonb)",
    [id, apiKeyId],
  );
}

async function deliveryStates(store: Store, executionId: string) {
  return store.query<{ state: string; attempts: number }>(
    "SELECT state, attempts FROM webhook_deliveries WHERE execution_id = $1 ORDER BY id",
    [executionId],
  );
}

function dispatcherOn(store: Store, slowPollMs: number) {
  return startDispatcher({ store, cipher, logger, policy: { allowPrivate: true }, slowPollMs });
}

describe("# webhook dispatcher wake-ups", function () {
  this.timeout(120_000);
  let hook: WebhookReceiver;
  let answers: number[] = [];

  before(async function () {
    hook = await startWebhookReceiver(() => answers.shift() ?? 204);
  });
  after(async function () {
    await hook?.close();
  });
  beforeEach(function () {
    answers = [];
  });

  describe("# one process on PGlite", function () {
    let store: Store;
    let stop: (() => Promise<void>) | undefined;

    before(async function () {
      store = await openStore({ dataDir: "memory://" });
      await migrate(store);
      await createEndpoint(store, cipher, {
        apiKeyId: "key_wake",
        url: hook.url("/wake"),
        events: [],
      });
    });
    afterEach(async function () {
      await stop?.();
      stop = undefined;
    });
    after(async function () {
      await store?.close();
    });

    it("should send a delivery this process enqueued without waiting for the slow poll", async function () {
      stop = await dispatcherOn(store, NEVER_MS);
      await submitted(store, "key_wake", "wf_wake_now");
      await until("the delivery", async () =>
        (await deliveryStates(store, "wf_wake_now")).every((d) => d.state === "delivered"),
      );
      const hit = hook.hits.find((h) => h.body.includes("wf_wake_now"));
      expect(JSON.parse(hit!.body).type).to.equal("execution.state_changed");
    });

    it("should send a failed delivery again when its retry comes due, without a notification", async function () {
      answers = [500];
      stop = await dispatcherOn(store, NEVER_MS);
      await submitted(store, "key_wake", "wf_wake_retry");
      await until("the retry", async () =>
        (await deliveryStates(store, "wf_wake_retry")).every((d) => d.state === "delivered"),
      );
      expect(await deliveryStates(store, "wf_wake_retry")).to.deep.equal([
        { state: "delivered", attempts: 2 },
      ]);
      const statuses = hook.hits
        .filter((h) => h.body.includes("wf_wake_retry"))
        .map((h) => h.status);
      expect(statuses).to.deep.equal([500, 204]);
    });

    it("should not send a delivery that no notification announced before the slow poll", async function () {
      stop = await dispatcherOn(store, NEVER_MS);
      // Written as another process's scheduled retry: pending, due only in a second, so nothing
      // notifies; this dispatcher's timer was set before it existed.
      await submitted(store, "key_wake", "wf_wake_unannounced");
      await until(
        "the first delivery",
        async () => (await deliveryStates(store, "wf_wake_unannounced"))[0]?.state === "delivered",
      );
      await store.query(
        `UPDATE webhook_deliveries SET state = 'pending', attempts = 1, delivered_at = NULL,
                next_attempt_at = now() + interval '1 second'
          WHERE execution_id = $1`,
        ["wf_wake_unannounced"],
      );
      await new Promise((r) => setTimeout(r, 2_500));
      expect(await deliveryStates(store, "wf_wake_unannounced")).to.deep.equal([
        { state: "pending", attempts: 1 },
      ]);
    });
  });

  describe("# two processes on PostgreSQL", function () {
    let database: TestDatabase;
    let mine: Store;
    let other: Store;
    let stop: (() => Promise<void>) | undefined;

    before(async function () {
      database = await createTestDatabase("webhook_wake");
      // Two stores, two connection pools: two server sessions, as two relayer processes have.
      mine = await openStore({ databaseUrl: database.url, dataDir: "memory://" });
      await migrate(mine);
      other = await openStore({ databaseUrl: database.url, dataDir: "memory://" });
      await createEndpoint(mine, cipher, {
        apiKeyId: "key_wake",
        url: hook.url("/pg"),
        events: [],
      });
    });
    afterEach(async function () {
      await stop?.();
      stop = undefined;
    });
    after(async function () {
      await mine?.close();
      await other?.close();
      await database?.drop();
    });

    it("should send another process's new delivery when its notification arrives", async function () {
      stop = await dispatcherOn(mine, NEVER_MS);
      await submitted(other, "key_wake", "wf_pg_notified");
      await until("the delivery", async () =>
        (await deliveryStates(mine, "wf_pg_notified")).every((d) => d.state === "delivered"),
      );
      expect(hook.hits.some((h) => h.body.includes("wf_pg_notified"))).to.equal(true);
    });

    it("should pick up by the slow poll another process's retry that nothing announced", async function () {
      stop = await dispatcherOn(mine, 1_000);
      await submitted(other, "key_wake", "wf_pg_polled");
      await until(
        "the first delivery",
        async () => (await deliveryStates(mine, "wf_pg_polled"))[0]?.state === "delivered",
      );
      // The other process scheduled a retry (no notification): found by the next slow poll.
      await other.query(
        `UPDATE webhook_deliveries SET state = 'pending', attempts = 1, delivered_at = NULL,
                next_attempt_at = now() + interval '500 milliseconds'
          WHERE execution_id = $1`,
        ["wf_pg_polled"],
      );
      await until("the retry", async () =>
        (await deliveryStates(mine, "wf_pg_polled")).every((d) => d.state === "delivered"),
      );
      expect(await deliveryStates(mine, "wf_pg_polled")).to.deep.equal([
        { state: "delivered", attempts: 2 },
      ]);
    });
  });
});
