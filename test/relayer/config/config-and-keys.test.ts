import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmod, mkdtemp, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import { promisify } from "node:util";
import { expect } from "chai";
import {
  createApiKey,
  checkMasterKey,
  keyFingerprint,
  loadCredentials,
} from "../../../relayer/auth/keys.ts";
import { decryptSecret, encryptSecret } from "../../../relayer/auth/secrets.ts";
import { ConfigError, loadConfig } from "../../../relayer/config/index.ts";
import { resolveMasterKey } from "../../../relayer/config/master-key.ts";
import { createLogger } from "../../../relayer/http/logging.ts";
import { listen } from "../../../relayer/http/server.ts";
import { DEFAULT_TIER_LIMITS, resolveTierLimits } from "../../../relayer/config/tiers.ts";
import { openStore } from "../../../relayer/store/index.ts";
import { migrate } from "../../../relayer/store/migrate.ts";
import { newKey, signedRequest, startTestService } from "../../fixtures/platform.ts";
import { signedHeaders } from "../../../relayer/auth/hmac.ts";
import { startService } from "../../../relayer/app/index.ts";

const run = promisify(execFile);

function configProblems(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
}

describe("# configuration", () => {
  it("should apply the documented defaults", () => {
    const config = loadConfig({});
    expect(config.port).to.equal(8787);
    expect(config.host).to.equal("127.0.0.1");
    expect(config.dataDir).to.equal(path.resolve("./data"));
    expect(config.chains).to.deep.equal({ mode: "embedded" });
    expect(config.databaseUrl).to.equal(undefined);
    expect(config.bootstrapKey).to.equal(undefined);
    // One prover thread per core (at most 16).
    expect(config.engine.proverThreads).to.equal(Math.min(16, os.availableParallelism()));
  });

  it("should read the prover pool's threads and refuse a count outside 1..16", () => {
    expect(loadConfig({ VERIFLOW_PROVER_THREADS: "2" }).engine.proverThreads).to.equal(2);
    for (const bad of ["0", "17", "1.5", "two"]) {
      const problems = configProblems({ VERIFLOW_PROVER_THREADS: bad });
      expect(
        problems.find((p) => p.startsWith("VERIFLOW_PROVER_THREADS")),
        bad,
      ).to.match(/between 1 and 16|integer|number/);
    }
  });

  it("should read the swap quotes' reference price policy and refuse values outside its bounds", () => {
    expect(loadConfig({}).engine.referencePolicy).to.deep.equal({});
    expect(
      loadConfig({
        VERIFLOW_REFERENCE_WINDOW_SECONDS: "600",
        VERIFLOW_MAX_REFERENCE_DEVIATION_BPS: "50",
      }).engine.referencePolicy,
    ).to.deep.equal({ windowSeconds: 600, maxDeviationBps: 50 });
    expect(
      loadConfig({ VERIFLOW_MAX_REFERENCE_DEVIATION_BPS: "50" }).engine.referencePolicy,
    ).to.deep.equal({ maxDeviationBps: 50 });
    for (const [name, bad] of [
      ["VERIFLOW_REFERENCE_WINDOW_SECONDS", "59"],
      ["VERIFLOW_REFERENCE_WINDOW_SECONDS", "86401"],
      ["VERIFLOW_REFERENCE_WINDOW_SECONDS", "1.5"],
      ["VERIFLOW_MAX_REFERENCE_DEVIATION_BPS", "0"],
      ["VERIFLOW_MAX_REFERENCE_DEVIATION_BPS", "5001"],
      ["VERIFLOW_MAX_REFERENCE_DEVIATION_BPS", "three"],
    ] as const) {
      const problems = configProblems({ [name]: bad });
      expect(
        problems.find((p) => p.startsWith(name)),
        `${name}=${bad}`,
      ).to.match(/between|integer|number/);
    }
  });

  it("should read the chain outage window and refuse values outside its bounds", () => {
    expect(loadConfig({}).engine.chainOutageWindowSeconds).to.equal(undefined);
    expect(
      loadConfig({ VERIFLOW_CHAIN_OUTAGE_WINDOW_SECONDS: "0" }).engine.chainOutageWindowSeconds,
    ).to.equal(0);
    expect(
      loadConfig({ VERIFLOW_CHAIN_OUTAGE_WINDOW_SECONDS: "600" }).engine.chainOutageWindowSeconds,
    ).to.equal(600);
    for (const bad of ["-1", "601", "2.5", "soon"]) {
      const problems = configProblems({ VERIFLOW_CHAIN_OUTAGE_WINDOW_SECONDS: bad });
      expect(
        problems.find((p) => p.startsWith("VERIFLOW_CHAIN_OUTAGE_WINDOW_SECONDS")),
        bad,
      ).to.match(/between 0 and 600|integer|number/);
    }
  });

  it("should read the execution lease and refuse values outside its bounds", () => {
    expect(loadConfig({}).engine.leaseSeconds).to.equal(undefined);
    expect(loadConfig({ VERIFLOW_ENGINE_LEASE_SECONDS: "2" }).engine.leaseSeconds).to.equal(2);
    expect(loadConfig({ VERIFLOW_ENGINE_LEASE_SECONDS: "600" }).engine.leaseSeconds).to.equal(600);
    for (const bad of ["0", "1", "601", "2.5", "soon", "-5"]) {
      const problems = configProblems({ VERIFLOW_ENGINE_LEASE_SECONDS: bad });
      expect(
        problems.find((p) => p.startsWith("VERIFLOW_ENGINE_LEASE_SECONDS")),
        bad,
      ).to.match(/between 2 and 600|integer|number/);
    }
  });

  it("should name the range of every bounded integer setting it refuses", () => {
    for (const [name, bad, range] of [
      ["PORT", "65536", "between 0 and 65535"],
      ["DATABASE_POOL_SIZE", "1", "between 2 and 200"],
      ["SHUTDOWN_GRACE_MS", "600001", "between 0 and 600000"],
      ["SHUTDOWN_GRACE_MS", "-1", "between 0 and 600000"],
      ["VERIFLOW_ENGINE_CONCURRENCY", "257", "between 1 and 256"],
      ["VERIFLOW_PROVER_THREADS", "0", "between 1 and 16"],
      ["VERIFLOW_REFERENCE_WINDOW_SECONDS", "86401", "between 60 and 86400"],
    ] as const) {
      expect(
        configProblems({ [name]: bad }).find((p) => p.startsWith(name)),
        `${name}=${bad}`,
      ).to.include(range);
    }
    expect(
      configProblems({ SHUTDOWN_GRACE_MS: "1.5" }).find((p) => p.startsWith("SHUTDOWN_GRACE_MS")),
    ).to.include("must be an integer");
    expect(loadConfig({ SHUTDOWN_GRACE_MS: "600000" }).shutdownGraceMs).to.equal(600_000);
  });

  it("should name each bad variable with a clear message", () => {
    const problems = configProblems({
      PORT: "eighty",
      LOG_LEVEL: "loud",
      DATABASE_URL: "mysql://x",
      VERIFLOW_TIER: "gold",
      VERIFLOW_MASTER_KEY: "short",
    });
    expect(problems.find((p) => p.startsWith("PORT"))).to.include('"eighty"');
    expect(problems.find((p) => p.startsWith("LOG_LEVEL"))).to.include("fatal, error, warn");
    expect(problems.find((p) => p.startsWith("DATABASE_URL"))).to.include("postgres://");
    expect(problems.find((p) => p.startsWith("VERIFLOW_TIER"))).to.include("free, pro, enterprise");
    expect(problems.find((p) => p.startsWith("VERIFLOW_MASTER_KEY"))).to.include("32 bytes");
    // Secret values are never echoed.
    expect(problems.join(" ")).to.not.include("mysql://x");
    expect(problems.join(" ")).to.not.include("short");
  });

  it("should want the bootstrap key and secret together", () => {
    expect(configProblems({ VERIFLOW_API_KEY: "vfk_bootstrap" })[0]).to.match(
      /VERIFLOW_SIGNING_SECRET.*together/,
    );
    const ok = loadConfig({
      VERIFLOW_API_KEY: "vfk_bootstrap",
      VERIFLOW_SIGNING_SECRET: "0123456789abcdef0123",
      VERIFLOW_TIER: "pro",
    });
    expect(ok.bootstrapKey).to.deep.equal({
      key: "vfk_bootstrap",
      secret: "0123456789abcdef0123",
      tier: "pro",
    });
  });

  it("should require the master key in production", () => {
    expect(configProblems({ NODE_ENV: "production" })[0]).to.match(
      /^VERIFLOW_MASTER_KEY is required/,
    );
  });

  it("should read the chains selection", () => {
    expect(loadConfig({ VERIFLOW_CHAINS: "rpc" }).chains).to.deep.equal({ mode: "rpc" });
    expect(loadConfig({ VERIFLOW_CHAINS: "chains.json" }).chains).to.deep.equal({
      mode: "file",
      file: path.resolve("chains.json"),
    });
  });

  it("should merge tier overrides and refuse bad ones", () => {
    const limits = resolveTierLimits('{"pro":{"requestsPerMinute":600}}');
    expect(limits.pro).to.deep.equal({ ...DEFAULT_TIER_LIMITS.pro, requestsPerMinute: 600 });
    expect(limits.free).to.deep.equal(DEFAULT_TIER_LIMITS.free);
    expect(() => resolveTierLimits('{"gold":{}}')).to.throw(/VERIFLOW_LIMITS is invalid/);
    expect(() => resolveTierLimits("{")).to.throw(/must be JSON/);
  });
});

