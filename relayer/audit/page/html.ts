import type { AuditPageConfig } from "../browser.ts";

/**
 * The auditor page: one HTML document holding its script (the auditor bundled for the browser),
 * its style and its trust anchors (`AuditPageConfig`: deployments, verification key, verifier
 * bytecode), so it can be saved and opened from disk. Nothing is fetched but the RPC URLs the
 * user enters; the report and receipt files never leave the page.
 */

/** Inline `<script>` text: a `</script` or `<!--` inside must not end or hide the element. */
function inlineScript(text: string): string {
  return text.replace(/<\/(script)/gi, "<\\/$1").replace(/<!--/g, "<\\!--");
}

/** JSON inside `<script type="application/json">`: `<` escaped so no tag can close it. */
function inlineJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, "\\u003c");
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const STYLE = `
  body { font: 15px/1.45 system-ui, sans-serif; margin: 0; color: #1d232a; background: #f6f7f9; }
  header { padding: 16px 24px; background: #1d232a; color: #fff; }
  header h1 { margin: 0; font-size: 20px; }
  header p { margin: 4px 0 0; color: #c4ccd4; font-size: 13px; }
  main { padding: 16px 24px; max-width: 1100px; }
  fieldset { border: 1px solid #d4d9df; background: #fff; margin: 0 0 12px; padding: 10px 14px; }
  label { display: block; margin: 6px 0; }
  label span { display: inline-block; min-width: 15em; }
  input[type=url] { width: 28em; padding: 3px 5px; }
  button { font-size: 15px; padding: 6px 18px; }
  #verdict { margin: 14px 0; padding: 12px 16px; font-weight: 600; border-radius: 4px; display: none; }
  #verdict[data-verdict] { display: block; }
  #verdict[data-verdict=pass] { background: #d9f2df; color: #0c5a22; border: 1px solid #7cc990; }
  #verdict[data-verdict=fail], #verdict[data-verdict=error] { background: #fbe0e0; color: #8a1111; border: 1px solid #e08a8a; }
  #verdict[data-verdict=running] { background: #eef1f5; color: #394450; border: 1px solid #c4ccd4; }
  table { border-collapse: collapse; width: 100%; background: #fff; font-size: 13px; }
  td { border-top: 1px solid #e3e7eb; padding: 4px 8px; vertical-align: top; }
  td.result { font-weight: 700; width: 3.5em; }
  tr[data-ok=true] td.result { color: #0c7a2c; }
  tr[data-ok=false] td.result, tr[data-ok=false] td.reason { color: #b01515; }
  td.id { font-family: ui-monospace, monospace; white-space: nowrap; }
  code { font-size: 12px; }
`;

/** Wires the form to `VeriflowAudit.auditInPage` (relayer/audit/page/entry.ts). */
const GLUE = `(() => {
  const config = JSON.parse(document.getElementById("veriflow-audit-config").textContent);
  const rows = document.getElementById("rpc-urls");
  for (const chain of config.chains) {
    const label = document.createElement("label");
    const name = document.createElement("span");
    name.textContent = chain.name + " (chain " + chain.chainId + ")";
    const input = document.createElement("input");
    input.type = "url";
    input.id = "rpc-" + chain.chainId;
    input.value = chain.rpcUrl;
    input.placeholder = "http://…";
    label.append(name, input);
    rows.append(label);
  }
  const verdict = document.getElementById("verdict");
  const table = document.getElementById("checks");
  const show = (state, text) => {
    verdict.dataset.verdict = state;
    verdict.textContent = text;
  };
  const read = (input) => (input.files && input.files[0] ? input.files[0].text() : undefined);
  document.getElementById("audit-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    table.replaceChildren();
    const report = await read(document.getElementById("report-file"));
    if (report === undefined) return show("error", "Pick the report file first.");
    const receipt = await read(document.getElementById("receipt-file"));
    const rpcUrls = {};
    for (const chain of config.chains) {
      const url = document.getElementById("rpc-" + chain.chainId).value.trim();
      if (url) rpcUrls[chain.chainId] = url;
    }
    show("running", "Auditing…");
    let result;
    try {
      result = await VeriflowAudit.auditInPage(config, { report, receipt, rpcUrls });
    } catch (err) {
      return show("error", "The audit could not run: " + (err && err.message ? err.message : err));
    }
    if (result.kind === "input-error") return show("error", "Not auditable: " + result.message);
    for (const check of result.verdict.checks) {
      const row = document.createElement("tr");
      row.dataset.check = check.id;
      row.dataset.ok = String(check.ok);
      row.dataset.status = check.status;
      for (const [cls, text] of [["result", check.status.replace("-", " ").toUpperCase()], ["id", check.id], ["reason", check.reason]]) {
        const cell = document.createElement("td");
        cell.className = cls;
        cell.textContent = text;
        row.append(cell);
      }
      table.append(row);
    }
    const failed = result.verdict.checks.filter((c) => c.status === "fail");
    const open = result.verdict.checks.filter((c) => c.status !== "fail" && c.status !== "pass");
    if (result.verdict.outcome === "pass")
      show("pass", "PASS: " + result.verdict.execution_id + " (" + result.verdict.cid + "), " + result.verdict.checks.length + " checks");
    else if (result.verdict.outcome === "fail")
      show("fail", "FAIL: " + failed.length + " of " + result.verdict.checks.length + " checks failed (" + failed.map((c) => c.id).join(", ") + ") for " + result.verdict.execution_id);
    else
      show("fail", "INCOMPLETE: nothing failed, but not every check could be made (" + open.map((c) => c.id + ": " + c.status).join(", ") + ") for " + result.verdict.execution_id);
  });
})();`;

export function auditPageHtml(bundle: string, config: AuditPageConfig): string {
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Veriflow auditor</title>
  <style>${STYLE}</style>
</head>
<body>
  <header>
    <h1>Veriflow auditor</h1>
    <p>Checks a signed final report from the chains alone, in this page: the same checks as <code>npm run audit</code>. Trust anchors embedded: ${escapeHtml(config.source)}.</p>
  </header>
  <main>
    <form id="audit-form" autocomplete="off">
      <fieldset>
        <legend>Report</legend>
        <label><span>Final report (JSON: the <code>report</code> of GET /v1/workflows/{id})</span> <input id="report-file" type="file" accept=".json,application/json"></label>
        <label><span>Receipt kept from the 202 (optional)</span> <input id="receipt-file" type="file" accept=".json,application/json"></label>
      </fieldset>
      <fieldset id="rpc-urls">
        <legend>RPC URLs (read-only JSON-RPC access to each chain)</legend>
      </fieldset>
      <button id="audit-button" type="submit">Audit</button>
    </form>
    <div id="verdict" role="status"></div>
    <table><tbody id="checks"></tbody></table>
  </main>
  <script id="veriflow-audit-config" type="application/json">${inlineJson(config)}</script>
  <script>${inlineScript(bundle)}</script>
  <script>${inlineScript(GLUE)}</script>
</body>
</html>
`;
}
