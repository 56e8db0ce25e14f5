import path from "node:path";
import { expect } from "chai";
import type { ChainSet } from "../../relayer/chains/index.ts";
import { readAbis } from "../../relayer/chains/index.ts";
import { readDeployment } from "../../relayer/deployments/index.ts";
import { DEVNET_DEPLOYER } from "../../relayer/devnet/accounts.ts";
import { PROJECT_ROOT } from "../../relayer/devnet/artifacts.ts";
import { DEVNET_CHAINS } from "../../relayer/devnet/chains.ts";
import { deployDevnet } from "../../relayer/devnet/deploy.ts";
import type { DevnetChainName } from "../../relayer/devnet/plan.ts";
import { sharedDevnet } from "./fixture.ts";

const COMMITTED = path.join(PROJECT_ROOT, "deployments");
const REGENERATE =
  "the committed deployments are stale: run `npm run devnet:deployments` and commit deployments/";

describe("# devnet determinism", function () {
  let chains: ChainSet;

  before(async function () {
    chains = await sharedDevnet();
  });

  it("should reproduce the committed deployments/<chainId>/ on a fresh deployment", async function () {
    for (const chain of chains.list()) {
      const committed = await readDeployment(COMMITTED, chain.chainId);
      expect(chain.deployment, REGENERATE).to.deep.equal(committed);
      const committedAbis = await readAbis(COMMITTED, chain.chainId);
      for (const [name, abi] of Object.entries(committedAbis)) {
        expect(chain.abi(name), `${REGENERATE} (ABI ${name})`).to.deep.equal(abi);
      }
    }
  });

  it("should give every contract the same address on the three chains", function () {
    const [first, ...others] = chains.list().map((c) => c.deployment);
    for (const other of others) {
      for (const [name, contract] of Object.entries(first!.contracts)) {
        expect(other.contracts[name]?.address, name).to.equal(contract.address);
      }
      expect(other.pools.map((p) => p.pair)).to.deep.equal(first!.pools.map((p) => p.pair));
    }
  });

  it("should keep each chain at its own base fee level, ethereum expensive and arbitrum cheap", async function () {
    const levels: Record<string, bigint> = {};
    for (const chain of chains.list()) {
      levels[chain.name] = (await chain.provider.getBlock("latest"))!.baseFeePerGas!;
      expect(levels[chain.name]).to.equal(
        DEVNET_CHAINS[chain.name as DevnetChainName].initialBaseFeePerGas,
      );
    }
    expect(levels.ethereum! > levels.polygon! && levels.polygon! > levels.arbitrum!).to.equal(true);
  });

  it("should include the core contracts with the operator holding their roles", async function () {
    const chain = chains.byName("ethereum");
    const registry = chain.contract("ProofRegistry");
    const operator = await chain.operator.getAddress();
    const loggerRole = await registry.getFunction("LOGGER_ROLE")();
    expect(await registry.getFunction("hasRole")(loggerRole, operator)).to.equal(true);
    const attestor = chain.contract("ExecutionAttestor");
    const attesterRole = await attestor.getFunction("ATTESTER_ROLE")();
    expect(await attestor.getFunction("hasRole")(attesterRole, operator)).to.equal(true);
    for (const name of [
      "ProofRegistry",
      "CircuitBreakerGateway",
      "RevShareReceipt",
      "ExecutionAttestor",
      "Execution2Groth16Verifier",
      "Execution4Groth16Verifier",
      "Execution8Groth16Verifier",
      "ArtifactsGroth16Verifier",
    ]) {
      expect(
        await chain.provider.getCode(chain.deployment.contracts[name]!.address),
        name,
      ).to.not.equal("0x");
    }
  });

  it("should leave an already deployed chain untouched when deployed again", async function () {
    for (const chain of chains.list()) {
      const nonce = await chain.provider.getTransactionCount(DEVNET_DEPLOYER.address);
      const again = await deployDevnet(chain.provider, chain.name as DevnetChainName, {
        existing: chain.deployment,
      });
      expect(again.alreadyDeployed).to.equal(true);
      expect(again.deployment).to.deep.equal(chain.deployment);
      expect(await chain.provider.getTransactionCount(DEVNET_DEPLOYER.address)).to.equal(nonce);
    }
  });

  it("should refuse to deploy on a used chain that does not hold the deployment", async function () {
    const chain = chains.byName("polygon");
    let error: Error | undefined;
    try {
      await deployDevnet(chain.provider, "polygon");
    } catch (err) {
      error = err as Error;
    }
    expect(error?.message).to.match(/is not fresh .* restart its node/);
  });

  it("should refuse to deploy a chain's plan onto a chain with another chain id", async function () {
    const chain = chains.byName("polygon");
    let error: Error | undefined;
    try {
      await deployDevnet(chain.provider, "ethereum");
    } catch (err) {
      error = err as Error;
    }
    expect(error?.message).to.equal(
      "chain ethereum must have chainId 31337, the RPC reports 31339",
    );
  });
});
