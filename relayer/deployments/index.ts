import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { getAddress, isAddress } from "ethers";
import { z } from "zod";

/**
 * The deployment record of one chain: `deployments/<chainId>/deployment.json` plus one ABI file
 * per contract in `deployments/<chainId>/abi/<ContractName>.json`. Written by the deploy scripts
 * (core contracts and devnet), read and validated by the relayer at start and by auditors' scripts.
 */
const address = z
  .string()
  .refine((v) => isAddress(v), { message: "not an EVM address" })
  .transform((v) => getAddress(v));
const txHash = z.string().regex(/^0x[0-9a-fA-F]{64}$/, "not a transaction hash");

export const deployedContractSchema = z.object({
  address,
  /** Block in which the contract was created: where log scans start. */
  blockNumber: z.number().int().nonnegative(),
  transactionHash: txHash.optional(),
  /** Name of the ABI file under `abi/` (usually the contract name). */
  abi: z.string().min(1),
});

export const tokenSchema = z.object({
  address,
  decimals: z.number().int().min(0).max(36),
  name: z.string().optional(),
});

export const exchangeSchema = z.object({
  /** Uniswap-V2-compatible: factory and router. */
  kind: z.literal("uniswap-v2"),
  factory: address,
  router: address,
});

export const poolSchema = z.object({
  exchange: z.string(),
  /** Token symbols, sorted as the pair's token0, token1. */
  tokens: z.tuple([z.string(), z.string()]),
  pair: address,
});

export const deploymentSchema = z.object({
  chainId: z.number().int().positive(),
  network: z.string().min(1),
  /** First block of this deployment (the lowest contract blockNumber). */
  deploymentBlock: z.number().int().nonnegative(),
  contracts: z.record(z.string(), deployedContractSchema),
  tokens: z.record(z.string(), tokenSchema).default({}),
  exchanges: z.record(z.string(), exchangeSchema).default({}),
  pools: z.array(poolSchema).default([]),
  /** Free-form, documented per key in the README (bridge protocols, sanctioned test accounts, ...). */
  extra: z.record(z.string(), z.unknown()).default({}),
});

export type Deployment = z.infer<typeof deploymentSchema>;
export type DeployedContract = z.infer<typeof deployedContractSchema>;

export function deploymentDir(root: string, chainId: number): string {
  return path.join(root, String(chainId));
}

/** Reads and validates a chain's deployment; the error names the file and the bad field. */
export async function readDeployment(root: string, chainId: number): Promise<Deployment> {
  const file = path.join(deploymentDir(root, chainId), "deployment.json");
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(file, "utf8"));
  } catch (err) {
    throw new Error(`cannot read deployment ${file}: ${(err as Error).message}`, { cause: err });
  }
  const parsed = deploymentSchema.safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    throw new Error(`invalid deployment ${file}: ${issues}`);
  }
  return parsed.data;
}

export async function readAbi(root: string, chainId: number, name: string): Promise<unknown[]> {
  const file = path.join(deploymentDir(root, chainId), "abi", `${name}.json`);
  return JSON.parse(await readFile(file, "utf8")) as unknown[];
}

/** Writes `deployment.json` and the ABIs; stable key order so a re-run produces the same bytes. */
export async function writeDeployment(
  root: string,
  deployment: Deployment,
  abis: Record<string, readonly unknown[]>,
): Promise<void> {
  const dir = deploymentDir(root, deployment.chainId);
  await mkdir(path.join(dir, "abi"), { recursive: true });
  const checked = deploymentSchema.parse(deployment);
  await writeFile(path.join(dir, "deployment.json"), JSON.stringify(checked, null, 2) + "\n");
  for (const [name, abi] of Object.entries(abis)) {
    await writeFile(path.join(dir, "abi", `${name}.json`), JSON.stringify(abi, null, 2) + "\n");
  }
}
