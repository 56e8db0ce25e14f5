/**
 * `npm run build:audit-page [-- --chains FILE] [--out FILE]`: the browser auditor.
 *
 * Bundles the auditor library (relayer/audit/page/entry.ts: the same checks as `npm run audit`,
 * with the browser builds of ethers and snarkjs) with esbuild into `dist/audit-page/auditor.js`,
 * which the relayer serves at `GET /audit`, and writes one self-contained HTML file
 * (default `dist/audit-page/veriflow-audit.html`) embedding that script and the trust anchors:
 * the deployments of a chains file (default: the devnet's, with the repository's `deployments/`),
 * the verification key and the verifier bytecode compiled from this repository. Open the file in
 * a browser, pick a report, enter RPC URLs. Nothing is downloaded, at build or at run time.
 * `--ensure` (run before `npm start`, `npm test` and the demo) only re-bundles when one of the
 * bundle's sources changed (their SHA-256 are recorded beside it).
 */
import { createHash } from "node:crypto";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { builtinModules } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import * as esbuild from "esbuild";
import { AuditInputError } from "../relayer/audit/index.ts";
import { AUDIT_BUNDLE_FILE, AUDIT_PAGE_DIR, auditPageConfig } from "../relayer/audit/node.ts";
import { auditPageHtml } from "../relayer/audit/page/html.ts";
import { PROJECT_ROOT } from "../relayer/devnet/artifacts.ts";

const USAGE = "usage: npm run build:audit-page -- [--chains FILE] [--out FILE] | --ensure";

/**
 * Packages the auditor's modules use in the browser. Any other package a relayer module imports
 * (Hardhat, EDR, the database drivers, the HTTP server, ...) serves the relayer only: the modules
 * importing it are not part of the auditor, so it is replaced by an absent module (as are Node's
 * built-ins, which some libraries import for functions the auditor never calls), and any use of
 * one in the page throws, naming it.
 */
const BROWSER_PACKAGES = new Set([
  "ethers",
  "snarkjs",
  "circomlibjs",
  "zod",
  "multiformats",
  "canonicalize",
  "@ipld/car",
  "@openzeppelin/merkle-tree",
  // The error schemas (relayer/http/errors.ts) the proofs' errors extend are built at import.
  "@hono/zod-openapi",
]);

const packageName = (specifier: string) =>
  specifier.startsWith("@") ? specifier.split("/").slice(0, 2).join("/") : specifier.split("/")[0]!;

const browserOnly: esbuild.Plugin = {
  name: "veriflow-browser-only",
  setup(build) {
    const relayerDir = path.join(PROJECT_ROOT, "relayer") + path.sep;
    const absent = (name: string) => ({ path: name, namespace: "absent", sideEffects: false });
    build.onResolve({ filter: /.*/ }, (args) => {
      if (args.kind === "entry-point") return undefined;
      const specifier = args.path;
      if (specifier.startsWith("node:") || builtinModules.includes(specifier))
        return absent(specifier);
      if (!args.importer.startsWith(relayerDir)) return undefined;
      // The relayer's modules have no import-time effect the auditor relies on: an area's
      // index.ts re-exports its whole surface, and only what the auditor uses is bundled.
      if (specifier.startsWith("."))
        return { path: path.resolve(args.resolveDir, specifier), sideEffects: false };
      // circomlibjs's index pulls in every primitive; the auditor needs Poseidon only.
      if (specifier === "circomlibjs")
        return {
          path: path.join(PROJECT_ROOT, "node_modules/circomlibjs/src/poseidon_wasm.js"),
          sideEffects: false,
        };
      if (BROWSER_PACKAGES.has(packageName(specifier))) return undefined;
      return absent(specifier);
    });
    // Some modules compute file paths at import (never opened in the page): plain string joins.
    build.onLoad({ filter: /^(node:)?path$/, namespace: "absent" }, () => ({
      loader: "js",
      contents: `const join = (...parts) => parts.filter((p) => typeof p === "string" && p).join("/").replace(/\\/+/g, "/");
const path = { sep: "/", join, resolve: join, normalize: join, dirname: (p) => String(p).replace(/\\/[^/]*$/, "") || "/", basename: (p) => String(p).replace(/.*\\//, ""), relative: (_, to) => to, isAbsolute: (p) => String(p).startsWith("/"), extname: (p) => (String(p).match(/\\.[^./]*$/) || [""])[0] };
module.exports = { ...path, default: path };`,
    }));
    build.onLoad({ filter: /.*/, namespace: "absent" }, (args) => ({
      loader: "js",
      contents: `const fail = (name) => () => { throw new Error(${JSON.stringify(args.path)} + "." + name + " is not available in the browser auditor"); };
module.exports = new Proxy({}, { get: (_, name) => (name === "__esModule" ? false : fail(String(name))) });`,
    }));
  },
};

