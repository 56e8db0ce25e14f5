import { readFile } from "node:fs/promises";
import { MANIFEST_PATH } from "./circuits.ts";

/**
 * Which trusted setup the proving keys in `circuits/` come from, read from the manifest. The
 * development setup (`npm run circuits`) is reproducible and INSECURE: its only contribution is a
 * public beacon, so anyone can forge proofs with it. A ceremony's keys are installed with
 * `node scripts/circuits.ts export --ptau <ceremony ptau>`, which verifies each zkey against its
 * r1cs and the ptau and records the ceremony in the manifest (`ceremony`).
 */
export type ProvingKeySetup =
  { kind: "development" } | { kind: "ceremony"; ceremony: CeremonyRecord };

/** What `circuits export` records of a ceremony in circuits/manifest.json. */
export type CeremonyRecord = {
  /** sha-256 and power of the phase 1 powers of tau the zkeys were verified against. */
  ptau: { sha256: string; power: number };
  /** snarkjs version that ran `zkey verify`. */
  verifiedWith: string;
  verifiedAt: string;
  /** sha-256 of each verified zkey. */
  zkeys: Record<string, string>;
};

/** The development keys were about to be used where proofs must mean something. */
export class DevelopmentKeysError extends Error {
  readonly chainIds: number[];
  constructor(chainIds: number[], devnet: readonly number[]) {
    super(
      `circuits/manifest.json holds the INSECURE development proving keys (a public beacon is ` +
        `their only contribution: anyone can forge proofs), and chain id ${chainIds.join(", ")} ` +
        `is not a devnet chain (${devnet.join(", ")}). Install a ceremony's keys first: ` +
        `docs/zk.md "Production keys (a real ceremony)", step 4, ` +
        "`node scripts/circuits.ts export --ptau <ceremony.ptau>`, then deploy a new ExecutionAttestor.",
    );
    this.name = "DevelopmentKeysError";
    this.chainIds = chainIds;
  }
}

export async function provingKeySetup(manifestPath = MANIFEST_PATH): Promise<ProvingKeySetup> {
  const manifest = JSON.parse(await readFile(manifestPath, "utf8")) as {
    ceremony?: CeremonyRecord;
  };
  return manifest.ceremony
    ? { kind: "ceremony", ceremony: manifest.ceremony }
    : { kind: "development" };
}

/**
 * Refuses the development proving keys on any chain outside `devnetChainIds` (the relayer's start
 * and the deploy script call it with the chains they are about to use).
 */
export async function assertProvingKeysFit(
  chainIds: readonly number[],
  devnetChainIds: readonly number[],
  manifestPath = MANIFEST_PATH,
): Promise<ProvingKeySetup> {
  const setup = await provingKeySetup(manifestPath);
  const outside = [...new Set(chainIds)].filter((id) => !devnetChainIds.includes(id));
  if (setup.kind === "development" && outside.length > 0) {
    throw new DevelopmentKeysError(outside, devnetChainIds);
  }
  return setup;
}
