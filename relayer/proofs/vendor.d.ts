// Minimal typings for the untyped ZK packages (snarkjs, circomlibjs, circom_runtime): only the
// calls this project makes. Memory "files" are fastfile's `{ type: "mem", data }` objects.

declare module "snarkjs" {
  export type MemFile = { type: "mem"; data?: Uint8Array };
  export type FileLike = string | MemFile | Uint8Array;
  export type Groth16Proof = {
    pi_a: string[];
    pi_b: string[][];
    pi_c: string[];
    protocol: string;
    curve: string;
  };
  export type VerificationKey = Record<string, unknown> & { nPublic: number; protocol: string };
  export type Logger = {
    info(...args: unknown[]): void;
    debug(...args: unknown[]): void;
    warn(...args: unknown[]): void;
    error(...args: unknown[]): void;
  };
  /** Both setup phases close with a random beacon, one signature. */
  type Beacon = (
    oldFile: string,
    newFile: string,
    name: string,
    beaconHashHex: string,
    iterationsExp: number,
    logger?: Logger,
  ) => Promise<unknown>;
  export const groth16: {
    prove(
      zkey: FileLike,
      witness: FileLike,
      logger?: Logger,
    ): Promise<{ proof: Groth16Proof; publicSignals: string[] }>;
    fullProve(
      input: Record<string, unknown>,
      wasm: FileLike,
      zkey: FileLike,
    ): Promise<{ proof: Groth16Proof; publicSignals: string[] }>;
    verify(
      vkey: VerificationKey,
      publicSignals: readonly string[],
      proof: Groth16Proof,
      logger?: Logger,
    ): Promise<boolean>;
  };
  export const powersOfTau: {
    newAccumulator(curve: unknown, power: number, file: string, logger?: Logger): Promise<unknown>;
    beacon: Beacon;
    preparePhase2(oldFile: string, newFile: string, logger?: Logger): Promise<unknown>;
  };
  export const zKey: {
    newZKey(r1cs: string, ptau: string, zkey: string, logger?: Logger): Promise<unknown>;
    beacon: Beacon;
    exportVerificationKey(zkey: FileLike, logger?: Logger): Promise<VerificationKey>;
    exportSolidityVerifier(
      zkey: FileLike,
      templates: Record<string, string>,
      logger?: Logger,
    ): Promise<string>;
    verifyFromR1cs(r1cs: string, ptau: string, zkey: string, logger?: Logger): Promise<boolean>;
  };
  export const wtns: {
    check(r1cs: FileLike, witness: FileLike | Uint8Array, logger?: Logger): Promise<boolean>;
  };
  export const r1cs: {
    info(
      file: string,
      logger?: Logger,
    ): Promise<{ nConstraints: number; nOutputs: number; nPubInputs: number }>;
  };
  export const curves: {
    getCurveFromName(
      name: string,
      options?: { singleThread?: boolean },
    ): Promise<{ terminate(): Promise<void> }>;
  };
}

declare module "circomlibjs" {
  export type PoseidonField = {
    toObject(element: Uint8Array): bigint;
    e(value: bigint | number | string): Uint8Array;
  };
  export type Poseidon = ((inputs: readonly (bigint | number | string)[]) => Uint8Array) & {
    F: PoseidonField;
  };
  export function buildPoseidon(): Promise<Poseidon>;
}

declare module "circom_runtime" {
  export type WitnessCalculator = {
    calculateWitness(input: Record<string, unknown>, sanityCheck?: boolean): Promise<bigint[]>;
    calculateWTNSBin(input: Record<string, unknown>, sanityCheck?: boolean): Promise<Uint8Array>;
  };
  export function WitnessCalculatorBuilder(
    wasm: Uint8Array,
    options?: Record<string, unknown>,
  ): Promise<WitnessCalculator>;
}
