import type { Execution } from "../sdk/index.ts";

/**
 * What `--watch` shows of an execution: its state and stage, each action with its chain,
 * exchange and transaction hashes as they land, then the proof, the attestation and the report's
 * CID. In a terminal the block is redrawn in place; otherwise each new fact is one plain line.
 */

type Step = Execution["steps"][number];

interface Attestation {
  chain?: string;
  tx_hash?: string;
}

interface ReportBody {
  zk_proof?: string | null;
  attestation?: Attestation | null;
  proof_note?: string;
}

function stepResult(step: Step): { exchange?: string; src_tx?: string; dest_tx?: string } {
  return (step.result ?? {}) as { exchange?: string; src_tx?: string; dest_tx?: string };
}

function reportBody(execution: Execution): ReportBody | null {
  return (execution.report?.report ?? null) as ReportBody | null;
}

function errorOf(value: unknown): { code: string; detail: string } | null {
  if (!value || typeof value !== "object") return null;
  const e = value as { error?: unknown; code?: unknown; detail?: unknown };
  const code = typeof e.error === "string" ? e.error : typeof e.code === "string" ? e.code : null;
  return code ? { code, detail: typeof e.detail === "string" ? e.detail : "" } : null;
}

/** The execution's outcome for the exit status: its error code and detail when it did not complete. */
export function outcomeOf(execution: Execution): { ok: boolean; code?: string; detail?: string } {
  if (execution.state === "completed") return { ok: true };
  const failedStep = execution.steps.find((s) => s.state === "failed");
  const error = errorOf(execution.error) ?? errorOf(failedStep?.error);
  return {
    ok: false,
    code: error?.code ?? (execution.state === "cancelled" ? "CANCELLED" : "EXECUTION_FAILED"),
    detail: error?.detail ?? `execution ${execution.state}`,
  };
}

const short = (hash: string) =>
  hash.length > 20 ? `${hash.slice(0, 10)}…${hash.slice(-6)}` : hash;

/** Facts about the execution, keyed so that a fact is printed once even when polled many times. */
export function facts(execution: Execution, shorten = false): Array<[string, string]> {
  const h = shorten ? short : (x: string) => x;
  const out: Array<[string, string]> = [
    [
      `state:${execution.state}:${execution.stage}`,
      `${execution.state} (stage ${execution.stage})`,
    ],
  ];
  for (const step of execution.steps) {
    const n = step.index + 1;
    const where = [step.chain, stepResult(step).exchange].filter(Boolean).join(" via ");
    out.push([
      `step:${n}:${step.state}:${where}`,
      `action ${n} ${step.action} ${step.state}${where ? ` on ${where}` : ""}` +
        (step.fallback_from ? ` (moved from ${step.fallback_from})` : ""),
    ]);
    const dest = stepResult(step).dest_tx;
    for (const tx of step.tx_hashes) {
      if (tx !== dest) out.push([`tx:${tx}`, `action ${n} tx ${h(tx)}`]);
    }
    if (dest) out.push([`dest:${dest}`, `action ${n} destination tx ${h(dest)}`]);
    const error = errorOf(step.error);
    if (error) out.push([`step-error:${n}`, `action ${n} error ${error.code}: ${error.detail}`]);
  }
  for (const alert of execution.compliance_alerts) {
    const text = JSON.stringify(alert);
    out.push([`alert:${text}`, `compliance alert ${text}`]);
  }
  const body = reportBody(execution);
  if (body?.zk_proof) out.push(["proof", `proof Groth16 (${body.zk_proof.length} bytes)`]);
  else if (body?.proof_note) out.push(["proof", `proof none: ${body.proof_note}`]);
  if (body?.attestation?.tx_hash) {
    out.push([
      "attestation",
      `attestation on ${body.attestation.chain ?? "?"} tx ${h(body.attestation.tx_hash)}`,
    ]);
  }
  if (execution.report) out.push(["report", `report CID ${execution.report.cid}`]);
  return out;
}

export interface Renderer {
  update(execution: Execution): void;
  /** Leaves the last state on screen and prints the outcome. */
  finish(execution: Execution): void;
}

/** One line per new fact (pipes, CI logs). */
export function plainRenderer(write: (line: string) => void): Renderer {
  const printed = new Set<string>();
  const update = (execution: Execution) => {
    for (const [key, line] of facts(execution)) {
      if (printed.has(key)) continue;
      printed.add(key);
      write(`${execution.execution_id} ${line}`);
    }
  };
  return {
    update,
    finish(execution) {
      update(execution);
      const outcome = outcomeOf(execution);
      if (!outcome.ok) write(`${execution.execution_id} ${outcome.code}: ${outcome.detail}`);
    },
  };
}

/** The block redrawn in place (cursor up, clear to the end of the screen). */
export function terminalRenderer(stream: NodeJS.WriteStream): Renderer {
  let drawn = 0;
  const draw = (execution: Execution, final: boolean) => {
    const lines = [
      `${execution.execution_id} ${execution.name}`,
      ...facts(execution, true)
        .filter(([key]) => !key.startsWith("state:"))
        .map(([, line]) => `  ${line}`),
      `  ${final ? "" : "… "}${execution.state} (stage ${execution.stage})`,
    ];
    const outcome = outcomeOf(execution);
    if (final && !outcome.ok) lines.push(`  ${outcome.code}: ${outcome.detail}`);
    // A wrapped line would take two rows and break the redraw: cut to the terminal's width.
    const width = Math.max(20, (stream.columns ?? 120) - 1);
    for (const [i, line] of lines.entries()) {
      if (line.length > width) lines[i] = `${line.slice(0, width - 1)}…`;
    }
    if (drawn > 0) stream.write(`\x1b[${drawn}F\x1b[0J`);
    stream.write(`${lines.join("\n")}\n`);
    drawn = lines.length;
  };
  return { update: (e) => draw(e, false), finish: (e) => draw(e, true) };
}
