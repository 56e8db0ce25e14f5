import {
  createCipheriv,
  createDecipheriv,
  createHmac,
  randomBytes,
  type KeyObject,
} from "node:crypto";

/**
 * Secrets at rest: AES-256-GCM under the master key. A blob is
 * `v1.<iv base64url>.<ciphertext base64url>.<tag base64url>`; the version prefix lets us move
 * to another scheme without guessing. The optional `context` is bound as associated data so a
 * blob copied onto another row (another key id) does not decrypt.
 */
const VERSION = "v1";
/**
 * The GCM tag is always 16 bytes. Pinned at both ends: without it Node accepts a blob whose tag was
 * cut to 4 bytes, and a forger would need only 2^32 tries instead of 2^128.
 */
const TAG_BYTES = 16;

/**
 * The master key as bytes, or as a KeyObject made once (createSecretKey) by a caller that encrypts
 * on a hot path: Node otherwise imports the raw key again for every cipher.
 */
export type MasterKey = Buffer | KeyObject;

function assertMasterKey(masterKey: MasterKey): void {
  const bytes = Buffer.isBuffer(masterKey) ? masterKey.length : masterKey.symmetricKeySize;
  if (bytes !== 32) throw new Error("the master key must be 32 bytes");
}

export function encryptSecret(masterKey: MasterKey, plaintext: string, context = ""): string {
  assertMasterKey(masterKey);
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", masterKey, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.from(context, "utf8"));
  const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  const tag = cipher.getAuthTag();
  return [VERSION, iv, ciphertext, tag]
    .map((part) => (typeof part === "string" ? part : part.toString("base64url")))
    .join(".");
}

export function decryptSecret(masterKey: MasterKey, blob: string, context = ""): string {
  assertMasterKey(masterKey);
  const parts = blob.split(".");
  if (parts.length !== 4 || parts[0] !== VERSION) throw new Error("unknown secret blob format");
  const [iv, ciphertext, tag] = parts.slice(1).map((p) => Buffer.from(p, "base64url"));
  if (tag!.length !== TAG_BYTES)
    throw new Error("the secret blob's authentication tag is not 16 bytes");
  const decipher = createDecipheriv("aes-256-gcm", masterKey, iv!, { authTagLength: TAG_BYTES });
  decipher.setAAD(Buffer.from(context, "utf8"));
  decipher.setAuthTag(tag!);
  // A wrong master key or a tampered blob fails here (GCM tag mismatch).
  return Buffer.concat([decipher.update(ciphertext!), decipher.final()]).toString("utf8");
}

/**
 * A fingerprint of the master key that reveals nothing about it, stored in the database so a
 * process started with a different master key refuses to run instead of failing every request.
 */
export function masterKeyFingerprint(masterKey: Buffer): string {
  assertMasterKey(masterKey);
  return createHmac("sha256", masterKey).update("veriflow master key check v1").digest("hex");
}

/** Secrets at rest under the master key, bound to a context (account keys, integration keys). */
export function masterKeyCipher(masterKey: Buffer): {
  encrypt(plaintext: string, context: string): string;
  decrypt(blob: string, context: string): string;
} {
  return {
    encrypt: (plaintext, context) => encryptSecret(masterKey, plaintext, context),
    decrypt: (blob, context) => decryptSecret(masterKey, blob, context),
  };
}
