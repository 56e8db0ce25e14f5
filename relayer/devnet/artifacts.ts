import { readFile, readdir } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** ABI + creation bytecode of a contract, from Hardhat's artifacts or an npm package's build. */
export interface ContractArtifact {
  contractName: string;
  abi: unknown[];
  bytecode: string;
}

const require = createRequire(import.meta.url);
export const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

/**
 * The official Uniswap V2 builds shipped in `@uniswap/v2-core` and `@uniswap/v2-periphery`. Both
 * devnet exchanges deploy this exact bytecode: the router's `UniswapV2Library.pairFor` hard-codes the
 * init code hash of the official `UniswapV2Pair`, which only the official factory produces.
 */
const UNISWAP_BUILDS = {
  UniswapV2Factory: "@uniswap/v2-core/build/UniswapV2Factory.json",
  UniswapV2Pair: "@uniswap/v2-core/build/UniswapV2Pair.json",
  UniswapV2Router02: "@uniswap/v2-periphery/build/UniswapV2Router02.json",
  WETH9: "@uniswap/v2-periphery/build/WETH9.json",
} as const;

export type UniswapContractName = keyof typeof UNISWAP_BUILDS;

export function uniswapArtifact(name: UniswapContractName): ContractArtifact {
  const build = require(UNISWAP_BUILDS[name]) as { abi: unknown[]; bytecode: string };
  const bytecode = build.bytecode.startsWith("0x") ? build.bytecode : `0x${build.bytecode}`;
  return { contractName: name, abi: build.abi, bytecode };
}

const cache = new Map<string, Promise<ContractArtifact>>();

/**
 * Reads a compiled Hardhat artifact (`artifacts/<sourcePath>/<Name>.json`), e.g.
 * `hardhatArtifact("contracts/devnet/Multisend.sol", "Multisend")`. Run `npx hardhat build` first.
 */
export function hardhatArtifact(
  sourcePath: string,
  contractName: string,
): Promise<ContractArtifact> {
  const file = path.join(PROJECT_ROOT, "artifacts", sourcePath, `${contractName}.json`);
  let pending = cache.get(file);
  if (!pending) {
    pending = readFile(file, "utf8").then(
      (text) => {
        const json = JSON.parse(text) as { abi: unknown[]; bytecode: string };
        return { contractName, abi: json.abi, bytecode: json.bytecode };
      },
      (err: unknown) => {
        cache.delete(file);
        throw new Error(`missing artifact ${file}: run \`npx hardhat build\` first`, {
          cause: err,
        });
      },
    );
    cache.set(file, pending);
  }
  return pending;
}

/** Whether a Hardhat artifact exists (used to deploy other teams' contracts once they land). */
export async function hasHardhatArtifact(
  sourcePath: string,
  contractName: string,
): Promise<boolean> {
  try {
    await hardhatArtifact(sourcePath, contractName);
    return true;
  } catch {
    return false;
  }
}

/**
 * Finds a compiled contract by name anywhere under `artifacts/contracts/` (core contracts live in
 * `contracts/`, generated verifiers in `contracts/verifiers/`). Names must be unique.
 */
export async function hardhatArtifactByName(contractName: string): Promise<ContractArtifact> {
  const root = path.join(PROJECT_ROOT, "artifacts", "contracts");
  const entries = await readdir(root, { recursive: true });
  const matches = entries.filter(
    (entry) =>
      path.basename(entry) === `${contractName}.json` && path.dirname(entry).endsWith(".sol"),
  );
  if (matches.length !== 1) {
    throw new Error(
      matches.length === 0
        ? `no artifact for contract ${contractName}: run \`npx hardhat build\` first`
        : `several artifacts named ${contractName}: ${matches.join(", ")}`,
    );
  }
  return hardhatArtifact(path.join("contracts", path.dirname(matches[0]!)), contractName);
}
