import path from "node:path";
import { CarReader } from "@ipld/car";
import { expect } from "chai";
import { MaxUint256, parseUnits, Wallet, type BrowserProvider } from "ethers";
import { encodeArtifact } from "../../../relayer/artifacts/store.ts";
import { DEVNET_ACCOUNTS, DEVNET_SANCTIONED } from "../../../relayer/devnet/accounts.ts";
import { startAuxService, type AuxService } from "../../fixtures/aux-service.ts";

interface ComplianceBody {
  sanctioned: boolean;
  lists: { name: string; source: string }[];
  routed_around: { chain: string; source: string; reason: string }[];
}

const TORNADO_ROUTER = "0x8589427373D6D84E98730D7795D8f6f8731FDA16";
const CLEAN = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const WRONG_CHECKSUM = "0x70997970c51812dc3A010C7d01b50e0d17dc79C8";

describe("# aux endpoints", function () {
  this.timeout(300_000);
  let svc: AuxService;

  before(async function () {
    svc = await startAuxService({
      VERIFLOW_SANCTIONS_FILES: `ofac-sdn=${path.join(import.meta.dirname, "../../fixtures/sanctions", "sdn-advanced-sample.xml")}`,
    });
  });

  after(async function () {
    await svc?.close();
  });

  describe("# compliance", function () {
    it("should give the same answer on GET /compliance/check, GET /v3/compliance and POST /compliance (Bearer)", async function () {
      const forms = [
        await svc.signed("GET", `/compliance/check?address=${TORNADO_ROUTER}`),
        await svc.bearer("GET", `/v3/compliance?address=${TORNADO_ROUTER.toLowerCase()}`),
        await svc.bearer("POST", "/compliance", { address: TORNADO_ROUTER }),
        await svc.signed("POST", "/compliance", { address: TORNADO_ROUTER }),
      ];
      const bodies = [];
      for (const res of forms) {
        expect(res.status).to.equal(200);
        bodies.push((await res.json()) as Record<string, unknown>);
      }
      for (const body of bodies) {
        expect(body.address).to.equal(TORNADO_ROUTER);
        expect(body.sanctioned).to.equal(true);
        expect(body.matches).to.deep.equal([
          { list: "ofac-sdn", entry: "SDN FixedRef 40001: TORNADO CASH" },
        ]);
        const { checked_at: _, ...rest } = body;
        const { checked_at: __, ...first } = bodies[0]!;
        expect(rest).to.deep.equal(first);
      }
      const lists = bodies[0]!.lists as { name: string; source: string; entries: number | null }[];
      expect(lists.map((l) => l.name)).to.deep.equal(["ofac-sdn", "chainalysis-oracle"]);
      expect(lists[0]!.entries).to.equal(1);
      expect(lists[1]!.entries).to.equal(null);
      expect(lists[1]!.source).to.match(/^eip155:31337:0x[0-9a-fA-F]{40}$/);
    });

    it("should report an address the chain's sanctions oracle lists, and a clean one as not sanctioned", async function () {
      const listed = DEVNET_SANCTIONED[0]!.address;
      const res = await svc.signed("GET", `/compliance/check?address=${listed}`);
      const body = (await res.json()) as {
        sanctioned: boolean;
        matches: { list: string; entry: string }[];
      };
      expect(body.sanctioned).to.equal(true);
      expect(body.matches.map((m) => m.list)).to.deep.equal(["chainalysis-oracle"]);
      expect(body.matches[0]!.entry).to.include("ethereum");

      const clean = (await (
        await svc.bearer("POST", "/compliance", { address: CLEAN })
      ).json()) as {
        sanctioned: boolean;
        matches: unknown[];
      };
      expect(clean).to.include({ sanctioned: false });
      expect(clean.matches).to.deep.equal([]);
    });

    it("should select lists by jurisdiction and refuse an unknown jurisdiction", async function () {
      const us = await svc.signed(
        "GET",
        `/compliance/check?address=${TORNADO_ROUTER}&jurisdictions=US`,
      );
      expect(us.status).to.equal(200);
      const bad = await svc.bearer("POST", "/compliance", {
        address: TORNADO_ROUTER,
        jurisdictions: ["ZZ"],
      });
      expect(bad.status).to.equal(400);
      const body = (await bad.json()) as { error: string; detail: string };
      expect(body.error).to.equal("INVALID_COMPLIANCE_RULES");
      expect(body.detail).to.include("/v1/compliance/specs");
    });

    it("should answer 400 for a bad address on every form, and 401 without credentials", async function () {
      for (const res of [
        await svc.signed("GET", `/compliance/check?address=${WRONG_CHECKSUM}`),
        await svc.bearer("GET", `/v3/compliance?address=0x1234`),
        await svc.bearer("POST", "/compliance", { address: "not-an-address" }),
      ]) {
        expect(res.status).to.equal(400);
        const body = (await res.json()) as { error: string; detail: string };
        expect(body.error).to.equal("INVALID_ADDRESS");
        expect(body.detail).to.be.a("string").and.not.equal("");
      }
      const missing = await svc.signed("GET", "/compliance/check");
      expect(missing.status).to.equal(400);
      expect(((await missing.json()) as { error: string }).error).to.equal("VALIDATION_FAILED");
      const anonymous = await svc.app.request(`/compliance/check?address=${CLEAN}`);
      expect(anonymous.status).to.equal(401);
    });

    it("should answer from the loaded lists when no oracle answers, and 504 when the jurisdictions require the oracle list, never 'not sanctioned'", async function () {
      const all = svc.chains.list().map((c) => c.faults!);
      for (const f of all) await f.stopRpc();
      try {
        const res = await svc.signed("GET", `/compliance/check?address=${TORNADO_ROUTER}`);
        expect(res.status).to.equal(200);
        const body = (await res.json()) as ComplianceBody;
        expect(body.routed_around).to.have.length(all.length);
        expect(body.lists.map((l) => l.name)).to.deep.equal(["ofac-sdn"]);
        expect(body.sanctioned).to.equal(true); // on the OFAC list file

        const required = await svc.signed(
          "GET",
          `/compliance/check?address=${CLEAN}&jurisdictions=US`,
        );
        expect(required.status).to.equal(504);
        const refused = (await required.json()) as { error: string; detail: string };
        expect(refused.error).to.equal("ORACLE_UNAVAILABLE");
        expect(refused.detail).to.include("no sanctions oracle answered").and.include("ethereum");
      } finally {
        for (const f of all) await f.startRpc();
      }
    });
  });

  describe("# simulation", function () {
    it("should simulate a devnet swap over HTTP without changing the chain", async function () {
      const chain = svc.chains.byName("ethereum");
      const provider = chain.provider as BrowserProvider;
      const trader = new Wallet(DEVNET_ACCOUNTS[7]!.privateKey, provider);
      const router = chain.contract("UniswapRouter");
      const usdc = chain.contract("USDC", trader);
      await (await usdc.getFunction("approve")(await router.getAddress(), MaxUint256)).wait();
      const data = router.interface.encodeFunctionData("swapExactTokensForTokens", [
        parseUnits("25000", 6),
        0n,
        [await usdc.getAddress(), chain.deployment.tokens.WETH!.address],
        trader.address,
        2n ** 40n,
      ]);
      const block = await provider.getBlockNumber();
      const res = await svc.signed("POST", "/tx/simulate", {
        chain_id: 31337,
        tx_data: { from: trader.address, to: await router.getAddress(), data, value: "0" },
        block_count: 12,
      });
      expect(res.status).to.equal(200);
      const body = (await res.json()) as {
        success: boolean;
        mode: string;
        gas_used: number;
        mev: { risk: string; applicable: boolean; sandwich: { symbol: string } };
      };
      expect(body).to.include({ success: true, mode: "trace" });
      expect(body.gas_used).to.be.greaterThan(21_000);
      // No minimum output at all: the swap is fully sandwichable.
      expect(body.mev).to.include({ applicable: true, risk: "high" });
      expect(body.mev.sandwich.symbol).to.equal("USDC");
      expect(await provider.getBlockNumber()).to.equal(block);
    });

    it("should answer 400 for an unknown chain, malformed calldata and an out-of-range block_count", async function () {
      const base = { from: CLEAN, to: TORNADO_ROUTER, data: "0x" };
      const unknown = await svc.signed("POST", "/tx/simulate", { chain_id: 999, tx_data: base });
      expect(unknown.status).to.equal(400);
      const unknownBody = (await unknown.json()) as { error: string; detail: string };
      expect(unknownBody.error).to.equal("UNKNOWN_CHAIN");
      expect(unknownBody.detail).to.include("31337");
      for (const body of [
        { chain_id: 31337, tx_data: { ...base, data: "0x123" } },
        { chain_id: 31337, tx_data: { ...base, data: "hello" } },
        { chain_id: 31337, tx_data: base, block_count: 0 },
        { chain_id: 31337, tx_data: base, block_count: 100_000 },
        { chain_id: 31337, tx_data: { ...base, from: WRONG_CHECKSUM } },
        { chain_id: 31337, tx_data: { ...base, value: "-1" } },
        { chain_id: "31337", tx_data: base },
      ]) {
        const res = await svc.signed("POST", "/tx/simulate", body);
        expect(res.status, JSON.stringify(body)).to.equal(400);
        expect(((await res.json()) as { error: string }).error).to.equal("VALIDATION_FAILED");
      }
    });
  });

  describe("# artifacts", function () {
    it("should store an artifact, serve it by CID, and export it as a CAR file", async function () {
      const artifact = {
        artifact_id: "demo",
        tx_hashes: ["0x01"],
        gas_metrics: { "31337": { used: 21000, saved: 0 } },
      };
      const put = await svc.signed("POST", "/artifacts", artifact);
      expect(put.status).to.equal(201);
      const { cid } = (await put.json()) as { cid: string };
      expect(cid).to.match(/^bagaaiera/);

      const got = await svc.signed("GET", `/artifacts/${cid}`);
      expect(got.status).to.equal(200);
      expect(got.headers.get("etag")).to.equal(`"${cid}"`);
      expect(await got.json()).to.deep.equal(artifact);

      const car = await svc.signed("GET", `/artifacts/${cid}/car`);
      expect(car.status).to.equal(200);
      expect(car.headers.get("content-type")).to.match(/^application\/vnd\.ipld\.car/);
      const reader = await CarReader.fromBytes(new Uint8Array(await car.arrayBuffer()));
      expect((await reader.getRoots()).map(String)).to.deep.equal([cid]);

      const other = (
        (await (await svc.signed("POST", "/artifacts", { n: 2 })).json()) as { cid: string }
      ).cid;
      const many = await svc.signed("POST", "/artifacts/car", { cids: [cid, other] });
      const manyReader = await CarReader.fromBytes(new Uint8Array(await many.arrayBuffer()));
      expect((await manyReader.getRoots()).map(String)).to.deep.equal([cid, other]);
    });

    it("should answer 400 for a malformed CID and 404 for one it does not store, naming it", async function () {
      const bad = await svc.signed("GET", "/artifacts/not-a-cid");
      expect(bad.status).to.equal(400);
      expect(((await bad.json()) as { error: string }).error).to.equal("INVALID_CID");
      const absent = (await encodeArtifact({ never: "stored" })).cid.toString();
      const missing = await svc.signed("GET", `/artifacts/${absent}`);
      expect(missing.status).to.equal(404);
      expect(((await missing.json()) as { detail: string }).detail).to.include(absent);
      const car = await svc.signed("POST", "/artifacts/car", { cids: ["bogus"] });
      expect(car.status).to.equal(400);
      expect(((await car.json()) as { detail: string }).detail).to.include("cids[0]");
    });
  });

  describe("# openapi", function () {
    it("should describe every aux endpoint in the OpenAPI document", async function () {
      const doc = (await (await svc.app.request("/openapi.json")).json()) as {
        paths: Record<string, unknown>;
      };
      for (const p of [
        "/tx/simulate",
        "/compliance/check",
        "/v3/compliance",
        "/compliance",
        "/artifacts",
        "/artifacts/{cid}",
        "/artifacts/{cid}/car",
        "/artifacts/car",
        "/artifacts/quota",
        "/artifacts/{cid}/publish",
      ]) {
        expect(doc.paths, p).to.have.property(p);
      }
    });
  });
});
