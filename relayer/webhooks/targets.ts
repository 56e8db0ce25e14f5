import { lookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";

/**
 * Where webhooks may be sent (no SSRF): in production only HTTPS URLs whose host resolves to
 * public addresses; on the development devnet also plain HTTP and loopback/private addresses (a
 * receiver on 127.0.0.1). The URL is checked when registered and the resolved addresses again
 * before every attempt (a name may move to a private address after registration).
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

/** Before an attempt: the host's current addresses must all be allowed. */
export async function refuseResolved(url: string, policy: TargetPolicy): Promise<string | null> {
  if (policy.allowPrivate) return null;
  const host = new URL(url).hostname.replace(/^\[|\]$/g, "");
  const addresses = isIP(host) ? [{ address: host }] : await lookup(host, { all: true });
  const blocked = addresses.find((a) => isPrivateAddress(a.address));
  return blocked ? `${host} resolves to a private address (${blocked.address})` : null;
}
