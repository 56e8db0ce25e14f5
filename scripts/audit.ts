#!/usr/bin/env node
/**
 * `npm run audit -- <report.json> [--chains FILE] [--json]` (package bin `veriflow-audit`).
 *
 * Audits a Veriflow final report from the chains alone: the input is the `report` envelope of
 * `GET /v1/workflows/{id}` (or the signed report itself); the chains are read over JSON-RPC from a
 * chains file in the relayer's format (its operator keys are never read) or, by default, the
 * devnet of `npm run devnet` with the repository's `deployments/`. One line per check; exit 0
 * when every check passes, 1 when any fails, 2 on usage or I/O errors.
 */
import { readFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { auditReport, AuditInputError, type AuditVerdict } from "../relayer/audit/index.ts";
import { openAuditEnvironment } from "../relayer/audit/node.ts";
import { closeProver } from "../relayer/proofs/index.ts";

const USAGE = "usage: npm run audit -- <report.json> [--chains FILE] [--json]";

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

async function main(argv: string[]): Promise<number> {
  let args;
  try {
    args = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { chains: { type: "string" }, json: { type: "boolean" }, help: { type: "boolean" } },
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
    const text = await readFile(args.positionals[0]!, "utf8").catch((err: Error) => {
      throw new AuditInputError(`cannot read ${args.positionals[0]}: ${err.message}`);
    });
    let input: unknown;
    try {
      input = JSON.parse(text);
    } catch {
      throw new AuditInputError(`${args.positionals[0]} is not JSON`);
    }
    env = await openAuditEnvironment({ chainsFile: args.values.chains });
    const verdict = await auditReport(input, env);
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
