import { expect } from "chai";
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { addressOf } from "../../../clients/contracts/index.ts";
import { signPayload } from "../../../relayer/auth/hmac.ts";

const run = promisify(execFile);
const REPO = path.resolve(import.meta.dirname, "../../..");

describe("# package exports (veriflow/sdk, veriflow/contracts)", function () {
  this.timeout(180_000);
  let consumer: string;

  before(async function () {
    // What `npm pack` runs (prepack): the SDK compiled to JavaScript with its declarations.
    await run(
      process.execPath,
      [path.join(REPO, "node_modules/typescript/bin/tsc"), "-p", "clients/tsconfig.build.json"],
      {
        cwd: REPO,
      },
    );
    consumer = await mkdtemp(path.join(os.tmpdir(), "vf-sdk-consumer-"));
    await writeFile(path.join(consumer, "package.json"), '{"type":"module"}');
    await mkdir(path.join(consumer, "node_modules"));
    await symlink(REPO, path.join(consumer, "node_modules", "veriflow"));
    // A dApp brings its own ethers (the bindings' peer); npm would hoist the package's copy.
    await symlink(
      path.join(REPO, "node_modules", "ethers"),
      path.join(consumer, "node_modules", "ethers"),
    );
  });

  after(async function () {
    if (consumer) await rm(consumer, { recursive: true, force: true });
  });

  it("should import as veriflow/sdk from another project and sign as the relayer verifies", async function () {
    await writeFile(
      path.join(consumer, "use.mjs"),
      [
        'import { VeriflowClient, signatureHeaders } from "veriflow/sdk";',
        'const h = await signatureHeaders({ apiKey: "k", signingSecret: "secret" }, new TextEncoder().encode("{}"), 1700000000000);',
        "console.log(JSON.stringify({ client: typeof VeriflowClient, signature: h['X-SVC-Signature'] }));",
      ].join("\n"),
    );
    const { stdout } = await run(process.execPath, ["use.mjs"], { cwd: consumer });
    const out = JSON.parse(stdout) as { client: string; signature: string };
    expect(out.client).to.equal("function");
    expect(out.signature).to.equal(signPayload("secret", "1700000000000", "{}"));
  });

  it("should import typed contract bindings and addresses as veriflow/contracts", async function () {
    await writeFile(
      path.join(consumer, "contracts.mjs"),
      [
        'import { ProofRegistry__factory, addressOf, coreContracts, DEPLOYMENTS } from "veriflow/contracts";',
        'import { JsonRpcProvider } from "ethers";',
        "const provider = new JsonRpcProvider('http://127.0.0.1:9', 31337, { staticNetwork: true });",
        "const { proofRegistry } = coreContracts(31337, provider);",
        "console.log(JSON.stringify({",
        "  chains: Object.keys(DEPLOYMENTS),",
        "  registry: await proofRegistry.getAddress(),",
        "  logs: ProofRegistry__factory.createInterface().getFunction('logAPIInteraction').format(),",
        "}));",
        "provider.destroy();",
      ].join("\n"),
    );
    const { stdout } = await run(process.execPath, ["contracts.mjs"], { cwd: consumer });
    const out = JSON.parse(stdout) as { chains: string[]; registry: string; logs: string };
    expect(out.chains).to.deep.equal(["31337", "31338", "31339"]);
    expect(out.registry).to.equal(addressOf(31337, "ProofRegistry"));
    expect(out.logs).to.equal("logAPIInteraction(string,string,bytes)");
  });
});
