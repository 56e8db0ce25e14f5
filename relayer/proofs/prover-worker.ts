/**
 * One thread of the prover pool (relayer/proofs/pool.ts): loads each circuit's wasm and zkey once
 * (`loadCircuit`, cached for the thread's life), then computes witnesses and Groth16 proofs for
 * the jobs the pool sends. The engine's event loop never runs a proof's CPU work.
 */
import { setPriority } from "node:os";
import { workerData } from "node:worker_threads";
import * as snarkjs from "snarkjs";
import type { CircuitName } from "./circuits.ts";
import { loadCircuit, useSingleThreadCurve } from "./keys.ts";

/** What the pool sends: one proof to compute. */
export type ProverJob = { id: number; circuit: CircuitName; input: Record<string, unknown> };

/** What the thread answers: the proof, or the error's name and message. */
export type ProverAnswer =
  | { id: number; proof: snarkjs.Groth16Proof; publicSignals: string[] }
  | { id: number; error: { name: string; message: string } };

/** Options the pool starts the thread with. */
export type ProverWorkerOptions = {
  /** Circuits to load before the first job. */
  preload: readonly CircuitName[];
  /** This thread's nice value (ProverPoolOptions.niceness). */
  niceness: number;
};

/** The web worker globals the thread's host (web-worker, see pool.ts) gives this module. */
const scope = globalThis as unknown as {
  addEventListener(type: "message", listener: (event: { data: ProverJob }) => void): void;
  postMessage(answer: ProverAnswer): void;
};
if (typeof scope.addEventListener !== "function") {
  throw new Error("prover-worker.ts runs as a thread of the prover pool (relayer/proofs/pool.ts)");
}
const options = workerData as ProverWorkerOptions;
// On Linux every thread is its own scheduling entity and setpriority(2) on "process 0" applies
// to the calling thread only; elsewhere it would lower the whole relayer's priority.
if (process.platform === "linux") setPriority(options.niceness);
// snarkjs cannot start its helper threads from a worker thread: each pool thread proves alone,
// and the pool's parallelism is its number of threads.
await useSingleThreadCurve();
const ready = Promise.all(options.preload.map((name) => loadCircuit(name)));
ready.catch(() => undefined); // a missing build is reported per job

scope.addEventListener("message", ({ data: job }) => {
  void (async () => {
    let answer: ProverAnswer;
    try {
      const circuit = await loadCircuit(job.circuit);
      const witness = await circuit.calculateWitness(job.input);
      const { proof, publicSignals } = await snarkjs.groth16.prove(circuit.zkey, witness);
      answer = { id: job.id, proof, publicSignals };
    } catch (err) {
      const error = err instanceof Error ? err : new Error(String(err));
      answer = { id: job.id, error: { name: error.name, message: error.message } };
    }
    scope.postMessage(answer);
  })();
});
