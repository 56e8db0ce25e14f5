import { X509Certificate } from "node:crypto";

/** One PEM certificate block (global: `match` returns every block of a bundle). */
export const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** Every certificate of a PEM bundle, checked; null when it holds none. */
export function pemCertificates(text: string): string[] | null {
  const blocks = text.match(PEM_CERTIFICATE);
  if (!blocks) return null;
  for (const block of blocks) new X509Certificate(block);
  return blocks;
}
