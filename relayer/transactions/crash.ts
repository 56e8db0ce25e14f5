/**
 * Fault injection for the crash tests: armed with `<point>[:<n>]` (VERIFLOW_CRASH_AT, parsed in
 * relayer/config/), the process kills itself with SIGKILL the n-th time (default first) it reaches
 * that point, exactly as a power cut would. Points: `tx.signed` (stored, not broadcast), `tx.sent`
 * (broadcast, receipt not stored), `tx.confirmed` (receipt stored, step not completed),
 * `step.completed`, `settlement.answered` (the payment gateway settled an order, its row not yet
 * updated), `proof.attested`, `bridge.deposited`. The composition root arms it once per
 * process; configuration refuses it in production. Process-wide on purpose: it simulates the
 * whole process dying, and threading a test switch through every signing path would spread it.
 */
let armed: { point: string; nth: number } | null = null;
let seen = 0;

export function armCrashPoint(spec: string | undefined): void {
  seen = 0;
  if (!spec) {
    armed = null;
    return;
  }
  const [point, nth] = spec.split(":");
  armed = { point: point!, nth: Number(nth ?? 1) };
}

export function crashPoint(name: string): void {
  if (!armed || armed.point !== name) return;
  seen += 1;
  if (seen === armed.nth) process.kill(process.pid, "SIGKILL");
}