describe("# master key and secrets at rest", function () {
  this.timeout(60_000);

  it("should generate the development master key once with mode 0600 and reuse it", async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), "vf-master-"));
    const config = loadConfig({ DATA_DIR: dataDir });
    const [a, b] = await Promise.all([resolveMasterKey(config), resolveMasterKey(config)]);
    expect(a.key.equals(b.key)).to.equal(true);
    expect([a.source, b.source].sort()).to.deep.equal(["file", "generated"]);
    const info = await stat(path.join(dataDir, "master.key"));
    expect(info.mode & 0o777).to.equal(0o600);
    await chmod(path.join(dataDir, "master.key"), 0o644);
    let refused: Error | undefined;
    await resolveMasterKey(config).catch((err: Error) => (refused = err));
    expect(refused?.message).to.match(/readable by group or others/);
    await rm(dataDir, { recursive: true, force: true });
  });

  it("should prefer VERIFLOW_MASTER_KEY and write no key file", async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), "vf-master-"));
    const hex = randomBytes(32).toString("hex");
    const resolved = await resolveMasterKey(
      loadConfig({ DATA_DIR: dataDir, VERIFLOW_MASTER_KEY: hex }),
    );
    expect(resolved.source).to.equal("env");
    expect(resolved.key.toString("hex")).to.equal(hex);
    let missing: NodeJS.ErrnoException | undefined;
    await stat(path.join(dataDir, "master.key")).catch((err) => (missing = err));
    expect(missing?.code).to.equal("ENOENT");
    await rm(dataDir, { recursive: true, force: true });
  });

  it("should encrypt with AES-256-GCM, bound to its context, and detect tampering", () => {
    const key = randomBytes(32);
    const blob = encryptSecret(key, "vfs_topsecret", "key_1");
    expect(blob).to.match(/^v1\./).and.not.include("topsecret");
    expect(encryptSecret(key, "vfs_topsecret", "key_1")).to.not.equal(blob); // fresh IV
    expect(decryptSecret(key, blob, "key_1")).to.equal("vfs_topsecret");
    expect(() => decryptSecret(key, blob, "key_2")).to.throw();
    expect(() => decryptSecret(randomBytes(32), blob, "key_1")).to.throw();
    const parts = blob.split(".");
    parts[2] = Buffer.from("tampered").toString("base64url");
    expect(() => decryptSecret(key, parts.join("."), "key_1")).to.throw();
  });

  it("should store only ciphertext and refuse a different master key", async () => {
    const store = await openStore({ dataDir: "memory://" });
    await migrate(store);
    const masterKey = randomBytes(32);
    await checkMasterKey(store, masterKey);
    const { record, secret } = await createApiKey(store, masterKey, { tier: "free" });
    const rows = await store.query<Record<string, unknown>>("SELECT * FROM api_keys");
    expect(JSON.stringify(rows)).to.not.include(secret);
    expect((await loadCredentials(store, masterKey, record.key))!.secrets).to.deep.equal([secret]);
    let refused: Error | undefined;
    await checkMasterKey(store, randomBytes(32)).catch((err: Error) => (refused = err));
    expect(refused?.message).to.match(/master key differs/);
    await store.close();
  });
});

