/**
 * A server for `npm run bench:api`, in its own process so the load generator does not share its
 * event loop. BENCH_TARGET=ceiling: a bare Hono route echoing JSON (the machine's ceiling).
 * BENCH_TARGET=relayer: the real relayer service (PGlite, or PostgreSQL with DATABASE_URL) with
 * its full middleware chain; BENCH_ROUTE=workflows uses POST /v1/workflows (needs chains),
 * BENCH_ROUTE=probe a signed submission stand-in that stores a row and queues a job.
 * BENCH_ROUTE=unreceipted is POST /v1/workflows on chains whose attestor is hidden from the
 * relayer, so it issues no submission receipt (what the receipt costs, in the same run).
 */
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import type { AddressInfo } from "node:net";
import { loadConfig } from "../relayer/config/index.ts";
import { startService } from "../relayer/app/index.ts";
import { openChains, type ChainHandle, type ChainSet } from "../relayer/chains/index.ts";
import { ATTESTOR_CONTRACT } from "../relayer/proofs/index.ts";

/** The chains with the attestor's deployment record hidden: the intake then signs no receipt. */
function withoutAttestor(chains: ChainSet): ChainSet {
  const hide = (handle: ChainHandle): ChainHandle => {
    const contracts = { ...handle.deployment.contracts };
    delete contracts[ATTESTOR_CONTRACT];
    const deployment = { ...handle.deployment, contracts };
    return { ...handle, deployment };
  };
  const handles = new Map(chains.list().map((c) => [c.chainId, hide(c)]));
  return {
    list: () => [...handles.values()],
    byName: (name) => handles.get(chains.byName(name).chainId)!,
    byId: (chainId) => handles.get(chains.byId(chainId).chainId)!,
    has: (name) => chains.has(name),
    close: () => chains.close(),
  };
}

const target = process.env.BENCH_TARGET ?? "ceiling";

if (target === "ceiling") {
  const app = new Hono();
  app.post("/echo", async (c) => c.json(await c.req.json()));
  const server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, () => {
    const { port } = server.address() as AddressInfo;
    process.stdout.write(`${JSON.stringify({ ready: `http://127.0.0.1:${port}` })}\n`);
  });
} else {
  const route = process.env.BENCH_ROUTE ?? "probe";
  const chains =
    route === "workflows"
      ? undefined
      : route === "unreceipted"
        ? withoutAttestor(await openChains())
        : null;
  const service = await startService(loadConfig(), {
    chains,
    extend: async (ctx, app) => {
      if (route !== "probe") return;
      await ctx.store.exec(
        "CREATE TABLE IF NOT EXISTS bench_submissions (id bigserial PRIMARY KEY, body jsonb NOT NULL)",
      );
      await ctx.queue.ensureQueue("bench.submission");
      app.post("/bench/submit", async (c) => {
        const body = (await c.req.json()) as object;
        const jobId = await ctx.store.transaction(async (tx) => {
          await tx.query("INSERT INTO bench_submissions (body) VALUES ($1)", [body]);
          return ctx.queue.send("bench.submission", { n: 1 }, { tx });
        });
        return c.json({ status: "queued", execution_id: jobId }, 202);
      });
    },
  });
  process.stdout.write(`${JSON.stringify({ ready: service.server.url })}\n`);
  process.once("SIGTERM", () => {
    service.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}
