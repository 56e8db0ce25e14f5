import { expect } from "chai";
import { Wallet, ZeroAddress, type Contract } from "ethers";
import type { ChainHandle } from "../../relayer/chains/index.ts";
import { DEVNET_ACCOUNTS, DEVNET_SANCTIONED } from "../../relayer/devnet/accounts.ts";
import { account, sharedDevnet } from "./fixture.ts";

describe("# sanctions oracle", function () {
  let chains: ChainHandle[];
  let chain: ChainHandle;
  let oracle: Contract;

  before(async function () {
    chains = (await sharedDevnet()).list();
    chain = chains.find((c) => c.name === "arbitrum")!;
    oracle = chain.contract("SanctionsOracle", account(chain, 0));
  });

  it("should report the documented sanctioned test accounts (#17-#19) as sanctioned on every chain", async function () {
    for (const c of chains) {
      const o = c.contract("SanctionsOracle");
      for (const sanctioned of DEVNET_SANCTIONED) {
        expect(await o.getFunction("isSanctioned")(sanctioned.address)).to.equal(true);
      }
      expect(c.deployment.extra.sanctionedTestAccounts).to.deep.equal(
        DEVNET_SANCTIONED.map((a) => a.address),
      );
    }
  });

  it("should report other accounts as not sanctioned", async function () {
    for (const a of DEVNET_ACCOUNTS.slice(0, 17)) {
      expect(await oracle.getFunction("isSanctioned")(a.address)).to.equal(false);
    }
  });

  it("should let the owner add and remove addresses, emitting the Chainalysis events", async function () {
    const target = Wallet.createRandom().address;
    await expect(oracle.getFunction("addToSanctionsList")([target]))
      .to.emit(oracle, "SanctionedAddressesAdded")
      .withArgs([target]);
    expect(await oracle.getFunction("isSanctioned")(target)).to.equal(true);
    expect(await oracle.getFunction("isSanctionedVerbose")(target)).to.equal(true);
    await expect(oracle.getFunction("removeFromSanctionsList")([target]))
      .to.emit(oracle, "SanctionedAddressesRemoved")
      .withArgs([target]);
    expect(await oracle.getFunction("isSanctioned")(target)).to.equal(false);
  });

  it("should refuse list changes from anyone but the owner, and the zero address", async function () {
    const stranger = account(chain, 9);
    await expect(
      chain.contract("SanctionsOracle", stranger).getFunction("addToSanctionsList")([
        stranger.address,
      ]),
    )
      .to.be.revertedWithCustomError(oracle, "OwnableUnauthorizedAccount")
      .withArgs(stranger.address);
    await expect(
      oracle.getFunction("addToSanctionsList")([ZeroAddress]),
    ).to.be.revertedWithCustomError(oracle, "SanctionsOracleZeroAddress");
  });
});