describe("# keys command", function () {
  this.timeout(120_000);
  let dataDir: string;
  const keys = (...args: string[]) =>
    run(process.execPath, ["scripts/keys.ts", ...args], {
      env: { ...process.env, DATA_DIR: dataDir, NODE_ENV: "test" },
    });

  before(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), "vf-keys-"));
  });
  after(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it("should create, list, rotate and revoke, printing a secret only at creation and rotation", async () => {
    const created = await keys("create", "--tier", "pro", "--label", "treasury");
    const key = /API key:\s+(\S+)/.exec(created.stdout)![1]!;
    const secret = /signing secret:\s+(\S+)/.exec(created.stdout)![1]!;
    expect(secret).to.match(/^vfs_/);

    const listed = await keys("list");
    expect(listed.stdout).to.include(key).and.include("pro").and.include("treasury");
    expect(listed.stdout).to.not.include(secret);

    const rotated = await keys("rotate", key, "--grace", "1h");
    const next = /new signing secret:\s+(\S+)/.exec(rotated.stdout)![1]!;
    expect(next).to.not.equal(secret);
    expect(rotated.stdout).to.not.include(secret);
    await keys("revoke", key);
    const final = (await keys("list")).stdout;
    expect(final).to.include("revoked").and.not.include(next);

    // Nothing on disk holds a secret in clear.
    const store = await openStore({ dataDir });
    const rows = JSON.stringify(await store.query("SELECT * FROM api_keys"));
    await store.close();
    expect(rows).to.not.include(secret).and.not.include(next);
  });

  it("should explain a bad command and exit 2", async () => {
    let failure: { code?: number; stderr?: string } | undefined;
    await keys("rotate", "vfk_missing").catch((err) => (failure = err));
    expect(failure?.code).to.equal(2);
    expect(failure?.stderr).to.include("no API key vfk_missing");
    await keys("frobnicate").catch((err) => (failure = err));
    expect(failure?.stderr).to.include("unknown command frobnicate");
  });
});

