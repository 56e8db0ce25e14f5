#!/usr/bin/env node
/**
 * `npm run audit -- <report.json | report.car | CID> [--receipt FILE] [--chains FILE] [--json]`
 * (package bin `veriflow-audit`).
 *
 * Audits a Veriflow final report from the chains alone: the input is the `report` envelope of
 * `GET /v1/workflows/{id}` (or the signed report itself), a CAR file of the signed report, or the
 * signed report's CID read from the relayer's artifact store (the bytes must hash to the CID:
 * the `source` check); the chains are read over JSON-RPC from a chains file in the relayer's
 * format (its operator keys are never read) or, by default, the devnet of `npm run devnet` with
 * the repository's `deployments/`. `--receipt` takes the 202 the client kept (or its `receipt`)
 * and compares it with the report's. When the report lists text analyses, the owner's credentials
 * (as for a CID) fetch the key's audit records and the chain's links, checked against the anchors
 * on chain; without credentials those checks are "not performed". One line per check; exit 0
 * when every check passes, 1 when any fails, 2 on usage or I/O errors, 3 when nothing failed but
 * some check was not performed or is not provable yet (docs/audit.md).
 */
import { readFile, stat } from "node:fs/promises";
import { parseArgs } from "node:util";
import { signatureHeaders, VeriflowClient } from "../clients/sdk/index.ts";
import { ProfileError, resolveProfile } from "../clients/cli/profiles.ts";
import {
  auditReport,
  AuditInputError,
  isCid,
  parseAuditInput,
  type AnalysisAuditEvidence,
  type CheckStatus,
  reportFromArtifactStore,
  reportFromCar,
  type AuditVerdict,
  type SourcedInput,
} from "../relayer/audit/index.ts";
import { openAuditEnvironment } from "../relayer/audit/node.ts";
import { closeProver } from "../relayer/proofs/index.ts";

const USAGE = `usage: npm run audit -- <report.json | report.car | CID> [--receipt FILE] [--chains FILE] [--json]
  report.json  the report envelope of GET /v1/workflows/{id} (or the signed report)
  report.car   a CAR file of the signed report (GET /artifacts/{signed_cid}/car); --cid CID picks
               the block when the CAR has several roots
  CID          the signed report's CID (signed_cid), read from the relayer's artifact store with
               the owner's credentials: --url, --key, --profile or VERIFLOW_URL, VERIFLOW_API_KEY,
               VERIFLOW_SIGNING_SECRET, or the profile of \`veriflow login\`
The analyses a report lists are checked with the same owner's credentials; without them their
check is NOT PERFORMED and the verdict INCOMPLETE (exit 3).`;

const LABELS: Record<CheckStatus, string> = {
  pass: "PASS",
  fail: "FAIL",
  "not-performed": "NOT PERFORMED",
  "not-anchored": "NOT ANCHORED",
  unverifiable: "UNVERIFIABLE",
};

/** The verdict as the command prints it: one line per check, then the verdict. */
export function formatVerdict(verdict: AuditVerdict): string {
  const width = Math.max(...verdict.checks.map((c) => c.id.length));
  const labelWidth = Math.max(...verdict.checks.map((c) => LABELS[c.status].length));
  const lines = verdict.checks.map(
    (c) => `${LABELS[c.status].padEnd(labelWidth)}  ${c.id.padEnd(width)}  ${c.reason}`,
  );
  const failed = verdict.checks.filter((c) => c.status === "fail").length;
  const open = verdict.checks.filter((c) => c.status !== "fail" && c.status !== "pass");
  lines.push(
    verdict.outcome === "pass"
      ? `verdict: PASS: ${verdict.execution_id} (${verdict.cid}), ${verdict.checks.length} checks`
      : verdict.outcome === "fail"
        ? `verdict: FAIL: ${failed} of ${verdict.checks.length} checks failed for ${verdict.execution_id}`
        : `verdict: INCOMPLETE: nothing failed, but ${open.map((c) => `${c.id} is ${LABELS[c.status]}`).join(", ")} for ${verdict.execution_id}`,
  );
  return lines.join("\n");
}

