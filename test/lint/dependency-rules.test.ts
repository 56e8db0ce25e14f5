import { execFile } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { expect } from "chai";

const REPO = path.resolve(import.meta.dirname, "../..");
const DEPCRUISE = path.join(REPO, "node_modules/.bin/depcruise");
const CONFIG = path.join(REPO, ".dependency-cruiser.cjs");

interface Violation {
  rule: { name: string };
  from: string;
  to: string;
}

/** The rules of `npm run lint:deps` over the relayer/ tree under `cwd`. */
async function violations(cwd: string): Promise<Violation[]> {
  const run = promisify(execFile);
  const { stdout } = await run(
    DEPCRUISE,
    ["relayer", "--config", CONFIG, "--output-type", "json", "--no-progress"],
    { cwd, maxBuffer: 64 * 1024 * 1024 },
  ).catch((err: { stdout?: string }) => ({ stdout: err.stdout ?? "" }));
  return (JSON.parse(stdout) as { summary: { violations: Violation[] } }).summary.violations;
}

describe("# dependency rules (npm run lint:deps)", function () {
  this.timeout(120_000);
  let dir: string;
  let folders: string;

  /** A relayer/ tree of the given files in a fresh directory. */
  async function seed(files: Record<string, string>): Promise<string> {
    const root = await mkdtemp(path.join(tmpdir(), "vf-deps-"));
    const tsconfig = JSON.stringify({ compilerOptions: { allowImportingTsExtensions: true } });
    for (const [name, text] of Object.entries({ "tsconfig.json": tsconfig, ...files })) {
      await mkdir(path.dirname(path.join(root, name)), { recursive: true });
      await writeFile(path.join(root, name), text);
    }
    return root;
  }

  before(async function () {
    dir = await seed({
      // a cycle between two areas
      "relayer/routing/index.ts": 'import { b } from "../agents/index.ts";\nexport const a = b;\n',
      "relayer/agents/index.ts":
        'import { a } from "../routing/index.ts";\nexport const b = () => a;\n',
      // a route file imported by something other than the root
      "relayer/workflows/routes.ts": "export const workflowRoutes = 1;\n",
      "relayer/execution/index.ts":
        'import { workflowRoutes } from "../workflows/routes.ts";\nexport const e = workflowRoutes;\n',
      // the platform importing an area
      "relayer/store/index.ts": 'import { e } from "../execution/index.ts";\nexport const s = e;\n',
      // an area importing the composition root
      "relayer/app/index.ts":
        'import { workflowRoutes } from "../workflows/routes.ts";\nexport const root = workflowRoutes;\n',
      "relayer/compliance/index.ts":
        'import { root } from "../app/index.ts";\nexport const c = root;\n',
      // an area reaching into another's module instead of its index.ts, and a module of its own
      "relayer/routing/plan.ts": "export const plan = 1;\n",
      "relayer/agents/bridge.ts":
        'import { plan } from "../routing/plan.ts";\nimport { b } from "./index.ts";\nexport const x = [plan, b];\n',
      // the root reaching past an area's index.ts and adapters
      "relayer/workflows/service.ts": "export const intake = 1;\n",
      "relayer/app/services.ts":
        'import { intake } from "../workflows/service.ts";\nexport const services = intake;\n',
      // the configuration reading an area's configuration schema
      "relayer/compliance/config.ts": "export const complianceSchema = 1;\n",
      "relayer/config/config.ts":
        'import { complianceSchema } from "../compliance/config.ts";\nexport const config = complianceSchema;\n',
    });
    // Two folders importing each other through different modules: no module cycle, a folder one;
    // a third folder importing one of them without being imported back.
    folders = await seed({
      "relayer/simulation/index.ts":
        'import { m } from "../monitors/index.ts";\nexport const s = m;\n',
      "relayer/monitors/index.ts": "export const m = 1;\n",
      "relayer/monitors/watch.ts":
        'import { s } from "../simulation/index.ts";\nexport const w = s;\n',
      "relayer/webhooks/index.ts":
        'import { m } from "../monitors/index.ts";\nexport const h = m;\n',
    });
  });

  after(async function () {
    await rm(dir, { recursive: true, force: true });
    await rm(folders, { recursive: true, force: true });
  });

  it("should find no violation in the relayer", async function () {
    expect(await violations(REPO)).to.deep.equal([]);
  });

  it("should refuse a cycle, a route imported outside the root, the platform importing an area, an area importing the root and an area reached past its index.ts", async function () {
    const found = (await violations(dir)).map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`);
    expect(found).to.include.members([
      "no-cycles: relayer/agents/index.ts -> relayer/routing/index.ts",
      "adapters-only-from-the-root: relayer/execution/index.ts -> relayer/workflows/routes.ts",
      "platform-below-areas: relayer/store/index.ts -> relayer/execution/index.ts",
      "root-only-from-entry-points: relayer/compliance/index.ts -> relayer/app/index.ts",
      "areas-through-their-index: relayer/agents/bridge.ts -> relayer/routing/plan.ts",
      "root-through-index-and-adapters: relayer/app/services.ts -> relayer/workflows/service.ts",
      "platform-below-areas: relayer/config/config.ts -> relayer/compliance/config.ts",
      "areas-through-their-index: relayer/config/config.ts -> relayer/compliance/config.ts",
    ]);
    const all = found.join("\n");
    expect(all).to.not.include("relayer/app/index.ts -> relayer/workflows/routes.ts");
    expect(all).to.not.include("relayer/agents/bridge.ts -> relayer/agents/index.ts");
  });

  it("should refuse two folders importing each other without a module cycle", async function () {
    const found = (await violations(folders)).map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`);
    expect(found.sort()).to.deep.equal([
      "no-folder-cycles: relayer/monitors -> relayer/simulation",
      "no-folder-cycles: relayer/simulation -> relayer/monitors",
    ]);
  });
});

describe("# process.env only in relayer/config/ (eslint)", function () {
  this.timeout(60_000);

  async function restricted(filePath: string): Promise<number> {
    const { ESLint } = await import("eslint");
    const [result] = await new ESLint({ cwd: REPO }).lintText(
      "export const port = process.env.PORT;\n",
      { filePath: path.join(REPO, filePath) },
    );
    return result!.messages.filter((m) => m.ruleId === "no-restricted-properties").length;
  }

  it("should refuse process.env in an area and allow it in relayer/config/", async function () {
    expect(await restricted("relayer/workflows/settings.ts")).to.equal(1);
    expect(await restricted("relayer/config/settings.ts")).to.equal(0);
  });
});
