import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import {
  putCredential,
  signingPublicKey,
  verifyInteractionOnChain,
} from "../../../relayer/integrations/index.ts";
import { diffCollections, Monitors } from "../../../relayer/monitors/monitor.ts";
import { startInventory, type StandIn, type StockItem } from "../../fixtures/standins/index.ts";
import { startEngineService, silentLogger, type EngineService } from "../../fixtures/engine.ts";
import {
  entry,
  JWT_SECRET,
  openIntegrationWorld,
  type IntegrationWorld,
} from "../integrations/world.ts";

const STOCK = (): StockItem[] => [
  { sku: "USB-C-1M", name: "USB-C cable 1 m", quantity: 120, location: "AMS-1" },
  { sku: "LEDGER-NX", name: "Hardware wallet", quantity: 14, location: "AMS-1" },
];

describe("# monitors: a polled integration path, its changes recorded and anchored", function () {
  this.timeout(240_000);
  let world: IntegrationWorld;
  let inventory: StandIn & { stock: StockItem[] };

  before(async function () {
    world = await openIntegrationWorld();
    inventory = await startInventory({ jwtSecret: JWT_SECRET });
  });
  after(async function () {
    await inventory?.close();
    await world?.close();
  });
  beforeEach(function () {
    inventory.stock.splice(0, inventory.stock.length, ...STOCK());
    inventory.override(null);
  });

  /** A monitor `stock` over a warehouse integration named `name` (batched anchoring). */
  const build = async (name: string) => {
    const integrations = world.build({
      integrations: {
        [name]: entry(
          inventory.url,
          {},
          {
            schema: "inventory.stock",
            version: "1.0",
            blockchain_anchor: { interval: "1h" },
          },
        ),
      },
      monitors: { [`${name}-stock`]: { integration: name, path: "/inventory", interval: "1s" } },
    });
    inventory.setPublicKey(await world.publicKey(name));
    const monitors = new Monitors({ store: world.store, integrations, logger: silentLogger });
    await monitors.register();
    return { integrations, monitors, id: `${name}-stock` };
  };

  it("should compare items by key: added, removed, and each changed field", function () {
    const before = [
      { sku: "a", quantity: 1, location: "x" },
      { sku: "b", quantity: 2, location: "x" },
    ];
    const after = [
      { sku: "a", quantity: 1, location: "y" },
      { sku: "c", quantity: 3, location: "x" },
    ];
    expect(diffCollections(before, after, "sku")).to.deep.equal([
      { kind: "changed", key: "a", field: "location", from: "x", to: "y" },
      { kind: "added", key: "c", item: { sku: "c", quantity: 3, location: "x" } },
      { kind: "removed", key: "b", item: { sku: "b", quantity: 2, location: "x" } },
    ]);
    expect(diffCollections(before, before, "sku")).to.deep.equal([]);
  });

  it("should record the baseline, then each change (what, when), each with its interaction anchored in a batch that verifies on chain", async function () {
    const { integrations, monitors, id } = await build("warehouse");
    const first = await monitors.poll(id);
    expect(first.state).to.equal("ok");
    expect(first.changes.map((c) => c.kind)).to.deep.equal(["added", "added"]);
    // Nothing changed: no record.
    expect((await monitors.poll(id)).changes).to.deep.equal([]);

    inventory.stock[0]!.quantity = 95;
    inventory.stock.splice(1, 1);
    inventory.stock.push({
      sku: "SEED-CARD",
      name: "Steel seed card",
      quantity: 7,
      location: "FRA-2",
    });
    const second = await monitors.poll(id);
    expect(second.changes).to.deep.equal([
      { kind: "changed", key: "USB-C-1M", field: "quantity", from: 120, to: 95 },
      {
        kind: "added",
        key: "SEED-CARD",
        item: { sku: "SEED-CARD", name: "Steel seed card", quantity: 7, location: "FRA-2" },
      },
      {
        kind: "removed",
        key: "LEDGER-NX",
        item: { sku: "LEDGER-NX", name: "Hardware wallet", quantity: 14, location: "AMS-1" },
      },
    ]);

    const pending = (await monitors.changes(id, { limit: 10 }))!;
    expect(pending.map((c) => c.baseline)).to.deep.equal([false, true]);
    expect(pending[0]!.interaction.status).to.equal("pending");
    expect(pending[0]!.interaction.endpoint).to.match(
      new RegExp(`^GET ${inventory.url}/inventory#veriflow-interaction=[0-9a-f-]{36}$`),
    );
    expect(Date.parse(pending[0]!.observed_at)).to.be.closeTo(Date.now(), 60_000);

    await integrations.anchorDue({ force: true });
    const anchored = (await monitors.changes(id, { limit: 10 }))!;
    const registry = world.chains.list()[0]!.contract("ProofRegistry");
    for (const change of anchored) {
      expect(change.interaction.status).to.equal("anchored");
      expect(change.interaction.batch).to.not.equal(null);
      expect((await verifyInteractionOnChain(registry, change.interaction)).valid).to.equal(true);
    }
    // Pages: older than the newest.
    const older = (await monitors.changes(id, { limit: 10, before: anchored[0]!.id }))!;
    expect(older.map((c) => c.id)).to.deep.equal([anchored[1]!.id]);

    const [view] = await monitors.list();
    expect(view).to.include({
      id,
      integration: "warehouse",
      state: "ok",
      polls: 3,
      last_error: null,
    });
  });

  it("should set schema_mismatch on an answer off inventory.stock@1.0, alert once while it lasts, keep the snapshot, and recover", async function () {
    const { monitors, id } = await build("warehouse_b");
    await monitors.poll(id);
    inventory.override(() => ({
      status: 200,
      body: {
        as_of: new Date().toISOString(),
        items: [{ sku: "X", name: "x", quantity: -3, location: "A" }],
      },
    }));
    expect((await monitors.poll(id)).state).to.equal("schema_mismatch");
    expect((await monitors.poll(id)).state).to.equal("schema_mismatch");
    const alerts = await world.store.query<{ kind: string; detail: string }>(
      "SELECT kind, detail FROM integration_alerts WHERE integration = 'warehouse_b'",
    );
    expect(alerts.map((a) => a.kind)).to.deep.equal(["monitor_schema_mismatch"]);
    expect(alerts[0]!.detail).to.include("inventory.stock@1.0").and.include("quantity");
    const [view] = await monitors.list();
    expect(view!.state).to.equal("schema_mismatch");
    expect(view!.last_error).to.include("INTEGRATION_SCHEMA_MISMATCH");

    inventory.override(null);
    const back = await monitors.poll(id);
    expect(back).to.deep.equal({ state: "ok", changes: [] }); // compared with the kept snapshot
  });

  it("should set unavailable and alert when the path does not answer", async function () {
    const { monitors, id } = await build("warehouse_c");
    inventory.failNext(503, 3);
    expect((await monitors.poll(id)).state).to.equal("unavailable");
    const alerts = await world.store.query<{ kind: string }>(
      "SELECT kind FROM integration_alerts WHERE integration = 'warehouse_c'",
    );
    expect(alerts.map((a) => a.kind)).to.deep.equal(["monitor_unavailable"]);
    expect((await monitors.changes(id, { limit: 5 }))!).to.deep.equal([]);
  });

  it("should let one process poll per interval (the turn is claimed in the database)", async function () {
    const { monitors, id } = await build("warehouse_d");
    const { monitors: other } = await build("warehouse_d");
    const claims = await Promise.all([monitors.pollDue(), other.pollDue()]);
    expect(claims.flat()).to.deep.equal([id]);
    expect(await monitors.pollDue()).to.deep.equal([]); // next turn in 1 s
    await new Promise((r) => setTimeout(r, 1100));
    expect(await other.pollDue()).to.deep.equal([id]);
  });

  it("should refuse a monitor over an unknown integration, a schema that cannot be monitored, or an interval under 1s", function () {
    const integrations = {
      warehouse: entry(inventory.url, {}, { schema: "inventory.stock", version: "1.0" }),
      crm: entry(inventory.url),
    };
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ integration: "nope", path: "/inventory" }, /monitors\.m\.integration names "nope"/],
      [
        { integration: "crm", path: "/inventory" },
        /validates with crm\.orders, which cannot be monitored/,
      ],
      [
        { integration: "warehouse", path: "/inventory", interval: "500ms" },
        /monitors\.m\.interval must be at least 1s/,
      ],
      [{ integration: "warehouse", path: "inventory" }, /monitors\.m\.path must be a path/],
    ];
    for (const [monitor, message] of cases)
      expect(() => world.build({ integrations, monitors: { m: monitor } })).to.throw(message);
  });
});

