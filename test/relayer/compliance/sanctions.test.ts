import { once } from "node:events";
import { mkdtemp, readFile, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect } from "chai";
import { ApiError } from "../../../relayer/http/errors.ts";
import { createComplianceChecker, parseAddress } from "../../../relayer/compliance/check.ts";
import { loadListFile } from "../../../relayer/compliance/lists.ts";
import { parseSanctionsFiles, SanctionsLists } from "../../../relayer/compliance/sanctions.ts";
import { listScreen } from "../../../relayer/compliance/screen.ts";
import { complianceSource } from "../../../relayer/compliance/service.ts";
import { startInProcessRelayer } from "../../fixtures/relayer.ts";
import { referenceDataFile } from "../../fixtures/reference-data.ts";

const TORNADO_ROUTER = "0x8589427373D6D84E98730D7795D8f6f8731FDA16";
const CLEAN = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const fixture = (name: string): string =>
  path.join(import.meta.dirname, "../../fixtures/sanctions", name);

async function replaceFile(file: string, content: string): Promise<void> {
  await writeFile(`${file}.tmp`, content);
  await rename(`${file}.tmp`, file);
}

async function expectApiError(
  promise: Promise<unknown> | (() => unknown),
  status: number,
  code: string,
): Promise<ApiError> {
  try {
    await (typeof promise === "function" ? promise() : promise);
  } catch (err) {
    expect(err).to.be.instanceOf(ApiError);
    expect((err as ApiError).status).to.equal(status);
    expect((err as ApiError).code).to.equal(code);
    return err as ApiError;
  }
  throw new Error(`expected ApiError ${status} ${code}`);
}

