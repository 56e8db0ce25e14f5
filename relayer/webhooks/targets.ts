import { lookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";

/**
 * Where webhooks may be sent (no SSRF): in production only HTTPS URLs whose host resolves to
 * public addresses; on the development devnet also plain HTTP and loopback/private addresses (a
 * receiver on 127.0.0.1). The URL is checked when registered and its addresses again before every
 * attempt (a name may move to a private address after registration); the attempt connects to the
 * address that was checked, never to a second resolution.
 */
export interface TargetPolicy {
  /** Development devnet: http and private addresses allowed. */
  allowPrivate: boolean;
}

const PRIVATE = new BlockList();
for (const [net, bits] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const) {
  PRIVATE.addSubnet(net, bits, "ipv4");
}
for (const [net, bits] of [
  ["::", 128],
  ["::1", 128],
  ["fc00::", 7],
  ["fe80::", 10],
  ["ff00::", 8],
] as const) {
  PRIVATE.addSubnet(net, bits, "ipv6");
}

export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return PRIVATE.check(mapped[1]!, "ipv4");
  return PRIVATE.check(address, family === 4 ? "ipv4" : "ipv6");
}

/** Why `url` cannot be a webhook target under `policy`, or null when it can (no DNS lookup). */
export function refuseUrl(url: string, policy: TargetPolicy): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "not an absolute URL";
  }
  if (parsed.username || parsed.password) return "credentials in the URL are not allowed";
  if (parsed.protocol !== "https:" && !(policy.allowPrivate && parsed.protocol === "http:")) {
    return policy.allowPrivate ? "must be an http(s) URL" : "must be an https URL";
  }
  const host = parsed.hostname.replace(/^\[|\]$/g, "");
  if (!policy.allowPrivate && (host === "localhost" || isPrivateAddress(host))) {
    return "private, loopback and link-local addresses are refused";
  }
  return null;
}

/** Resolves a host name to all its addresses (dns.lookup by default; tests inject their own). */
export type HostLookup = (host: string) => Promise<{ address: string; family: number }[]>;

const systemLookup: HostLookup = (host) => lookup(host, { all: true, verbatim: true });

/** A target refused before any connection: permanent (retrying cannot change the answer soon). */
export class TargetRefusedError extends Error {}

/** Where one attempt connects: the URL and the one address that was checked. */
export interface ResolvedTarget {
  url: URL;
  address: string;
  family: 4 | 6;
}

/**
 * Before an attempt: resolves the host once and checks every address it has; the attempt then
 * connects to the checked address itself (a second resolution could answer a private address
 * after the check passed: DNS rebinding).
 */
export async function resolveTarget(
  url: string,
  policy: TargetPolicy,
  resolve: HostLookup = systemLookup,
): Promise<ResolvedTarget> {
  const parsed = new URL(url);
  const host = parsed.hostname.replace(/^\[|\]$/g, "");
  const family = isIP(host);
  const addresses = family !== 0 ? [{ address: host, family }] : await resolve(host);
  if (addresses.length === 0) throw new TargetRefusedError(`${host} has no address`);
  if (!policy.allowPrivate) {
    const blocked = addresses.find((a) => isPrivateAddress(a.address));
    if (blocked) {
      throw new TargetRefusedError(`${host} resolves to a private address (${blocked.address})`);
    }
  }
  const chosen = addresses[0]!;
  return { url: parsed, address: chosen.address, family: chosen.family === 6 ? 6 : 4 };
}
