import type { ChildExtension } from "../../fixtures/child-service.ts";

/**
 * The child relayer of the shared rate limit test (the environment's VERIFLOW_INTEGRATIONS names a
 * payments integration): a probe route that makes `count` payment calls at once through the
 * process's integrations client.
 */
const payer: ChildExtension = {
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
};
export default payer;
