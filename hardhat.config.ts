import { createRequire } from "node:module";
import hardhatToolboxMochaEthersPlugin from "@nomicfoundation/hardhat-toolbox-mocha-ethers";
import { defineConfig } from "hardhat/config";
import { DEVNET_CHAINS } from "./relayer/devnet/chains.ts";

const require = createRequire(import.meta.url);

// The compiler comes from the npm `solc` package (WASM): nothing is downloaded at build time.
// Keep SOLC_VERSION equal to the installed `solc` package's version (pinned in package.json).
const SOLC_VERSION = "0.8.28";
const SOLC_PATH = require.resolve("solc/soljson.js");

// The devnet: three local EVM chains (ids, base fees, ports) defined in relayer/devnet/chains.ts.
export { DEVNET_CHAINS };
const devnetNetworks = Object.fromEntries(
  Object.entries(DEVNET_CHAINS).map(([name, chain]) => [
    name,
    {
      type: "edr-simulated" as const,
      chainType: "l1" as const,
      chainId: chain.chainId,
      initialBaseFeePerGas: chain.initialBaseFeePerGas,
    },
  ]),
);

// The same chains reached over JSON-RPC (`npm run devnet`); scripts override `url` for other ports.
const devnetRpcNetworks = Object.fromEntries(
  Object.entries(DEVNET_CHAINS).map(([name, chain]) => [
    `${name}Rpc`,
    {
      type: "http" as const,
      chainType: "l1" as const,
      chainId: chain.chainId,
      url: `http://127.0.0.1:${chain.defaultPort}`,
    },
  ]),
);

export default defineConfig({
  plugins: [hardhatToolboxMochaEthersPlugin],
  solidity: {
    profiles: {
      default: { version: SOLC_VERSION, path: SOLC_PATH },
      production: {
        version: SOLC_VERSION,
        path: SOLC_PATH,
        settings: { optimizer: { enabled: true, runs: 10_000 } },
      },
    },
  },
  networks: {
    ...devnetNetworks,
    ...devnetRpcNetworks,
  },
  paths: {
    tests: { mocha: "test", solidity: "test/solidity" },
  },
  test: {
    mocha: {
      rootHooks: {
        afterAll() {
          // Every test must leave no open handle, so once mocha is done the process ends by itself.
          // If something still holds the event loop (a server, a pool, a timer someone forgot to
          // close) it is named on stderr and the run fails, so a leak shows in CI instead of a hang.
          setTimeout(() => {
            process.stderr.write(
              `[test] still open after the run: ${process.getActiveResourcesInfo().join(", ")}; failing the run (close them in the test's teardown)\n`,
            );
            process.exit(1);
          }, 15_000).unref();
        },
      },
    },
    solidity: {
      // A fixed seed keeps CI reproducible; change it locally to explore other inputs.
      fuzz: { runs: 256, seed: "0x5665726966" },
      // Sized for the shared 2-core machine: 64 sequences of 40 calls per invariant.
      invariant: { runs: 64, depth: 40, failOnRevert: false },
    },
  },
});
