import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect } from "chai";
import { network } from "hardhat";
import { readAbi, readDeployment, writeDeployment } from "../../relayer/deployments/index.ts";
import {
  CORE_CONTRACTS,
  deployCore,
  findCreation,
  readIgnitionAddresses,
} from "../../scripts/export-deployments.ts";

async function expectRejection(promise: Promise<unknown>, message: RegExp): Promise<void> {
  const outcome = await promise.then(
    () => undefined,
    (err: unknown) => err as Error,
  );
  expect(outcome, "expected a rejection").to.be.instanceOf(Error);
  expect(outcome!.message).to.match(message);
}

describe("# export-deployments", function () {
  let root: string;

  beforeEach(async function () {
    root = await mkdtemp(path.join(tmpdir(), "veriflow-deployments-"));
  });

  afterEach(async function () {
    await rm(root, { recursive: true, force: true });
  });

  it("should deploy the Core module and write a valid deployment with creation blocks and ABIs", async function () {
    const connection = await network.create("arbitrum");
    const [, relayer] = await connection.ethers.getSigners();
    const written = await deployCore(connection, {
      parameters: { relayer: relayer!.address },
      root,
    });

    const deployment = await readDeployment(root, 31338);
    expect(deployment).to.deep.equal(written);
    expect(deployment.network).to.equal("arbitrum");
    expect(Object.keys(deployment.contracts)).to.have.members([...CORE_CONTRACTS]);
    for (const name of CORE_CONTRACTS) {
      const entry = deployment.contracts[name]!;
      const receipt = await connection.ethers.provider.getTransactionReceipt(
        entry.transactionHash!,
      );
      expect(receipt!.contractAddress).to.equal(entry.address);
      expect(receipt!.blockNumber).to.equal(entry.blockNumber);
      expect(entry.abi).to.equal(name);
      const abi = (await readAbi(root, 31338, name)) as { name?: string }[];
      expect(abi.some((item) => item.name === "version")).to.equal(true);
    }
    const registry = await connection.ethers.getContractAt(
      "ProofRegistry",
      deployment.contracts.ProofRegistry!.address,
    );
    expect(await registry.hasRole(await registry.LOGGER_ROLE(), relayer!.address)).to.equal(true);
    expect(deployment.deploymentBlock).to.equal(
      Math.min(...Object.values(deployment.contracts).map((c) => c.blockNumber)),
    );
  });

  it("should merge into an existing deployment file, keeping the devnet's entries", async function () {
    const connection = await network.create("polygon");
    await writeDeployment(
      root,
      {
        chainId: 31339,
        network: "polygon",
        deploymentBlock: 0,
        contracts: {
          Multisend: {
            address: "0x000000000000000000000000000000000000dEaD",
            blockNumber: 0,
            abi: "Multisend",
          },
        },
        tokens: { USDC: { address: "0x000000000000000000000000000000000000bEEF", decimals: 6 } },
        exchanges: {},
        pools: [],
        extra: { bridge: "lockmint" },
      },
      { Multisend: [] },
    );

    await deployCore(connection, { root });
    const deployment = await readDeployment(root, 31339);
    expect(deployment.contracts.Multisend!.address).to.equal(
      "0x000000000000000000000000000000000000dEaD",
    );
    expect(deployment.tokens.USDC!.decimals).to.equal(6);
    expect(deployment.extra).to.deep.equal({ bridge: "lockmint" });
    expect(deployment.deploymentBlock).to.equal(0);
    expect(deployment.contracts.RevShareReceipt!.blockNumber).to.be.greaterThan(0);
    expect(await readAbi(root, 31339, "Multisend")).to.deep.equal([]);
  });

  it("should find the creation block of a contract that emits no log by searching its code", async function () {
    const { ethers, networkHelpers } = await network.create();
    const [deployer] = await ethers.getSigners();
    await networkHelpers.mine(3);
    // Init code returning the one-byte runtime 0x00: no constructor log to find.
    const tx = await deployer!.sendTransaction({ data: "0x6001600c60003960016000f300" });
    const receipt = await tx.wait();
    await networkHelpers.mine(5);
    const creation = await findCreation(ethers.provider, receipt!.contractAddress!);
    expect(creation).to.deep.equal({ blockNumber: receipt!.blockNumber });
    const nowhere = ethers.Wallet.createRandom().address;
    await expectRejection(findCreation(ethers.provider, nowhere), /no contract at/);
  });

  it("should read the Core addresses of an Ignition deployment directory", async function () {
    const dir = path.join(root, "chain-31337");
    await mkdir(dir);
    const addresses = {
      "Core#ProofRegistry": "0x5FbDB2315678afecb367f032d93F642f64180aa3",
      "Core#CircuitBreakerGateway": "0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512",
      "Core#RevShareReceipt": "0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0",
    };
    await writeFile(path.join(dir, "deployed_addresses.json"), JSON.stringify(addresses));
    expect(await readIgnitionAddresses(dir)).to.deep.equal({
      ProofRegistry: addresses["Core#ProofRegistry"],
      CircuitBreakerGateway: addresses["Core#CircuitBreakerGateway"],
      RevShareReceipt: addresses["Core#RevShareReceipt"],
    });
    await writeFile(path.join(dir, "deployed_addresses.json"), JSON.stringify({}));
    await expectRejection(readIgnitionAddresses(dir), /has no Core#ProofRegistry/);
  });
});
