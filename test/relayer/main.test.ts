import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { expect } from "chai";
import { signedHeaders } from "../../relayer/auth/hmac.ts";
import { VeriflowClient } from "../../clients/sdk/index.ts";
import { startNpmStart, type StartedRelayer } from "../fixtures/npm-start.ts";
import { SPEC_JSON_WORKFLOW, SPEC_YAML_WORKFLOW } from "../fixtures/catalogue.ts";
import { SERVICE_NODE_FLAGS } from "../fixtures/service-flags.ts";
import { startChildRelayer } from "../fixtures/child.ts";

const REPO = path.resolve(import.meta.dirname, "../..");
const execFileAsync = promisify(execFile);

/**
 * A new user's first run: `npm start` with nothing configured, then the spec's two examples
 * (both declare `jurisdictions: ["US"]`, which requires the OFAC SDN list) signed as the README
 * shows, followed to their final reports.
 */
describe("# npm start (first run)", function () {
  this.timeout(900_000);
  let relayer: StartedRelayer;

  before(async function () {
    relayer = await startNpmStart();
  });

  after(async function () {
    await relayer?.close();
  });

  it("should print the shipped sanctions snapshot's date and the development key once, with a CLI command, outside the JSON log", function () {
    expect(relayer.banner).to.match(/sanctions list ofac-sdn: the shipped snapshot of 2026-11-21/);
    expect(relayer.apiKey).to.match(/^vfk_/);
    expect(relayer.secret).to.be.a("string").with.length.greaterThan(16);
    expect(relayer.banner).to.contain(
      `npx veriflow login --url ${relayer.url} --key ${relayer.apiKey}`,
    );
    // The CLI command never carries the secret (it is asked for at a prompt).
    const command = relayer.banner.split("\n").find((l) => l.includes("veriflow login"))!;
    expect(command).to.not.contain(relayer.secret!);
  });

  it("should accept the spec's JSON and YAML examples as they are and run both to a signed report", async function () {
    const body = JSON.stringify(SPEC_JSON_WORKFLOW);
    const json = await fetch(`${relayer.url}/v1/workflows`, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        ...signedHeaders(relayer.apiKey!, relayer.secret!, body),
      },
      body,
    });
    expect(json.status, await json.clone().text()).to.equal(202);
    const queued = (await json.json()) as { status: string; execution_id: string };
    expect(queued.status).to.equal("queued");

    // One after the other: run at once, both swap 1,000 USDC in the same pool with 0.5% slippage,
    // and the second can find the price moved by the first (the risk engine then stops it).
    const client = new VeriflowClient({
      baseUrl: relayer.url,
      apiKey: relayer.apiKey!,
      signingSecret: relayer.secret!,
    });
    const first = await client.waitForReport(queued.execution_id, { intervalMs: 500 });
    const yaml = await client.submit({ yaml: SPEC_YAML_WORKFLOW });
    expect(yaml.execution_id).to.match(/^wf_/);
    const second = await client.waitForReport(yaml.execution_id, { intervalMs: 500 });

    for (const done of [first, second]) {
      expect(done.state, JSON.stringify(done.error)).to.equal("completed");
      expect(done.report?.cid).to.match(/^b[a-z2-7]+$/);
      expect(done.steps.map((s) => s.state)).to.deep.equal(Array(4).fill("completed"));
      // Screening ran against the shipped list: the report names it.
      expect(JSON.stringify(done.report?.report)).to.contain("ofac-sdn");
    }
  });
});

/**
 * The relayer's processes run with package.json's `config.node_flags` (docs/platform.md, "Runtime
 * flags"): a young generation that stays large across quiet spells, and no idle memory reducer.
 */
