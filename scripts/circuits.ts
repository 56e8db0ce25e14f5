/**
 * Builds the circuits and their DEVELOPMENT Groth16 setup, reproducibly.
 *
 *   npm run circuits          compile, powers of tau, phase 2, export wasm/zkey/vkey/verifier,
 *                             write circuits/manifest.json (reuses a cached ptau whose hash matches)
 *   npm run circuits:check    regenerate everything from scratch and fail unless the committed
 *                             verifiers, verification keys and manifest match byte for byte
 *   npm run circuits:ensure   build only when circuits/build is missing or differs from the manifest
 *   node scripts/circuits.ts export   re-export vkeys, verifiers and manifest hashes from the zkeys
 *                             in circuits/build (after installing a ceremony's zkeys)
 *
 * INSECURE FOR PRODUCTION: every random contribution is replaced by a public beacon
 * (DEV_BEACON_HASH), so anyone can recompute the toxic waste and forge proofs. That is what
 * makes the setup reproducible for CI; production keys come from a ceremony (docs/zk.md).
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import * as snarkjs from "snarkjs";
import {
  BUILD_DIR,
  CIRCUIT_NAMES,
  KEYS_DIR,
  MANIFEST_PATH,
  REPO_ROOT,
  VERIFIERS_DIR,
  circuitFiles,
  type CircuitName,
} from "../relayer/proofs/circuits.ts";
import type { CeremonyRecord } from "../relayer/proofs/setup.ts";
import { exportKeys, packageVersion, quietLogger, zkeyVerifies } from "./circuits-export.ts";

const require = createRequire(import.meta.url);

/** 2^14 constraints fit every circuit (the artifacts circuit is the largest, about 15.5k; the 8-slot execution variant about 7.8k); the smaller ones share it. */
const PTAU_POWER = 14;
const BEACON_ITERATIONS_EXP = 10;
const DEV_BEACON_TEXT =
  "veriflow development setup - INSECURE - never use these keys in production";
/** sha-256 of DEV_BEACON_TEXT: the public "randomness" of every development contribution. */
const DEV_BEACON_HASH = createHash("sha256").update(DEV_BEACON_TEXT).digest("hex");
/** Where `check` builds from scratch (inside circuits/build, so every ignore file covers it). */
const CHECK_DIR = path.join(BUILD_DIR, "check");

type Manifest = {
  warning: string;
  /** Present once `export` installed a ceremony's keys (relayer/proofs/setup.ts). */
  ceremony?: CeremonyRecord;
  beacon: { text: string; sha256: string; iterationsExp: number };
  tools: { circom2: string; snarkjs: string };
  ptau: { power: number; sha256: string };
  circuits: Record<
    CircuitName,
    {
      constraints: number;
      publicSignals: number;
      sha256: { r1cs: string; wasm: string; zkey: string; vkey: string; verifier: string };
    }
  >;
};

async function sha256File(file: string): Promise<string> {
  return createHash("sha256")
    .update(await readFile(file))
    .digest("hex");
}

function log(message: string): void {
  process.stdout.write(`[circuits] ${message}\n`);
}

async function readManifest(): Promise<Manifest | null> {
  if (!existsSync(MANIFEST_PATH)) return null;
  return JSON.parse(await readFile(MANIFEST_PATH, "utf8")) as Manifest;
}

function ptauPath(buildDir: string): string {
  return path.join(buildDir, "ptau", `dev_${PTAU_POWER}.ptau`);
}

/**
 * Phase 1: a fresh accumulator, one beacon contribution, then the Lagrange-basis preparation.
 * With `reuse`, an existing ptau is kept when it matches the manifest (or there is no manifest
 * yet); `check` never reuses, and compares the fresh hash with the manifest.
 */
