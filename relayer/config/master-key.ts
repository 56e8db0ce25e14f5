import { chmod, mkdir, open, readFile, stat } from "node:fs/promises";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { parseKey32, type Config } from "./config.ts";

export const MASTER_KEY_FILE = "master.key";

/**
 * The master key that encrypts API signing secrets at rest.
 * - `VERIFLOW_MASTER_KEY` wins (required in production: keep it in a secret manager).
 * - Otherwise (development) it lives in `<DATA_DIR>/master.key`, created on first start with
 *   32 random bytes, mode 0600, exclusively (two processes starting at once agree on one file).
 *   A key file readable by group or others is refused.
 */
export async function resolveMasterKey(
  config: Config,
): Promise<{ key: Buffer; source: "env" | "file" | "generated"; file?: string }> {
  if (config.masterKey) return { key: config.masterKey, source: "env" };
  if (config.env === "production") {
    throw new Error("VERIFLOW_MASTER_KEY is required in production");
  }
  await mkdir(config.dataDir, { recursive: true });
  const file = path.join(config.dataDir, MASTER_KEY_FILE);
  try {
    const handle = await open(file, "wx", 0o600);
    try {
      const key = randomBytes(32);
      await handle.writeFile(key.toString("hex") + "\n");
      await handle.sync();
      await chmod(file, 0o600);
      return { key, source: "generated", file };
    } finally {
      await handle.close();
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
  }
  const info = await stat(file);
  if ((info.mode & 0o077) !== 0) {
    throw new Error(
      `${file} is readable by group or others (mode ${(info.mode & 0o777).toString(8)}); run chmod 600 on it`,
    );
  }
  // A concurrent creator may still be writing: an empty read is retried briefly.
  for (let attempt = 0; attempt < 50; attempt++) {
    const text = (await readFile(file, "utf8")).trim();
    if (text !== "") {
      const key = parseKey32(text);
      if (!key) throw new Error(`${file} does not hold a 32-byte key (64 hex characters)`);
      return { key, source: "file", file };
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`${file} is empty`);
}
