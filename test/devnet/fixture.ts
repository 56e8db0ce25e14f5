import { Wallet } from "ethers";
import { openChains, type ChainHandle, type ChainSet } from "../../relayer/chains/index.ts";
import { DEVNET_ACCOUNTS } from "../../relayer/devnet/accounts.ts";

/**
 * One embedded devnet (three in-process chains, fully deployed) shared by the devnet test files
 * that only use it as a normal user would; closed once after all tests.
 */
let shared: Promise<ChainSet> | undefined;

export function sharedDevnet(): Promise<ChainSet> {
  shared ??= openChains({ mode: "embedded" });
  return shared;
}

after(async function () {
  if (shared) await (await shared).close();
});

/** A funded Hardhat test account on `chain` (index into the well-known accounts). */
export function account(chain: ChainHandle, index: number): Wallet {
  return new Wallet(DEVNET_ACCOUNTS[index]!.privateKey, chain.provider);
}
