import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect } from "chai";
import { isChainUnavailable, openChains, type ChainSet } from "../../relayer/chains/index.ts";
import { readDeployment, writeDeployment } from "../../relayer/deployments/index.ts";
import { PROJECT_ROOT } from "../../relayer/devnet/artifacts.ts";
import { startDevnetNode, type DevnetNode } from "../../relayer/devnet/nodes.ts";
import { DEVNET_CHAIN_NAMES } from "../../relayer/devnet/plan.ts";
import { deployDevnetOverRpc } from "../../relayer/devnet/rpc.ts";
import { freePort } from "../fixtures/net.ts";

describe("# devnet over JSON-RPC (hardhat node processes)", function () {
  this.timeout(180_000);
  const nodes: DevnetNode[] = [];
  let root: string;
  let chains: ChainSet | undefined;

  before(async function () {
    root = await mkdtemp(path.join(tmpdir(), "veriflow-devnet-"));
    for (const name of DEVNET_CHAIN_NAMES) {
      nodes.push(await startDevnetNode(name, { port: await freePort() }));
    }
  });

  after(async function () {
    await chains?.close();
    await Promise.allSettled(nodes.map((n) => n.stop()));
    await rm(root, { recursive: true, force: true });
  });

  it("should deploy each node exactly as the committed deployments record it", async function () {
    for (const node of nodes) {
      const result = await deployDevnetOverRpc(node.name, node.url, root);
      expect(result.alreadyDeployed).to.equal(false);
      const committed = await readDeployment(path.join(PROJECT_ROOT, "deployments"), node.chainId);
      expect(result.deployment).to.deep.equal(committed);
      await writeDeployment(root, result.deployment, result.abis);
    }
  });

  it("should detect the deployment on a second run and send nothing", async function () {
    const again = await deployDevnetOverRpc(nodes[0]!.name, nodes[0]!.url, root);
    expect(again.alreadyDeployed).to.equal(true);
  });

  it("should open the rpc chain set on the nodes and its deployments", async function () {
    chains = await openChains({
      mode: "rpc",
      deploymentsDir: root,
      rpcUrls: Object.fromEntries(nodes.map((n) => [n.name, n.url])),
    });
    expect(chains.list().map((c) => c.chainId)).to.deep.equal([31337, 31338, 31339]);
    const polygon = chains.byId(31339);
    const operator = await polygon.operator.getAddress();
    expect(await polygon.contract("USDC").getFunction("balanceOf")(operator)).to.equal(10n ** 12n);
    expect((await polygon.provider.getBlock("latest"))!.baseFeePerGas).to.equal(2_000_000_000n);
    // The relayer did not start these nodes: it cannot stop them.
    let error: Error | undefined;
    await polygon.faults!.stopRpc().catch((err: Error) => (error = err));
    expect(error?.message).to.match(/not started by this process/);
  });

  it("should answer JSON-RPC from a web page's origin (CORS, as the browser auditor needs)", async function () {
    const origin = "http://page.example";
    const preflight = await fetch(nodes[0]!.url, {
      method: "OPTIONS",
      headers: {
        Origin: origin,
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "content-type",
      },
    });
    expect(preflight.ok).to.equal(true);
    expect(preflight.headers.get("access-control-allow-origin")).to.equal("*");
    expect(preflight.headers.get("access-control-allow-headers")).to.equal("*");
    const answer = await fetch(nodes[0]!.url, {
      method: "POST",
      headers: { Origin: origin, "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] }),
    });
    expect(answer.headers.get("access-control-allow-origin")).to.equal("*");
    expect(((await answer.json()) as { result: string }).result).to.equal("0x7a69");
  });

  it("should raise a node's base fee over JSON-RPC", async function () {
    const arbitrum = chains!.byName("arbitrum");
    const raised = await arbitrum.faults!.raiseBaseFee(20);
    expect((await arbitrum.provider.getBlock("latest"))!.baseFeePerGas).to.equal(raised);
    await arbitrum.faults!.restoreBaseFee();
    expect((await arbitrum.provider.getBlock("latest"))!.baseFeePerGas).to.equal(100_000_000n);
  });

  it("should run `npm run devnet` (scripts/devnet.ts) against running nodes: reuse them, deploy nothing, leave them up", async function () {
    const script = spawn(
      process.execPath,
      [
        path.join(PROJECT_ROOT, "scripts", "devnet.ts"),
        "--ports",
        nodes.map((n) => new URL(n.url).port).join(","),
        "--deployments-dir",
        root,
      ],
      { cwd: PROJECT_ROOT, stdio: ["ignore", "pipe", "pipe"] },
    );
    let output = "";
    script.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => script.once("exit", resolve));
    await new Promise<void>((resolve, reject) => {
      script.stdout.on("data", (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes("Ctrl-C stops the devnet")) resolve();
      });
      script.once("exit", (code) =>
        reject(new Error(`devnet script exited with ${code}: ${output}`)),
      );
    });
    expect(output).to.include("ethereum: already deployed, nothing to do");
    expect(output).to.match(/polygon +chainId 31339 +http:\/\/127\.0\.0\.1:\d+ +\(reused\)/);
    expect(output).to.include("operator (account #1) 0x70997970C51812dc3A010C7d01b50e0d17dc79C8");
    script.kill("SIGTERM");
    expect(await exited).to.equal(0);
    expect(nodes.every((n) => n.running())).to.equal(true);
  });

  it("should look down while its node process is stopped, and redeploy identically when restarted", async function () {
    const node = nodes[2]!;
    const polygon = chains!.byName(node.name);
    await node.stop();
    let error: unknown;
    await polygon.provider.getBlockNumber().catch((err: unknown) => (error = err));
    expect(isChainUnavailable(error), String(error)).to.equal(true);

    await node.start(); // a fresh chain: the deployment is gone, the same code puts it back
    const fresh = await deployDevnetOverRpc(node.name, node.url, root);
    expect(fresh.alreadyDeployed).to.equal(false);
    expect(fresh.deployment).to.deep.equal(polygon.deployment);
    expect(
      await polygon.provider.getCode(polygon.deployment.contracts.LockMintBridge!.address),
    ).to.not.equal("0x");
  });
});
