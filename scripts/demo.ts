/**
 * `npm run demo`: the main job end to end on the embedded defaults.
 *
 * Starts a relayer (in-process devnet chains + PGlite in a fresh temporary data directory, a
 * one-off API key), then acts as an API client over real HTTP: submits the spec's kind of workflow
 * (convert by cost → swap with slippage → lockmint bridge → multisend with a percentage recipient),
 * HMAC-signed, follows its status until the final report, and ends by running the audit command
 * (`npm run audit`) on that report with JSON-RPC access to the chains and nothing else.
 *
 * Unless VERIFLOW_INTEGRATIONS is set, it also starts a STAND-IN for a third-party screening
 * provider (a real HTTP server on 127.0.0.1 speaking the documented protocol, from
 * test/fixtures/standins/) and configures it as the engine's screening integration: every
 * counterparty and recipient is screened by it too, each answer is anchored in the ProofRegistry,
 * and the demo verifies the report's `api_interactions` from the chain. It also starts a STAND-IN
 * for the text-analysis provider (OpenAI-compatible, test/fixtures/standins/analysis-provider.ts)
 * and analyses one payment instruction referencing the workflow: personal data redacted before it
 * leaves, the audit record listed in the final report, the audit chain anchored and verified.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Wallet } from "ethers";
import { signedHeaders } from "../relayer/auth/hmac.ts";
import { loadConfig } from "../relayer/config/index.ts";
import type { SignedReport } from "../relayer/report/report.ts";
import { startService } from "../relayer/app/index.ts";
import { signingPublicKey, type InteractionView } from "../relayer/integrations/index.ts";
import { serveChainsFile } from "../test/fixtures/rpc-bridge.ts";
import { startScreeningProvider, type StandIn } from "../test/fixtures/standins/index.ts";
import {
  startAnalysisProvider,
  type AnalysisProviderStandIn,
} from "../test/fixtures/standins/analysis-provider.ts";

/**
 * Runs the audit command (scripts/audit.ts) as its own process, its output on this terminal;
 * `env` adds to the demo's environment (the owner's credentials).
 */
function runAudit(args: string[], env: Record<string, string>): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(import.meta.dirname, "audit.ts"), ...args], {
      stdio: ["ignore", "inherit", "inherit"],
      env: { ...process.env, ...env },
    });
    child.on("error", reject);
    child.on("close", resolve);
  });
}

const POLL_MS = 250;
const TIMEOUT_MS = 10 * 60_000;

interface StepView {
  index: number;
  action: string;
  agent: string | null;
  state: string;
  chain: string | null;
  tx_hashes: string[];
}

interface ExecutionView {
  execution_id: string;
  state: string;
  stage: string;
  steps: StepView[];
  error: unknown;
  report: { cid: string; signer: string; signature: string; report: SignedReport } | null;
}

function say(line = ""): void {
  process.stdout.write(`${line}\n`);
}

