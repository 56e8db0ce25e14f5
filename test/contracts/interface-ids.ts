import { Interface } from "ethers";
import { artifacts } from "hardhat";

/**
 * The ERC-165 id Solidity gives `type(I).interfaceId`: the XOR of the selectors of the functions
 * declared in `I` itself (inherited ones excluded), computed here from the compiled ABIs.
 */
export async function interfaceId(name: string, inherited: string[] = []): Promise<string> {
  const selectorsOf = async (contract: string) => {
    const iface = new Interface((await artifacts.readArtifact(contract)).abi);
    const selectors: string[] = [];
    iface.forEachFunction((fn) => selectors.push(fn.selector));
    return selectors;
  };
  const excluded = new Set((await Promise.all(inherited.map(selectorsOf))).flat());
  const own = (await selectorsOf(name)).filter((s) => !excluded.has(s));
  const id = own.reduce((acc, s) => acc ^ BigInt(s), 0n);
  return "0x" + id.toString(16).padStart(8, "0");
}
