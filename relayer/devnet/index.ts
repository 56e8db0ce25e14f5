/** The devnet area's public surface: other areas import it from here only. */
export { DEVNET_DEPLOYER, DEVNET_OPERATOR } from "./accounts.ts";
export { PROJECT_ROOT } from "./artifacts.ts";
export { DEVNET_CHAINS, DEVNET_CHAIN_IDS } from "./chains.ts";
export { RPC_UNAVAILABLE_CODE } from "./eip1193.ts";
export { jsonRpcFaults } from "./faults.ts";
export type { ChainFaults } from "./faults.ts";
export { DEVNET_CHAIN_NAMES } from "./plan.ts";
export type { DevnetChainName } from "./plan.ts";
/** The embedded devnet, loaded on first use: it loads Hardhat, which the rpc and file modes do not need. */
export const loadEmbeddedDevnet = () => import("./embedded.ts");
