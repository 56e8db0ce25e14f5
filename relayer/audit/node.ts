import { readFile } from "node:fs/promises";
import path from "node:path";
import type { JsonRpcProvider } from "ethers";
import type * as snarkjs from "snarkjs";
import { chainsFileSchema, readAbis } from "../chains/index.ts";
import { readDeployment } from "../deployments/index.ts";
import { DEVNET_CHAINS, PROJECT_ROOT, DEVNET_CHAIN_NAMES } from "../devnet/index.ts";
import {
  EXECUTION_VARIANTS,
  circuitFiles,
  executionCircuit,
  type ExecutionVariant,
} from "../proofs/index.ts";
import type { AuditEnvironment, AuditedVariant } from "./audit.ts";
import type { EvidenceChain } from "../report/index.ts";
import {
  AUDITOR_ABIS,
  rpcEvidenceChain,
  type AuditPageChain,
  type AuditPageConfig,
} from "./browser.ts";
import { AuditInputError } from "./input.ts";

/**
 * The auditor's environment in Node: read-only RPC access to the chains (a chains file in the
 * relayer's format, whose operator keys it never reads, or the JSON-RPC devnet of `npm run devnet`
 * with the repository's `deployments/`), the verification key and the verifier bytecode compiled
 * from this repository.
 */

/** A variant's verification key and compiled verifier artifact in this repository. */
export function variantFiles(slots: ExecutionVariant): {
  verificationKey: string;
  verifierArtifact: string;
} {
  const files = circuitFiles(executionCircuit(slots));
  const contract = files.verifierContract;
  return {
    verificationKey: files.vkey,
    verifierArtifact: path.join(
      PROJECT_ROOT,
      `artifacts/contracts/verifiers/${contract}.sol/${contract}.json`,
    ),
  };
}

/** Where `npm run build:audit-page` writes the browser auditor (the relayer serves it at /audit). */
export const AUDIT_PAGE_DIR = path.join(PROJECT_ROOT, "dist/audit-page");
export const AUDIT_BUNDLE_FILE = path.join(AUDIT_PAGE_DIR, "auditor.js");

interface ChainSource {
  name: string;
  chainId: number;
  rpcUrl: string;
  deploymentsDir: string;
}

async function readJson(file: string, what: string): Promise<unknown> {
  try {
    return JSON.parse(await readFile(file, "utf8"));
  } catch (err) {
    throw new AuditInputError(`cannot read ${what} ${file}: ${(err as Error).message}`);
  }
}

async function chainSources(chainsFile: string | undefined): Promise<ChainSource[]> {
  if (!chainsFile) {
    return DEVNET_CHAIN_NAMES.map((name) => ({
      name,
      chainId: DEVNET_CHAINS[name].chainId,
      rpcUrl: `http://127.0.0.1:${DEVNET_CHAINS[name].defaultPort}`,
      deploymentsDir: path.join(PROJECT_ROOT, "deployments"),
    }));
  }
  const parsed = chainsFileSchema.safeParse(await readJson(chainsFile, "chains file"));
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    throw new AuditInputError(`invalid chains file ${chainsFile}: ${issues.join("; ")}`);
  }
  const base = path.dirname(path.resolve(chainsFile));
  return parsed.data.chains.map((c) => ({
    name: c.name,
    chainId: c.chainId,
    rpcUrl: c.rpcUrl,
    deploymentsDir: path.resolve(base, c.deploymentsDir),
  }));
}

/** A chain source with its deployment and every ABI set of its deployments directory. */
async function readChain(s: ChainSource): Promise<AuditPageChain> {
  const [deployment, abis] = await Promise.all([
    readDeployment(s.deploymentsDir, s.chainId),
    readAbis(s.deploymentsDir, s.chainId),
  ]);
  return { name: s.name, chainId: s.chainId, rpcUrl: s.rpcUrl, deployment, abis };
}

export interface NodeAuditEnvironment extends AuditEnvironment {
  close(): void;
}

/** Opens the auditor's chains and reads the keys; `close()` releases the providers. */
export async function openAuditEnvironment(
  options: { chainsFile?: string } = {},
): Promise<NodeAuditEnvironment> {
  const sources = await chainSources(options.chainsFile);
  const providers: JsonRpcProvider[] = [];
  try {
    const chains: EvidenceChain[] = await Promise.all(
      sources.map(async (s) =>
        rpcEvidenceChain(
          await readChain(s),
          providers,
          (name) => `no ABI ${name} in ${s.deploymentsDir}/${s.chainId}`,
        ),
      ),
    );
    return {
      chains,
      ...(await readAuditKeys()),
      close: () => providers.forEach((p) => p.destroy()),
    };
  } catch (err) {
    providers.forEach((p) => p.destroy());
    throw err instanceof AuditInputError ? err : new AuditInputError((err as Error).message);
  }
}

/**
 * Every variant's verification key and compiled verifier runtime bytecode, from this repository.
 */
export async function readAuditKeys(): Promise<Pick<AuditEnvironment, "variants">> {
  const entries = await Promise.all(
    EXECUTION_VARIANTS.map(async (slots): Promise<[ExecutionVariant, AuditedVariant]> => {
      const files = variantFiles(slots);
      const [vkey, artifact] = await Promise.all([
        readJson(files.verificationKey, "verification key"),
        readJson(files.verifierArtifact, "verifier artifact (run `npx hardhat build`)"),
      ]);
      return [
        slots,
        {
          verificationKey: vkey as snarkjs.VerificationKey,
          verifierBytecode: (artifact as { deployedBytecode: string }).deployedBytecode,
        },
      ];
    }),
  );
  return { variants: Object.fromEntries(entries) as AuditEnvironment["variants"] };
}

/**
 * The auditor page's trust anchors and proposed RPC URLs: the chains of a chains file (its
 * deployments, never its operator keys) or the devnet's with the repository's `deployments/`.
 */
export async function auditPageConfig(
  options: { chainsFile?: string } = {},
): Promise<AuditPageConfig> {
  try {
    const sources = await chainSources(options.chainsFile);
    const chains: AuditPageChain[] = await Promise.all(
      sources.map(async (s) => {
        const chain = await readChain(s);
        return { ...chain, abis: pickAbis(chain.abis) };
      }),
    );
    return {
      source: options.chainsFile
        ? `the deployments of ${path.basename(options.chainsFile)}, this repository's verification key and verifier`
        : "this repository's devnet deployments, verification key and verifier",
      chains,
      keys: await readAuditKeys(),
    };
  } catch (err) {
    throw err instanceof AuditInputError ? err : new AuditInputError((err as Error).message);
  }
}

/** The ABIs the auditor reads, out of a chain's ABI set (an error naming a missing one). */
export function pickAbis(abis: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    AUDITOR_ABIS.map((name) => {
      if (!abis[name]) throw new Error(`the deployment has no ABI ${name}`);
      return [name, abis[name]];
    }),
  );
}
