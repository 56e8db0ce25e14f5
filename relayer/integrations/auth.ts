import { randomUUID } from "node:crypto";
import { SignJWT } from "jose";

/**
 * `auth.type: jwt_bearer`: a short-lived JWT (HS256 with the integration's credential, jose) sent as
 * `Authorization: Bearer <jwt>`: `iss` veriflow, `sub` the credential id, `aud` the integration's
 * base URL, `iat`/`exp` (60 s), a fresh `jti` per request. A 401 means the credential must be
 * rotated (INTEGRATION_UNAUTHORIZED).
 */
export const JWT_ISSUER = "veriflow";
export const JWT_LIFETIME_SECONDS = 60;

export async function bearerJwt(
  secret: string,
  credentialId: string,
  audience: string,
  nowMs: number,
): Promise<string> {
  const iat = Math.floor(nowMs / 1000);
  return new SignJWT({})
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setIssuer(JWT_ISSUER)
    .setSubject(credentialId)
    .setAudience(audience)
    .setIssuedAt(iat)
    .setExpirationTime(iat + JWT_LIFETIME_SECONDS)
    .setJti(randomUUID())
    .sign(new TextEncoder().encode(secret));
}
