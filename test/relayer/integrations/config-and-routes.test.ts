import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { spawn } from "node:child_process";
import { expect } from "chai";
import { readCredential } from "../../../relayer/integrations/vault.ts";
import { resolveMasterKey } from "../../../relayer/config/master-key.ts";
import { migrate } from "../../../relayer/store/migrate.ts";
import { openStore } from "../../../relayer/store/index.ts";
import { ConfigError, loadConfig } from "../../../relayer/config/index.ts";
import {
  IntegrationsConfigError,
  parseIntegrations,
} from "../../../relayer/config/integrations.ts";
import { anchorTarget, recordInteraction } from "../../../relayer/integrations/anchor.ts";
import { startEngineService, type EngineService } from "../../fixtures/engine.ts";
import { createTestCa } from "../../fixtures/standins/pki.ts";

const good = {
  url: "https://crm.example.com/v2",
  auth: { type: "jwt_bearer", key_vault: "local", credential_id: "crm-jwt" },
  validation: { schema: "crm.orders", version: "2.4", strict: true },
};

function problems(doc: unknown): string[] {
  try {
    parseIntegrations(doc);
  } catch (err) {
    expect(err).to.be.instanceOf(IntegrationsConfigError);
    return (err as IntegrationsConfigError).problems;
  }
  throw new Error("expected the configuration to be refused");
}

