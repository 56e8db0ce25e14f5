import { JsonRpcProvider, type InterfaceAbi } from "ethers";
import { CONTRACT_NAMES, deploymentSchema, type Deployment } from "../deployments/index.ts";
import type { AuditEnvironment } from "./audit.ts";
import { EVIDENCE_ABIS, type EvidenceChain } from "../report/index.ts";

/**
 * The auditor's environment in a browser (the auditor page, `GET /audit` and
 * `npm run build:audit-page`): what the page embeds (each chain's deployment and the ABIs the
 * checks read, the verification key, the verifier bytecode compiled from the repository) plus the
 * RPC URLs the user enters. No Node API: this module is bundled for the browser.
 */

/** ABI set names the auditor reads: the evidence events, the attestor and the registry. */
export const AUDITOR_ABIS: readonly string[] = [
  ...new Set([...EVIDENCE_ABIS, CONTRACT_NAMES.attestor, CONTRACT_NAMES.proofRegistry]),
];

export interface AuditPageChain {
  name: string;
  chainId: number;
  /** The RPC URL the page proposes (the user may change it). */
  rpcUrl: string;
  deployment: Deployment;
  /** The ABIs of `AUDITOR_ABIS`, by ABI set name. */
  abis: Record<string, unknown>;
}

/** Everything the page embeds; JSON, so it can be inlined in the HTML. */
export interface AuditPageConfig {
  /** Where the embedded trust anchors come from (shown on the page). */
  source: string;
  chains: AuditPageChain[];
  /** Everything the auditor reads besides the chains (verification keys, verifier bytecode). */
  keys: Omit<AuditEnvironment, "chains">;
}

/** A chain's entry in the page: its deployment and the ABIs the auditor reads. */
export function auditPageChain(chain: EvidenceChain, rpcUrl: string): AuditPageChain {
  return {
    name: chain.name,
    chainId: chain.chainId,
    rpcUrl,
    deployment: chain.deployment,
    abis: Object.fromEntries(AUDITOR_ABIS.map((name) => [name, chain.abi(name)])),
  };
}

export interface BrowserAuditEnvironment extends AuditEnvironment {
  close(): void;
}

/** The environment over the user's RPC URLs (`rpcUrls` by chain id; missing: the proposed one). */
export function browserAuditEnvironment(
  config: AuditPageConfig,
  rpcUrls: Record<number, string> = {},
): BrowserAuditEnvironment {
  const providers: JsonRpcProvider[] = [];
  const chains: EvidenceChain[] = config.chains.map((c) =>
    rpcEvidenceChain(
      {
        ...c,
        rpcUrl: rpcUrls[c.chainId] ?? c.rpcUrl,
        deployment: deploymentSchema.parse(c.deployment),
      },
      providers,
      (name) => `the page embeds no ABI ${name} for chain ${c.chainId}`,
    ),
  );
  return { chains, ...config.keys, close: () => providers.forEach((p) => p.destroy()) };
}

/**
 * A chain the auditor reads over `chain.rpcUrl` (read-only, one request per call), its provider
 * added to `providers` for the caller to close; `noAbi` words the error for a missing ABI.
 */
export function rpcEvidenceChain(
  chain: AuditPageChain,
  providers: JsonRpcProvider[],
  noAbi: (name: string) => string,
): EvidenceChain {
  const provider = new JsonRpcProvider(chain.rpcUrl, chain.chainId, {
    staticNetwork: true,
    batchMaxCount: 1,
  });
  providers.push(provider);
  return {
    name: chain.name,
    chainId: chain.chainId,
    provider,
    deployment: chain.deployment,
    abi: (name: string) => {
      const abi = chain.abis[name];
      if (!abi) throw new Error(noAbi(name));
      return abi as InterfaceAbi;
    },
  };
}
