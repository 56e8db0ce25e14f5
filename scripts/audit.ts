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
 * and compares it with the report's. One line per check; exit 0 when every check passes, 1 when
 * any fails, 2 on usage or I/O errors.
 */
import { readFile, stat } from "node:fs/promises";
import { parseArgs } from "node:util";
import { signatureHeaders } from "../clients/sdk/index.ts";
import { ProfileError, resolveProfile } from "../clients/cli/profiles.ts";
import {
  auditReport,
  AuditInputError,
  isCid,
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
               VERIFLOW_SIGNING_SECRET, or the profile of \`veriflow login\``;

/** The verdict as the command prints it: one line per check, then the verdict. */
export function formatVerdict(verdict: AuditVerdict): string {
  const width = Math.max(...verdict.checks.map((c) => c.id.length));
  const lines = verdict.checks.map(
    (c) => `${c.ok ? "PASS" : "FAIL"}  ${c.id.padEnd(width)}  ${c.reason}`,
  );
  const failed = verdict.checks.filter((c) => !c.ok).length;
  lines.push(
    failed === 0
      ? `verdict: PASS: ${verdict.execution_id} (${verdict.cid}), ${verdict.checks.length} checks`
      : `verdict: FAIL: ${failed} of ${verdict.checks.length} checks failed for ${verdict.execution_id}`,
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
    env = await openAuditEnvironment({ chainsFile: args.values.chains });
    const verdict = await auditReport(input, env, { receipt, source });
    process.stdout.write(
      (args.values.json ? JSON.stringify(verdict, null, 2) : formatVerdict(verdict)) + "\n",
    );
    return verdict.ok ? 0 : 1;
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