async function buildPtau(
  buildDir: string,
  reuse: boolean,
  expectedSha256?: string,
): Promise<string> {
  const final = ptauPath(buildDir);
  if (
    reuse &&
    existsSync(final) &&
    (expectedSha256 === undefined || (await sha256File(final)) === expectedSha256)
  ) {
    log(`reusing ${path.relative(REPO_ROOT, final)}`);
    return final;
  }
  await mkdir(path.dirname(final), { recursive: true });
  const initial = `${final}.0`;
  const contributed = `${final}.1`;
  log(`powers of tau 2^${PTAU_POWER} (development beacon; takes a few minutes)`);
  const curve = await snarkjs.curves.getCurveFromName("bn128");
  await snarkjs.powersOfTau.newAccumulator(curve, PTAU_POWER, initial, quietLogger);
  await snarkjs.powersOfTau.beacon(
    initial,
    contributed,
    "veriflow-dev-beacon",
    DEV_BEACON_HASH,
    BEACON_ITERATIONS_EXP,
    quietLogger,
  );
  await snarkjs.powersOfTau.preparePhase2(contributed, final, quietLogger);
  await rm(initial);
  await rm(contributed);
  return final;
}

function compile(name: CircuitName, buildDir: string): void {
  const files = circuitFiles(name, buildDir);
  const outDir = path.dirname(files.r1cs);
  const circomCli = require.resolve("circom2/cli.js");
  const args = [
    circomCli,
    path.relative(REPO_ROOT, files.source),
    "--r1cs",
    "--wasm",
    "--O2",
    "-l",
    "node_modules",
    "-o",
    path.relative(REPO_ROOT, outDir),
  ];
  const result = spawnSync(process.execPath, args, { cwd: REPO_ROOT, encoding: "utf8" });
  if (result.status !== 0) {
    throw new Error(`circom failed for ${name}:\n${result.stdout}\n${result.stderr}`);
  }
}

/** Compiles, runs phase 2 and exports every output of one circuit; returns its manifest entry. */
async function buildCircuit(name: CircuitName, buildDir: string, ptau: string) {
  const files = circuitFiles(name, buildDir);
  await rm(path.dirname(files.r1cs), { recursive: true, force: true });
  await mkdir(path.dirname(files.r1cs), { recursive: true });
  log(`compiling ${name}`);
  compile(name, buildDir);
  const info = await snarkjs.r1cs.info(files.r1cs, quietLogger);
  if (info.nConstraints + info.nOutputs + info.nPubInputs + 1 > 2 ** PTAU_POWER) {
    throw new Error(`${name}: ${info.nConstraints} constraints do not fit 2^${PTAU_POWER}`);
  }
  log(`${name}: ${info.nConstraints} constraints; phase 2 setup`);
  const initialZkey = `${files.zkey}.0`;
  await snarkjs.zKey.newZKey(files.r1cs, ptau, initialZkey, quietLogger);
  await snarkjs.zKey.beacon(
    initialZkey,
    files.zkey,
    `veriflow-dev-${name}`,
    DEV_BEACON_HASH,
    BEACON_ITERATIONS_EXP,
    quietLogger,
  );
  await rm(initialZkey);

  const { vkeyText, verifierText } = await exportKeys(name, files.zkey);
  const sha = (text: string) => createHash("sha256").update(text).digest("hex");
  return {
    entry: {
      constraints: info.nConstraints,
      publicSignals: info.nOutputs + info.nPubInputs,
      sha256: {
        r1cs: await sha256File(files.r1cs),
        wasm: await sha256File(files.wasm),
        zkey: await sha256File(files.zkey),
        vkey: sha(vkeyText),
        verifier: sha(verifierText),
      },
    },
    vkeyText,
    verifierText,
  };
}

