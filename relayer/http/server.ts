import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { serve } from "@hono/node-server";
import type { Hono } from "hono";

export interface RunningServer {
  url: string;
  port: number;
  server: Server;
  /**
   * Graceful stop: refuse new connections, let in-flight requests finish (idle keep-alive
   * connections are closed at once), force-close what is left after `graceMs`.
   */
  close(graceMs?: number): Promise<void>;
}

// The generic parameters of the app do not matter to the server.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyHono = Hono<any, any, any>;

export async function listen(app: AnyHono, host: string, port: number): Promise<RunningServer> {
  const server = await new Promise<Server>((resolve, reject) => {
    const s = serve({ fetch: app.fetch, hostname: host, port }, () => resolve(s as Server));
    (s as Server).once("error", reject);
  });
  const address = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${host}:${address.port}`,
    port: address.port,
    server,
    close(graceMs = 15_000) {
      closing ??= new Promise<void>((resolve) => {
        const force = setTimeout(() => server.closeAllConnections(), graceMs);
        force.unref();
        server.close(() => {
          clearTimeout(force);
          resolve();
        });
        server.closeIdleConnections();
      });
      return closing;
    },
  };
}
