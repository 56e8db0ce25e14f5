/**
 * `npm run devnet:deployments`: regenerates the committed `deployments/<chainId>/` of the devnet
 * from fresh in-process chains (no ports needed). Run it after a change to a deployed contract or to
 * the deployment plan; `test/devnet/determinism.test.ts` fails until the files are current.
 */
import path from "node:path";
import { writeDeployment } from "../relayer/deployments/index.ts";
import { PROJECT_ROOT } from "../relayer/devnet/artifacts.ts";
import { startEmbeddedDevnet } from "../relayer/devnet/embedded.ts";

const root = path.join(PROJECT_ROOT, "deployments");
const chains = await startEmbeddedDevnet();
try {
  for (const chain of chains) {
    await writeDeployment(root, chain.deployment, chain.abis);
    console.log(`wrote ${path.join(root, String(chain.chainId))}/ (${chain.name})`);
  }
} finally {
  await Promise.all(chains.map((c) => c.close()));
}