/** The bundle's inputs and their SHA-256, recorded beside it (what `--ensure` compares). */
const INPUTS_FILE = path.join(AUDIT_PAGE_DIR, "auditor.inputs.json");

async function digestInputs(files: readonly string[]): Promise<Record<string, string>> {
  const entries = await Promise.all(
    files.map(async (f) => {
      const bytes = await readFile(path.resolve(PROJECT_ROOT, f)).catch(() => null);
      return [f, bytes ? createHash("sha256").update(bytes).digest("hex") : "missing"] as const;
    }),
  );
  return Object.fromEntries(entries);
}

/** Whether the bundle on disk was built from exactly the sources there now. */
async function bundleIsCurrent(): Promise<boolean> {
  try {
    await readFile(AUDIT_BUNDLE_FILE);
    const recorded = JSON.parse(await readFile(INPUTS_FILE, "utf8")) as Record<string, string>;
    const now = await digestInputs(Object.keys(recorded));
    return Object.keys(recorded).length > 0 && JSON.stringify(now) === JSON.stringify(recorded);
  } catch {
    return false;
  }
}

/** The auditor bundled for the browser: an IIFE defining the global `VeriflowAudit`. */
export async function bundleAuditor(): Promise<string> {
  const result = await esbuild.build({
    absWorkingDir: PROJECT_ROOT,
    metafile: true,
    entryPoints: [path.join(PROJECT_ROOT, "relayer/audit/page/entry.ts")],
    bundle: true,
    platform: "browser",
    format: "iife",
    globalName: "VeriflowAudit",
    target: "es2022",
    minify: process.env.AUDIT_PAGE_DEBUG ? false : true,
    legalComments: "none",
    write: false,
    logLevel: "warning",
    // Relayer modules that locate files from import.meta are Node-only and never called here.
    logOverride: { "empty-import-meta": "silent" },
    plugins: [browserOnly],
  });
  const text = result.outputFiles[0]!.text;
  // The sources, and this script (its options shape the bundle).
  const inputs = [
    ...Object.keys(result.metafile.inputs).filter((f) => !f.includes(":")),
    path.relative(PROJECT_ROOT, fileURLToPath(import.meta.url)),
  ];
  await writeAtomically(AUDIT_BUNDLE_FILE, text);
  await writeAtomically(INPUTS_FILE, JSON.stringify(await digestInputs(inputs), null, 1) + "\n");
  return text;
}

/** `--ensure` (prestart, pretest): bundles only when a source changed since the last bundle. */
export async function ensureAuditBundle(): Promise<boolean> {
  if (await bundleIsCurrent()) return false;
  await bundleAuditor();
  return true;
}

async function writeAtomically(file: string, text: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  await writeFile(temp, text);
  await rename(temp, file);
}

/** Builds the bundle and the self-contained page; returns the page's path. */
export async function buildAuditPage(
  options: { chainsFile?: string; out?: string } = {},
): Promise<{ page: string; bundle: string }> {
  const [bundle, config] = await Promise.all([
    bundleAuditor(),
    auditPageConfig({ chainsFile: options.chainsFile }),
  ]);
  const page = path.resolve(options.out ?? path.join(AUDIT_PAGE_DIR, "veriflow-audit.html"));
  await writeAtomically(page, auditPageHtml(bundle, config));
  return { page, bundle: AUDIT_BUNDLE_FILE };
}

async function main(argv: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        chains: { type: "string" },
        out: { type: "string" },
        ensure: { type: "boolean" },
      },
    }));
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${USAGE}\n`);
    return 2;
  }
  try {
    const started = performance.now();
    if (values.ensure) {
      if (await ensureAuditBundle())
        process.stdout.write(
          `[audit-page] bundled ${path.relative(process.cwd(), AUDIT_BUNDLE_FILE)}\n`,
        );
      return 0;
    }
    const built = await buildAuditPage({ chainsFile: values.chains, out: values.out });
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    process.stdout.write(
      `[audit-page] ${path.relative(process.cwd(), built.page)} and ${path.relative(process.cwd(), built.bundle)} (${seconds} s)\n`,
    );
    return 0;
  } catch (err) {
    if (!(err instanceof AuditInputError)) throw err;
    process.stderr.write(`build:audit-page: ${err.message}\n`);
    return 2;
  }
}

if (import.meta.main) process.exitCode = await main(process.argv.slice(2));
