import { createRequire } from "node:module";
import { Contract, ContractFactory, MaxUint256, parseUnits, type Signer } from "ethers";
import type { RoutingChain } from "../../../relayer/routing/chain.ts";
import type { Deployment } from "../../../relayer/deployments/index.ts";

/**
 * A minimal Uniswap-V2 world on one in-process chain, built from the official npm build artifacts:
 * WETH9, two exchanges (factory + router each) and 18-decimal test tokens. Used by the routing tests
 * to control pool depths exactly; the end-to-end tests use the devnet.
 */
const require = createRequire(import.meta.url);
type Artifact = { abi: unknown[]; bytecode: string; evm?: { bytecode: { object: string } } };
function artifact(file: string): { abi: never; bytecode: string } {
  const a = require(file) as Artifact;
  const bytecode = a.bytecode ?? a.evm?.bytecode.object;
  return { abi: a.abi as never, bytecode: bytecode.startsWith("0x") ? bytecode : `0x${bytecode}` };
}

export interface PoolSeed {
  exchange: string;
  a: string;
  b: string;
  amountA: string;
  amountB: string;
}

export async function deployUniswapWorld(
  name: string,
  chainId: number,
  deployer: Signer,
  provider: RoutingChain["provider"],
  symbols: readonly string[],
  pools: readonly PoolSeed[],
): Promise<RoutingChain> {
  const me = await deployer.getAddress();
  const deploy = async (file: string, ...args: unknown[]) => {
    const { abi, bytecode } = artifact(file);
    const c = await new ContractFactory(abi, bytecode, deployer).deploy(...args);
    await c.waitForDeployment();
    return c as unknown as Contract;
  };
  const weth = await deploy("@uniswap/v2-periphery/build/WETH9.json");
  const tokens: Deployment["tokens"] = { WETH: { address: await weth.getAddress(), decimals: 18 } };
  const contracts: Record<string, Contract> = { WETH: weth };
  for (const s of symbols) {
    const t = await deploy("@uniswap/v2-periphery/build/ERC20.json", parseUnits("1000000000", 18));
    contracts[s] = t;
    tokens[s] = { address: await t.getAddress(), decimals: 18 };
  }
  const exchanges: Deployment["exchanges"] = {};
  const routers: Record<string, Contract> = {};
  for (const ex of new Set(pools.map((p) => p.exchange))) {
    const factory = await deploy("@uniswap/v2-core/build/UniswapV2Factory.json", me);
    const router = await deploy(
      "@uniswap/v2-periphery/build/UniswapV2Router02.json",
      await factory.getAddress(),
      tokens.WETH!.address,
    );
    routers[ex] = router;
    exchanges[ex] = {
      kind: "uniswap-v2",
      factory: await factory.getAddress(),
      router: await router.getAddress(),
    };
  }
  const poolList: Deployment["pools"] = [];
  for (const p of pools) {
    const router = routers[p.exchange]!;
    for (const [sym, amount] of [
      [p.a, p.amountA],
      [p.b, p.amountB],
    ] as const) {
      const token = contracts[sym]!;
      if (sym === "WETH")
        await (await weth.getFunction("deposit")({ value: parseUnits(amount, 18) })).wait();
      await (await token.getFunction("approve")(await router.getAddress(), MaxUint256)).wait();
    }
    await (
      await router.getFunction("addLiquidity")(
        tokens[p.a]!.address,
        tokens[p.b]!.address,
        parseUnits(p.amountA, 18),
        parseUnits(p.amountB, 18),
        0n,
        0n,
        me,
        2n ** 40n,
      )
    ).wait();
    const factory = new Contract(
      exchanges[p.exchange]!.factory,
      artifact("@uniswap/v2-core/build/UniswapV2Factory.json").abi,
      deployer,
    );
    const pair = (await factory.getFunction("getPair")(
      tokens[p.a]!.address,
      tokens[p.b]!.address,
    )) as string;
    const sorted = [p.a, p.b].sort((x, y) =>
      tokens[x]!.address.toLowerCase() < tokens[y]!.address.toLowerCase() ? -1 : 1,
    );
    poolList.push({ exchange: p.exchange, tokens: [sorted[0]!, sorted[1]!], pair });
  }
  const deployment: Deployment = {
    chainId,
    network: name,
    deploymentBlock: 0,
    contracts: {},
    tokens,
    exchanges,
    pools: poolList,
    extra: {},
  };
  return {
    name,
    chainId,
    provider,
    deployment,
    operator: deployer,
    contract(contractName: string) {
      throw new Error(`${contractName} is not part of the routing fixture`);
    },
  };
}
