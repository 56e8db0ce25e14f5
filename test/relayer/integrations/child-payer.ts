/**
 * A relayer process for the shared rate limit test: the real service (startService) from the
 * environment (VERIFLOW_INTEGRATIONS names a payments integration), plus a probe route that makes
 * `count` payment calls at once through the process's integrations client. `hardhat test` loads
 * every file under test/: it starts a relayer only when run as a program.
 */
import { startService } from "../../../relayer/app/index.ts";
import { loadConfig } from "../../../relayer/config/index.ts";

if (import.meta.main) await main();

async function main(): Promise<void> {
  const service = await startService(loadConfig(), {
    extend: (ctx, app) => {
      app.post("/probe/pay", async (c) => {
        const { count } = (await c.req.json()) as { count: number };
        const client = ctx.integrations!.client("payments");
        const statuses = await Promise.all(
          Array.from({ length: count }, (_, i) =>
            client
              .call({
                method: "POST",
                path: "/payments",
                body: { amount: "1", currency: "USDC", reference: `${process.pid}-${i}` },
              })
              .then(
                (r) => r.status,
                (err: Error) => err.message,
              ),
          ),
        );
        return c.json({ pid: process.pid, statuses });
      });
    },
  });
  process.stdout.write(`${JSON.stringify({ ready: service.server.url, pid: process.pid })}\n`);
  process.once("SIGTERM", () => {
    service.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}