async function readJsonFile(file: string): Promise<unknown> {
  const text = await readFile(file, "utf8").catch((err: Error) => {
    throw new AuditInputError(`cannot read ${file}: ${err.message}`);
  });
  try {
    return JSON.parse(text);
  } catch {
    throw new AuditInputError(`${file} is not JSON`);
  }
}

/** Exit status per outcome (docs/audit.md). */
const EXIT: Record<AuditVerdict["outcome"], number> = { pass: 0, fail: 1, incomplete: 3 };

type CredentialFlags = { url?: string; key?: string; profile?: string };

/**
 * Reads the owner's audit records and the chain's links, when the report lists analyses and the
 * owner's credentials are at hand (flags, environment or saved profile). Flags given but
 * incomplete are a usage error; no credentials at all leave the analyses unchecked
 * (`not-performed`).
 */
async function analysisEvidence(
  input: unknown,
  flags: CredentialFlags,
): Promise<(() => Promise<AnalysisAuditEvidence>) | undefined> {
  if (!parseAuditInput(input).report.analyses?.length) return undefined;
  let profile;
  try {
    profile = await resolveProfile(flags, process.env);
  } catch (err) {
    if (!(err instanceof ProfileError)) throw err;
    if (flags.url || flags.key || flags.profile)
      throw new AuditInputError(`to check the report's analyses: ${err.message}`);
    return undefined;
  }
  const client = new VeriflowClient({
    baseUrl: profile.url,
    apiKey: profile.apiKey,
    signingSecret: profile.signingSecret,
    retry: { maxRetries: 2 },
  });
  return () =>
    client.analysisAuditTrail().catch((err: Error) => {
      throw new AuditInputError(
        `cannot read the analyses' audit trail from ${profile.url}: ${err.message}`,
      );
    });
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}

/**
 * The report to audit: a JSON file, a CAR file (told apart by their first byte: a CAR starts
 * with its header's length, never `{`), or a CID read from the relayer's artifact store.
 */
async function readReport(
  arg: string,
  options: { cid?: string; url?: string; key?: string; profile?: string },
): Promise<Partial<SourcedInput> & { input: unknown }> {
  if (isCid(arg) && !(await exists(arg))) {
    let profile;
    try {
      profile = await resolveProfile(options, process.env);
    } catch (err) {
      if (!(err instanceof ProfileError)) throw err;
      throw new AuditInputError(`to read ${arg} from the relayer: ${err.message}`);
    }
    const headers = await signatureHeaders(profile, new Uint8Array());
    return reportFromArtifactStore(profile.url, arg, headers);
  }
  const bytes = await readFile(arg).catch((err: Error) => {
    throw new AuditInputError(`cannot read ${arg}: ${err.message}`);
  });
  const first = bytes.find((b) => b !== 0x20 && b !== 0x0a && b !== 0x0d && b !== 0x09);
  if (first === 0x7b) return { input: await readJsonFile(arg) };
  return reportFromCar(new Uint8Array(bytes), options.cid);
}

async function main(argv: string[]): Promise<number> {
  let args;
  try {
    args = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        chains: { type: "string" },
        receipt: { type: "string" },
        cid: { type: "string" },
        url: { type: "string" },
        key: { type: "string" },
        profile: { type: "string" },
        json: { type: "boolean" },
        help: { type: "boolean" },
      },
    });
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${USAGE}\n`);
    return 2;
  }
  if (args.values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (args.positionals.length !== 1) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  let env;
  try {
    const { input, source } = await readReport(args.positionals[0]!, args.values);
    const receipt = args.values.receipt ? await readJsonFile(args.values.receipt) : undefined;
    const analyses = await analysisEvidence(input, args.values);
    env = await openAuditEnvironment({ chainsFile: args.values.chains });
    const verdict = await auditReport(input, env, { receipt, source, analyses });
    process.stdout.write(
      (args.values.json ? JSON.stringify(verdict, null, 2) : formatVerdict(verdict)) + "\n",
    );
    return EXIT[verdict.outcome];
  } catch (err) {
    if (!(err instanceof AuditInputError)) throw err;
    process.stderr.write(`veriflow-audit: ${err.message}\n`);
    return 2;
  } finally {
    env?.close();
    await closeProver();
  }
}

if (import.meta.main) process.exitCode = await main(process.argv.slice(2));
