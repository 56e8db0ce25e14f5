import { readFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { checkMasterKey } from "../relayer/auth/keys.ts";
import { ConfigError, loadConfig } from "../relayer/config/index.ts";
import { resolveMasterKey } from "../relayer/config/master-key.ts";
import { enableIntegration } from "../relayer/integrations/health.ts";
import { encodeMtlsCredential, parseMtlsCredential } from "../relayer/integrations/mtls.ts";
import { putCredential, signingPublicKey } from "../relayer/integrations/vault.ts";
import { openStore } from "../relayer/store/index.ts";
import { migrate } from "../relayer/store/migrate.ts";

/**
 * Integration key material against the relayer's database (same environment as `npm start`):
 *   npm run integrations -- set-credential <credential_id>   (the secret is read from stdin)
 *   npm run integrations -- set-mtls-credential <credential_id> --client-id <id> --cert <pem> --key <pem>
 *   npm run integrations -- public-key <integration>         (Ed25519 SPKI PEM to register remotely)
 *   npm run integrations -- enable <integration>             (re-enables a node disabled after 401s)
 * Secrets are stored only encrypted under the master key and never printed.
 */
const USAGE = `usage: npm run integrations -- <command>
  set-credential <credential_id>   reads the secret from stdin (key_vault: local)
  set-mtls-credential <credential_id> --client-id <id> --cert <chain.pem> --key <key.pem>
                                   stores an oauth2_mtls client certificate chain and key
  public-key <integration>         prints the request-signing public key (created on first use)
  enable <integration>             re-enables a node disabled after repeated 401s (rotate its credential first)`;

const COMMANDS = ["set-credential", "set-mtls-credential", "public-key", "enable"];

class UsageError extends Error {}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString("utf8")
    .replace(/\r?\n$/, "");
}

async function run(argv: string[]): Promise<void> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      "client-id": { type: "string" },
      cert: { type: "string" },
      key: { type: "string" },
    },
  });
  const [command, name] = positionals;
  if (!command || !COMMANDS.includes(command))
    throw new UsageError(command ? `unknown command ${command}\n${USAGE}` : USAGE);
  if (!name || !/^[A-Za-z0-9_.:-]{1,128}$/.test(name))
    throw new UsageError(
      `${command} needs a name of 1-128 characters A-Z a-z 0-9 _ . : -\n${USAGE}`,
    );
  // Read and checked before the database is opened: a wrong file changes nothing.
  const mtlsCredential =
    command === "set-mtls-credential" ? await readMtlsCredential(values) : null;
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
    } else if (mtlsCredential) {
      await putCredential(store, master.key, name, mtlsCredential.text);
      process.stdout.write(
        `stored oauth2_mtls credential ${name} for client_id ${mtlsCredential.clientId} (certificate x5t#S256 ${mtlsCredential.thumbprint}; encrypted; key_vault: local)\n`,
      );
    } else if (command === "enable") {
      const changed = await enableIntegration(store, name);
      process.stdout.write(
        changed
          ? `integration ${name} enabled (its 401 count cleared)\n`
          : `integration ${name} was not disabled; nothing changed\n`,
      );
    } else {
      process.stdout.write(await signingPublicKey(store, master.key, name));
    }
  } finally {
    await store.close();
  }
}

async function readMtlsCredential(values: {
  "client-id"?: string;
  cert?: string;
  key?: string;
}): Promise<{ text: string; clientId: string; thumbprint: string }> {
  const clientId = values["client-id"];
  if (!clientId || !values.cert || !values.key)
    throw new UsageError(`set-mtls-credential needs --client-id, --cert and --key\n${USAGE}`);
  const read = (file: string) =>
    readFile(file, "utf8").catch((err: NodeJS.ErrnoException) => {
      throw new UsageError(`cannot read ${file}: ${err.code ?? err.message}`);
    });
  const text = encodeMtlsCredential({
    clientId,
    cert: await read(values.cert),
    key: await read(values.key),
  });
  try {
    const { thumbprint } = parseMtlsCredential(text);
    return { text, clientId, thumbprint };
  } catch (err) {
    throw new UsageError(`not an oauth2_mtls credential: ${(err as Error).message}`);
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
