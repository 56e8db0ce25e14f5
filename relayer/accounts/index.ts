import { Contract, formatUnits, parseUnits, Wallet, type Provider, type Signer } from "ethers";
import { ERC20_ABI, type RoutingChain, nativeSymbol } from "../routing/index.ts";
import type { EngineStore } from "./store.ts";
import { DEVNET_DEPLOYER } from "../devnet/index.ts";

/**
 * Relayer-managed accounts: one per API key, the same address on every chain. Workflows of that
 * key spend from it. The private key is generated here, stored only as an AES-256-GCM blob under
 * the master key (bound to the API key id as associated data) and decrypted only to sign.
 */
export interface Account {
  apiKeyId: string;
  address: string;
  createdAt: Date;
  fundedAt: Date | null;
}

interface AccountRow {
  api_key_id: string;
  address: string;
  key_enc: string;
  created_at: Date | string;
  funded_at: Date | string | null;
}

const context = (apiKeyId: string) => `engine-account:${apiKeyId}`;

/**
 * Encryption at rest of account keys: the platform's AES-256-GCM `encryptSecret` /
 * `decryptSecret` (relayer/auth/secrets.ts) bound to the master key; `context` is bound as
 * associated data so a blob copied to another account's row does not decrypt.
 */
export interface SecretCipher {
  encrypt(plaintext: string, context: string): string;
  decrypt(blob: string, context: string): string;
}

function toAccount(row: AccountRow): Account {
  return {
    apiKeyId: row.api_key_id,
    address: row.address,
    createdAt: new Date(row.created_at),
    fundedAt: row.funded_at === null ? null : new Date(row.funded_at),
  };
}

export async function findAccount(store: EngineStore, apiKeyId: string): Promise<Account | null> {
  const [row] = await store.query<AccountRow>(
    "SELECT * FROM engine_accounts WHERE api_key_id = $1",
    [apiKeyId],
  );
  return row ? toAccount(row) : null;
}

/** The key's account, created on first use (concurrent first uses agree on one account). */
export async function ensureAccount(
  store: EngineStore,
  cipher: SecretCipher,
  apiKeyId: string,
): Promise<{ account: Account; created: boolean }> {
  const existing = await findAccount(store, apiKeyId);
  if (existing) return { account: existing, created: false };
  const wallet = Wallet.createRandom();
  const inserted = await store.query<AccountRow>(
    `INSERT INTO engine_accounts (api_key_id, address, key_enc) VALUES ($1, $2, $3)
     ON CONFLICT (api_key_id) DO NOTHING RETURNING *`,
    [apiKeyId, wallet.address, cipher.encrypt(wallet.privateKey, context(apiKeyId))],
  );
  if (inserted[0]) return { account: toAccount(inserted[0]), created: true };
  return { account: (await findAccount(store, apiKeyId))!, created: false };
}

/** The account's signing key, connected to a chain's provider. Never log or return it. */
export async function accountWallet(
  store: EngineStore,
  cipher: SecretCipher,
  apiKeyId: string,
  provider?: Provider,
): Promise<Wallet> {
  const [row] = await store.query<AccountRow>(
    "SELECT * FROM engine_accounts WHERE api_key_id = $1",
    [apiKeyId],
  );
  if (!row) throw new Error(`no relayer account for API key ${apiKeyId}`);
  return new Wallet(cipher.decrypt(row.key_enc, context(apiKeyId)), provider ?? null);
}

export interface ChainBalances {
  chain: string;
  chainId: number;
  /** Asset symbol → decimal balance (the native asset under its own symbol). */
  balances: Record<string, string>;
}

/** Balances of an address on every chain: the native asset and every deployed token. */
export async function accountBalances(
  chains: readonly RoutingChain[],
  address: string,
): Promise<ChainBalances[]> {
  return Promise.all(
    chains.map(async (chain) => {
      const balances: Record<string, string> = {};
      balances[nativeSymbol(chain)] = formatUnits(await chain.provider.getBalance(address), 18);
      const tokens = Object.entries(chain.deployment.tokens).sort(([a], [b]) => a.localeCompare(b));
      const amounts = await Promise.all(
        tokens.map(
          ([, token]) =>
            new Contract(token.address, ERC20_ABI, chain.provider).getFunction("balanceOf")(
              address,
            ) as Promise<bigint>,
        ),
      );
      tokens.forEach(
        ([symbol, token], i) => (balances[symbol] = formatUnits(amounts[i]!, token.decimals)),
      );
      return { chain: chain.name, chainId: chain.chainId, balances };
    }),
  );
}