async function buildAll(options: { reusePtau: boolean; buildDir: string }) {
  const previous = await readManifest();
  const ptau = await buildPtau(options.buildDir, options.reusePtau, previous?.ptau.sha256);
  const manifest: Manifest = {
    warning:
      "DEVELOPMENT SETUP, INSECURE: every contribution is the public beacon below. " +
      "Production keys must come from a ceremony (docs/zk.md).",
    beacon: {
      text: DEV_BEACON_TEXT,
      sha256: DEV_BEACON_HASH,
      iterationsExp: BEACON_ITERATIONS_EXP,
    },
    tools: { circom2: packageVersion("circom2"), snarkjs: packageVersion("snarkjs") },
    ptau: { power: PTAU_POWER, sha256: await sha256File(ptau) },
    circuits: {} as Manifest["circuits"],
  };
  const outputs: Record<string, { vkeyText: string; verifierText: string }> = {};
  for (const name of CIRCUIT_NAMES) {
    const built = await buildCircuit(name, options.buildDir, ptau);
    manifest.circuits[name] = built.entry;
    outputs[name] = built;
  }
  return { manifest, outputs };
}

async function writeOutputs(built: Awaited<ReturnType<typeof buildAll>>): Promise<void> {
  await mkdir(KEYS_DIR, { recursive: true });
  await mkdir(VERIFIERS_DIR, { recursive: true });
  for (const name of CIRCUIT_NAMES) {
    const files = circuitFiles(name);
    const out = built.outputs[name]!;
    await writeFile(files.vkey, out.vkeyText);
    await writeFile(files.verifier, out.verifierText);
  }
  await writeFile(MANIFEST_PATH, JSON.stringify(built.manifest, null, 2) + "\n");
}

/** Lists every difference between a fresh build and what is committed. */
async function compareWithCommitted(
  built: Awaited<ReturnType<typeof buildAll>>,
): Promise<string[]> {
  const problems: string[] = [];
  const committed = await readManifest();
  if (!committed) return ["circuits/manifest.json is missing"];
  const fresh = built.manifest;
  if (committed.ptau.sha256 !== fresh.ptau.sha256) problems.push("ptau hash differs from manifest");
  for (const name of CIRCUIT_NAMES) {
    const files = circuitFiles(name);
    const was = committed.circuits[name];
    const now = fresh.circuits[name];
    if (!was) {
      problems.push(`${name}: missing from manifest`);
      continue;
    }
    for (const key of Object.keys(now.sha256) as (keyof typeof now.sha256)[]) {
      if (was.sha256[key] !== now.sha256[key])
        problems.push(`${name}: ${key} differs from manifest`);
    }
    const out = built.outputs[name]!;
    const committedVkey = existsSync(files.vkey) ? await readFile(files.vkey, "utf8") : "";
    const committedVerifier = existsSync(files.verifier)
      ? await readFile(files.verifier, "utf8")
      : "";
    if (committedVkey !== out.vkeyText) {
      problems.push(`${path.relative(REPO_ROOT, files.vkey)} does not match the circuit`);
    }
    if (committedVerifier !== out.verifierText) {
      problems.push(`${path.relative(REPO_ROOT, files.verifier)} does not match the circuit`);
    }
  }
  return problems;
}

/** True when circuits/build holds exactly the outputs the manifest describes. */
async function buildIsCurrent(): Promise<boolean> {
  const manifest = await readManifest();
  if (!manifest) return false;
  for (const name of CIRCUIT_NAMES) {
    const files = circuitFiles(name);
    const entry = manifest.circuits[name];
    if (!entry) return false;
    for (const [file, expected] of [
      [files.r1cs, entry.sha256.r1cs],
      [files.wasm, entry.sha256.wasm],
      [files.zkey, entry.sha256.zkey],
    ] as const) {
      if (!existsSync(file) || (await sha256File(file)) !== expected) return false;
    }
  }
  return true;
}