describe("# logs and shutdown", function () {
  this.timeout(60_000);

  it("should log requests as JSON with request ids and never a secret or signature", async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const svc = await startTestService();
    // Swap in a logger writing to our sink.
    svc.ctx.logger = createLogger("info", sink);
    const client = await newKey(svc, "free");
    const body = JSON.stringify({ name: "x" });
    const res = await signedRequest(svc, client, "POST", "/v1/nothing", body, {
      Authorization: `Bearer ${client.secret}`,
    });
    await svc.close();
    const signature = signedHeaders(client.key, client.secret, body, String(svc.clock.now))[
      "X-SVC-Signature"
    ];
    const text = lines.join("");
    const entry = JSON.parse(lines.find((l) => l.includes('"request"'))!);
    expect(entry).to.include({
      method: "POST",
      path: "/v1/nothing",
      status: res.status,
      key: keyFingerprint(client.key),
    });
    expect(text).to.not.include(client.key);
    expect(entry.req_id).to.equal(res.headers.get("x-request-id"));
    expect(text).to.not.include(client.secret);
    expect(text).to.not.include(signature);
    expect(createLogger("info").levels).to.be.an("object");
    // The redaction backstop also covers objects that carry secrets.
    const redacted: string[] = [];
    const redactSink = new Writable({
      write(chunk, _enc, done) {
        redacted.push(String(chunk));
        done();
      },
    });
    createLogger("info", redactSink).info(
      { secret: "s3cr3t", headers: { authorization: "Bearer x" } },
      "x",
    );
    expect(redacted.join("")).to.not.include("s3cr3t").and.not.include("Bearer x");
  });

  it("should finish an in-flight request when shutting down and refuse new connections", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    const svc = await startTestService({
      mount: (s) => {
        s.app.get("/probe/slow", async (c) => {
          entered();
          await gate;
          return c.json({ finished: true });
        });
      },
    });
    const client = await newKey(svc, "free");
    svc.clock.now = Date.now();
    const server = await listen(svc.app, "127.0.0.1", 0);
    const pending = fetch(`${server.url}/probe/slow`, {
      headers: signedHeaders(client.key, client.secret, "", String(Date.now())),
    });
    await inside;
    const closed = server.close(10_000);
    let refused: Error | undefined;
    await fetch(`${server.url}/healthz`).catch((err: Error) => (refused = err));
    expect(refused).to.be.instanceOf(Error);
    release();
    const res = await pending;
    expect(res.status).to.equal(200);
    expect(await res.json()).to.deep.equal({ finished: true });
    await closed;
    await svc.close();
  });
});

