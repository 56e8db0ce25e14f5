/**
 * `npm run devnet`: the three devnet chains as JSON-RPC servers on 127.0.0.1 (ethereum 8545,
 * arbitrum 8546, polygon 8547), deployed and recorded in `deployments/<chainId>/`.
 *
 *   npm run devnet -- [--hostname 127.0.0.1] [--ports 8545,8546,8547] [--no-write]
 *   (or DEVNET_HOSTNAME / DEVNET_PORTS)
 *
 * Nodes already running on those ports with the right chain id are reused (the deployment is
 * idempotent). Runs until Ctrl-C, keeping each chain's base fee at its level; stops the nodes it started.
 */
import path from "node:path";
import { parseArgs } from "node:util";
import { writeDeployment } from "../relayer/deployments/index.ts";
import { DEVNET_DEPLOYER, DEVNET_OPERATOR, DEVNET_SANCTIONED } from "../relayer/devnet/accounts.ts";
import { PROJECT_ROOT } from "../relayer/devnet/artifacts.ts";
import { DEVNET_CHAINS } from "../relayer/devnet/chains.ts";
import { keepBaseFee, startDevnetNode, type DevnetNode } from "../relayer/devnet/nodes.ts";
import { DEVNET_CHAIN_NAMES } from "../relayer/devnet/plan.ts";
import { deployDevnetOverRpc } from "../relayer/devnet/rpc.ts";

const { values } = parseArgs({
  options: {
    hostname: { type: "string", default: process.env.DEVNET_HOSTNAME ?? "127.0.0.1" },
    ports: { type: "string", default: process.env.DEVNET_PORTS ?? "" },
    "no-write": { type: "boolean", default: false },
    "deployments-dir": { type: "string", default: path.join(PROJECT_ROOT, "deployments") },
  },
});

const ports = values.ports ? values.ports.split(",").map((p) => Number(p.trim())) : [];
if (
  ports.length > 0 &&
  (ports.length !== 3 || ports.some((p) => !Number.isInteger(p) || p < 1 || p > 65_535))
) {
  console.error(
    "--ports takes three port numbers: ethereum,arbitrum,polygon (e.g. 8545,8546,8547)",
  );
  process.exit(2);
}

const nodes: DevnetNode[] = [];
const keepers: (() => void)[] = [];
let stopping = false;
async function shutdown(code: number) {
  if (stopping) return;
  stopping = true;
  keepers.forEach((stop) => stop());
  await Promise.allSettled(nodes.filter((n) => n.owned).map((n) => n.stop()));
  process.exit(code);
}
process.on("SIGINT", () => void shutdown(0));
process.on("SIGTERM", () => void shutdown(0));

try {
  const started = performance.now();
  const results = await Promise.all(
    DEVNET_CHAIN_NAMES.map(async (name, i) => {
      const node = await startDevnetNode(name, { hostname: values.hostname, port: ports[i] });
      nodes.push(node);
      const result = await deployDevnetOverRpc(name, node.url, values["deployments-dir"], (line) =>
        console.log(line),
      );
      if (!result.alreadyDeployed && !values["no-write"]) {
        await writeDeployment(values["deployments-dir"], result.deployment, result.abis);
      }
      keepers.push(keepBaseFee(node.url, node.chainId, DEVNET_CHAINS[name].initialBaseFeePerGas));
      return { node, result };
    }),
  );
  console.log(
    `\nVeriflow devnet ready in ${((performance.now() - started) / 1000).toFixed(1)} s\n`,
  );
  for (const { node, result } of results) {
    const d = result.deployment;
    console.log(
      `${node.name.padEnd(9)} chainId ${node.chainId}  ${node.url}${node.owned ? "" : "  (reused)"}`,
    );
    console.log(`  uniswap router   ${d.exchanges.uniswap?.router}`);
    console.log(`  sushiswap router ${d.exchanges.sushiswap?.router}`);
    console.log(`  lockmint bridge  ${d.contracts.LockMintBridge?.address}`);
  }
  console.log(`\ndeployer (account #0) ${DEVNET_DEPLOYER.address}`);
  console.log(`operator (account #1) ${DEVNET_OPERATOR.address}  (relayer key, bridge attester)`);
  console.log(`sanctioned test accounts ${DEVNET_SANCTIONED.map((a) => a.address).join(", ")}`);
  console.log(`deployments: ${values["deployments-dir"]}/<chainId>/   Ctrl-C stops the devnet.`);
} catch (err) {
  console.error(`devnet failed: ${(err as Error).message}`);
  await shutdown(1);
}
