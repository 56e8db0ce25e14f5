/**
 * `npm run bench:first-run [-- --repo PATH_OR_URL] [--keep] [--circuits-from DIR]`: the time from a fresh clone to the
 * first completed workflow, following the README as a new user would: clone, `npm install`,
 * `npm start` (whose prestart builds the circuits' development keys on a fresh clone), then
 * `npx veriflow login` with the printed key and secret and
 * `npx veriflow submit examples/treasury-rebalance.json --watch` until it exits 0.
 * Writes bench/results/first-run.json with each phase's seconds and the machine's conditions.
 *
 * `--circuits-from DIR` copies an already built circuits/build into the clone before `npm start`
 * (its prestart then finds the keys current): a quick sanity run of every other step. Such a run
 * is not the first-run figure; its result says so and is written to first-run-sanity.json.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { cp, mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";

const HERE = import.meta.dirname;
const { values } = parseArgs({
  options: {
    repo: { type: "string", default: path.resolve(HERE, "..") },
    keep: { type: "boolean", default: false },
    "circuits-from": { type: "string" },
  },
});

function say(line: string): void {
  process.stdout.write(`${line}\n`);
}

/** Runs a command to completion (inheriting output unless captured); throws on a non-zero exit. */
function run(
  command: string,
  args: string[],
  options: { cwd: string; input?: string; env?: NodeJS.ProcessEnv },
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: [options.input === undefined ? "ignore" : "pipe", "pipe", "inherit"],
    });
    let out = "";
    child.stdout!.on("data", (c: Buffer) => {
      out += c.toString();
      process.stdout.write(c);
    });
    if (options.input !== undefined) child.stdin!.end(options.input);
    child.once("error", reject);
    child.once("exit", (code) =>
      code === 0 ? resolve(out) : reject(new Error(`${command} ${args.join(" ")} exited ${code}`)),
    );
  });
}

async function main(): Promise<void> {
  const work = await mkdtemp(path.join(os.tmpdir(), "vf-first-run-"));
  const clone = path.join(work, "veriflow");
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.startsWith("VERIFLOW_") && name !== "NODE_ENV") env[name] = value;
  }
  // Any free port (the README's 8787 may be taken on a shared machine); a private profile file.
  Object.assign(env, { PORT: "0", VERIFLOW_CONFIG: path.join(work, "profiles.json") });
  const phases: Record<string, number> = {};
  const started = performance.now();
  const phase = async <T>(name: string, fn: () => Promise<T>): Promise<T> => {
    const t0 = performance.now();
    say(`\n== ${name}`);
    const result = await fn();
    phases[name] = Math.round((performance.now() - t0) / 100) / 10;
    say(`== ${name}: ${phases[name]} s`);
    return result;
  };
  let relayer: ChildProcess | undefined;
  try {
    await phase("clone", () =>
      run("git", ["clone", "--quiet", values.repo!, clone], { cwd: work }),
    );
    await phase("install", () =>
      run("npm", ["install", "--no-audit", "--no-fund"], { cwd: clone, env }),
    );
    const circuitsFrom = values["circuits-from"];
    if (circuitsFrom) {
      await cp(path.resolve(circuitsFrom), path.join(clone, "circuits/build"), { recursive: true });
    }
    const banner = await phase("start", async () => {
      relayer = spawn("npm", ["start"], {
        cwd: clone,
        env,
        stdio: ["ignore", "ignore", "pipe"],
        detached: true,
      });
      return new Promise<string>((resolve, reject) => {
        let text = "";
        relayer!.stderr!.on("data", (c: Buffer) => {
          text += c.toString();
          process.stderr.write(c);
          if (/listening on http/.test(text)) resolve(text);
        });
        relayer!.once("exit", (code) => reject(new Error(`npm start exited ${code}`)));
      });
    });
    const url = /listening on (http:\/\/\S+) /.exec(banner)![1]!;
    const key = /X-SVC-Key:\s+(\S+)/.exec(banner)![1]!;
    const secret = /signing secret:\s+(\S+)/.exec(banner)![1]!;
    await phase("login", () =>
      run("npx", ["veriflow", "login", "--url", url, "--key", key], {
        cwd: clone,
        env,
        input: `${secret}\n`,
      }),
    );
    await phase("submit --watch", () =>
      run("npx", ["veriflow", "submit", "examples/treasury-rebalance.json", "--watch"], {
        cwd: clone,
        env,
      }),
    );
    const total = Math.round((performance.now() - started) / 100) / 10;
    const result = {
      what: circuitsFrom
        ? "sanity run: a fresh clone to the first completed workflow with the circuits' keys copied in (not the first-run figure)"
        : "fresh clone to the first completed workflow, following the README",
      commit: (await run("git", ["rev-parse", "HEAD"], { cwd: clone })).trim(),
      total_seconds: total,
      phases_seconds: phases,
      conditions: {
        measured_at: new Date().toISOString(),
        cpus: os.cpus().length,
        load_average: os.loadavg().map((l) => Math.round(l * 100) / 100),
        node: process.version,
        npm_cache: "the machine's npm cache as found (a cold cache downloads every package)",
      },
    };
    await mkdir(path.join(HERE, "results"), { recursive: true });
    await writeFile(
      path.join(HERE, "results", circuitsFrom ? "first-run-sanity.json" : "first-run.json"),
      `${JSON.stringify(result, null, 2)}\n`,
    );
    say(`\nfresh clone → first completed workflow: ${total} s (${result.what})`);
  } finally {
    if (relayer?.pid && relayer.exitCode === null) {
      // npm start runs the relayer as its child: stop the whole group.
      process.kill(-relayer.pid, "SIGTERM");
      await new Promise((resolve) => relayer!.once("exit", resolve));
    }
    if (!values.keep) await rm(work, { recursive: true, force: true });
    else say(`kept ${work}`);
  }
}

await main();
