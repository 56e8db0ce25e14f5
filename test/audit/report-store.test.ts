import { mkdtemp, rm, writeFile } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { CarReader, CarWriter } from "@ipld/car";
import { serve, type ServerType } from "@hono/node-server";
import { expect } from "chai";
import { Wallet } from "ethers";
import { CID } from "multiformats/cid";
import * as json from "multiformats/codecs/json";
import { sha256 } from "multiformats/hashes/sha2";
import { signatureHeaders } from "../../clients/sdk/index.ts";
import {
  auditReport,
  reportFromArtifactStore,
  reportFromCar,
  type AuditEnvironment,
} from "../../relayer/audit/index.ts";
import { readAuditKeys } from "../../relayer/audit/node.ts";
import { plainEnv, runAudit } from "../fixtures/cli.ts";
import { startEngineService, type EngineService } from "../fixtures/engine.ts";
import { serveChainsFile } from "../fixtures/rpc-bridge.ts";

type Envelope = {
  cid: string;
  signed_cid: string | null;
  signer: string;
  signature: string;
  report: Record<string, unknown>;
};

/** A CARv1 file of the given blocks, roots first (the block bytes are written as given). */
async function carOf(roots: CID[], blocks: { cid: CID; bytes: Uint8Array }[]): Promise<Uint8Array> {
  const { writer, out } = CarWriter.create(roots);
  const chunks: Uint8Array[] = [];
  const collected = (async () => {
    for await (const chunk of out) chunks.push(chunk);
  })();
  for (const block of blocks) await writer.put(block);
  await writer.close();
  await collected;
  return new Uint8Array(Buffer.concat(chunks));
}

/**
 * The final report through the relayer's own HTTP API: the body stored under its CID, the signed
 * report under `signed_cid`, served by GET /artifacts/{cid} and the CAR export; the `report`
 * envelope of GET /v1/workflows/{id}, the signed CID read from the store and the CAR file each
 * audit green from the chains alone (the 202's receipt compared); forged CAR blocks do not.
 */
