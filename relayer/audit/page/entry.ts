import { auditReport, type AuditVerdict } from "../audit.ts";
import { browserAuditEnvironment, type AuditPageConfig } from "../browser.ts";
import { AuditInputError } from "../input.ts";

/**
 * What the auditor page's script calls (bundled for the browser as the global `VeriflowAudit` by
 * `npm run build:audit-page`): the same auditor as `npm run audit`, over the page's embedded
 * trust anchors and the RPC URLs the user entered.
 */

export interface PageAuditRequest {
  /** The report file's text (the GET /v1/workflows/{id} `report` envelope or a signed report). */
  report: string;
  /** The receipt file's text (the 202 the client kept), when one was picked. */
  receipt?: string;
  rpcUrls: Record<number, string>;
}

export type PageAuditResult =
  { kind: "verdict"; verdict: AuditVerdict } | { kind: "input-error"; message: string };

function json(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new AuditInputError(`the ${what} file is not JSON`);
  }
}

export async function auditInPage(
  config: AuditPageConfig,
  request: PageAuditRequest,
): Promise<PageAuditResult> {
  let env: ReturnType<typeof browserAuditEnvironment> | undefined;
  try {
    const input = json(request.report, "report");
    const receipt = request.receipt === undefined ? undefined : json(request.receipt, "receipt");
    env = browserAuditEnvironment(config, request.rpcUrls);
    return { kind: "verdict", verdict: await auditReport(input, env, { receipt }) };
  } catch (err) {
    if (err instanceof AuditInputError) return { kind: "input-error", message: err.message };
    throw err;
  } finally {
    env?.close();
  }
}
