import { expect } from "chai";
import { TypedDataEncoder, ZeroAddress, parseUnits, type Contract } from "ethers";
import type { ChainHandle, ChainSet } from "../../relayer/chains/index.ts";
import {
  RELEASE_TYPES,
  lockMintInfo,
  releaseDomain,
  releaseFromDepositReceipt,
  signRelease,
  type LockMintRelease,
} from "../../relayer/chains/lockmint.ts";
import { account, sharedDevnet } from "./fixture.ts";

const FAR = 10n ** 30n;

describe("# lockmint bridge", function () {
  let chains: ChainSet;
  let ethereum: ChainHandle;
  let arbitrum: ChainHandle;
  let polygon: ChainHandle;

  before(async function () {
    chains = await sharedDevnet();
    ethereum = chains.byName("ethereum");
    arbitrum = chains.byName("arbitrum");
    polygon = chains.byName("polygon");
  });

  const bridgeOf = (chain: ChainHandle, runner = account(chain, 6)): Contract =>
    chain.contract("LockMintBridge", runner);

  async function deposit(
    source: ChainHandle,
    destination: ChainHandle,
    symbol: string,
    amount: bigint,
  ): Promise<LockMintRelease & { fee: bigint }> {
    const user = account(source, 6);
    const bridge = bridgeOf(source, user);
    await (
      await source.contract(symbol, user).getFunction("approve")(await bridge.getAddress(), amount)
    ).wait();
    const tx = await bridge.getFunction("deposit")(
      source.deployment.tokens[symbol]!.address,
      amount,
      destination.chainId,
      user.address,
      FAR,
    );
    const receipt = (await tx.wait())!;
    return releaseFromDepositReceipt(receipt, source.abi("LockMintBridge"), source.chainId);
  }

  const sign = (
    destination: ChainHandle,
    release: LockMintRelease,
    signer = destination.operator,
  ) =>
    signRelease(
      signer,
      { chainId: destination.chainId, bridge: lockMintInfo(destination.deployment)!.address },
      release,
    );

  it("should declare its fee and attester on chain, as the deployment records them", async function () {
    for (const chain of chains.list()) {
      const info = lockMintInfo(chain.deployment)!;
      const bridge = bridgeOf(chain);
      expect(await bridge.getFunction("feeBps")()).to.equal(BigInt(info.feeBps));
      expect(await bridge.getFunction("quoteFee")(1_000_000n)).to.equal(
        (1_000_000n * BigInt(info.feeBps)) / 10_000n,
      );
      const role = await bridge.getFunction("ATTESTER_ROLE")();
      expect(await bridge.getFunction("hasRole")(role, await chain.operator.getAddress())).to.equal(
        true,
      );
      expect(info.attester).to.equal(await chain.operator.getAddress());
    }
  });

  it("should burn USDC on ethereum and mint it on arbitrum once, rejecting the replayed release", async function () {
    const amount = parseUnits("1000", 6);
    const usdcEth = ethereum.contract("USDC");
    const supplyBefore = (await usdcEth.getFunction("totalSupply")()) as bigint;
    const release = await deposit(ethereum, arbitrum, "USDC", amount);
    expect(release.fee).to.equal(parseUnits("1", 6)); // 10 bps
    expect(release.amount).to.equal(amount - release.fee);
    expect(release.token).to.equal(arbitrum.deployment.tokens.USDC!.address);
    // Burned on the source: the net amount left the supply, the fee went to the fee recipient.
    expect(supplyBefore - ((await usdcEth.getFunction("totalSupply")()) as bigint)).to.equal(
      release.amount,
    );

    const signature = await sign(arbitrum, release);
    // The off-chain EIP-712 digest is the one the contract verifies.
    const destination = {
      chainId: arbitrum.chainId,
      bridge: lockMintInfo(arbitrum.deployment)!.address,
    };
    expect(await bridgeOf(arbitrum).getFunction("hashRelease")(release)).to.equal(
      TypedDataEncoder.hash(releaseDomain(destination), RELEASE_TYPES, release),
    );
    const user = account(arbitrum, 6);
    const usdcArb = arbitrum.contract("USDC");
    const before = (await usdcArb.getFunction("balanceOf")(user.address)) as bigint;
    const bridge = bridgeOf(arbitrum);
    await expect(bridge.getFunction("release")(release, signature))
      .to.emit(bridge, "Released")
      .withArgs(
        ethereum.chainId,
        release.nonce,
        user.address,
        release.token,
        release.amount,
        await arbitrum.operator.getAddress(),
      );
    expect((await usdcArb.getFunction("balanceOf")(user.address)) - before).to.equal(
      release.amount,
    );
    expect(await bridge.getFunction("isReleased")(ethereum.chainId, release.nonce)).to.equal(true);

    await expect(bridge.getFunction("release")(release, signature))
      .to.be.revertedWithCustomError(bridge, "LockMintBridgeAlreadyReleased")
      .withArgs(ethereum.chainId, release.nonce);
  });

  it("should escrow WETH on arbitrum and release it from escrow on ethereum", async function () {
    const amount = parseUnits("2", 18);
    const bridgeArb = bridgeOf(arbitrum);
    const escrowBefore = (await arbitrum.contract("WETH").getFunction("balanceOf")(
      await bridgeArb.getAddress(),
    )) as bigint;
    const release = await deposit(arbitrum, ethereum, "WETH", amount);
    expect(
      (await arbitrum.contract("WETH").getFunction("balanceOf")(await bridgeArb.getAddress())) -
        escrowBefore,
    ).to.equal(release.amount);
    const bridgeEth = bridgeOf(ethereum);
    const weth = ethereum.contract("WETH");
    const user = account(ethereum, 6).address;
    const before = (await weth.getFunction("balanceOf")(user)) as bigint;
    await (await bridgeEth.getFunction("release")(release, await sign(ethereum, release))).wait();
    expect((await weth.getFunction("balanceOf")(user)) - before).to.equal(release.amount);
  });

  it("should reject a release signed by anyone but the attester, or altered after signing", async function () {
    const release = await deposit(ethereum, polygon, "DAI", parseUnits("50", 18));
    const bridge = bridgeOf(polygon);
    const stranger = account(polygon, 7);
    await expect(bridge.getFunction("release")(release, await sign(polygon, release, stranger)))
      .to.be.revertedWithCustomError(bridge, "LockMintBridgeInvalidAttestation")
      .withArgs(stranger.address);
    const signature = await sign(polygon, release);
    await expect(
      bridge.getFunction("release")({ ...release, amount: release.amount * 2n }, signature),
    ).to.be.revertedWithCustomError(bridge, "LockMintBridgeInvalidAttestation");
    await expect(
      bridge.getFunction("release")({ ...release, recipient: stranger.address }, signature),
    ).to.be.revertedWithCustomError(bridge, "LockMintBridgeInvalidAttestation");
  });

  it("should reject an attestation made for another destination chain", async function () {
    const release = await deposit(ethereum, arbitrum, "USDT", parseUnits("10", 6));
    // Signed for arbitrum (domain chain id 31338), submitted on polygon: the domain differs.
    const bridge = bridgeOf(polygon);
    await expect(
      bridge.getFunction("release")(release, await sign(arbitrum, release)),
    ).to.be.revertedWithCustomError(bridge, "LockMintBridgeInvalidAttestation");
  });

  it("should reject a release from an unknown source bridge", async function () {
    const release = await deposit(ethereum, arbitrum, "USDC", parseUnits("5", 6));
    const forged = { ...release, sourceBridge: arbitrum.deployment.contracts.Multisend!.address };
    const bridge = bridgeOf(arbitrum);
    await expect(bridge.getFunction("release")(forged, await sign(arbitrum, forged)))
      .to.be.revertedWithCustomError(bridge, "LockMintBridgeUnknownPeer")
      .withArgs(ethereum.chainId, forged.sourceBridge);
  });

  it("should refuse an escrow release larger than the liquidity it holds", async function () {
    const bridge = bridgeOf(polygon);
    const held = (await polygon.contract("WETH").getFunction("balanceOf")(
      await bridge.getAddress(),
    )) as bigint;
    const release: LockMintRelease = {
      sourceChainId: BigInt(ethereum.chainId),
      sourceBridge: await bridgeOf(ethereum).getAddress(),
      nonce: 1_000_000n,
      token: polygon.deployment.tokens.WETH!.address,
      recipient: account(polygon, 6).address,
      amount: held + 1n,
    };
    await expect(bridge.getFunction("release")(release, await sign(polygon, release)))
      .to.be.revertedWithCustomError(bridge, "LockMintBridgeInsufficientLiquidity")
      .withArgs(release.token, held, held + 1n);
  });

  it("should refuse a release without recipient, amount or a supported token", async function () {
    const bridge = bridgeOf(arbitrum);
    const base: LockMintRelease = {
      sourceChainId: BigInt(ethereum.chainId),
      sourceBridge: await bridgeOf(ethereum).getAddress(),
      nonce: 2_000_000n,
      token: arbitrum.deployment.tokens.USDC!.address,
      recipient: account(arbitrum, 6).address,
      amount: 1n,
    };
    const noRecipient = { ...base, recipient: ZeroAddress };
    await expect(
      bridge.getFunction("release")(noRecipient, await sign(arbitrum, noRecipient)),
    ).to.be.revertedWithCustomError(bridge, "LockMintBridgeInvalidRecipient");
    const noAmount = { ...base, amount: 0n };
    await expect(bridge.getFunction("release")(noAmount, await sign(arbitrum, noAmount)))
      .to.be.revertedWithCustomError(bridge, "LockMintBridgeInvalidAmount")
      .withArgs(0);
    const notAToken = { ...base, token: arbitrum.deployment.contracts.Multisend!.address };
    await expect(bridge.getFunction("release")(notAToken, await sign(arbitrum, notAToken)))
      .to.be.revertedWithCustomError(bridge, "LockMintBridgeUnsupportedToken")
      .withArgs(notAToken.token);
    expect(await bridge.getFunction("isReleased")(ethereum.chainId, base.nonce)).to.equal(false);
  });

  it("should refuse deposits over the fee cap, of unsupported tokens or routes, or without amount or recipient", async function () {
    const user = account(ethereum, 6);
    const bridge = bridgeOf(ethereum, user);
    const usdc = ethereum.deployment.tokens.USDC!.address;
    await (
      await ethereum.contract("USDC", user).getFunction("approve")(await bridge.getAddress(), FAR)
    ).wait();
    const amount = parseUnits("100", 6);
    const fee = (amount * 10n) / 10_000n;
    await expect(
      bridge.getFunction("deposit")(usdc, amount, arbitrum.chainId, user.address, fee - 1n),
    )
      .to.be.revertedWithCustomError(bridge, "LockMintBridgeFeeExceedsCap")
      .withArgs(fee, fee - 1n);
    await expect(bridge.getFunction("deposit")(usdc, amount, 1, user.address, FAR))
      .to.be.revertedWithCustomError(bridge, "LockMintBridgeUnsupportedRoute")
      .withArgs(1, usdc);
    const notAToken = ethereum.deployment.contracts.Multisend!.address;
    await expect(
      bridge.getFunction("deposit")(notAToken, amount, arbitrum.chainId, user.address, FAR),
    )
      .to.be.revertedWithCustomError(bridge, "LockMintBridgeUnsupportedToken")
      .withArgs(notAToken);
    await expect(bridge.getFunction("deposit")(usdc, 0, arbitrum.chainId, user.address, FAR))
      .to.be.revertedWithCustomError(bridge, "LockMintBridgeInvalidAmount")
      .withArgs(0);
    await expect(
      bridge.getFunction("deposit")(usdc, amount, arbitrum.chainId, ZeroAddress, FAR),
    ).to.be.revertedWithCustomError(bridge, "LockMintBridgeInvalidRecipient");
  });

  it("should keep its configuration to the admin and cap the fee", async function () {
    const stranger = account(ethereum, 7);
    const bridge = bridgeOf(ethereum, stranger);
    await expect(
      bridge.getFunction("configureFee")(5, stranger.address),
    ).to.be.revertedWithCustomError(bridge, "AccessControlUnauthorizedAccount");
    const admin = account(ethereum, 0);
    await expect(bridgeOf(ethereum, admin).getFunction("configureFee")(1_001, admin.address))
      .to.be.revertedWithCustomError(bridge, "LockMintBridgeFeeTooHigh")
      .withArgs(1_001);
  });
});