/**
 * What a devnet faucet grant gives on each chain (decimal amounts). Enough for the documented
 * example workflows several times over; the native amount pays gas.
 */
export const DEVNET_GRANT: Record<string, string> = {
  ETH: "10",
  USDC: "100000",
  USDT: "100000",
  DAI: "100000",
  WETH: "20",
  WBTC: "2",
};

/**
 * Devnet only: sends the grant from a funded devnet account (the chain's deployer/test account)
 * to `address`. Tokens missing from the funder are skipped, not an error.
 */
export async function fundFromDevnet(
  chain: RoutingChain,
  funder: Signer,
  address: string,
  grant: Record<string, string> = DEVNET_GRANT,
): Promise<Record<string, string>> {
  const sent: Record<string, string> = {};
  const native = nativeSymbol(chain);
  if (grant[native]) {
    const tx = await funder.sendTransaction({ to: address, value: parseUnits(grant[native], 18) });
    await tx.wait();
    sent[native] = grant[native];
  }
  const from = await funder.getAddress();
  for (const [symbol, token] of Object.entries(chain.deployment.tokens)) {
    const amount = grant[symbol];
    if (!amount) continue;
    const erc20 = new Contract(token.address, ERC20_ABI, funder);
    const value = parseUnits(amount, token.decimals);
    const held = (await erc20.getFunction("balanceOf")(from)) as bigint;
    if (held < value) continue;
    await (await erc20.getFunction("transfer")(address, value)).wait();
    sent[symbol] = amount;
  }
  return sent;
}

/** Devnet only: the account that pays faucet grants (the devnet deployer, funded with every token). */
export interface DevnetFaucet {
  funder(chain: RoutingChain): Signer;
}

/** Devnet faucet: grants are paid by the devnet deployer (Hardhat account #0, funded with every token). */
export const DEVNET_FAUCET: DevnetFaucet = {
  funder: (chain) => new Wallet(DEVNET_DEPLOYER.privateKey, chain.provider),
};

/** Faucet grants run one at a time per chain: the funder's nonces must not race. */
const faucetQueues = new Map<number, Promise<unknown>>();

export async function grantOnChain(
  chain: RoutingChain,
  faucet: DevnetFaucet,
  address: string,
  grant: Record<string, string> = DEVNET_GRANT,
): Promise<Record<string, string>> {
  const previous = faucetQueues.get(chain.chainId) ?? Promise.resolve();
  const next = previous
    .catch(() => {})
    .then(() => fundFromDevnet(chain, faucet.funder(chain), address, grant));
  faucetQueues.set(chain.chainId, next);
  return next;
}

/**
 * The key's account, created on first use and, on a devnet, funded with the grant on every chain
 * the first time (a real network gets no free funds: the client deposits to the address).
 */
export async function ensureFundedAccount(
  store: EngineStore,
  cipher: SecretCipher,
  apiKeyId: string,
  chains: readonly (RoutingChain & { devnet?: boolean })[],
  faucet: DevnetFaucet | null,
): Promise<Account> {
  const { account } = await ensureAccount(store, cipher, apiKeyId);
  if (account.fundedAt || !faucet || !chains.every((c) => c.devnet)) return account;
  // Claim the first funding (one process, one request wins), then fund.
  const claimed = await store.query<AccountRow>(
    "UPDATE engine_accounts SET funded_at = now() WHERE api_key_id = $1 AND funded_at IS NULL RETURNING *",
    [apiKeyId],
  );
  if (claimed[0]) {
    try {
      for (const chain of chains) await grantOnChain(chain, faucet, account.address);
    } catch (err) {
      // Not funded (a chain's RPC down): the claim is given back so that the next try funds it,
      // granting again a chain granted before the failure (devnet test funds, not journalled).
      await store.query("UPDATE engine_accounts SET funded_at = NULL WHERE api_key_id = $1", [
        apiKeyId,
      ]);
      throw err;
    }
    return toAccount(claimed[0]);
  }
  return (await findAccount(store, apiKeyId))!;
}

export async function markFunded(store: EngineStore, apiKeyId: string): Promise<void> {
  await store.query("UPDATE engine_accounts SET funded_at = now() WHERE api_key_id = $1", [
    apiKeyId,
  ]);
}

export type { EngineStore } from "./store.ts";
