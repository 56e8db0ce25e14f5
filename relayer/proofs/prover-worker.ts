/**
 * One thread of the prover pool (relayer/proofs/pool.ts): loads each circuit's wasm and zkey once
 * (`loadCircuit`, cached for the thread's life), then computes witnesses and Groth16 proofs for
 * the jobs the pool sends. The engine's event loop never runs a proof's CPU work.
 */
import { parentPort, workerData } from "node:worker_threads";
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
  /** Prove on this thread alone (no snarkjs helper threads). */
  singleThread: boolean;
  /** Circuits to load before the first job. */
  preload: readonly CircuitName[];
};

const port = parentPort;
if (!port) throw new Error("prover-worker.ts runs as a worker thread of the prover pool");
const options = workerData as ProverWorkerOptions;
if (options.singleThread) await useSingleThreadCurve();
const ready = Promise.all(options.preload.map((name) => loadCircuit(name)));
ready.catch(() => undefined); // a missing build is reported per job

port.on("message", (job: ProverJob) => {
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
    port.postMessage(answer);
  })();
});
