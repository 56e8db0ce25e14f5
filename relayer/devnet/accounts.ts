import { HDNodeWallet, Mnemonic } from "ethers";

/**
 * Hardhat's well-known test accounts (the public "test test ... junk" mnemonic). They are the
 * devnet's accounts in process and over JSON-RPC, so anyone can script against the devnet.
 * NEVER use these keys on a real network: their private keys are public.
 */
export const DEVNET_MNEMONIC = "test test test test test test test test test test test junk";
export const DEVNET_ACCOUNT_COUNT = 20;

export interface DevnetAccount {
  index: number;
  address: string;
  privateKey: string;
}

// Derive the seed once: deriving each account from the phrase would repeat PBKDF2 twenty times.
const root = HDNodeWallet.fromSeed(Mnemonic.fromPhrase(DEVNET_MNEMONIC).computeSeed());

export const DEVNET_ACCOUNTS: readonly DevnetAccount[] = Array.from(
  { length: DEVNET_ACCOUNT_COUNT },
  (_, index) => {
    const wallet = root.derivePath(`m/44'/60'/0'/0/${index}`);
    return { index, address: wallet.address, privateKey: wallet.privateKey };
  },
);

function account(index: number): DevnetAccount {
  const found = DEVNET_ACCOUNTS[index];
  if (!found) throw new Error(`no devnet account #${index}`);
  return found;
}

/** Account #0: deploys everything, admin of the devnet contracts, owner of the sanctions oracle. */
export const DEVNET_DEPLOYER = account(0);

/**
 * Account #1: the relayer's operator key on the devnet. It signs and pays for the relayer's
 * transactions, holds the roles of the core contracts, and is the `lockmint` bridge attester.
 */
export const DEVNET_OPERATOR = account(1);

/**
 * Accounts #17, #18 and #19 are listed by the devnet sanctions oracle at deployment: use them as
 * sanctioned recipients in tests and demos (`SANCTIONED_ADDRESS`).
 */
export const DEVNET_SANCTIONED: readonly DevnetAccount[] = [account(17), account(18), account(19)];

/** Accounts funded with every devnet token at deployment (all twenty, sanctioned ones included). */
export const DEVNET_FUNDED: readonly DevnetAccount[] = DEVNET_ACCOUNTS;
