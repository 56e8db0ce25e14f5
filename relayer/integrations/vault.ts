import { environmentVariable } from "../config/index.ts";
import { generateKeyPairSync } from "node:crypto";
import { decryptSecret, encryptSecret } from "../auth/index.ts";
import type { EngineStore } from "../accounts/index.ts";
import { IntegrationError } from "./errors.ts";

/**
 * Key material of the integrations, at rest only as AES-256-GCM blobs under the master key (the
 * platform's `encryptSecret`), bound to the row id as associated data: a blob copied to another id
 * does not decrypt.
 *
 * - `key_vault: local`: credentials (JWT signing secrets, response HMAC keys) stored with
 *   {@link putCredential} (`npm run integrations -- set-credential <id>` reads it from stdin);
 *   oauth2_mtls credentials are JSON `{client_id, cert, key}` (mtls.ts, `set-mtls-credential`).
 * - `key_vault: env`: the value of the environment variable named by `credential_id`, for secret
 *   managers that inject the environment.
 * - Request-signing keys (Ed25519) are generated per integration on first use and never leave the
 *   store except as a public key ({@link signingPublicKey}) to register with the remote system.
 */
const CREDENTIAL = "credential:";
const SIGNING = "signing:";

export async function putCredential(
  store: EngineStore,
  masterKey: Buffer,
  credentialId: string,
  secret: string,
): Promise<void> {
  if (secret.length < 16) throw new Error("a credential must be at least 16 characters");
  const id = CREDENTIAL + credentialId;
  await store.query(
    `INSERT INTO integration_secrets (id, blob) VALUES ($1, $2)
     ON CONFLICT (id) DO UPDATE SET blob = EXCLUDED.blob, updated_at = now()`,
    [id, encryptSecret(masterKey, secret, id)],
  );
}

export async function readCredential(
  store: EngineStore,
  masterKey: Buffer,
  integration: string,
  ref: { keyVault: "local" | "env"; credentialId: string; type?: string },
  env?: Record<string, string | undefined>,
): Promise<string> {
  if (ref.keyVault === "env") {
    const value = env ? env[ref.credentialId] : environmentVariable(ref.credentialId);
    if (!value)
      throw new IntegrationError(
        "INTEGRATION_CREDENTIAL_UNAVAILABLE",
        integration,
        `environment variable ${ref.credentialId} (key_vault env) is not set`,
      );
    return value;
  }
  const id = CREDENTIAL + ref.credentialId;
  const [row] = await store.query<{ blob: string }>(
    "SELECT blob FROM integration_secrets WHERE id = $1",
    [id],
  );
  if (!row)
    throw new IntegrationError(
      "INTEGRATION_CREDENTIAL_UNAVAILABLE",
      integration,
      `credential ${ref.credentialId} is not in the local vault (npm run integrations -- ${ref.type === "oauth2_mtls" ? "set-mtls-credential" : "set-credential"} ${ref.credentialId})`,
    );
  try {
    return decryptSecret(masterKey, row.blob, id);
  } catch {
    throw new IntegrationError(
      "INTEGRATION_CREDENTIAL_UNAVAILABLE",
      integration,
      `credential ${ref.credentialId} does not decrypt under this master key`,
    );
  }
}

/**
 * The integration's Ed25519 request-signing key: the stored (encrypted) PKCS#8 PEM, created on
 * first use. Returns the encrypted blob's plaintext only to the signer.
 */
export async function signingKeyPem(
  store: EngineStore,
  masterKey: Buffer,
  integration: string,
): Promise<{ privatePem: string; publicPem: string }> {
  const id = SIGNING + integration;
  const [existing] = await store.query<{ blob: string; public_key: string }>(
    "SELECT blob, public_key FROM integration_secrets WHERE id = $1",
    [id],
  );
  if (existing) {
    // Decryption failures surface from the signer as INTEGRATION_SIGNING_FAILED.
    return {
      privatePem: decryptSecret(masterKey, existing.blob, id),
      publicPem: existing.public_key,
    };
  }
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  const privatePem = privateKey.export({ type: "pkcs8", format: "pem" }).toString();
  const publicPem = publicKey.export({ type: "spki", format: "pem" }).toString();
  await store.query(
    "INSERT INTO integration_secrets (id, blob, public_key) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING",
    [id, encryptSecret(masterKey, privatePem, id), publicPem],
  );
  // A concurrent first use may have won: use whatever is stored.
  return signingKeyPem(store, masterKey, integration);
}

/** The public key (SPKI PEM) the remote system verifies request signatures with. */
export async function signingPublicKey(
  store: EngineStore,
  masterKey: Buffer,
  integration: string,
): Promise<string> {
  return (await signingKeyPem(store, masterKey, integration)).publicPem;
}
