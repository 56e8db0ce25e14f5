import { expect } from "chai";
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { DEVNET_FUNDED } from "../../../relayer/devnet/accounts.ts";
import { CLI, plainEnv, REPO, runCli } from "../../fixtures/cli.ts";
import { startNpmStart, type StartedRelayer } from "../../fixtures/npm-start.ts";
import { SHIPPED_OFAC_SNAPSHOT } from "../../../relayer/config/sanctions.ts";

const exec = promisify(execFile);
const JSON_EXAMPLE = path.join(REPO, "examples/treasury-rebalance.json");
const YAML_EXAMPLE = path.join(REPO, "examples/treasury-rebalance.yaml");
const RECIPIENT = "0x52908400098527886E0F7030069857D2E4169EE7";

/**
 * The CLI against a real relayer started as `npm start` does (embedded devnet, PGlite, the
 * development key from its banner), every command a child process as a user runs it. The free
 * tier's 20 requests a minute are raised for this file: its commands spend more, and each 429
 * would make the CLI sleep out the window (the wait itself is webhooks.test.ts's).
 */
describe("# veriflow CLI", function () {
  this.timeout(900_000);
  let relayer: StartedRelayer;
  let home: string;
  let env: Record<string, string>;
  let sanctioned: string;

  before(async function () {
    relayer = await startNpmStart({
      env: { VERIFLOW_LIMITS: JSON.stringify({ free: { requestsPerMinute: 1_000 } }) },
    });
    home = await mkdtemp(path.join(os.tmpdir(), "vf-cli-"));
    env = plainEnv({ VERIFLOW_CONFIG: path.join(home, "profiles.json") });
    sanctioned = (await readFile(SHIPPED_OFAC_SNAPSHOT.path, "utf8")).split("\n")[0]!.trim();
  });

  after(async function () {
    await relayer?.close();
    if (home) await rm(home, { recursive: true, force: true });
  });

  const cli = (args: string[], input?: string) => runCli(args, { env, input });

  describe("# login and profiles", function () {
    it("should refuse wrong credentials and save nothing", async function () {
      const out = await cli(
        ["login", "--url", relayer.url, "--key", relayer.apiKey!],
        "not-the-secret-at-all\n",
      );
      expect(out.code).to.equal(1);
      expect(out.stderr).to.contain("AUTH_BAD_SIGNATURE");
      await stat(env.VERIFLOW_CONFIG!).then(
        () => expect.fail("profile written"),
        (err: NodeJS.ErrnoException) => expect(err.code).to.equal("ENOENT"),
      );
    });

    it("should read the secret from stdin, never argv, and keep it in a 0600 file", async function () {
      const out = await cli(
        ["login", "--url", relayer.url, "--key", relayer.apiKey!],
        `${relayer.secret}\n`,
      );
      expect(out.code, out.stderr).to.equal(0);
      expect(out.stdout + out.stderr).to.not.contain(relayer.secret!);
      const info = await stat(env.VERIFLOW_CONFIG!);
      expect(info.mode & 0o777).to.equal(0o600);
      const saved = JSON.parse(await readFile(env.VERIFLOW_CONFIG!, "utf8"));
      expect(saved.profiles.default).to.deep.equal({
        url: relayer.url,
        apiKey: relayer.apiKey,
        signingSecret: relayer.secret,
      });
    });

    it("should say what is missing without a profile, and refuse a secret flag", async function () {
      const bare = await runCli(["list"], {
        env: plainEnv({ VERIFLOW_CONFIG: path.join(home, "none.json") }),
      });
      expect(bare.code).to.equal(1);
      expect(bare.stderr).to.contain("veriflow login");
      const flag = await cli(["list", "--secret", "x"]);
      expect(flag.code).to.equal(2);
      expect(flag.stderr).to.match(/Unknown option '--secret'/);
    });

    it("should take the environment over the profile file", async function () {
      const out = await runCli(["list", "--json"], {
        env: { ...env, VERIFLOW_SIGNING_SECRET: "a-wrong-secret-from-the-env" },
      });
      expect(out.code).to.equal(1);
      expect(out.stderr).to.contain("AUTH_BAD_SIGNATURE");
    });
  });

  describe("# workflows", function () {
    let completed: string;

    it("should submit the YAML example and --watch it to its report, exit 0, in plain lines off a terminal", async function () {
      const out = await cli(["submit", YAML_EXAMPLE, "--watch", "--interval", "300"]);
      expect(out.code, out.stderr + out.stdout).to.equal(0);
      const id = /^(wf_\S+) queued$/m.exec(out.stdout)![1]!;
      completed = id;
      for (const n of [1, 2, 3, 4]) {
        expect(out.stdout).to.match(new RegExp(`${id} action ${n} \\w+ completed on \\w+`));
      }
      expect(out.stdout).to.match(new RegExp(`${id} action 1 convert completed on \\w+ via \\w+`));
      expect(out.stdout).to.match(new RegExp(`${id} action 1 tx 0x[0-9a-f]{64}`));
      expect(out.stdout).to.match(new RegExp(`${id} action 3 destination tx 0x[0-9a-f]{64}`));
      expect(out.stdout).to.match(new RegExp(`${id} proof Groth16`));
      expect(out.stdout).to.match(new RegExp(`${id} attestation on \\w+ tx 0x[0-9a-f]{64}`));
      expect(out.stdout).to.match(new RegExp(`${id} report CID b[a-z2-7]+`));
      // Each fact once, although the status was read many times.
      expect(out.stdout.match(/report CID/g)).to.have.length(1);
      expect(out.stdout).to.not.contain("\x1b[");
    });

    it("should list, show and save the report of a completed execution", async function () {
      const list = await cli(["list", "--state", "completed", "--json"]);
      expect(list.code).to.equal(0);
      expect(
        JSON.parse(list.stdout).items.map((e: { execution_id: string }) => e.execution_id),
      ).to.include(completed);
      const status = await cli(["status", completed]);
      expect(status.stdout).to.contain(`${completed} completed (stage report)`);
      const file = path.join(home, "report.json");
      const report = await cli(["report", completed, "--out", file]);
      expect(report.code).to.equal(0);
      const saved = JSON.parse(await readFile(file, "utf8"));
      expect(report.stdout).to.contain(saved.cid);
      expect(saved.report.artifact_id).to.equal(saved.cid);
      const bad = await cli(["list", "--state", "done"]);
      expect(bad.code).to.equal(2);
    });

    it("should replay a submission with the same --idempotency-key", async function () {
      const first = await cli([
        "submit",
        JSON_EXAMPLE,
        "--idempotency-key",
        "cli-test-1",
        "--json",
      ]);
      const again = await cli([
        "submit",
        JSON_EXAMPLE,
        "--idempotency-key",
        "cli-test-1",
        "--json",
      ]);
      expect(first.code, first.stderr).to.equal(0);
      expect(JSON.parse(again.stdout).execution_id).to.equal(JSON.parse(first.stdout).execution_id);
      const other = await cli(["submit", YAML_EXAMPLE, "--idempotency-key", "cli-test-1"]);
      expect(other.code).to.equal(1);
      expect(other.stderr).to.contain("IDEMPOTENCY_KEY_REUSED");
      // Let it finish before the next tests count concurrent workflows.
      const watch = await cli([
        "status",
        JSON.parse(first.stdout).execution_id,
        "--watch",
        "--json",
      ]);
      expect(JSON.parse(watch.stdout).state).to.equal("completed");
    });

    it("should exit 1 with the code and detail when a watched execution fails", async function () {
      const file = path.join(home, "to-sanctioned.json");
      await writeFile(
        file,
        JSON.stringify({
          name: "pay-a-listed-address",
          actions: [
            { type: "swap", from: "USDC", to: "DAI", amount: "10", slippage: 1 },
            { type: "multisend", recipients: [{ address: sanctioned, amount: "100%" }] },
          ],
          compliance: { jurisdictions: ["US"] },
        }),
      );
      const out = await cli(["submit", file, "--watch", "--interval", "300"]);
      expect(out.code, out.stdout + out.stderr).to.equal(1);
      expect(out.stdout).to.match(/SANCTIONED_ADDRESS: .+/);
    });

    it("should refuse an invalid workflow with the issues, and a missing file, storing nothing", async function () {
      const file = path.join(home, "bad.yaml");
      await writeFile(file, "name: x\nactions:\n  - action: teleport\n    params: {}\n");
      const out = await cli(["submit", file]);
      expect(out.code).to.equal(1);
      expect(out.stderr).to.contain("VALIDATION_FAILED");
      expect(out.stderr).to.match(/actions\.0/);
      const missing = await cli(["submit", path.join(home, "nope.json")]);
      expect(missing.code).to.equal(1);
      expect(missing.stderr).to.contain("ENOENT");
    });

    it("should deploy a configuration, run it by name and manage its schedule", async function () {
      const deploy = await cli(["deploy", YAML_EXAMPLE, "--json"]);
      expect(deploy.code, deploy.stderr).to.equal(0);
      const deployed = JSON.parse(deploy.stdout);
      expect(deployed.name).to.equal("weekly-treasury-rebalance");
      const run = await cli(["run", deployed.name, "--json"]);
      expect(run.code, run.stderr).to.equal(0);
      expect(JSON.parse(run.stdout).execution_id).to.match(/^wf_/);
      const list = JSON.parse((await cli(["schedules", "list", "--json"])).stdout);
      const schedule = list.items.find((s: { name: string }) => s.name === deployed.name);
      expect(schedule).to.not.equal(undefined);
      expect((await cli(["schedules", "pause", schedule.id, "--json"])).code).to.equal(0);
      const paused = JSON.parse((await cli(["schedules", "list", "--json"])).stdout).items.find(
        (s: { id: string }) => s.id === schedule.id,
      );
      expect(paused.paused).to.equal(true);
      expect((await cli(["schedules", "resume", schedule.id])).code).to.equal(0);
      expect((await cli(["schedules", "delete", schedule.id])).code).to.equal(0);
      const gone = await cli(["schedules", "pause", schedule.id]);
      expect(gone.code).to.equal(1);
      expect(gone.stderr).to.contain("SCHEDULE_NOT_FOUND");
      const watch = await cli(["status", JSON.parse(run.stdout).execution_id, "--watch", "--json"]);
      expect(JSON.parse(watch.stdout).state).to.equal("completed");
    });
  });

  describe("# auxiliary commands", function () {
    it("should check an address against the shipped list and exit 1 when it is listed", async function () {
      const listed = await cli(["compliance", sanctioned, "--jurisdictions", "US"]);
      expect(listed.code).to.equal(1);
      expect(listed.stdout).to.contain("SANCTIONED").and.contain("ofac-sdn");
      const clean = await cli(["compliance", RECIPIENT, "--json"]);
      expect(clean.code).to.equal(0);
      expect(JSON.parse(clean.stdout).sanctioned).to.equal(false);
    });

    it("should show the account, top it up from the faucet and simulate a transfer", async function () {
      const account = await cli(["account", "--json"]);
      expect(account.code, account.stderr).to.equal(0);
      expect(JSON.parse(account.stdout).address).to.match(/^0x[0-9a-fA-F]{40}$/);
      const faucet = await cli(["faucet", "--json"]);
      expect(faucet.code, faucet.stderr).to.equal(0);
      expect(Object.keys(JSON.parse(faucet.stdout).granted)).to.not.be.empty;
      const file = path.join(home, "tx.json");
      await writeFile(
        file,
        JSON.stringify({
          chain_id: 31337,
          tx_data: { from: DEVNET_FUNDED[0]!.address, to: RECIPIENT, value: "1000" },
        }),
      );
      const sim = await cli(["simulate", file]);
      expect(sim.code, sim.stderr).to.equal(0);
      expect(sim.stdout).to.match(/succeeds on \w+ .*gas 21000/);
      expect(sim.stdout).to.match(/MEV risk none over 12 blocks/);
    });
  });

  describe("# analysis and audit", function () {
    it("should send a text for analysis and show the relayer's refusal when no provider is configured", async function () {
      const file = path.join(home, "contract.txt");
      await writeFile(file, "This NDA binds both parties.");
      const out = await cli(["analysis", file]);
      expect(out.code).to.equal(1);
      expect(out.stderr).to.contain("ANALYSIS_NOT_CONFIGURED");
    });

    it("should send its --idempotency-key with the text (a malformed one is the relayer's 400)", async function () {
      const file = path.join(home, "contract.txt");
      await writeFile(file, "This NDA binds both parties.");
      const out = await cli(["analysis", file, "--idempotency-key", "two words"]);
      expect(out.code).to.equal(1);
      expect(out.stderr).to.contain("VALIDATION_FAILED").and.contain("Idempotency-Key");
    });

    it("should run the auditor on a report file and pass its verdict's exit status through", async function () {
      const file = path.join(home, "not-a-report.json");
      await writeFile(file, JSON.stringify({ hello: "world" }));
      const out = await runCli(["audit", file], { env: plainEnv() });
      expect(out.code).to.equal(2);
      expect(out.stderr).to.match(/report/i);
      const usage = await runCli(["audit"], { env: plainEnv() });
      expect(usage.code).to.equal(2);
    });
  });

  describe("# --watch in a terminal", function () {
    it("should redraw the progress in place in tmux and end on the report's CID", async function () {
      const session = `vf-cli-${process.pid}`;
      const tmux = (...args: string[]) => exec("tmux", args);
      const command = [
        `VERIFLOW_CONFIG=${env.VERIFLOW_CONFIG}`,
        process.execPath,
        CLI,
        "submit",
        JSON_EXAMPLE,
        "--watch",
        "--interval",
        "300",
        "; echo EXIT=$?",
      ].join(" ");
      // Every byte the CLI writes to the terminal: the frames it drew before the final one are
      // in it however briefly each stayed on the screen.
      const written = path.join(home, "watch-tty.log");
      await tmux("new-session", "-d", "-s", session, "-x", "160", "-y", "40", "-c", REPO);
      try {
        await tmux("pipe-pane", "-o", "-t", session, `cat >> ${written}`);
        await tmux("send-keys", "-t", session, command, "Enter");
        let screen = "";
        const deadline = Date.now() + 600_000;
        while (Date.now() < deadline && !/EXIT=\d/.test(screen)) {
          await new Promise((r) => setTimeout(r, 500));
          screen = (await tmux("capture-pane", "-p", "-t", session)).stdout;
        }
        expect(screen).to.match(/EXIT=0/);
        expect(screen).to.match(/action 1 convert completed on \w+ via \w+/);
        expect(screen).to.match(/action 3 destination tx 0x[0-9a-f]{8}…[0-9a-f]{6}/);
        expect(screen).to.match(/attestation on \w+ tx 0x/);
        expect(screen).to.match(/report CID b[a-z2-7]+/);
        expect(screen).to.match(/^ {2}completed \(stage report\)$/m);
        // Redrawn in place: every line once on the final screen, and progress shown while running.
        expect(screen.match(/action 1 convert/g)).to.have.length(1);
        expect(screen.match(/report CID/g)).to.have.length(1);
        // Progress drawn while it ran (queued or running), then the block redrawn over it: cursor
        // up, clear below.
        const tty = await readFile(written, "utf8");
        expect(tty).to.match(/ {2}… (queued|running) \(stage \w+\)\r?\n/);
        const csi = `${String.fromCharCode(27)}[`;
        expect(tty.split(csi).some((part) => /^\d+F$/.test(part))).to.equal(true);
        expect(tty).to.include(`${csi}0J`);
      } finally {
        await tmux("kill-session", "-t", session).catch(() => undefined);
      }
    });
  });
});
