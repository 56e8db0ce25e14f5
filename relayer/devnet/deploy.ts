import {
  ContractFactory,
  Interface,
  MaxUint256,
  Wallet,
  getAddress,
  getCreate2Address,
  getCreateAddress,
  keccak256,
  parseUnits,
  solidityPackedKeccak256,
  type Provider,
  type TransactionReceipt,
} from "ethers";
import type { Deployment } from "../deployments/index.ts";
import { DEVNET_DEPLOYER, DEVNET_FUNDED, DEVNET_OPERATOR, DEVNET_SANCTIONED } from "./accounts.ts";
import {
  hardhatArtifact,
  hardhatArtifactByName,
  uniswapArtifact,
  type ContractArtifact,
  type UniswapContractName,
} from "./artifacts.ts";
import { DEVNET_CHAINS } from "./chains.ts";
import type { CoreContract } from "./core.ts";
import {
  BRIDGE_PLAN,
  DEVNET_CHAIN_NAMES,
  EXCHANGES,
  POOLS,
  TOKENS,
  poolDepthUsd,
  tokenPlan,
  venuePriceUsd,
  type DevnetChainName,
  type TokenSymbol,
} from "./plan.ts";

/** Far-future deadline for the router calls of the seeding: a constant keeps the calldata deterministic. */
const SEED_DEADLINE = 4_102_444_800n; // 2100-01-01

/** Token mode values of `ILockMintBridge.TokenMode`. */
const BRIDGE_MODE = { escrow: 1, mintBurn: 2 } as const;

export interface DevnetDeployResult {
  deployment: Deployment;
  /** ABI per ABI name referenced by `deployment.contracts[*].abi`. */
  abis: Record<string, unknown[]>;
  /** True when the chain already held this deployment and nothing was sent. */
  alreadyDeployed: boolean;
}

export interface DeployDevnetOptions {
  /** A deployment previously written for this chain: if every contract of it has code, nothing is redeployed. */
  existing?: Deployment;
  /** Progress lines (the `npm run devnet` script prints them). */
  log?: (line: string) => void;
  /**
   * Deploys the core contracts (other teams' Ignition modules, see `core.ts`) after the devnet's own,
   * from the same deployer account; their addresses and ABIs join the deployment record.
   */
  deployCore?: () => Promise<CoreContract[]>;
}

/**
 * Sends the deployer's transactions one after the other with explicit nonces, so the sequence (and
 * therefore every CREATE address) is the same on every fresh chain. Receipts are checked in bulk at
 * the end: on an automining devnet each transaction is mined as it is sent.
 */
class DeployerSender {
  readonly wallet: Wallet;
  readonly #provider: Provider;
  #nonce: number;
  readonly #maxFeePerGas: bigint;
  readonly #maxPriorityFeePerGas: bigint;
  readonly #pending: { hash: string; label: string }[] = [];

  private constructor(provider: Provider, nonce: number, maxFeePerGas: bigint) {
    this.wallet = new Wallet(DEVNET_DEPLOYER.privateKey, provider);
    this.#provider = provider;
    this.#nonce = nonce;
    this.#maxFeePerGas = maxFeePerGas;
    this.#maxPriorityFeePerGas = 1_000_000_000n;
  }

  static async open(provider: Provider, baseFeePerGas: bigint): Promise<DeployerSender> {
    const nonce = await provider.getTransactionCount(DEVNET_DEPLOYER.address, "pending");
    // Room for a base fee that rises while deploying, plus the tip.
    return new DeployerSender(provider, nonce, baseFeePerGas * 4n + 1_000_000_000n);
  }

  get nonce(): number {
    return this.#nonce;
  }

