import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import type { Queue } from "../queue/index.ts";

/** Prometheus metrics of one relayer process; areas register theirs on `registry`. */
export interface Metrics {
  registry: Registry;
  httpRequests: Counter<"method" | "route" | "status">;
  httpDuration: Histogram<"method" | "route" | "status">;
}

export function createMetrics(options: { defaultMetrics?: boolean } = {}): Metrics {
  const registry = new Registry();
  if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: registry });
  return {
    registry,
    httpRequests: new Counter({
      name: "veriflow_http_requests_total",
      help: "HTTP requests by method, route pattern and status",
      labelNames: ["method", "route", "status"],
      registers: [registry],
    }),
    httpDuration: new Histogram({
      name: "veriflow_http_request_duration_seconds",
      help: "HTTP request duration by method, route pattern and status",
      labelNames: ["method", "route", "status"],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    }),
  };
}

/**
 * Queue depth per queue and state, read from pg-boss's queue statistics at scrape time (pg-boss
 * refreshes them about once a minute): `ready` (runnable now), `deferred`, `active`, `failed`.
 */
export function registerQueueMetrics(ctx: { metrics: Metrics; queue: Queue }): void {
  const name = "veriflow_queue_jobs";
  if (ctx.metrics.registry.getSingleMetric(name)) return;
  new Gauge({
    name,
    help: "Jobs per pg-boss queue and state (from pg-boss's periodically refreshed statistics)",
    labelNames: ["queue", "state"],
    registers: [ctx.metrics.registry],
    async collect() {
      const queues = await ctx.queue.boss.getQueues().catch(() => []);
      for (const q of queues) {
        this.set({ queue: q.name, state: "ready" }, q.readyCount ?? 0);
        this.set({ queue: q.name, state: "deferred" }, q.deferredCount ?? 0);
        this.set({ queue: q.name, state: "active" }, q.activeCount ?? 0);
        this.set({ queue: q.name, state: "failed" }, q.failedCount ?? 0);
      }
    },
  });
}