describe("# runtime flags", function () {
  this.timeout(60_000);

  it("should pass config.node_flags to Node in npm start and npm run worker", async function () {
    const { scripts } = JSON.parse(await readFile(path.join(REPO, "package.json"), "utf8")) as {
      scripts: Record<string, string>;
    };
    expect(scripts.start).to.equal("node $npm_package_config_node_flags relayer/main.ts");
    expect(scripts.worker).to.equal("node $npm_package_config_node_flags relayer/worker-main.ts");
  });

  it("should be flags this Node accepts, keeping the new space at 16 MiB from the start", async function () {
    const newSpace = (flags: readonly string[]) =>
      execFileAsync(process.execPath, [
        ...flags,
        "-e",
        'process.stdout.write(String(require("node:v8").getHeapSpaceStatistics().find((s) => s.space_name === "new_space").space_size))',
      ]);
    const tuned = await newSpace(SERVICE_NODE_FLAGS);
    expect(tuned.stderr).to.equal("");
    expect(Number(tuned.stdout)).to.equal(16 * 1024 * 1024);
    // Without them V8 starts the new space at 1 MiB and shrinks it back there when idle.
    expect(Number((await newSpace([])).stdout)).to.be.lessThan(16 * 1024 * 1024);
    // A misspelt flag stops Node from starting at all, rather than being ignored.
    const misspelt = await newSpace(["--no-memory-reduce"]).catch((e: Error) => e);
    expect(misspelt).to.be.instanceOf(Error);
    expect((misspelt as Error).message).to.match(/bad option: --no-memory-reduce/);
  });

  it("should leave the old generation room for as much again after a full collection", async function () {
    // Holds about 30 MB, collects it, then keeps allocating until V8 starts marking: its trace
    // prints the old generation's limit then, which a full collection set from what it held.
    const program = `
      const v8 = require("node:v8");
      globalThis.kept = [];
      for (let i = 0; i < 200000; i++) kept.push({ i, s: "x" + i, a: [i] });
      gc();
      const spaces = v8.getHeapSpaceStatistics();
      const young = new Set(["new_space", "new_large_object_space"]);
      const held = spaces.filter((s) => !young.has(s.space_name))
        .reduce((sum, s) => sum + s.space_used_size, 0);
      // The limit also leaves room for one semi-space's survivors (half the new space).
      const survivors = spaces.find((s) => s.space_name === "new_space").space_size / 2;
      console.log("held " + held + " survivors " + survivors);
      for (let n = 0; n < 8e6; n++) kept.push({ n });
    `;
    const limitAfterCollection = async (flags: readonly string[]) => {
      const { stdout } = await execFileAsync(
        process.execPath,
        [...flags, "--expose-gc", "--trace-incremental-marking", "-e", program],
        { maxBuffer: 64 * 1024 * 1024 },
      );
      const [, held, survivors] = (/^held (\d+) survivors (\d+)$/m.exec(stdout) ?? []).map(Number);
      const limit =
        /\[IncrementalMarking\] Start \([^)]*\): \(size\/waste\/limit\/slack\) v8: \d+MB \/ \d+MB \/ (\d+)MB/.exec(
          stdout,
        )?.[1];
      expect(limit, stdout.slice(0, 2000)).to.be.a("string");
      return (Number(limit) * 1024 * 1024 - survivors!) / held!;
    };
    // Twice what it held, whatever V8 measured of the collector's and the program's speeds.
    const factor = await limitAfterCollection(SERVICE_NODE_FLAGS);
    expect(factor).to.be.within(1.9, 2.1);
    // Without the flag V8 picks the factor from those speeds: not that one here.
    const dynamic = await limitAfterCollection(
      SERVICE_NODE_FLAGS.filter((f) => !f.startsWith("--heap-growing-percent")),
    );
    expect(Math.abs(dynamic - factor)).to.be.greaterThan(0.2);
  });

  it("should collect the start's garbage before it listens, with --expose-gc", async function () {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), "vf-flags-"));
    const child = await startChildRelayer(
      { DATA_DIR: dataDir, PORT: "0", LOG_LEVEL: "warn", NODE_ENV: "test" },
      { nodeArgs: ["--trace-gc"] },
    );
    try {
      // V8 names a full collection that `gc()` asked for `testing`; none of its own is.
      const asked = child.before.filter((line) => /Mark-Compact .*testing/.test(line));
      expect(asked, child.before.slice(-5).join("\n")).to.have.length(1);
    } finally {
      child.process.kill("SIGTERM");
      await child.exited;
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