describe("# first start", function () {
  this.timeout(60_000);

  it("should create a development key on the very first start only, its secret shown once", async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), "vf-first-"));
    const config = loadConfig({ DATA_DIR: dataDir, PORT: "0", LOG_LEVEL: "silent" });
    const first = await startService(config, { chains: null, logger: createLogger("silent") });
    expect(first.apiKey).to.match(/^vfk_/);
    expect(first.createdSecret).to.match(/^vfs_/);
    const credentials = await loadCredentials(first.ctx.store, first.ctx.masterKey, first.apiKey!);
    expect(credentials!.secrets).to.deep.equal([first.createdSecret]);
    await first.stop();

    const second = await startService(config, { chains: null, logger: createLogger("silent") });
    expect(second.createdSecret).to.equal(undefined);
    expect(second.apiKey).to.equal(undefined);
    expect(second.activeKeys).to.deep.equal([first.apiKey]);
    await second.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("should accept the bootstrap key from the environment from the first start", async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), "vf-bootstrap-"));
    const config = loadConfig({
      DATA_DIR: dataDir,
      PORT: "0",
      LOG_LEVEL: "silent",
      VERIFLOW_API_KEY: "vfk_from_environment",
      VERIFLOW_SIGNING_SECRET: "vfs_environment_secret_0001",
      VERIFLOW_TIER: "pro",
    });
    const service = await startService(config, { chains: null, logger: createLogger("silent") });
    expect(service.apiKey).to.equal("vfk_from_environment");
    expect(service.createdSecret).to.equal(undefined);
    const body = JSON.stringify({ name: "x" });
    const res = await fetch(`${service.server.url}/v1/nothing`, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        ...signedHeaders("vfk_from_environment", "vfs_environment_secret_0001", body),
      },
      body,
    });
    expect(res.status).to.equal(404); // authenticated, then no such route
    expect(res.headers.get("x-ratelimit-limit")).to.equal("300");
    await service.stop();
    await rm(dataDir, { recursive: true, force: true });
  });
});
