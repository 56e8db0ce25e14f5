import {
  Interface,
  getAddress,
  type InterfaceAbi,
  type Signer,
  type TransactionReceipt,
} from "ethers";
import { z } from "zod";
import type { Deployment } from "../deployments/index.ts";

/**
 * Client side of the `lockmint` bridge (contracts/devnet/LockMintBridge.sol): the deployment entry,
 * the EIP-712 release attestation the relayer's operator signs, and the deposit read from a receipt.
 */

export const LOCKMINT_PROTOCOL = "lockmint";

/** `deployment.extra.bridges.lockmint`, as the devnet deployment writes it. */
export const lockMintInfoSchema = z.object({
  address: z.string(),
  attester: z.string(),
  feeBps: z.number().int().nonnegative(),
  eip712: z.object({ name: z.string(), version: z.string() }),
  /** Token symbol -> "escrow" (paid from held liquidity) or "mint-burn". */
  tokenModes: z.record(z.string(), z.enum(["escrow", "mint-burn"])),
  /** Other chain id (decimal string) -> its bridge address. */
  peers: z.record(z.string(), z.string()),
});

export type LockMintInfo = z.infer<typeof lockMintInfoSchema>;

/** The chain's `lockmint` bridge entry, or undefined when the chain has none. */
export function lockMintInfo(deployment: Deployment): LockMintInfo | undefined {
  const bridges = deployment.extra.bridges as Record<string, unknown> | undefined;
  const entry = bridges?.[LOCKMINT_PROTOCOL];
  if (entry === undefined) return undefined;
  const parsed = lockMintInfoSchema.safeParse(entry);
  if (!parsed.success)
    throw new Error(`invalid lockmint entry in deployment of ${deployment.network}`);
  return parsed.data;
}

/** `ILockMintBridge.Release`: what the attester signs to pay a deposit out on the destination. */
export interface LockMintRelease {
  sourceChainId: bigint;
  sourceBridge: string;
  nonce: bigint;
  token: string;
  recipient: string;
  amount: bigint;
}

export const RELEASE_TYPES = {
  Release: [
    { name: "sourceChainId", type: "uint256" },
    { name: "sourceBridge", type: "address" },
    { name: "nonce", type: "uint256" },
    { name: "token", type: "address" },
    { name: "recipient", type: "address" },
    { name: "amount", type: "uint256" },
  ],
};

/** EIP-712 domain of the destination bridge (the chain id is the destination's). */
export function releaseDomain(
  destination: { chainId: number | bigint; bridge: string },
  info?: LockMintInfo,
) {
  return {
    name: info?.eip712.name ?? "Veriflow LockMint",
    version: info?.eip712.version ?? "1",
    chainId: BigInt(destination.chainId),
    verifyingContract: getAddress(destination.bridge),
  };
}

/** The attester's signature of `release` for the destination bridge. */
export function signRelease(
  attester: Signer,
  destination: { chainId: number | bigint; bridge: string },
  release: LockMintRelease,
): Promise<string> {
  return attester.signTypedData(releaseDomain(destination), RELEASE_TYPES, release);
}

/** The deposit of a source-chain `deposit` transaction, as the release for the destination. */
export function releaseFromDepositReceipt(
  receipt: TransactionReceipt,
  bridgeAbi: InterfaceAbi,
  sourceChainId: number | bigint,
): LockMintRelease & { destinationChainId: bigint; fee: bigint } {
  const iface = new Interface(bridgeAbi);
  for (const log of receipt.logs) {
    let parsed;
    try {
      parsed = iface.parseLog(log);
    } catch {
      continue;
    }
    if (parsed?.name !== "Deposited") continue;
    return {
      sourceChainId: BigInt(sourceChainId),
      sourceBridge: getAddress(log.address),
      nonce: parsed.args.nonce as bigint,
      token: getAddress(parsed.args.remoteToken as string),
      recipient: getAddress(parsed.args.recipient as string),
      amount: parsed.args.amount as bigint,
      destinationChainId: parsed.args.destinationChainId as bigint,
      fee: parsed.args.fee as bigint,
    };
  }
  throw new Error(`transaction ${receipt.hash} emitted no lockmint Deposited event`);
}