describe("# integration configuration", function () {
  it("should apply the spec's defaults: retry 3 exponential 10 s, payments critical 5 Fibonacci at 25 rps burst 100, immediate anchoring", function () {
    const parsed = parseIntegrations({
      integrations: {
        crm: good,
        payments: { ...good, validation: { schema: "payments.create" } },
      },
    });
    expect(parsed.integrations.crm!.retry).to.include({
      attempts: 3,
      backoff: "exponential",
      maxDelayMs: 10_000,
    });
    expect(parsed.integrations.crm!.rateLimit).to.equal(null);
    expect(parsed.integrations.crm!.validation.anchor).to.deep.include({
      intervalMs: 0,
      contract: "ProofRegistry",
    });
    expect(parsed.integrations.payments!.retry).to.include({ attempts: 5, backoff: "fibonacci" });
    expect(parsed.integrations.payments!.retry.conditions).to.deep.equal([
      { kind: "status", op: ">=", value: 500 },
      { kind: "network_error" },
    ]);
    expect(parsed.integrations.payments!.rateLimit).to.deep.equal({ rps: 25, burst: 100 });
    expect(parsed.integrations.payments!.validation.version).to.equal("1.0");
  });

  it("should name every bad value with its path", function () {
    const found = problems({
      integrations: {
        crm: {
          ...good,
          url: "not a url",
          auth: { type: "oauth2_mtls", key_vault: "vault9", credential_id: "crm-jwt" },
          validation: {
            schema: "crm.orders",
            version: "9.9",
            blockchain_anchor: { interval: "soon" },
          },
          rate_limit: { rps: -1, burst: 0 },
          retry: { attempts: 0, backoff: "linear", conditions: ["status ~ 5xx"] },
        },
      },
    }).join("\n");
    expect(found).to.match(/integrations\.crm\.url must be an absolute URL/);
    expect(found).to.match(/integrations\.crm\.auth\.key_vault must be local/);
    expect(found).to.match(
      /integrations\.crm\.validation\.blockchain_anchor\.interval must be "immediate" or a duration/,
    );
    expect(found).to.match(/integrations\.crm\.rate_limit\.rps must be positive/);
    expect(found).to.match(/integrations\.crm\.retry/);
  });

  it("should accept oauth2_mtls with its token endpoint, scope and CA (a file relative to the configuration, or PEM text)", async function () {
    const ca = await createTestCa("Config CA");
    const dir = await mkdtemp(path.join(os.tmpdir(), "vf-int-ca-"));
    try {
      await writeFile(path.join(dir, "crm-ca.pem"), ca.cert);
      const mtls = {
        ...good,
        auth: {
          type: "oauth2_mtls",
          key_vault: "local",
          credential_id: "crm-mtls",
          token_url: "https://auth.example.com/oauth2/token",
          scope: "orders.read orders.write",
          ca: "./crm-ca.pem",
        },
      };
      const parsed = parseIntegrations({ integrations: { crm: mtls } }, "test", dir);
      expect(parsed.integrations.crm!.auth).to.deep.equal({
        type: "oauth2_mtls",
        keyVault: "local",
        credentialId: "crm-mtls",
        tokenUrl: "https://auth.example.com/oauth2/token",
        scope: "orders.read orders.write",
        caPem: ca.cert,
      });
      const inline = parseIntegrations({
        integrations: { crm: { ...mtls, auth: { ...mtls.auth, ca: ca.cert, scope: undefined } } },
      });
      expect(inline.integrations.crm!.auth).to.deep.include({ caPem: ca.cert });
      expect(inline.integrations.crm!.auth).to.not.have.property("scope");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("should name each bad oauth2_mtls value: missing credential id or token_url, non-https URLs, bad scope, unreadable CA, mTLS keys on jwt_bearer", function () {
    const mtlsAuth = {
      type: "oauth2_mtls",
      key_vault: "local",
      credential_id: "crm-mtls",
      token_url: "https://auth.example.com/oauth2/token",
    };
    const withAuth = (auth: Record<string, unknown>, url = good.url) =>
      problems({ integrations: { crm: { ...good, url, auth } } }).join("\n");
    const { credential_id: _omitted, ...noCredential } = mtlsAuth;
    expect(withAuth(noCredential)).to.include(
      "integrations.crm.auth.credential_id is required: the id of the credential in the key_vault",
    );
    const { token_url: _none, ...noTokenUrl } = mtlsAuth;
    expect(withAuth(noTokenUrl)).to.include(
      "integrations.crm.auth.token_url is required for oauth2_mtls: the authorization server's token endpoint",
    );
    for (const bad of ["http://auth.example.com/token", "/oauth2/token", "not a url"]) {
      expect(withAuth({ ...mtlsAuth, token_url: bad })).to.include(
        "integrations.crm.auth.token_url must be an absolute https URL",
      );
    }
    expect(withAuth(mtlsAuth, "http://crm.example.com/v2")).to.include(
      "integrations.crm.url must be https for auth.type oauth2_mtls",
    );
    expect(withAuth({ ...mtlsAuth, scope: 'orders "read"' })).to.include(
      "integrations.crm.auth.scope must be space-separated scope tokens",
    );
    expect(withAuth({ ...mtlsAuth, ca: "/nonexistent/ca.pem" })).to.include(
      "integrations.crm.auth.ca cannot read /nonexistent/ca.pem: ENOENT",
    );
    expect(
      withAuth({
        ...mtlsAuth,
        ca: "-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----",
      }),
    ).to.include("integrations.crm.auth.ca the PEM text holds a certificate that does not parse");
    const jwt = withAuth({ ...good.auth, token_url: mtlsAuth.token_url, scope: "x" });
    expect(jwt).to.include("integrations.crm.auth.token_url applies only to auth.type oauth2_mtls");
    expect(jwt).to.include("integrations.crm.auth.scope applies only to auth.type oauth2_mtls");
    expect(withAuth({ ...mtlsAuth, type: "basic" })).to.include(
      "integrations.crm.auth.type must be jwt_bearer or oauth2_mtls",
    );
  });

  it("should refuse an unknown schema version, a dangling fallback and a screening entry with the wrong schema", function () {
    const found = problems({
      integrations: {
        crm: { ...good, validation: { schema: "crm.orders", version: "3.0" }, fallback: "nope" },
      },
      screening: { integration: "crm" },
    }).join("\n");
    expect(found).to.include(
      'integrations.crm.validation.version "3.0" is not a version of crm.orders (known: 2.3, 2.4, 2.5)',
    );
    expect(found).to.include('integrations.crm.fallback names "nope"');
    expect(found).to.include(
      "screening.integration crm must validate with schema compliance.screening",
    );
  });

  it("should refuse a payments section with a bad fee or an integration without a payments schema", function () {
    const found = problems({
      integrations: { crm: good },
      payments: { integration: "crm", service_fee: "two", currency: "usdc" },
    }).join("\n");
    expect(found).to.include("payments.service_fee must be a decimal amount such as 2.50");
    expect(found).to.include("payments.currency must be an upper-case currency code");
    const schema = problems({
      integrations: { crm: good },
      payments: { integration: "crm", service_fee: "2.50", currency: "USDC" },
    }).join("\n");
    expect(schema).to.include(
      'payments.integration "crm" must name an integration with a payments.* schema',
    );
  });

  it("should load the file named by VERIFLOW_INTEGRATIONS at start (YAML) and stop on a bad one", async function () {
    const dir = await mkdtemp(path.join(os.tmpdir(), "vf-int-"));
    try {
      const file = path.join(dir, "integrations.yaml");
      await writeFile(
        file,
        `integrations:\n  crm:\n    url: https://crm.example.com/v2\n    auth: {type: jwt_bearer, key_vault: env, credential_id: CRM_JWT}\n    validation: {schema: crm.orders, version: "2.4", blockchain_anchor: {interval: 1h}}\n`,
      );
      const config = loadConfig({ NODE_ENV: "test", VERIFLOW_INTEGRATIONS: file });
      expect(config.integrations!.integrations.crm!.validation.anchor.intervalMs).to.equal(
        3_600_000,
      );
      await writeFile(file, "integrations:\n  crm:\n    url: 42\n");
      expect(() => loadConfig({ NODE_ENV: "test", VERIFLOW_INTEGRATIONS: file })).to.throw(
        ConfigError,
        /VERIFLOW_INTEGRATIONS: integrations\.crm\.url/,
      );
      expect(() =>
        loadConfig({ NODE_ENV: "test", VERIFLOW_INTEGRATIONS: path.join(dir, "missing.yaml") }),
      ).to.throw(ConfigError, /cannot read the file: ENOENT/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("# GET /v1/workflows/{id}/interactions", function () {
  this.timeout(120_000);
  let service: EngineService;

  before(async function () {
    service = await startEngineService();
  });
  after(async function () {
    await service?.close();
  });

  it("should list an execution's interactions to its own key only (404 for another key), in the OpenAPI document", async function () {
    const owner = await service.newKey();
    const other = await service.newKey();
    const id = "wf_interactions_route";
    await service.ctx.store.query(
      "INSERT INTO workflow_executions (id, api_key_id, name, workflow) VALUES ($1, $2, 'x', '{}'::jsonb)",
      [id, owner.id],
    );
    await recordInteraction(service.ctx.store, {
      integration: "screening",
      executionId: id,
      actionIndex: 0,
      method: "POST",
      endpoint: 'POST http://127.0.0.1:1/v3/compliance {"address":"0x00"}',
      response: '{"sanctioned":false}',
      httpStatus: 200,
      observedAt: 1_700_000_000,
      mode: "batch",
      target: anchorTarget(service.chains.list(), { contract: "ProofRegistry" }),
    });
    const res = await service.request(owner, "GET", `/v1/workflows/${id}/interactions`);
    expect(res.status).to.equal(200);
    const body = (await res.json()) as { interactions: Array<Record<string, unknown>> };
    expect(body.interactions).to.have.length(1);
    expect(body.interactions[0]).to.include({
      integration: "screening",
      status: "pending",
      mode: "batch",
      batch: null,
    });
    const refused = await service.request(other, "GET", `/v1/workflows/${id}/interactions`);
    expect(refused.status).to.equal(404);
    expect(await refused.json()).to.include({ error: "EXECUTION_NOT_FOUND" });
    const doc = (await (await service.app.request("/openapi.json")).json()) as {
      paths: Record<string, unknown>;
    };
    expect(doc.paths).to.have.property("/v1/workflows/{id}/interactions");
  });
});

describe("# integrations command", function () {
  this.timeout(120_000);
  let dataDir: string;
  const cli = (args: string[], stdin = "") =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, ["scripts/integrations.ts", ...args], {
        env: { ...process.env, DATA_DIR: dataDir, NODE_ENV: "test" },
      });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
      child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
      child.on("close", (code) => resolve({ code, stdout, stderr }));
      child.stdin.end(stdin);
    });

  before(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), "vf-int-cli-"));
  });
  after(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it("should store a credential from stdin and an mTLS certificate and key from files encrypted, print a signing public key, and refuse bad input", async () => {
    const secret = "a-credential-from-the-vendor-0123456789";
    const stored = await cli(["set-credential", "crm-jwt"], `${secret}\n`);
    expect(stored.code, stored.stderr).to.equal(0);
    expect(stored.stdout).to.include("stored credential crm-jwt").and.not.include(secret);
    const key = await cli(["public-key", "crm"]);
    expect(key.code).to.equal(0);
    expect(key.stdout).to.match(/^-----BEGIN PUBLIC KEY-----/);

    const short = await cli(["set-credential", "crm-jwt"], "short\n");
    expect(short.code).to.equal(2);
    expect(short.stderr).to.include("at least 16 characters");
    const unknown = await cli(["rotate", "crm"]);
    expect(unknown.code).to.equal(2);
    expect(unknown.stderr).to.include("unknown command rotate");

    // oauth2_mtls: a certificate chain and its key from files, checked before anything is stored.
    const ca = await createTestCa("CLI CA");
    const client = await ca.issueClient("veriflow-relayer");
    const other = await ca.issueClient("other");
    const files = { cert: path.join(dataDir, "client.pem"), key: path.join(dataDir, "client.key") };
    await writeFile(files.cert, client.cert + ca.cert);
    await writeFile(files.key, client.key);
    const mtls = await cli([
      "set-mtls-credential",
      "crm-mtls",
      "--client-id",
      "veriflow-relayer",
      "--cert",
      files.cert,
      "--key",
      files.key,
    ]);
    expect(mtls.code, mtls.stderr).to.equal(0);
    expect(mtls.stdout).to.include(
      `stored oauth2_mtls credential crm-mtls for client_id veriflow-relayer (certificate x5t#S256 ${client.thumbprint}`,
    );
    expect(mtls.stdout).to.not.include("PRIVATE KEY");
    await writeFile(files.key, other.key);
    const mismatched = await cli([
      "set-mtls-credential",
      "crm-other",
      "--client-id",
      "veriflow-relayer",
      "--cert",
      files.cert,
      "--key",
      files.key,
    ]);
    expect(mismatched.code).to.equal(2);
    expect(mismatched.stderr).to.include(
      "not an oauth2_mtls credential: key is not the private key of the first certificate of cert",
    );
    const incomplete = await cli(["set-mtls-credential", "crm-other", "--cert", files.cert]);
    expect(incomplete.code).to.equal(2);
    expect(incomplete.stderr).to.include("set-mtls-credential needs --client-id, --cert and --key");

    const config = loadConfig({ DATA_DIR: dataDir, NODE_ENV: "test" });
    const master = await resolveMasterKey(config);
    const store = await openStore({ dataDir });
    try {
      const rows = JSON.stringify(await store.query("SELECT * FROM integration_secrets"));
      expect(rows).to.not.include(secret);
      expect(rows).to.not.include("PRIVATE KEY");
      expect(rows).to.not.include("credential:crm-other");
      const stored = JSON.parse(
        await readCredential(store, master.key, "crm", {
          keyVault: "local",
          credentialId: "crm-mtls",
        }),
      ) as Record<string, string>;
      expect(stored).to.deep.equal({
        client_id: "veriflow-relayer",
        cert: client.cert + ca.cert,
        key: client.key,
      });
      expect(
        await readCredential(store, master.key, "crm", {
          keyVault: "local",
          credentialId: "crm-jwt",
        }),
      ).to.equal(secret);
    } finally {
      await store.close();
    }
  });

  it("should re-enable an integration node disabled after repeated 401s (enable <name>), and say when there was nothing to do", async () => {
    const store = await openStore({ dataDir });
    try {
      await migrate(store);
      await store.query(
        `INSERT INTO integration_states (integration, state, unauthorized_count, reason, suspect_since, disabled_at)
         VALUES ('crm', 'disabled', 3, '3 consecutive 401s', now(), now())`,
      );
    } finally {
      await store.close();
    }
    const enabled = await cli(["enable", "crm"]);
    expect(enabled.code, enabled.stderr).to.equal(0);
    expect(enabled.stdout).to.include("integration crm enabled");
    const again = await cli(["enable", "crm"]);
    expect(again.code).to.equal(0);
    expect(again.stdout).to.include("integration crm was not disabled; nothing changed");
    const bad = await cli(["enable"]);
    expect(bad.code).to.equal(2);
    const reopened = await openStore({ dataDir });
    try {
      const [row] = await reopened.query<{ state: string; unauthorized_count: number }>(
        "SELECT state, unauthorized_count FROM integration_states WHERE integration = 'crm'",
      );
      expect(row).to.deep.equal({ state: "enabled", unauthorized_count: 0 });
    } finally {
      await reopened.close();
    }
  });
});