  async send(label: string, tx: { to?: string; data: string; value?: bigint }): Promise<number> {
    const nonce = this.#nonce;
    const request = {
      from: DEVNET_DEPLOYER.address,
      to: tx.to ?? null,
      data: tx.data,
      value: tx.value ?? 0n,
    };
    let gasLimit: bigint;
    try {
      gasLimit = await this.#provider.estimateGas(request);
    } catch (err) {
      throw new Error(`devnet deployment step "${label}" would revert: ${(err as Error).message}`, {
        cause: err,
      });
    }
    const signed = await this.wallet.signTransaction({
      ...request,
      type: 2,
      nonce,
      chainId: (await this.#provider.getNetwork()).chainId,
      gasLimit: (gasLimit * 12n) / 10n,
      maxFeePerGas: this.#maxFeePerGas,
      maxPriorityFeePerGas: this.#maxPriorityFeePerGas,
    });
    const response = await this.#provider.broadcastTransaction(signed);
    this.#nonce += 1;
    this.#pending.push({ hash: response.hash, label });
    return nonce;
  }

  /** Waits for every sent transaction and fails on the first reverted one. */
  async settle(): Promise<Map<string, TransactionReceipt>> {
    const receipts = await Promise.all(
      this.#pending.map(async ({ hash, label }) => {
        const receipt =
          (await this.#provider.getTransactionReceipt(hash)) ??
          (await this.#provider.waitForTransaction(hash));
        if (!receipt || receipt.status !== 1) {
          throw new Error(`devnet deployment step "${label}" failed (tx ${hash})`);
        }
        return [label, receipt] as const;
      }),
    );
    return new Map(receipts);
  }
}

interface PlannedContract {
  key: string;
  abiName: string;
  address: string;
  label: string;
}

/**
 * Deploys the whole devnet on one chain from Hardhat's account #0, in a fixed order, so a fresh chain
 * always gets the same addresses (identical on all three chains, since the sequence is the same).
 * Idempotent: given the chain's previous deployment (`existing`), a chain that already holds it is
 * left untouched. Works in process (an EIP-1193 provider wrapped by ethers) and over JSON-RPC.
 */
export async function deployDevnet(
  provider: Provider,
  chainName: DevnetChainName,
  options: DeployDevnetOptions = {},
): Promise<DevnetDeployResult> {
  const log = options.log ?? (() => {});
  const chain = DEVNET_CHAINS[chainName];
  const network = await provider.getNetwork();
  if (network.chainId !== BigInt(chain.chainId)) {
    throw new Error(
      `chain ${chainName} must have chainId ${chain.chainId}, the RPC reports ${network.chainId}`,
    );
  }

  const deployerNonce = await provider.getTransactionCount(DEVNET_DEPLOYER.address, "latest");
  if (deployerNonce > 0) {
    if (options.existing && (await isDeployed(provider, options.existing))) {
      log(`${chainName}: already deployed, nothing to do`);
      const core = Object.values(options.existing.contracts)
        .filter((c) => !DEVNET_ABI_NAMES.has(c.abi))
        .map((c) => ({ name: c.abi, address: c.address }));
      return { deployment: options.existing, abis: await collectAbis(core), alreadyDeployed: true };
    }
    throw new Error(
      `chain ${chainName} is not fresh (deployer nonce ${deployerNonce}) and does not hold the devnet ` +
        `deployment: restart its node to get a fresh chain`,
    );
  }

  const latest = await provider.getBlock("latest");
  const sender = await DeployerSender.open(
    provider,
    latest?.baseFeePerGas ?? chain.initialBaseFeePerGas,
  );
  const deployer = DEVNET_DEPLOYER.address;
  const planned: PlannedContract[] = [];

  const create = async (
    key: string,
    artifact: ContractArtifact,
    args: unknown[] = [],
  ): Promise<string> => {
    const factory = new ContractFactory(artifact.abi as never, artifact.bytecode);
    const { data } = await factory.getDeployTransaction(...args);
    const nonce = await sender.send(`deploy ${key}`, { data });
    const address = getCreateAddress({ from: deployer, nonce });
    planned.push({ key, abiName: artifact.contractName, address, label: `deploy ${key}` });
    return address;
  };
  const call = (
    label: string,
    to: string,
    iface: Interface,
    fn: string,
    args: unknown[],
    value?: bigint,
  ) => sender.send(label, { to, data: iface.encodeFunctionData(fn, args), value });

  // 1. Assets: the real WETH9 (the routers' WETH), then the test tokens.
  const artifacts = await loadArtifacts();
  const tokenAddress = {} as Record<TokenSymbol, string>;
  for (const token of TOKENS) {
    tokenAddress[token.symbol] =
      token.symbol === "WETH"
        ? await create("WETH", artifacts.WETH9)
        : await create(token.symbol, artifacts.TestToken, [
            token.name,
            token.symbol,
            token.decimals,
            deployer,
          ]);
  }

  // 2. Exchanges: the official Uniswap V2 factory and router, twice.
  const exchangeAddress = {} as Record<string, { factory: string; router: string }>;
  for (const exchange of EXCHANGES) {
    const title = exchange[0]!.toUpperCase() + exchange.slice(1);
    const factory = await create(`${title}Factory`, artifacts.UniswapV2Factory, [deployer]);
    const router = await create(`${title}Router`, artifacts.UniswapV2Router02, [
      factory,
      tokenAddress.WETH,
    ]);
    exchangeAddress[exchange] = { factory, router };
  }

  // 3. Devnet services.
  const sanctionsOracle = await create("SanctionsOracle", artifacts.SanctionsOracle, [
    deployer,
    DEVNET_SANCTIONED.map((a) => a.address),
  ]);
  const multisend = await create("Multisend", artifacts.Multisend);
  const bridge = await create("LockMintBridge", artifacts.LockMintBridge, [
    deployer,
    DEVNET_OPERATOR.address,
    BRIDGE_PLAN.feeBps,
    deployer,
  ]);

  // 4. Balances the deployer needs: pool seeds + funding of the test accounts + bridge escrow.
  const units = (symbol: TokenSymbol, amount: number): bigint => {
    const { decimals } = tokenPlan(symbol);
    return parseUnits(amount.toFixed(Math.min(decimals, 8)), decimals);
  };
  const need = Object.fromEntries(TOKENS.map((t) => [t.symbol, 0n])) as Record<TokenSymbol, bigint>;
  const seeds: {
    exchange: string;
    a: TokenSymbol;
    b: TokenSymbol;
    amountA: bigint;
    amountB: bigint;
  }[] = [];
  for (const exchange of EXCHANGES) {
    for (const pool of POOLS) {
      const depth = poolDepthUsd(chainName, exchange, pool);
      const [a, b] = pool.tokens;
      const amountA = units(a, depth / venuePriceUsd(chainName, exchange, tokenPlan(a)));
      const amountB = units(b, depth / venuePriceUsd(chainName, exchange, tokenPlan(b)));
      need[a] += amountA;
      need[b] += amountB;
      seeds.push({ exchange, a, b, amountA, amountB });
    }
  }
  for (const token of TOKENS) {
    need[token.symbol] +=
      units(token.symbol, token.fundingPerAccount) * BigInt(DEVNET_FUNDED.length);
    need[token.symbol] += units(token.symbol, BRIDGE_PLAN.escrowLiquidity[token.symbol] ?? 0);
  }
  const erc20 = new Interface(artifacts.TestToken.abi as never);
  const weth = new Interface(artifacts.WETH9.abi as never);
  for (const token of TOKENS) {
    if (token.symbol === "WETH") {
      await call("wrap WETH", tokenAddress.WETH, weth, "deposit", [], need.WETH);
    } else {
      await call(`mint ${token.symbol}`, tokenAddress[token.symbol], erc20, "mint", [
        deployer,
        need[token.symbol],
      ]);
    }
  }

  // 5. Pools: approve each router once per token, then add liquidity (the router creates the pair).
  const router = new Interface(artifacts.UniswapV2Router02.abi as never);
  for (const exchange of EXCHANGES) {
    for (const token of TOKENS) {
      await call(
        `approve ${token.symbol} for ${exchange}`,
        tokenAddress[token.symbol],
        erc20,
        "approve",
        [exchangeAddress[exchange]!.router, MaxUint256],
      );
    }
  }
  const initCodeHash = keccak256(artifacts.UniswapV2Pair.bytecode);
  const pools: Deployment["pools"] = [];
  for (const seed of seeds) {
    await call(
      `seed ${seed.exchange} ${seed.a}/${seed.b}`,
      exchangeAddress[seed.exchange]!.router,
      router,
      "addLiquidity",
      [
        tokenAddress[seed.a],
        tokenAddress[seed.b],
        seed.amountA,
        seed.amountB,
        seed.amountA,
        seed.amountB,
        deployer,
        SEED_DEADLINE,
      ],
    );
    const [token0, token1] = sortTokens(seed.a, seed.b, tokenAddress);
    pools.push({
      exchange: seed.exchange,
      tokens: [token0, token1],
      pair: pairAddress(
        exchangeAddress[seed.exchange]!.factory,
        tokenAddress[token0],
        tokenAddress[token1],
        initCodeHash,
      ),
    });
  }

  // 6. Fund the test accounts through the multisend (one batch per token).
  const multisendIface = new Interface(artifacts.Multisend.abi as never);
  for (const token of TOKENS) {
    const amount = units(token.symbol, token.fundingPerAccount);
    await call(
      `approve ${token.symbol} for multisend`,
      tokenAddress[token.symbol],
      erc20,
      "approve",
      [multisend, amount * BigInt(DEVNET_FUNDED.length)],
    );
    await call(
      `fund test accounts with ${token.symbol}`,
      multisend,
      multisendIface,
      "disperseToken",
      [
        tokenAddress[token.symbol],
        DEVNET_FUNDED.map((a) => a.address),
        DEVNET_FUNDED.map(() => amount),
      ],
    );
  }

  // 7. Bridge: token modes, routes and peers towards the other devnet chains (same addresses there,
  //    as every chain runs this same sequence), the minter role and the WETH escrow liquidity.
  const bridgeIface = new Interface(artifacts.LockMintBridge.abi as never);
  const minterRole = keccak256(Buffer.from("MINTER_ROLE"));
  const tokenModes: Record<string, "escrow" | "mint-burn"> = {};
  for (const token of TOKENS) {
    const escrow = BRIDGE_PLAN.escrowTokens.includes(token.symbol);
    tokenModes[token.symbol] = escrow ? "escrow" : "mint-burn";
    if (!escrow) {
      await call(
        `grant minter of ${token.symbol} to bridge`,
        tokenAddress[token.symbol],
        erc20,
        "grantRole",
        [minterRole, bridge],
      );
    }
    await call(`bridge mode ${token.symbol}`, bridge, bridgeIface, "configureToken", [
      tokenAddress[token.symbol],
      escrow ? BRIDGE_MODE.escrow : BRIDGE_MODE.mintBurn,
    ]);
  }
  const peers: Record<string, string> = {};
  for (const other of DEVNET_CHAIN_NAMES) {
    if (other === chainName) continue;
    const otherId = DEVNET_CHAINS[other].chainId;
    peers[String(otherId)] = bridge;
    await call(`bridge peer ${other}`, bridge, bridgeIface, "configurePeer", [otherId, bridge]);
    for (const token of TOKENS) {
      await call(
        `bridge route ${token.symbol} to ${other}`,
        bridge,
        bridgeIface,
        "configureRoute",
        [otherId, tokenAddress[token.symbol], tokenAddress[token.symbol]],
      );
    }
  }
  for (const [symbol, amount] of Object.entries(BRIDGE_PLAN.escrowLiquidity)) {
    await call(
      `bridge escrow liquidity ${symbol}`,
      tokenAddress[symbol as TokenSymbol],
      erc20,
      "transfer",
      [bridge, units(symbol as TokenSymbol, amount)],
    );
  }

  // 8. Confirm every transaction and assemble the record.
  const receipts = await sender.settle();
  const contracts: Deployment["contracts"] = {};
  for (const contract of planned) {
    const receipt = receipts.get(contract.label)!;
    if (receipt.contractAddress && getAddress(receipt.contractAddress) !== contract.address) {
      throw new Error(`devnet deployment of ${contract.key} landed at an unexpected address`);
    }
    contracts[contract.key] = {
      address: contract.address,
      blockNumber: receipt.blockNumber,
      abi: contract.abiName,
    };
  }
  // 9. The core contracts, after everything else so they never shift the devnet's addresses.
  const core = options.deployCore ? await options.deployCore() : [];
  if (core.length > 0) {
    const lastDevnetBlock = Math.max(...[...receipts.values()].map((r) => r.blockNumber));
    const created = await contractCreationBlocks(provider, lastDevnetBlock + 1);
    for (const contract of core) {
      const blockNumber = created.get(getAddress(contract.address));
      if (blockNumber === undefined)
        throw new Error(`core contract ${contract.name} was not created by the deployer`);
      contracts[contract.name] = {
        address: getAddress(contract.address),
        blockNumber,
        abi: contract.name,
      };
    }
  }
  const deploymentBlock = Math.min(...Object.values(contracts).map((c) => c.blockNumber));
  const deployment: Deployment = {
    chainId: chain.chainId,
    network: chainName,
    deploymentBlock,
    contracts,
    tokens: Object.fromEntries(
      TOKENS.map((t) => [
        t.symbol,
        { address: tokenAddress[t.symbol], decimals: t.decimals, name: t.name },
      ]),
    ),
    exchanges: Object.fromEntries(
      EXCHANGES.map((e) => [e, { kind: "uniswap-v2" as const, ...exchangeAddress[e]! }]),
    ),
    pools,
    extra: {
      devnet: true,
      deployer,
      operator: DEVNET_OPERATOR.address,
      baseFeePerGas: chain.initialBaseFeePerGas.toString(),
      uniswapV2PairInitCodeHash: initCodeHash,
      sanctionsOracle,
      sanctionedTestAccounts: DEVNET_SANCTIONED.map((a) => a.address),
      multisend,
      bridges: {
        [BRIDGE_PLAN.protocol]: {
          address: bridge,
          attester: DEVNET_OPERATOR.address,
          feeBps: BRIDGE_PLAN.feeBps,
          eip712: { name: "Veriflow LockMint", version: "1" },
          tokenModes,
          peers,
        },
      },
    },
  };
  log(
    `${chainName}: deployed ${Object.keys(contracts).length} contracts and ${pools.length} pools`,
  );
  return { deployment, abis: await collectAbis(core), alreadyDeployed: false };
}

/** True when every contract of `deployment` has code on the chain behind `provider`. */
export async function isDeployed(provider: Provider, deployment: Deployment): Promise<boolean> {
  const codes = await Promise.all(
    Object.values(deployment.contracts).map((c) => provider.getCode(c.address)),
  );
  return codes.every((code) => code !== "0x");
}

async function loadArtifacts() {
  const uniswap = (name: UniswapContractName) => uniswapArtifact(name);
  const [TestToken, SanctionsOracle, Multisend, LockMintBridge] = await Promise.all([
    hardhatArtifact("contracts/devnet/TestToken.sol", "TestToken"),
    hardhatArtifact("contracts/devnet/SanctionsOracle.sol", "SanctionsOracle"),
    hardhatArtifact("contracts/devnet/Multisend.sol", "Multisend"),
    hardhatArtifact("contracts/devnet/LockMintBridge.sol", "LockMintBridge"),
  ]);
  return {
    TestToken,
    SanctionsOracle,
    Multisend,
    LockMintBridge,
    WETH9: uniswap("WETH9"),
    UniswapV2Factory: uniswap("UniswapV2Factory"),
    UniswapV2Router02: uniswap("UniswapV2Router02"),
    UniswapV2Pair: uniswap("UniswapV2Pair"),
  };
}

const DEVNET_ABI_NAMES = new Set([
  "TestToken",
  "SanctionsOracle",
  "Multisend",
  "LockMintBridge",
  "WETH9",
  "UniswapV2Factory",
  "UniswapV2Router02",
  "UniswapV2Pair",
]);

/** Every ABI a devnet deployment references (plus the pair ABI for the pools and the core contracts'). */
async function collectAbis(core: CoreContract[]): Promise<Record<string, unknown[]>> {
  const artifacts = await loadArtifacts();
  const coreArtifacts = await Promise.all(core.map((c) => hardhatArtifactByName(c.name)));
  return Object.fromEntries(
    [...Object.values(artifacts), ...coreArtifacts].map((a) => [a.contractName, a.abi]),
  );
}

/** Contract address -> block of creation, for the deployer's transactions from `fromBlock` on. */
async function contractCreationBlocks(
  provider: Provider,
  fromBlock: number,
): Promise<Map<string, number>> {
  const latest = await provider.getBlockNumber();
  const created = new Map<string, number>();
  for (let n = fromBlock; n <= latest; n++) {
    const block = await provider.getBlock(n);
    for (const hash of block?.transactions ?? []) {
      const receipt = await provider.getTransactionReceipt(hash);
      if (receipt?.contractAddress && getAddress(receipt.from) === DEVNET_DEPLOYER.address) {
        created.set(getAddress(receipt.contractAddress), n);
      }
    }
  }
  return created;
}

function sortTokens(
  a: TokenSymbol,
  b: TokenSymbol,
  addresses: Record<TokenSymbol, string>,
): [TokenSymbol, TokenSymbol] {
  return BigInt(addresses[a]) < BigInt(addresses[b]) ? [a, b] : [b, a];
}

/** CREATE2 address of a Uniswap V2 pair (token0 < token1), as `UniswapV2Library.pairFor` computes it. */
export function pairAddress(
  factory: string,
  token0: string,
  token1: string,
  initCodeHash: string,
): string {
  const salt = solidityPackedKeccak256(["address", "address"], [token0, token1]);
  return getCreate2Address(factory, salt, initCodeHash);
}