describe("# final report in the artifact store (relayer over HTTP, embedded devnet)", function () {
  this.timeout(600_000);
  let service: EngineService;
  let key: { key: string; id: string; secret: string };
  let accepted: { execution_id: string; receipt: unknown };
  let view: { state: string; report: Envelope };
  let env: AuditEnvironment;

  /** GET through the relayer's app with the owner's request signature (what the auditor sends). */
  const ownerFetch = async (url: string, init: { headers: Record<string, string> }) =>
    service.app.request(new URL(url).pathname, { headers: init.headers });
  const ownerHeaders = () =>
    signatureHeaders({ apiKey: key.key, signingSecret: key.secret }, new Uint8Array());

  before(async function () {
    service = await startEngineService();
    env = { chains: service.chains.list(), ...(await readAuditKeys()) };
    key = await service.newKey();
    const body = JSON.stringify({
      name: "report-in-the-store",
      actions: [
        {
          type: "multisend",
          chain: "arbitrum",
          from: "USDC",
          amount: "30",
          recipients: [
            { address: Wallet.createRandom().address, amount: "20" },
            { address: Wallet.createRandom().address, amount: "10" },
          ],
        },
      ],
    });
    const submitted = await service.request(key, "POST", "/v1/workflows", body);
    expect(submitted.status).to.equal(202);
    accepted = (await submitted.json()) as typeof accepted;
    for (;;) {
      const id = accepted.execution_id;
      view = (await (
        await service.request(key, "GET", `/v1/workflows/${id}`)
      ).json()) as typeof view;
      if (["completed", "failed", "cancelled"].includes(view.state)) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(view.state).to.equal("completed");
  });
  after(async function () {
    await service?.close();
  });

  it("should serve the report body under its CID and in its CAR export, and audit its status envelope green", async function () {
    const { cid } = view.report;
    const { artifact_id, signer, signature, ...reportBody } = view.report.report;
    expect(artifact_id).to.equal(cid);
    expect([signer, signature]).to.deep.equal([view.report.signer, view.report.signature]);

    const stored = await service.request(key, "GET", `/artifacts/${cid}`);
    expect(stored.status).to.equal(200);
    expect(await stored.json()).to.deep.equal(reportBody);

    // The report is an artifact of the workflow's key: another key cannot read or export it.
    const stranger = await service.newKey();
    expect((await service.request(stranger, "GET", `/artifacts/${cid}`)).status).to.equal(404);
    expect((await service.request(stranger, "GET", `/artifacts/${cid}/car`)).status).to.equal(404);

    const car = await service.request(key, "GET", `/artifacts/${cid}/car`);
    expect(car.status).to.equal(200);
    const reader = await CarReader.fromBytes(new Uint8Array(await car.arrayBuffer()));
    expect((await reader.getRoots()).map(String)).to.deep.equal([cid]);
    const block = (await reader.get((await reader.getRoots())[0]!))!;
    const digest = await sha256.digest(block.bytes);
    expect(block.cid.multihash.bytes).to.deep.equal(digest.bytes);
    expect(json.decode(block.bytes)).to.deep.equal(reportBody);

    // With the 202 the client kept: the report's receipt is the one given at submission.
    const verdict = await auditReport(view.report, env, { receipt: accepted });
    expect(
      verdict.checks.filter((c) => !c.ok),
      JSON.stringify(verdict.checks, null, 1),
    ).to.deep.equal([]);
    expect(verdict.checks.map((c) => c.id)).to.include("client-receipt");
  });

  it("should store the signed report under signed_cid, and audit it from that CID alone", async function () {
    const signedCid = view.report.signed_cid!;
    expect(signedCid).to.be.a("string").and.not.equal(view.report.cid);
    const stored = await service.request(key, "GET", `/artifacts/${signedCid}`);
    expect(await stored.json()).to.deep.equal(view.report.report);

    const read = await reportFromArtifactStore(
      "http://relayer.test",
      signedCid,
      await ownerHeaders(),
      ownerFetch,
    );
    expect(read.source.ok).to.equal(true);
    const verdict = await auditReport(read.input, env, { source: read.source });
    expect(verdict.checks.filter((c) => !c.ok)).to.deep.equal([]);
    expect(verdict.checks[0]).to.deep.include({ id: "source", ok: true });

    // The body's CID is not enough: it cannot carry its own signature.
    const errorOf = (p: Promise<unknown>) =>
      p.then(
        () => "",
        (err: Error) => err.message,
      );
    expect(
      await errorOf(
        reportFromArtifactStore(
          "http://relayer.test",
          view.report.cid,
          await ownerHeaders(),
          ownerFetch,
        ),
      ),
    ).to.match(/is a report body .* audit the signed report's CID/);
    // Unsigned reads are refused by the relayer, and the auditor says so.
    expect(
      await errorOf(reportFromArtifactStore("http://relayer.test", signedCid, {}, ownerFetch)),
    ).to.match(/answered 401/);
  });

  it("should audit the CAR export of the signed report, and catch a CAR block whose bytes are not its CID's", async function () {
    const signedCid = view.report.signed_cid!;
    const exported = await service.request(key, "GET", `/artifacts/${signedCid}/car`);
    const carBytes = new Uint8Array(await exported.arrayBuffer());
    const read = await reportFromCar(carBytes);
    const reader = await CarReader.fromBytes(carBytes);
    const genuineBlock = (await reader.get(CID.parse(signedCid)))!.bytes;
    expect(read.source).to.deep.include({ cid: signedCid, ok: true });
    expect((await auditReport(read.input, env, { source: read.source })).ok).to.equal(true);

    // A changed amount under the genuine CID: the CAR format itself does not check hashes.
    const forged = structuredClone(view.report.report) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    forged.actions[0].result.recipients[0].amount = "21.0";
    const cid = CID.parse(signedCid);
    const forgedCar = await carOf([cid], [{ cid, bytes: json.encode(forged) }]);
    const tampered = await reportFromCar(forgedCar);
    expect(tampered.source.ok).to.equal(false);
    expect(tampered.source.reason).to.match(/hashes to .*, not to .*: its bytes were changed/);
    const verdict = await auditReport(tampered.input, env, { source: tampered.source });
    const failed = verdict.checks.filter((c) => !c.ok).map((c) => c.id);
    expect(failed).to.include.members(["source", "cid"]);

    // A genuine signed report of this execution stored under a CID that is not its own.
    const body = genuineBlock;
    const otherCid = CID.createV1(json.code, await sha256.digest(json.encode({ other: true })));
    const misfiled = await reportFromCar(await carOf([otherCid], [{ cid: otherCid, bytes: body }]));
    const misfiledVerdict = await auditReport(misfiled.input, env, { source: misfiled.source });
    expect(misfiledVerdict.checks.filter((c) => !c.ok).map((c) => c.id)).to.deep.equal(["source"]);

    // Several roots need --cid; a root without its block, or a body, is an input error.
    const bodyCid = CID.parse(view.report.cid);
    const unsigned = { ...view.report.report };
    for (const field of ["artifact_id", "signer", "signature"]) delete unsigned[field];
    const bodyBytes = json.encode(unsigned);
    const two = await carOf(
      [cid, bodyCid],
      [
        { cid, bytes: body },
        { cid: bodyCid, bytes: bodyBytes },
      ],
    );
    const errorOf = (p: Promise<unknown>) =>
      p.then(
        () => "",
        (err: Error) => err.message,
      );
    expect(await errorOf(reportFromCar(two))).to.match(/has 2 roots .* choose one with --cid/);
    expect((await reportFromCar(two, signedCid)).source.ok).to.equal(true);
    expect(await errorOf(reportFromCar(two, view.report.cid))).to.match(/is a report body/);
    expect(await errorOf(reportFromCar(await carOf([cid], [])))).to.match(/holds no block/);
    expect(await errorOf(reportFromCar(new TextEncoder().encode("not a car")))).to.match(
      /not a CAR file/,
    );
  });

  describe("# the audit command on a CID and on a CAR file", function () {
    let dir: string;
    let chains: Awaited<ReturnType<typeof serveChainsFile>>;
    let http: ServerType;
    let url: string;

    before(async function () {
      dir = await mkdtemp(path.join(tmpdir(), "vf-audit-cid-"));
      chains = await serveChainsFile(service.chains.list(), dir);
      http = serve({ fetch: service.app.fetch, port: 0, hostname: "127.0.0.1" });
      await new Promise((resolve) => http.once("listening", resolve));
      url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
      const signedCid = view.report.signed_cid!;
      const car = await service.request(key, "GET", `/artifacts/${signedCid}/car`);
      await writeFile(path.join(dir, "report.car"), new Uint8Array(await car.arrayBuffer()));
      const forged = structuredClone(view.report.report) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
      forged.actions[0].result.recipients[1].amount = "11.0";
      const cid = CID.parse(signedCid);
      await writeFile(
        path.join(dir, "forged.car"),
        await carOf([cid], [{ cid, bytes: json.encode(forged) }]),
      );
    });
    after(async function () {
      await new Promise((resolve) => (http ? http.close(resolve) : resolve(null)));
      await chains?.close();
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    it("should exit 0 on the signed CID read with the owner's credentials, and on the CAR file", async function () {
      const owner = plainEnv({
        VERIFLOW_URL: url,
        VERIFLOW_API_KEY: key.key,
        VERIFLOW_SIGNING_SECRET: key.secret,
      });
      const byCid = await runAudit([view.report.signed_cid!, "--chains", chains.file], owner);
      expect(byCid.code, byCid.stderr + byCid.stdout).to.equal(0);
      expect(byCid.stdout).to.match(
        /^PASS {2}source +read from http:\/\/127\.0\.0\.1:\d+\/artifacts\//m,
      );
      const byCar = await runAudit([path.join(dir, "report.car"), "--chains", chains.file]);
      expect(byCar.code, byCar.stderr + byCar.stdout).to.equal(0);
      expect(byCar.stdout).to.match(/^PASS {2}source +read from the CAR file/m);
    });

    it("should exit 1 on a forged CAR block and 2 without credentials for a CID", async function () {
      const forged = await runAudit([path.join(dir, "forged.car"), "--chains", chains.file]);
      expect(forged.code).to.equal(1);
      expect(forged.stdout).to.match(/^FAIL {2}source +the block from the CAR file hashes to/m);
      const anonymous = await runAudit([view.report.signed_cid!, "--chains", chains.file]);
      expect(anonymous.code).to.equal(2);
      expect(anonymous.stderr).to.match(/missing the relayer URL/);
      const stranger = await service.newKey();
      const notTheirs = await runAudit(
        [view.report.signed_cid!, "--chains", chains.file, "--url", url, "--key", stranger.key],
        plainEnv({ VERIFLOW_SIGNING_SECRET: "wrong-secret" }),
      );
      expect(notTheirs.code).to.equal(2);
      expect(notTheirs.stderr).to.match(/answered 401/);
    });
  });
});
