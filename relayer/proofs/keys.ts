import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { WitnessCalculatorBuilder, type WitnessCalculator } from "circom_runtime";
import * as snarkjs from "snarkjs";
import { MANIFEST_PATH, circuitFiles, type CircuitName } from "./circuits.ts";
import { ProverUnavailableError } from "./errors.ts";

/** A circuit's proving material, loaded once per process and kept in memory. */
export type LoadedCircuit = {
  name: CircuitName;
  zkey: Uint8Array;
  vkey: snarkjs.VerificationKey;
  /** Computes the binary witness; serialised, because a calculator owns one WASM memory. */
  calculateWitness(input: Record<string, unknown>): Promise<Uint8Array>;
};

const loaded = new Map<CircuitName, Promise<LoadedCircuit>>();
const verificationKeys = new Map<CircuitName, Promise<snarkjs.VerificationKey>>();

type ManifestEntry = { sha256: { wasm: string; zkey: string } };

async function readOrExplain(file: string): Promise<Buffer> {
  try {
    return await readFile(file);
  } catch {
    throw new ProverUnavailableError(
      `circuit build output ${file} is missing: run \`npm run circuits\` (development keys) or install the ceremony keys`,
    );
  }
}

function sha256(data: Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

async function load(name: CircuitName): Promise<LoadedCircuit> {
  const files = circuitFiles(name);
  const manifest = JSON.parse(await readFile(MANIFEST_PATH, "utf8")) as {
    circuits: Record<string, ManifestEntry>;
  };
  const expected = manifest.circuits[name];
  const [wasm, zkey] = await Promise.all([readOrExplain(files.wasm), readOrExplain(files.zkey)]);
  // A zkey from another build would produce proofs the deployed verifier rejects: refuse early.
  if (!expected || sha256(wasm) !== expected.sha256.wasm || sha256(zkey) !== expected.sha256.zkey) {
    throw new ProverUnavailableError(
      `circuits/build/${name} does not match circuits/manifest.json: run \`npm run circuits\``,
    );
  }
  let calculator: WitnessCalculator = await WitnessCalculatorBuilder(wasm);
  let queue: Promise<unknown> = Promise.resolve();
  const calculateWitness = (input: Record<string, unknown>) => {
    const run = queue.then(async () => {
      try {
        return await calculator.calculateWTNSBin(input, true);
      } catch (err) {
        // circom_runtime keeps appending every failure's message to the next ones: start afresh.
        calculator = await WitnessCalculatorBuilder(wasm);
        throw err;
      }
    });
    queue = run.catch(() => undefined);
    return run;
  };
  return { name, zkey, vkey: await loadVerificationKey(name), calculateWitness };
}

/** Loads (once) a circuit's wasm, zkey and verification key. */
export function loadCircuit(name: CircuitName): Promise<LoadedCircuit> {
  let circuit = loaded.get(name);
  if (!circuit) {
    circuit = load(name);
    loaded.set(name, circuit);
    circuit.catch(() => loaded.delete(name));
  }
  return circuit;
}

/** The committed verification key (`circuits/keys/<name>.vkey.json`): verifying needs no build. */
export function loadVerificationKey(name: CircuitName): Promise<snarkjs.VerificationKey> {
  let vkey = verificationKeys.get(name);
  if (!vkey) {
    vkey = readFile(circuitFiles(name).vkey, "utf8").then(
      (text) => JSON.parse(text) as snarkjs.VerificationKey,
    );
    verificationKeys.set(name, vkey);
    vkey.catch(() => verificationKeys.delete(name));
  }
  return vkey;
}

/**
 * Makes this thread's snarkjs prove without helper threads: snarkjs builds a single-threaded curve
 * anew on every call that asks for one, so the thread builds it once and installs it where
 * snarkjs finds its shared curve. For the prover pool's threads (one per core).
 */
export async function useSingleThreadCurve(): Promise<void> {
  const holder = globalThis as { curve_bn128?: unknown };
  if (holder.curve_bn128) return;
  holder.curve_bn128 = await snarkjs.curves.getCurveFromName("bn128", { singleThread: true });
}

type ThreadHandle = { ref(): void; unref(): void };
let busy = 0;

/** snarkjs' worker threads (ffjavascript's thread manager over `web-worker`'s Node Worker). */
function proverThreads(): ThreadHandle[] {
  const holder = globalThis as { curve_bn128?: { tm?: { workers?: unknown[] } } | null };
  const workers = holder.curve_bn128?.tm?.workers ?? [];
  return workers
    .map((w) => (w as Record<symbol, ThreadHandle | undefined>)[Symbol.for("worker")])
    .filter((t): t is ThreadHandle => t !== undefined);
}

/**
 * Runs snarkjs work with its worker threads holding the process open, then lets the idle threads
 * stop holding it: a script or test that proves can exit without calling `closeProver`.
 */
export async function withProverThreads<T>(work: () => Promise<T>): Promise<T> {
  busy++;
  for (const thread of proverThreads()) thread.ref();
  try {
    return await work();
  } finally {
    busy--;
    if (busy === 0) for (const thread of proverThreads()) thread.unref();
  }
}

/**
 * Stops snarkjs' worker threads (they are restarted by the next proof). Optional since idle
 * threads no longer keep the process alive; frees their memory at shutdown.
 */
export async function closeProver(): Promise<void> {
  const holder = globalThis as { curve_bn128?: { terminate(): Promise<void> } | null };
  const curve = holder.curve_bn128;
  holder.curve_bn128 = null;
  if (curve) await curve.terminate();
}
