import { collectDefaultMetrics, Counter, Histogram, Registry } from "prom-client";

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
