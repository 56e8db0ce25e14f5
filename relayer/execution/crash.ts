/**
 * Fault injection for the crash tests: with `VERIFLOW_CRASH_AT=<point>[:<n>]` set, the process
 * kills itself with SIGKILL the n-th time (default first) it reaches that point, exactly as a
 * power cut would. Points: `tx.signed` (stored, not broadcast), `tx.sent` (broadcast, receipt not
 * stored), `tx.confirmed` (receipt stored, step not completed), `step.completed`, `proof.attested`.
 * Never set in production; unset it is a no-op.
 */
const counters = new Map<string, number>();

export function crashPoint(name: string): void {
  const spec = process.env.VERIFLOW_CRASH_AT;
  if (!spec) return;
  const [point, nth] = spec.split(":");
  if (point !== name) return;
  const seen = (counters.get(name) ?? 0) + 1;
  counters.set(name, seen);
  if (seen === Number(nth ?? 1)) process.kill(process.pid, "SIGKILL");
}