describe("# GET /v1/monitors, GET /v1/monitors/{id}/changes", function () {
  this.timeout(240_000);
  let dir: string;
  let service: EngineService;
  let inventory: StandIn & { stock: StockItem[] };

  before(async function () {
    dir = await mkdtemp(path.join(os.tmpdir(), "vf-monitors-"));
    inventory = await startInventory({ jwtSecret: JWT_SECRET, stock: STOCK() });
    const file = path.join(dir, "integrations.json");
    await writeFile(
      file,
      JSON.stringify({
        integrations: {
          warehouse: {
            url: inventory.url,
            auth: { type: "jwt_bearer", key_vault: "local", credential_id: "warehouse-jwt" },
            validation: { schema: "inventory.stock", blockchain_anchor: { interval: "1h" } },
          },
        },
        monitors: { inventory: { integration: "warehouse", path: "/inventory", interval: "1s" } },
      }),
    );
    service = await startEngineService({ env: { VERIFLOW_INTEGRATIONS: file } });
    await putCredential(service.ctx.store, service.ctx.masterKey, "warehouse-jwt", JWT_SECRET);
    inventory.setPublicKey(
      await signingPublicKey(service.ctx.store, service.ctx.masterKey, "warehouse"),
    );
  });
  after(async function () {
    await service?.close();
    await inventory?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("should poll on its own, list the monitor and its changes over the HMAC API, and 404 an unknown monitor", async function () {
    const key = await service.newKey();
    const changes = async () => {
      const res = await service.request(key, "GET", "/v1/monitors/inventory/changes?limit=5");
      expect(res.status).to.equal(200);
      return ((await res.json()) as { changes: Array<{ baseline: boolean; changes: unknown[] }> })
        .changes;
    };
    for (let i = 0; i < 100 && (await changes()).length === 0; i++)
      await new Promise((r) => setTimeout(r, 200));
    inventory.stock[1]!.quantity = 0;
    for (let i = 0; i < 100 && (await changes()).length < 2; i++)
      await new Promise((r) => setTimeout(r, 200));
    const listed = await changes();
    expect(listed[0]!.changes).to.deep.equal([
      { kind: "changed", key: "LEDGER-NX", field: "quantity", from: 14, to: 0 },
    ]);
    expect(listed[1]!.baseline).to.equal(true);

    const res = await service.request(key, "GET", "/v1/monitors");
    expect(res.status).to.equal(200);
    const body = (await res.json()) as { monitors: Array<Record<string, unknown>> };
    expect(body.monitors).to.have.length(1);
    expect(body.monitors[0]).to.include({ id: "inventory", integration: "warehouse", state: "ok" });

    const missing = await service.request(key, "GET", "/v1/monitors/nope/changes");
    expect(missing.status).to.equal(404);
    expect(await missing.json()).to.include({ error: "MONITOR_NOT_FOUND" });
    for (const query of [
      "limit=0",
      "limit=0x10",
      "limit=5e1",
      "before=0",
      "before=1e3",
      "before=",
    ]) {
      const bad = await service.request(key, "GET", `/v1/monitors/inventory/changes?${query}`);
      expect(bad.status, query).to.equal(400);
      expect(await bad.json(), query).to.include({ error: "VALIDATION_FAILED" });
    }
    const unsigned = await service.app.request("/v1/monitors");
    expect(unsigned.status).to.equal(401);
    const doc = (await (await service.app.request("/openapi.json")).json()) as {
      paths: Record<string, unknown>;
    };
    expect(doc.paths).to.have.property("/v1/monitors/{id}/changes");
  });
});
