import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import * as snarkjs from "snarkjs";
import type { CircuitName } from "./circuits.ts";
import { ProverUnavailableError } from "./errors.ts";
import { loadCircuit, withProverThreads } from "./keys.ts";
import type { ProverAnswer, ProverJob, ProverWorkerOptions } from "./prover-worker.ts";

/** Computes a circuit's witness and Groth16 proof from its input (decimal-string signals). */
export interface Groth16Prover {
  prove(
    circuit: CircuitName,
    input: Record<string, unknown>,
  ): Promise<{ proof: snarkjs.Groth16Proof; publicSignals: string[] }>;
  close(): Promise<void>;
}

/**
 * Proves on the calling thread, keys loaded once per process (`loadCircuit`). What scripts and
 * tests use by default; a service proves through a `ProverPool` so its event loop stays free.
 */
export const inProcessProver: Groth16Prover = {
  async prove(circuit, input) {
    const loaded = await loadCircuit(circuit);
    const witness = await loaded.calculateWitness(input);
    return withProverThreads(() => snarkjs.groth16.prove(loaded.zkey, witness));
  },
  async close() {},
};

export type ProverPoolOptions = {
  /**
   * Worker threads proving in parallel (default 1). Each proves single-threaded (snarkjs cannot
   * start its helper threads inside a worker thread), so one thread leaves the other cores to the
   * engine and the chains, and as many threads as cores prove that many executions at once.
   */
  threads?: number;
  /** Circuits each thread loads at start, before its first job (default none). */
  preload?: readonly CircuitName[];
  /**
   * The threads' nice value on Linux (default PROVER_NICENESS). With a thread per core, proofs
   * and the engine's event loop share the cores; a lower priority lets the event loop (signing,
   * broadcasting, answering clients) run first whenever both are ready, while the proofs still
   * take every idle cycle. Elsewhere a thread's priority cannot be set apart from its process's,
   * so it is left alone.
   */
  niceness?: number;
};

/** The prover threads' default nice value (Linux; 0 is normal, 19 the lowest priority). */
export const PROVER_NICENESS = 10;

/**
 * The thread entry snarkjs' own threads run (ffjavascript's `web-worker`). Loaded in any worker
 * thread, that module takes the thread over as a web worker host: snarkjs cannot be imported in
 * a plain worker thread. So each pool thread starts from it, and it imports prover-worker.ts as
 * the thread's module (`workerData.mod`), which talks through the web worker globals.
 */
const WORKER_HOST = createRequire(import.meta.url).resolve("web-worker");
const WORKER_MODULE = new URL("./prover-worker.ts", import.meta.url).href;

type Pending = {
  resolve(value: { proof: snarkjs.Groth16Proof; publicSignals: string[] }): void;
  reject(error: Error): void;
};

/**
 * A pool of worker threads that prove (relayer/proofs/prover-worker.ts): each loads a circuit's
 * wasm and zkey once and keeps them, and the witness and the proof's MSMs and FFTs run there,
 * never on the caller's event loop, so the engine keeps broadcasting while a proof runs. The
 * threads start with the first proof; jobs go to the thread with the fewest in flight. Idle
 * threads do not hold the process open.
 */
export class ProverPool implements Groth16Prover {
  private workers: { worker: Worker; jobs: Map<number, Pending> }[] = [];
  private readonly threads: number;
  private readonly workerOptions: ProverWorkerOptions;
  private nextId = 1;
  private closed = false;

  constructor(options: ProverPoolOptions = {}) {
    this.threads = Math.max(1, options.threads ?? 1);
    this.workerOptions = {
      preload: options.preload ?? [],
      niceness: options.niceness ?? PROVER_NICENESS,
    };
  }

  /** Starts the missing threads (the first proof does), each loading `preload` first. */
  start(): void {
    while (!this.closed && this.workers.length < this.threads) {
      const worker = new Worker(WORKER_HOST, {
        workerData: {
          mod: WORKER_MODULE,
          name: "veriflow-prover",
          type: "module",
          ...this.workerOptions,
        },
      });
      const slot = { worker, jobs: new Map<number, Pending>() };
      worker.on("message", (answer: ProverAnswer) => {
        const job = slot.jobs.get(answer.id);
        slot.jobs.delete(answer.id);
        if (slot.jobs.size === 0) worker.unref();
        if (!job) return;
        if ("error" in answer) job.reject(reviveError(answer.error));
        else job.resolve({ proof: answer.proof, publicSignals: answer.publicSignals });
      });
      // A thread that dies (out of memory, a crash in snarkjs) fails its jobs and is replaced
      // by the next proof.
      const lost = (err: Error) => {
        this.workers = this.workers.filter((w) => w !== slot);
        const jobs = [...slot.jobs.values()];
        slot.jobs.clear();
        for (const job of jobs) job.reject(err);
      };
      worker.on("error", lost);
      worker.on("exit", (code) =>
        lost(new ProverUnavailableError(`a prover thread exited (code ${code})`)),
      );
      worker.unref();
      this.workers.push(slot);
    }
  }

  prove(
    circuit: CircuitName,
    input: Record<string, unknown>,
  ): Promise<{ proof: snarkjs.Groth16Proof; publicSignals: string[] }> {
    if (this.closed) return Promise.reject(new ProverUnavailableError("the prover pool is closed"));
    this.start();
    const slot = this.workers.reduce((a, b) => (b.jobs.size < a.jobs.size ? b : a));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      slot.jobs.set(id, { resolve, reject });
      slot.worker.ref();
      slot.worker.postMessage({ id, circuit, input } satisfies ProverJob);
    });
  }

  /** Stops the threads; proofs still running fail with ProverUnavailableError. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const workers = this.workers;
    await Promise.all(workers.map(({ worker }) => worker.terminate()));
  }
}

/** The worker's error as the caller's class where the caller handles it by class. */
function reviveError(error: { name: string; message: string }): Error {
  if (error.name === "ProverUnavailableError") return new ProverUnavailableError(error.message);
  const revived = new Error(error.message);
  revived.name = error.name;
  return revived;
}
