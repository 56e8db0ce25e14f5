import { getAddress, ZeroAddress } from "ethers";

/**
 * EIP-55 checksums (keccak-256 per address) by the address as written: clients pay the same
 * recipients again and again. Bounded: started over beyond 10,000 addresses.
 */
const checksums = new Map<string, string | null>();
function checksummed(value: string): string | null {
  let address = checksums.get(value);
  if (address === undefined) {
    try {
      address = getAddress(value);
    } catch {
      address = null;
    }
    if (checksums.size >= 10_000) checksums.clear();
    checksums.set(value, address);
  }
  return address;
}

export function checkAddress(
  value: string,
): { ok: true; address: string } | { ok: false; message: string } {
  if (!/^0x[0-9a-fA-F]{40}$/.test(value)) {
    return { ok: false, message: `"${value}" is not an EVM address (0x and 40 hex digits)` };
  }
  const address = checksummed(value);
  if (address === null) {
    return {
      ok: false,
      message: `"${value}" fails its EIP-55 checksum (mixed-case address with a typo?)`,
    };
  }
  if (address === ZeroAddress)
    return { ok: false, message: "the zero address cannot receive funds" };
  return { ok: true, address };
}
