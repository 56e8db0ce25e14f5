import { parseArgs } from "node:util";
import { checkMasterKey } from "../relayer/auth/keys.ts";
import { ConfigError, loadConfig } from "../relayer/config/index.ts";
import { resolveMasterKey } from "../relayer/config/master-key.ts";
import { putCredential, signingPublicKey } from "../relayer/integrations/vault.ts";
import { openStore } from "../relayer/store/index.ts";
import { migrate } from "../relayer/store/migrate.ts";

/**
 * Integration key material against the relayer's database (same environment as `npm start`):
 *   npm run integrations -- set-credential <credential_id>   (the secret is read from stdin)
 *   npm run integrations -- public-key <integration>         (Ed25519 SPKI PEM to register remotely)
 * Secrets are stored only encrypted under the master key and never printed.
 */
const USAGE = `usage: npm run integrations -- <command>
  set-credential <credential_id>   reads the secret from stdin (key_vault: local)
  public-key <integration>         prints the request-signing public key (created on first use)`;

class UsageError extends Error {}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString("utf8")
    .replace(/\r?\n$/, "");
}

async function run(argv: string[]): Promise<void> {
  const { positionals } = parseArgs({ args: argv, allowPositionals: true });
  const [command, name] = positionals;
  if (!command || !["set-credential", "public-key"].includes(command))
    throw new UsageError(command ? `unknown command ${command}\n${USAGE}` : USAGE);
  if (!name || !/^[A-Za-z0-9_.:-]{1,128}$/.test(name))
    throw new UsageError(
      `${command} needs a name of 1-128 characters A-Z a-z 0-9 _ . : -\n${USAGE}`,
    );
  const config = loadConfig();
  const master = await resolveMasterKey(config);
  const store = await openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  try {
    await migrate(store);
    await checkMasterKey(store, master.key);
    if (command === "set-credential") {
      const secret = await readStdin();
      if (secret.length < 16)
        throw new UsageError("the credential read from stdin must be at least 16 characters");
      await putCredential(store, master.key, name, secret);
      process.stdout.write(`stored credential ${name} (encrypted; key_vault: local)\n`);
    } else {
      process.stdout.write(await signingPublicKey(store, master.key, name));
    }
  } finally {
    await store.close();
  }
}

run(process.argv.slice(2)).catch((err) => {
  if (err instanceof UsageError || err instanceof ConfigError) {
    process.stderr.write(`${err.message}\n`);
    process.exit(2);
  }
  process.stderr.write(`integrations: ${(err as Error).message}\n`);
  process.exit(1);
});
