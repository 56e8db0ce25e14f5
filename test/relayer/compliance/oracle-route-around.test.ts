import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { expect } from "chai";
import { Contract, JsonRpcProvider } from "ethers";
import { openChains, type ChainSet } from "../../../relayer/chains/index.ts";
import { createComplianceChecker } from "../../../relayer/compliance/check.ts";
import {
  askOracle,
  oracleChains,
  SANCTIONS_ORACLE_CONTRACT,
} from "../../../relayer/compliance/oracle.ts";
import { SanctionsLists } from "../../../relayer/compliance/sanctions.ts";
import { DEVNET_SANCTIONED } from "../../../relayer/devnet/accounts.ts";
import { ApiError } from "../../../relayer/http/errors.ts";

const CLEAN = "0x1111111111111111111111111111111111111111";
const TORNADO_ROUTER = "0x8589427373D6D84E98730D7795D8f6f8731FDA16";
const SDN_SAMPLE = path.join(import.meta.dirname, "../../fixtures/sanctions/sdn-sample.xml");

/**
 * Spec 504 ("verify the oracle is live; route around"): a chain's sanctions oracle that does not
 * answer is routed around through the other chains' oracles or the loaded list files, and the
 * answer says which sources answered and which were routed around; never a silent "not sanctioned".
 */
describe("# sanctions oracles routed around (spec 504)", function () {
  this.timeout(120_000);
  let chains: ChainSet;
  let lists: SanctionsLists;
  let empty: SanctionsLists;

  before(async function () {
    chains = await openChains({ mode: "embedded", chains: ["ethereum", "polygon"] });
    lists = await SanctionsLists.load([{ list: "ofac-sdn", path: SDN_SAMPLE }]);
    empty = await SanctionsLists.load([]);
  });
  after(async function () {
    await chains?.close();
  });

  const checker = (withLists: SanctionsLists) =>
    createComplianceChecker({
      lists: withLists,
      chains: () => oracleChains(chains.list()),
      resolveJurisdictions: () => ["ofac-sdn", "chainalysis-oracle"],
    });
  const stopped = async <T>(names: string[], run: () => Promise<T>): Promise<T> => {
    for (const n of names) await chains.byName(n).faults!.stopRpc();
    try {
      return await run();
    } finally {
      for (const n of names) await chains.byName(n).faults!.startRpc();
    }
  };
  const refusal = async (p: Promise<unknown>): Promise<ApiError> => {
    try {
      await p;
    } catch (err) {
      expect(err).to.be.instanceOf(ApiError);
      return err as ApiError;
    }
    throw new Error("expected a refusal");
  };

  it("should answer through the other chain's oracle, naming the one routed around, even when the oracle list is required", async function () {
    const polygon = chains.byName("polygon").chainId;
    const result = await stopped(["ethereum"], () =>
      checker(empty).checkAddress(DEVNET_SANCTIONED[0]!.address, {
        lists: ["chainalysis-oracle"],
      }),
    );
    expect(result.sanctioned).to.equal(true);
    expect(result.matches.map((m) => m.entry)).to.satisfy((e: string[]) =>
      e.every((x) => x.startsWith("polygon oracle")),
    );
    expect(result.lists).to.have.length(1);
    expect(result.lists[0]!.source).to.match(new RegExp(`^eip155:${polygon}:0x`));
    expect(result.routed_around).to.have.length(1);
    expect(result.routed_around[0]!.chain).to.equal("ethereum");
    expect(result.routed_around[0]!.source).to.match(/^eip155:31337:0x/);
  });

  it("should report nothing routed around while every oracle answers", async function () {
    const result = await checker(empty).checkAddress(CLEAN);
    expect(result.routed_around).to.deep.equal([]);
    expect(result.lists.map((l) => l.name)).to.deep.equal([
      "chainalysis-oracle",
      "chainalysis-oracle",
    ]);
  });

  it("should answer from the loaded list files when no oracle answers, and say so", async function () {
    const result = await stopped(["ethereum", "polygon"], () =>
      checker(lists).checkAddress(TORNADO_ROUTER),
    );
    expect(result.sanctioned).to.equal(true);
    expect(result.lists.map((l) => l.name)).to.deep.equal(["ofac-sdn"]);
    expect(result.routed_around.map((r) => r.chain).sort()).to.deep.equal(["ethereum", "polygon"]);
  });

  it("should refuse with 504 when no oracle answers and the oracle list is required, or nothing else is loaded", async function () {
    const required = await stopped(["ethereum", "polygon"], () =>
      refusal(checker(lists).checkAddress(CLEAN, { jurisdictions: ["US"] })),
    );
    expect(required.status).to.equal(504);
    expect(required.code).to.equal("ORACLE_UNAVAILABLE");
    expect(required.detail)
      .to.include("no sanctions oracle answered")
      .and.include("require the oracle list");
    const alone = await stopped(["ethereum", "polygon"], () =>
      refusal(checker(empty).checkAddress(CLEAN)),
    );
    expect(alone.status).to.equal(504);
    expect(alone.detail).to.include("no sanctions list file is loaded");
  });

  it("should count a node that takes the request and never answers as not answering, within the bound", async function () {
    // A JSON-RPC endpoint that accepts every request and never responds (a hung node or gateway).
    const silent: Server = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    const real = chains.byName("polygon");
    const provider = new JsonRpcProvider(url, real.chainId, { staticNetwork: true });
    const address = real.deployment.contracts[SANCTIONS_ORACLE_CONTRACT]!.address;
    const hung = {
      name: "hung",
      chainId: real.chainId,
      deployment: { contracts: { [SANCTIONS_ORACLE_CONTRACT]: { address } } },
      contract: () =>
        new Contract(address, ["function isSanctioned(address) view returns (bool)"], provider),
      provider,
    };
    try {
      const started = Date.now();
      const answer = await askOracle(hung, DEVNET_SANCTIONED[0]!.address, 300);
      expect(Date.now() - started).to.be.below(3_000);
      expect(answer.answered).to.equal(false);
      expect(answer).to.deep.include({ chain: "hung", reason: "no answer within 300 ms" });
      // The same oracle contract over a node that answers: sanctioned.
      const live = await askOracle(real, DEVNET_SANCTIONED[0]!.address, 300);
      expect(live.answered && live.sanctioned).to.equal(true);
    } finally {
      provider.destroy();
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});
