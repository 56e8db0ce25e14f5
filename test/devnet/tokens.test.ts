import { expect } from "chai";
import { parseEther, parseUnits } from "ethers";
import type { ChainSet } from "../../relayer/chains/index.ts";
import { DEVNET_ACCOUNTS } from "../../relayer/devnet/accounts.ts";
import { TOKENS } from "../../relayer/devnet/plan.ts";
import { account, sharedDevnet } from "./fixture.ts";

describe("# devnet tokens", function () {
  let chains: ChainSet;

  before(async function () {
    chains = await sharedDevnet();
  });

  it("should deploy USDC and USDT with 6 decimals, DAI and WETH with 18, WBTC with 8, as recorded", async function () {
    const expected = { USDC: 6, USDT: 6, DAI: 18, WETH: 18, WBTC: 8 };
    for (const chain of chains.list()) {
      for (const [symbol, decimals] of Object.entries(expected)) {
        expect(chain.deployment.tokens[symbol]!.decimals).to.equal(decimals);
        const token = chain.contract(symbol);
        expect(await token.getFunction("decimals")()).to.equal(BigInt(decimals));
        expect(await token.getFunction("symbol")()).to.equal(symbol);
      }
    }
  });

  it("should fund every Hardhat test account with every token", async function () {
    const chain = chains.byName("ethereum");
    // Account #19 (a sanctioned test account) is not used by any other test: its balances are untouched.
    const holder = DEVNET_ACCOUNTS[19]!.address;
    for (const token of TOKENS) {
      const balance = await chain.contract(token.symbol).getFunction("balanceOf")(holder);
      expect(balance, token.symbol).to.equal(
        parseUnits(String(token.fundingPerAccount), token.decimals),
      );
    }
  });

  it("should use the real WETH9 the routers point at: wrap and unwrap ether", async function () {
    const chain = chains.byName("arbitrum");
    const user = account(chain, 10);
    const weth = chain.contract("WETH", user);
    expect(await chain.contract("UniswapRouter").getFunction("WETH")()).to.equal(
      await weth.getAddress(),
    );
    const before = (await weth.getFunction("balanceOf")(user.address)) as bigint;
    await (await weth.getFunction("deposit")({ value: parseEther("3") })).wait();
    await (await weth.getFunction("withdraw")(parseEther("1"))).wait();
    expect((await weth.getFunction("balanceOf")(user.address)) - before).to.equal(parseEther("2"));
  });

  it("should let only minters mint test tokens", async function () {
    const chain = chains.byName("polygon");
    const stranger = account(chain, 11);
    const usdc = chain.contract("USDC", stranger);
    const role = await usdc.getFunction("MINTER_ROLE")();
    await expect(usdc.getFunction("mint")(stranger.address, 1n))
      .to.be.revertedWithCustomError(usdc, "AccessControlUnauthorizedAccount")
      .withArgs(stranger.address, role);
    // The bridge mints burn-and-mint assets; the deployer holds the role too.
    const bridge = chain.deployment.contracts.LockMintBridge!.address;
    expect(await usdc.getFunction("hasRole")(role, bridge)).to.equal(true);
    expect(await usdc.getFunction("hasRole")(role, DEVNET_ACCOUNTS[0]!.address)).to.equal(true);
  });
});
