import { expect } from "chai";
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { signPayload } from "../../../relayer/auth/hmac.ts";

const run = promisify(execFile);
const REPO = path.resolve(import.meta.dirname, "../../..");

describe("# SDK package export", function () {
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
});
