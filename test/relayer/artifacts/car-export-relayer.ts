import { randomBytes } from "node:crypto";
import { serve } from "@hono/node-server";
import { newApiKey, startInProcessRelayer } from "../../fixtures/relayer.ts";

/**
 * Child process of car-memory.test.ts: a relayer over real HTTP holding CAR_ARTIFACTS artifacts of
 * about CAR_ARTIFACT_KIB KiB each for one key (written through the owned store, not HTTP, to keep
 * the set-up short). Prints `{"ready": url, "pid", "key", "secret", "cids"}` and serves until killed.
 * `hardhat test` loads every file under test/: it starts a relayer only when run as a program.
 */
if (import.meta.main) await main();

async function main(): Promise<void> {
  const count = Number(process.env.CAR_ARTIFACTS ?? 300);
  const kib = Number(process.env.CAR_ARTIFACT_KIB ?? 1000);

  const relayer = await startInProcessRelayer({
    label: "car-memory",
    env: { VERIFLOW_CAR_MAX_BYTES: String(4 * 1024 * 1024 * 1024) },
  });
  const key = await newApiKey(relayer.ctx, "enterprise", "car-memory");
  const cids: string[] = [];
  for (let i = 0; i < count; i++) {
    // Random text does not compress and makes every artifact distinct.
    const value = { n: i, data: randomBytes(Math.floor((kib * 1024 * 3) / 4)).toString("base64") };
    cids.push(await relayer.ctx.artifacts.putArtifact(value, { apiKeyId: key.id, kind: "upload" }));
  }
  const server = serve({ fetch: relayer.app.fetch, hostname: "127.0.0.1", port: 0 }, (info) => {
    process.stdout.write(
      `${JSON.stringify({ ready: `http://127.0.0.1:${info.port}`, pid: process.pid, key: key.key, secret: key.secret, cids })}\n`,
    );
  });
  process.once("SIGTERM", () => {
    server.close();
    void relayer.close().then(() => process.exit(0));
  });
}