async function main(): Promise<void> {
  const command = process.argv[2] ?? "build";
  const started = Date.now();
  if (command === "build") {
    await writeOutputs(await buildAll({ reusePtau: true, buildDir: BUILD_DIR }));
    log(`done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  } else if (command === "check") {
    // Built from scratch beside the working build (which stays usable meanwhile); on success it
    // replaces it, so `npm test` after the check in CI finds a current build.
    await rm(CHECK_DIR, { recursive: true, force: true });
    const problems = await compareWithCommitted(
      await buildAll({ reusePtau: false, buildDir: CHECK_DIR }),
    );
    if (problems.length === 0) {
      for (const entry of ["ptau", ...CIRCUIT_NAMES]) {
        await rm(path.join(BUILD_DIR, entry), { recursive: true, force: true });
        await rename(path.join(CHECK_DIR, entry), path.join(BUILD_DIR, entry));
      }
      await rm(CHECK_DIR, { recursive: true, force: true });
    }
    if (problems.length > 0) {
      for (const p of problems) console.error(`[circuits] MISMATCH ${p}`);
      console.error("[circuits] run `npm run circuits` and commit the regenerated files");
      process.exitCode = 1;
    } else {
      log(
        `committed verifiers, keys and manifest match the circuits (${((Date.now() - started) / 1000).toFixed(1)} s)`,
      );
    }
  } else if (command === "ensure") {
    if (await buildIsCurrent()) {
      log("build is current");
    } else {
      const built = await buildAll({ reusePtau: true, buildDir: BUILD_DIR });
      const problems = await compareWithCommitted(built);
      if (problems.length > 0) {
        // The sources changed without a rebuild being committed: leave the committed files alone.
        for (const p of problems) console.error(`[circuits] MISMATCH ${p}`);
        console.error("[circuits] run `npm run circuits` and commit the regenerated files");
        process.exitCode = 1;
      }
    }
  } else if (command === "export") {
    // After replacing circuits/build/<name>/<name>.zkey with a ceremony's final zkey.
    const manifest = await readManifest();
    if (!manifest)
      throw new Error("circuits/manifest.json is missing: run `npm run circuits` first");
    const ptauAt = process.argv.indexOf("--ptau");
    const ptau = ptauAt > 0 ? process.argv[ptauAt + 1] : undefined;
    if (!ptau) {
      throw new Error(
        "export needs --ptau <the ceremony's phase 1 powers of tau>: every zkey is verified against it (docs/zk.md)",
      );
    }
    const ptauSha256 = await sha256File(ptau);
    if (!manifest.ceremony && ptauSha256 === manifest.ptau.sha256) {
      throw new Error(
        `${ptau} is the development powers of tau (public beacon): take a ceremony's (docs/zk.md step 1)`,
      );
    }
    const zkeys: Record<string, string> = {};
    for (const name of CIRCUIT_NAMES) {
      const files = circuitFiles(name);
      log(`verifying ${name}.zkey against its r1cs and ${ptau} (snarkjs zkey verify)`);
      if (!(await zkeyVerifies(files.r1cs, ptau, files.zkey))) {
        throw new Error(
          `${path.relative(REPO_ROOT, files.zkey)} does not verify against ${path.relative(REPO_ROOT, files.r1cs)} and ${ptau}: nothing exported`,
        );
      }
      zkeys[name] = await sha256File(files.zkey);
    }
    manifest.ceremony = {
      ptau: { sha256: ptauSha256, power: PTAU_POWER },
      verifiedWith: `snarkjs ${packageVersion("snarkjs")}`,
      verifiedAt: new Date().toISOString(),
      zkeys,
    };
    manifest.warning =
      "CEREMONY KEYS: zkeys verified against the r1cs and the ceremony's powers of tau (ceremony below); beacon and ptau describe the development setup they replaced.";
    for (const name of CIRCUIT_NAMES) {
      const files = circuitFiles(name);
      const { vkeyText, verifierText } = await exportKeys(name, files.zkey);
      await writeFile(files.vkey, vkeyText);
      await writeFile(files.verifier, verifierText);
      const sha = (text: string) => createHash("sha256").update(text).digest("hex");
      Object.assign(manifest.circuits[name].sha256, {
        zkey: await sha256File(files.zkey),
        vkey: sha(vkeyText),
        verifier: sha(verifierText),
      });
    }
    await writeFile(MANIFEST_PATH, JSON.stringify(manifest, null, 2) + "\n");
    log("exported verification keys and verifiers from circuits/build zkeys");
  } else {
    throw new Error(`unknown command ${command} (build | check | ensure | export)`);
  }
}

await main();
// snarkjs keeps worker threads alive.
process.exit(process.exitCode ?? 0);
