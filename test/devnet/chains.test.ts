import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect } from "chai";
import { Wallet, encryptKeystoreJson } from "ethers";
import { network } from "hardhat";
import { isChainUnavailable, openChains } from "../../relayer/chains/index.ts";
import { writeDeployment } from "../../relayer/deployments/index.ts";
import { DEVNET_OPERATOR } from "../../relayer/devnet/accounts.ts";
import { PROJECT_ROOT } from "../../relayer/devnet/artifacts.ts";
import { deployDevnetOverRpc } from "../../relayer/devnet/rpc.ts";

async function openError(config: unknown): Promise<string> {
  try {
    const chains = await openChains(config);
    await chains.close();
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error("expected openChains to fail");
}

describe("# openChains", function () {
  describe("## configuration", function () {
    it("should reject an unknown mode or a malformed option with the field named", async function () {
      expect(await openError({ mode: "mainnet" })).to.match(/^invalid chains configuration: mode/);
      expect(await openError({ mode: "rpc", operatorPrivateKey: "0x1234" })).to.match(
        /operatorPrivateKey: not a 32-byte hex private key/,
      );
      expect(await openError({ mode: "embedded", chains: ["solana"] })).to.match(/chains\.0/);
    });

    it("should say which chain cannot be reached in rpc mode", async function () {
      const message = await openError({
        mode: "rpc",
        rpcUrls: {
          ethereum: "http://127.0.0.1:1",
          arbitrum: "http://127.0.0.1:1",
          polygon: "http://127.0.0.1:1",
        },
      });
      expect(message).to.match(
        /cannot reach chain (ethereum|arbitrum|polygon) at http:\/\/127\.0\.0\.1:1/,
      );
    });
  });

  describe("## file mode (real networks)", function () {
    this.timeout(60_000);
    let dir: string;
    let url: string;
    let closeServer: () => Promise<void>;

    before(async function () {
      // A real JSON-RPC server standing in for a remote network, deployed like one.
      const server = await network.createServer("polygon", "127.0.0.1", 0);
      const { address, port } = await server.listen();
      url = `http://${address}:${port}`;
      let open = true;
      closeServer = async () => {
        if (open) await server.close();
        open = false;
      };
      dir = await mkdtemp(path.join(tmpdir(), "veriflow-chains-"));
      const result = await deployDevnetOverRpc("polygon", url, path.join(dir, "deployments"));
      await writeDeployment(path.join(dir, "deployments"), result.deployment, result.abis);
    });

    after(async function () {
      await closeServer?.();
      await rm(dir, { recursive: true, force: true });
      delete process.env.VERIFLOW_TEST_OPERATOR_KEY;
      delete process.env.VERIFLOW_TEST_KEYSTORE_PASSWORD;
    });

    async function chainsFile(operatorKey: unknown, chainId = 31339): Promise<string> {
      const file = path.join(dir, `chains-${Math.random().toString(16).slice(2)}.json`);
      const chains = [
        { name: "polygon-local", chainId, rpcUrl: url, operatorKey, deploymentsDir: "deployments" },
      ];
      await writeFile(file, JSON.stringify({ chains }));
      return file;
    }

    it("should open the chains of a chains file with the operator key from the environment", async function () {
      process.env.VERIFLOW_TEST_OPERATOR_KEY = DEVNET_OPERATOR.privateKey;
      const chains = await openChains({
        mode: "file",
        file: await chainsFile({ env: "VERIFLOW_TEST_OPERATOR_KEY" }),
      });
      try {
        const chain = chains.byName("polygon-local");
        expect(chain.devnet).to.equal(false);
        expect(chain.faults).to.equal(undefined);
        expect(await chain.operator.getAddress()).to.equal(DEVNET_OPERATOR.address);
        expect(await chain.contract("USDC").getFunction("decimals")()).to.equal(6n);
        expect(chains.byId(31339)).to.equal(chain);
      } finally {
        await chains.close();
      }
    });

    it("should decrypt the operator key from an encrypted keystore", async function () {
      const wallet = new Wallet(DEVNET_OPERATOR.privateKey);
      const keystore = await encryptKeystoreJson(
        { address: wallet.address, privateKey: wallet.privateKey },
        "correct horse",
        { scrypt: { N: 1024 } },
      );
      await writeFile(path.join(dir, "operator.keystore.json"), keystore);
      process.env.VERIFLOW_TEST_KEYSTORE_PASSWORD = "correct horse";
      const chains = await openChains({
        mode: "file",
        file: await chainsFile({
          keystore: "operator.keystore.json",
          passwordEnv: "VERIFLOW_TEST_KEYSTORE_PASSWORD",
        }),
      });
      expect(await chains.byName("polygon-local").operator.getAddress()).to.equal(
        DEVNET_OPERATOR.address,
      );
      await chains.close();
    });

    it("should refuse a missing key variable, a malformed file or a chain id the RPC contradicts", async function () {
      expect(
        await openError({
          mode: "file",
          file: await chainsFile({ env: "VERIFLOW_TEST_UNSET_VARIABLE" }),
        }),
      ).to.equal("operator key environment variable VERIFLOW_TEST_UNSET_VARIABLE is not set");
      process.env.VERIFLOW_TEST_OPERATOR_KEY = DEVNET_OPERATOR.privateKey;
      expect(
        await openError({ mode: "file", file: await chainsFile({ privateKey: "0xabc" }) }),
      ).to.match(/^invalid chains file .*chains\.0\.operatorKey/);
      const wrongId = await chainsFile({ env: "VERIFLOW_TEST_OPERATOR_KEY" }, 137);
      expect(await openError({ mode: "file", file: wrongId })).to.match(
        /cannot read deployment|reports chainId 31339, expected 137/,
      );
      expect(await openError({ mode: "file", file: path.join(dir, "nope.json") })).to.match(
        /^cannot read chains file/,
      );
    });

    it("should refuse a chain that does not hold the recorded deployment", async function () {
      const fresh = await network.createServer("polygon", "127.0.0.1", 0);
      const { address, port } = await fresh.listen();
      try {
        const file = path.join(dir, "fresh-chains.json");
        const chains = [
          {
            name: "polygon-fresh",
            chainId: 31339,
            rpcUrl: `http://${address}:${port}`,
            operatorKey: { env: "VERIFLOW_TEST_OPERATOR_KEY" },
            deploymentsDir: path.join(PROJECT_ROOT, "deployments"),
          },
        ];
        await writeFile(file, JSON.stringify({ chains }));
        process.env.VERIFLOW_TEST_OPERATOR_KEY = DEVNET_OPERATOR.privateKey;
        expect(await openError({ mode: "file", file })).to.match(
          /^chain polygon-fresh at .* does not hold its recorded deployment \(no code for WETH, USDC.*start the devnet with `npm run devnet`$/,
        );
      } finally {
        await fresh.close();
      }
    });

    it("should recognise a refused connection as an unavailable chain", async function () {
      process.env.VERIFLOW_TEST_OPERATOR_KEY = DEVNET_OPERATOR.privateKey;
      const chains = await openChains({
        mode: "file",
        file: await chainsFile({ env: "VERIFLOW_TEST_OPERATOR_KEY" }),
      });
      const chain = chains.byName("polygon-local");
      await closeServer();
      let error: unknown;
      await chain.provider.getBlockNumber().catch((err: unknown) => (error = err));
      expect(isChainUnavailable(error), String(error)).to.equal(true);
      await chains.close();
    });
  });
});
