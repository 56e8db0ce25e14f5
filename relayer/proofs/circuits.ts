import path from "node:path";

/**
 * Where each circuit's sources, build outputs and committed keys live. Shared by the build
 * script (`scripts/circuits.ts`) and the prover so both agree on every path.
 *
 * Committed: the Solidity verifiers (`contracts/verifiers/`), the verification keys
 * (`circuits/keys/`) and `circuits/manifest.json` (sha-256 of every output).
 * Not committed (reproducible, `npm run circuits`): `circuits/build/` (r1cs, wasm, zkey, ptau).
 */
export const REPO_ROOT = path.resolve(import.meta.dirname, "..", "..");
export const CIRCUITS_DIR = path.join(REPO_ROOT, "circuits");
export const BUILD_DIR = path.join(CIRCUITS_DIR, "build");
export const KEYS_DIR = path.join(CIRCUITS_DIR, "keys");
export const MANIFEST_PATH = path.join(CIRCUITS_DIR, "manifest.json");
export const VERIFIERS_DIR = path.join(REPO_ROOT, "contracts", "verifiers");

/**
 * The execution circuit's variants, by action-slot count: each is its own circuit
 * (`circuits/src/execution<slots>.circom`) with its own proving key, verification key and
 * verifier contract. An execution is proved with the smallest variant its workflow fits.
 */
export const EXECUTION_VARIANTS = [2, 4, 8] as const;
export type ExecutionVariant = (typeof EXECUTION_VARIANTS)[number];

export type CircuitName = `execution${ExecutionVariant}` | "artifacts";
export const CIRCUIT_NAMES: readonly CircuitName[] = [
  ...EXECUTION_VARIANTS.map((slots) => executionCircuit(slots)),
  "artifacts",
];

/** The circuit of an execution variant. */
export function executionCircuit(slots: ExecutionVariant): CircuitName {
  return `execution${slots}`;
}

/** Whether a number is one of the variants' slot counts (a value read from a chain or a file). */
export function isExecutionVariant(slots: unknown): slots is ExecutionVariant {
  return (EXECUTION_VARIANTS as readonly unknown[]).includes(slots);
}

export type CircuitFiles = {
  source: string;
  r1cs: string;
  wasm: string;
  zkey: string;
  vkey: string;
  verifier: string;
  /** Name of the generated Solidity contract (snarkjs' `Groth16Verifier`, renamed per circuit). */
  verifierContract: string;
};

const VERIFIER_CONTRACTS: Record<CircuitName, string> = {
  execution2: "Execution2Groth16Verifier",
  execution4: "Execution4Groth16Verifier",
  execution8: "Execution8Groth16Verifier",
  artifacts: "ArtifactsGroth16Verifier",
};

export function circuitFiles(name: CircuitName, buildDir: string = BUILD_DIR): CircuitFiles {
  const dir = path.join(buildDir, name);
  const verifierContract = VERIFIER_CONTRACTS[name];
  return {
    source: path.join(CIRCUITS_DIR, "src", `${name}.circom`),
    r1cs: path.join(dir, `${name}.r1cs`),
    wasm: path.join(dir, `${name}_js`, `${name}.wasm`),
    zkey: path.join(dir, `${name}.zkey`),
    vkey: path.join(KEYS_DIR, `${name}.vkey.json`),
    verifier: path.join(VERIFIERS_DIR, `${verifierContract}.sol`),
    verifierContract,
  };
}