async function main(): Promise<void> {
  const dataDir = await mkdtemp(path.join(tmpdir(), "veriflow-demo-"));
  const apiKey = `vfk_demo_${randomBytes(6).toString("hex")}`;
  const secret = randomBytes(32).toString("hex");
  let standIn: StandIn | null = null;
  let analysisStandIn: AnalysisProviderStandIn | null = null;
  if (!process.env.VERIFLOW_INTEGRATIONS) {
    const credential = randomBytes(24).toString("hex");
    standIn = await startScreeningProvider({ jwtSecret: credential });
    process.env.VERIFLOW_DEMO_SCREENING_JWT = credential;
    const analysisKey = `sk-demo-${randomBytes(16).toString("hex")}`;
    analysisStandIn = await startAnalysisProvider({ apiKey: analysisKey });
    process.env.VERIFLOW_DEMO_ANALYSIS_KEY = analysisKey;
    const file = path.join(dataDir, "integrations.yaml");
    await writeFile(
      file,
      [
        "integrations:",
        "  screening:",
        `    url: ${standIn.url}`,
        "    auth: { type: jwt_bearer, key_vault: env, credential_id: VERIFLOW_DEMO_SCREENING_JWT }",
        '    validation: { schema: compliance.screening, version: "1.0", strict: true }',
        "screening: { integration: screening, required: true }",
        "text_analysis:",
        `  api_endpoint: ${analysisStandIn.url}`,
        "  models: { ultra: ultra-2025-06-01, general: general-2025-08-01, in_house: inhouse-2025-05-15 }",
        "  fallback_model: general-2025-03-01",
        "  auth: { type: api_key, key_vault: env, credential_id: VERIFLOW_DEMO_ANALYSIS_KEY }",
        "",
      ].join("\n"),
    );
    process.env.VERIFLOW_INTEGRATIONS = file;
  }
  const config = loadConfig({
    ...process.env,
    PORT: "0",
    DATA_DIR: dataDir,
    VERIFLOW_API_KEY: apiKey,
    VERIFLOW_SIGNING_SECRET: secret,
    VERIFLOW_TIER: "enterprise",
    LOG_LEVEL: process.env.LOG_LEVEL ?? "warn",
  });

  say("Starting the relayer: three in-process devnet chains, PGlite in " + dataDir);
  say(`Sanctions lists (VERIFLOW_SANCTIONS_FILES): ${config.sanctionsFiles}`);
  const service = await startService(config);
  const base = service.server.url;
  say(`Relayer listening on ${base}`);
  if (standIn) {
    // The provider verifies the relayer's request signatures with its registered public key.
    standIn.setPublicKey(
      await signingPublicKey(service.ctx.store, service.ctx.masterKey, "screening"),
    );
    say(
      `Screening provider: a STAND-IN for a third-party provider on ${standIn.url} (POST /compliance, JWT bearer, signed requests)`,
    );
  }

  const call = async (method: string, route: string, body?: unknown) => {
    const text = body === undefined ? "" : JSON.stringify(body);
    const response = await fetch(base + route, {
      method,
      headers: {
        ...signedHeaders(apiKey, secret, text, undefined, { method, target: route }),
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : text,
    });
    const json = (await response.json()) as Record<string, unknown>;
    if (!response.ok) {
      throw new Error(`${method} ${route} → ${response.status} ${JSON.stringify(json)}`);
    }
    return json;
  };

  try {
    const account = await call("GET", "/v1/account");
    say(`Relayer-managed account of this API key: ${String(account.address)}`);

    const alice = Wallet.createRandom().address;
    const bob = Wallet.createRandom().address;
    const workflow = {
      name: "demo-treasury-rebalance",
      actions: [
        {
          type: "convert",
          from: "USDC",
          to: "WETH",
          amount: "3000",
          route_optimizer: { priority: "cost" },
        },
        { type: "swap", to: "DAI", slippage: 1 },
        { type: "bridge", destination: "polygon", protocol: "lockmint" },
        {
          type: "multisend",
          recipients: [
            { address: alice, amount: "50%" },
            { address: bob, amount: "100" },
          ],
        },
      ],
      compliance: { jurisdictions: ["US"] },
    };
    say("\nPOST /v1/workflows");
    say(JSON.stringify(workflow, null, 2));
    const submitted = await call("POST", "/v1/workflows", workflow);
    say(`→ 202 ${JSON.stringify(submitted)}`);
    const id = String(submitted.execution_id);

    // A payment instruction that accompanies the workflow, analysed through the provider.
    let analysis: Record<string, unknown> | null = null;
    if (analysisStandIn) {
      const text =
        "Payment instruction: please pay Jane Whitfield (jane.whitfield@example.com, +1 415 555 2671) " +
        "EUR 2,500 to IBAN DE89 3704 0044 0532 0130 00 once the treasury rebalance settles.";
      say("\nPOST /v1/analysis (the workflow's payment instruction)");
      analysis = await call("POST", "/v1/analysis", { text, workflow_id: id });
      say(
        `→ 200 ${analysis.analysis_id}: model ${analysis.model} (${analysis.route}), redactions ` +
          `${JSON.stringify(analysis.redactions)}, checks ${JSON.stringify(analysis.compliance_checks)}, audit ${analysis.audit_id}`,
      );
      const leaked = analysisStandIn.hits.some((h) =>
        ["Whitfield", "jane.whitfield", "555 2671", "3704 0044"].some((v) => h.body.includes(v)),
      );
      say(
        `  the provider STAND-IN received ${analysisStandIn.hits.length} requests, ${leaked ? "WITH PERSONAL DATA" : "none with personal data"}`,
      );
      if (leaked) process.exitCode = 1;
    }

    const started = Date.now();
    let view: ExecutionView;
    let lastStage = "";
    for (;;) {
      view = (await call("GET", `/v1/workflows/${id}`)) as unknown as ExecutionView;
      const stage = `${view.state}/${view.stage}`;
      if (stage !== lastStage) say(`  ${((Date.now() - started) / 1000).toFixed(1)} s  ${stage}`);
      lastStage = stage;
      if (["completed", "failed", "cancelled"].includes(view.state)) break;
      if (Date.now() - started > TIMEOUT_MS) throw new Error(`execution ${id} did not finish`);
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }

    say(`\nExecution ${id}: ${view.state}`);
    for (const step of view.steps) {
      say(
        `  #${step.index} ${step.action.padEnd(9)} ${String(step.agent ?? "").padEnd(15)} ` +
          `${String(step.chain ?? "-").padEnd(9)} ${step.state.padEnd(10)} ${step.tx_hashes.join(" ")}`,
      );
    }
    if (view.state !== "completed" || !view.report) {
      throw new Error(`execution ended ${view.state}: ${JSON.stringify(view.error)}`);
    }

    const report = view.report.report;
    say(`\nFinal report ${report.artifact_id}`);
    say(`  gas_metrics: ${JSON.stringify(report.gas_metrics)}`);
    const compliance = report.compliance;
    const unconsulted = (compliance.required ?? []).filter(
      (id) => !compliance.consulted.includes(id),
    );
    say(
      `  compliance: required ${JSON.stringify(compliance.required)}, consulted ` +
        `${JSON.stringify(compliance.consulted)}${unconsulted.length ? ` (NOT CONSULTED: ${unconsulted.join(", ")})` : ""}`,
    );
    const interactions = report.api_interactions as InteractionView[];
    say(`  api_interactions: ${interactions.length}`);
    if (unconsulted.length > 0 || (standIn && interactions.length === 0)) process.exitCode = 1;

    // The text-analysis audit chain's head anchored now (not on its interval), so that the audit
    // below finds the report's analysis covered by an anchor.
    const anchored = analysis && service.ctx.analysis ? await service.ctx.analysis.anchor() : null;

    // The auditor's view: the report envelope and JSON-RPC access to the chains, and the owner's
    // key for the text analysis the report lists (its audit records are listed to that key only).
    const reportFile = path.join(dataDir, "report.json");
    await writeFile(reportFile, JSON.stringify(view.report, null, 2));
    const served = await serveChainsFile(service.ctx.chains!.list(), dataDir);
    try {
      say(`\nnpm run audit -- ${reportFile} --chains ${served.file}   # with the owner's key`);
      const code = await runAudit([reportFile, "--chains", served.file], {
        VERIFLOW_URL: base,
        VERIFLOW_API_KEY: apiKey,
        VERIFLOW_SIGNING_SECRET: secret,
      });
      if (code !== 0) process.exitCode = 1;
    } finally {
      await served.close();
    }
    let analysesOk = true;
    if (analysis && service.ctx.analysis) {
      const listed = (report.analyses ?? []) as Array<{ analysis_id: string; audit_id: string }>;
      analysesOk = listed.some(
        (a) => a.analysis_id === analysis.analysis_id && a.audit_id === analysis.audit_id,
      );
      say(`  analyses: ${listed.map((a) => `${a.analysis_id} (audit ${a.audit_id})`).join(", ")}`);
      const chainCheck = await service.ctx.analysis.verify();
      analysesOk &&= chainCheck.ok && chainCheck.anchorsVerified > 0;
      say(
        `  text-analysis audit chain: head ${anchored?.seq ?? chainCheck.head.seq} anchored in ProofRegistry; ` +
          `${chainCheck.ok ? `${chainCheck.checked} record(s) verified from the chain` : `BROKEN: ${chainCheck.problem}`}`,
      );
    }
    if (!analysesOk) process.exitCode = 1;
  } finally {
    await service.stop();
    await standIn?.close();
    await analysisStandIn?.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

main().catch((err: Error) => {
  process.stderr.write(`demo failed: ${err.message}\n`);
  process.exit(1);
});