describe("# sanctions lists", function () {
  it("should load the published OFAC ETH list and find the Tornado Cash router on it", async function () {
    const file = referenceDataFile("ofac-sanctioned-eth.txt");
    const loaded = await loadListFile("ofac-sdn", file);
    expect(loaded.format).to.equal("text");
    expect(loaded.entries.size).to.be.at.least(147);
    const hit = loaded.entries.get(TORNADO_ROUTER.toLowerCase());
    expect(hit?.address).to.equal(TORNADO_ROUTER);

    const checker = createComplianceChecker({
      lists: await SanctionsLists.load(parseSanctionsFiles(file)),
      chains: () => [],
    });
    for (const form of [
      TORNADO_ROUTER,
      TORNADO_ROUTER.toLowerCase(),
      `0x${TORNADO_ROUTER.slice(2).toUpperCase()}`,
    ]) {
      const result = await checker.checkAddress(form);
      expect(result.sanctioned).to.equal(true);
      expect(result.address).to.equal(TORNADO_ROUTER);
      expect(result.matches).to.deep.equal([{ list: "ofac-sdn", entry: hit!.entry }]);
      expect(result.lists).to.deep.equal([
        {
          name: "ofac-sdn",
          source: file,
          entries: loaded.entries.size,
          updated_at: loaded.updatedAt.toISOString(),
        },
      ]);
    }
    const clean = await checker.checkAddress(CLEAN);
    expect(clean).to.include({ sanctioned: false, address: CLEAN });
    expect(clean.matches).to.deep.equal([]);
  });

  it("should read the ETH address features of both SDN XML formats and nothing else", async function () {
    const classic = await loadListFile("ofac-sdn", fixture("sdn-sample.xml"));
    expect(classic.format).to.equal("sdn-xml");
    expect([...classic.entries.values()]).to.deep.equal([
      { address: TORNADO_ROUTER, entry: "SDN uid 40001: TORNADO CASH" },
    ]);
    const advanced = await loadListFile("ofac-sdn", fixture("sdn-advanced-sample.xml"));
    expect(advanced.format).to.equal("sdn-advanced-xml");
    expect([...advanced.entries.values()]).to.deep.equal([
      { address: TORNADO_ROUTER, entry: "SDN FixedRef 40001: TORNADO CASH" },
    ]);
  });

  it("should reject a list file with a line that is not an address, naming the line", async function () {
    const dir = await mkdtemp(path.join(tmpdir(), "veriflow-lists-"));
    try {
      await writeFile(path.join(dir, "bad.txt"), `# comment\n${TORNADO_ROUTER}\nnot-an-address\n`);
      try {
        await loadListFile("ofac-sdn", path.join(dir, "bad.txt"));
        expect.fail("a bad line must not load");
      } catch (err) {
        expect((err as Error).message).to.match(/line 3: not an address/);
      }
      await writeFile(path.join(dir, "other.xml"), "<root><x/></root>");
      try {
        await loadListFile("ofac-sdn", path.join(dir, "other.xml"));
        expect.fail("an unknown XML must not load");
      } catch (err) {
        expect((err as Error).message).to.match(/neither sdn.xml nor sdn_advanced.xml/);
      }
      try {
        await SanctionsLists.load([{ list: "ofac-sdn", path: path.join(dir, "missing.txt") }]);
        expect.fail("a missing file must fail the start");
      } catch (err) {
        expect((err as Error).message).to.match(
          /sanctions list ofac-sdn: cannot read .*missing\.txt/,
        );
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("should parse VERIFLOW_SANCTIONS_FILES entries with and without a list id", function () {
    expect(parseSanctionsFiles("lists/sdn.xml, eu-fsf=/data/eu.txt", "/srv")).to.deep.equal([
      { list: "ofac-sdn", path: "/srv/lists/sdn.xml" },
      { list: "eu-fsf", path: "/data/eu.txt" },
    ]);
    expect(parseSanctionsFiles(undefined)).to.deep.equal([]);
    expect(parseSanctionsFiles(" ")).to.deep.equal([]);
    expect(() => parseSanctionsFiles("Bad Id=/x.txt")).to.throw(/bad list id/);
    expect(() => parseSanctionsFiles("chainalysis-oracle=/x.txt")).to.throw(/reserved/);
  });

  it("should reload on demand, on SIGHUP and on a file change, and keep the old content when a reload fails", async function () {
    const dir = await mkdtemp(path.join(tmpdir(), "veriflow-lists-"));
    const file = path.join(dir, "list.txt");
    await writeFile(file, `${CLEAN.toLowerCase()}\n`);
    const lists = await SanctionsLists.load(parseSanctionsFiles(file));
    const stop = lists.watch({ debounceMs: 20 });
    try {
      expect(lists.lookup(TORNADO_ROUTER)).to.deep.equal([]);

      // A file change (replaced by rename, as list updates are written) triggers a reload.
      const changed = once(lists, "reloaded");
      await replaceFile(file, `${CLEAN}\n${TORNADO_ROUTER}\n`);
      await changed;
      expect(lists.lookup(TORNADO_ROUTER)).to.have.length(1);

      // SIGHUP alone (a second instance that does not watch files).
      const onSignal = await SanctionsLists.load(parseSanctionsFiles(file));
      const stopSignal = onSignal.watch({ files: false });
      await replaceFile(file, `${CLEAN}\n`);
      const reloaded = once(onSignal, "reloaded");
      process.emit("SIGHUP");
      await reloaded;
      stopSignal();
      expect(onSignal.lookup(TORNADO_ROUTER)).to.deep.equal([]);
      await lists.reload();
      expect(lists.lookup(TORNADO_ROUTER)).to.deep.equal([]);

      // A broken file keeps the previous content in force and is reported.
      await replaceFile(file, "garbage\n");
      const outcome = await lists.reload();
      expect(outcome.failed).to.have.length(1);
      expect(outcome.failed[0]!.error).to.match(/not an address/);
      expect(lists.lookup(CLEAN)).to.have.length(1);
    } finally {
      stop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("# address checks", function () {
  it("should accept lower- and upper-case hex and a correct checksum, and return the checksummed form", function () {
    expect(parseAddress(CLEAN.toLowerCase())).to.equal(CLEAN);
    expect(parseAddress(`0x${CLEAN.slice(2).toUpperCase()}`)).to.equal(CLEAN);
    expect(parseAddress(CLEAN)).to.equal(CLEAN);
  });

  it("should reject a mixed-case address with a wrong checksum, a short one, and a non-string with 400 INVALID_ADDRESS", async function () {
    const wrongChecksum = CLEAN.replace("C51812dc3A", "c51812dc3A");
    const err = await expectApiError(() => parseAddress(wrongChecksum), 400, "INVALID_ADDRESS");
    expect(err.detail).to.match(/checksum/);
    await expectApiError(() => parseAddress("0x1234"), 400, "INVALID_ADDRESS");
    await expectApiError(() => parseAddress("vitalik.eth"), 400, "INVALID_ADDRESS");
    await expectApiError(() => parseAddress(undefined), 400, "INVALID_ADDRESS");
    await expectApiError(() => parseAddress(42), 400, "INVALID_ADDRESS");
  });

  it("should consult only the lists a jurisdiction requires, and fail closed on an unloaded one", async function () {
    const lists = await SanctionsLists.load([
      { list: "ofac-sdn", path: fixture("sdn-sample.xml") },
      { list: "test-list", path: fixture("sdn-advanced-sample.xml") },
    ]);
    const byRegion: Record<string, string[]> = {
      US: ["ofac-sdn"],
      XX: ["test-list"],
      EU: ["eu-fsf"],
    };
    const checker = createComplianceChecker({
      lists,
      chains: () => [],
      resolveJurisdictions: (codes) =>
        codes.flatMap((c) => {
          const ids = byRegion[c];
          if (!ids)
            throw new ApiError(400, "INVALID_COMPLIANCE_RULES", `unknown jurisdiction ${c}`);
          return ids;
        }),
    });
    const us = await checker.checkAddress(TORNADO_ROUTER, { jurisdictions: ["US"] });
    expect(us.matches.map((m) => m.list)).to.deep.equal(["ofac-sdn"]);
    expect(us.lists.map((l) => l.name)).to.deep.equal(["ofac-sdn"]);
    const all = await checker.checkAddress(TORNADO_ROUTER);
    expect(all.matches.map((m) => m.list)).to.deep.equal(["ofac-sdn", "test-list"]);
    await expectApiError(
      checker.checkAddress(TORNADO_ROUTER, { jurisdictions: ["EU"] }),
      503,
      "SANCTIONS_LIST_UNAVAILABLE",
    );
    await expectApiError(
      checker.checkAddress(TORNADO_ROUTER, { jurisdictions: ["ZZ"] }),
      400,
      "INVALID_COMPLIANCE_RULES",
    );
  });

  it("should screen for the engine with the list files, restricted to the required lists", async function () {
    const lists = await SanctionsLists.load([
      { list: "ofac-sdn", path: fixture("sdn-sample.xml") },
      { list: "test-list", path: fixture("sdn-advanced-sample.xml") },
    ]);
    const all = await listScreen(lists)(TORNADO_ROUTER.toLowerCase(), undefined as never);
    expect(all).to.deep.equal({
      address: TORNADO_ROUTER.toLowerCase(),
      sanctioned: true,
      sources: ["ofac-sdn", "test-list"],
      checked: ["ofac-sdn", "test-list"],
    });
    const ofacOnly = await listScreen(lists, ["ofac-sdn", "chainalysis-oracle"])(
      CLEAN,
      undefined as never,
    );
    expect(ofacOnly).to.deep.equal({
      address: CLEAN,
      sanctioned: false,
      sources: [],
      checked: ["ofac-sdn"],
    });
  });

  it("should stop watching the list files and SIGHUP when the relayer's context closes", async function () {
    const hangups = process.listenerCount("SIGHUP");
    const relayer = await startInProcessRelayer({
      label: "compliance",
      env: { VERIFLOW_SANCTIONS_FILES: fixture("sdn-sample.xml") },
    });
    try {
      const service = await relayer.ctx.compliance.get();
      expect((await service.checkAddress(TORNADO_ROUTER)).sanctioned).to.equal(true);
      expect(process.listenerCount("SIGHUP")).to.equal(hangups + 1);
    } finally {
      await relayer.close();
    }
    expect(process.listenerCount("SIGHUP")).to.equal(hangups);
  });

  it("should answer 503 while the configured lists cannot be loaded, and load them on a later request", async function () {
    const dir = await mkdtemp(path.join(tmpdir(), "veriflow-lists-"));
    const file = path.join(dir, "veriflow-not-yet-there.xml");
    const errors: object[] = [];
    const logger = { info: () => undefined, error: (o: object) => errors.push(o) };
    const source = complianceSource({ sanctionsFiles: file, chains: () => [], logger });
    try {
      const err = await expectApiError(source.get(), 503, "SANCTIONS_LIST_UNAVAILABLE");
      expect(err.detail).to.not.include("veriflow-not-yet-there"); // server paths stay in the log
      expect(JSON.stringify(errors)).to.include("veriflow-not-yet-there");
      // The operator puts the file in place: the next use loads it, without a restart.
      await replaceFile(file, await readFile(fixture("sdn-sample.xml"), "utf8"));
      const service = await source.get();
      expect((await service.checkAddress(TORNADO_ROUTER)).sanctioned).to.equal(true);
      expect(await source.get()).to.equal(service);
    } finally {
      await source.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
