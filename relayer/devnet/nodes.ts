import { spawn, type ChildProcess } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";
import { JsonRpcProvider, toQuantity } from "ethers";
import { PROJECT_ROOT } from "./artifacts.ts";
import { DEVNET_CHAINS } from "./chains.ts";
import type { NodeControl } from "./faults.ts";
import type { DevnetChainName } from "./plan.ts";

const require = createRequire(import.meta.url);
const HARDHAT_CLI = path.join(
  path.dirname(require.resolve("hardhat/package.json")),
  "dist",
  "src",
  "cli.js",
);

/** How long a `hardhat node` may take to answer after being spawned. */
const NODE_START_TIMEOUT_MS = 60_000;

/** A devnet chain served over JSON-RPC by a `hardhat node` process. */
export interface DevnetNode extends NodeControl {
  name: DevnetChainName;
  chainId: number;
  url: string;
  /** False when an already running node was found on the port (then `stop` cannot stop it). */
  owned: boolean;
  /** Whether the node currently answers. */
  running(): boolean;
}

/** Asks `url` for its chain id; undefined when nothing answers. */
export async function probeChainId(url: string): Promise<bigint | undefined> {
  try {
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] }),
      signal: AbortSignal.timeout(2_000),
    });
    const body = (await response.json()) as { result?: string };
    return body.result ? BigInt(body.result) : undefined;
  } catch {
    return undefined;
  }
}

async function waitForChain(
  url: string,
  chainId: number,
  child: ChildProcess,
  output: () => string,
) {
  const deadline = Date.now() + NODE_START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      throw new Error(`hardhat node for ${url} exited with code ${child.exitCode}: ${output()}`);
    }
    if ((await probeChainId(url)) === BigInt(chainId)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill("SIGKILL");
  throw new Error(
    `hardhat node for ${url} did not answer within ${NODE_START_TIMEOUT_MS} ms: ${output()}`,
  );
}

/**
 * Serves devnet chain `name` over JSON-RPC with `hardhat node --network NAME`, on Node 24 (the
 * project's runtime). If a node of the right chain already answers on the port it is reused.
 */
export async function startDevnetNode(
  name: DevnetChainName,
  options: { hostname?: string; port?: number } = {},
): Promise<DevnetNode> {
  const { chainId } = DEVNET_CHAINS[name];
  const hostname = options.hostname ?? "127.0.0.1";
  const port = options.port ?? DEVNET_CHAINS[name].defaultPort;
  const url = `http://${hostname}:${port}`;

  const existing = await probeChainId(url);
  if (existing !== undefined) {
    if (existing !== BigInt(chainId)) {
      throw new Error(`port ${port} already serves chainId ${existing}, not ${name} (${chainId})`);
    }
    return {
      name,
      chainId,
      url,
      owned: false,
      running: () => true,
      async stop() {
        throw new Error(`the ${name} node on ${url} was not started by this process`);
      },
      async start() {},
    };
  }

  let child: ChildProcess | undefined;
  const spawnNode = async () => {
    let output = "";
    const proc = spawn(
      process.execPath,
      [HARDHAT_CLI, "node", "--network", name, "--hostname", hostname, "--port", String(port)],
      { cwd: PROJECT_ROOT, stdio: ["ignore", "pipe", "pipe"] },
    );
    // Keep the tail of the output for error messages; the node logs every request.
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-4_000);
    };
    proc.stdout?.on("data", keep);
    proc.stderr?.on("data", keep);
    child = proc;
    await waitForChain(url, chainId, proc, () => output);
  };
  const stopNode = async () => {
    const proc = child;
    if (!proc || proc.exitCode !== null) return;
    const exited = new Promise((resolve) => proc.once("exit", resolve));
    proc.kill("SIGTERM");
    await exited;
    child = undefined;
  };
  await spawnNode();
  return {
    name,
    chainId,
    url,
    owned: true,
    running: () => child !== undefined && child.exitCode === null,
    stop: stopNode,
    async start() {
      if (child && child.exitCode === null) return;
      await spawnNode();
    },
  };
}

/**
 * Keeps a JSON-RPC chain's base fee at its level: after each block whose base fee fell below the
 * level (EIP-1559 lowers it on quiet blocks), the next block's base fee is set back to it. A base fee
 * raised above the level (fault injection) is left to decay on its own. Returns a stop function.
 */
export function keepBaseFee(url: string, chainId: number, level: bigint, pollMs = 100): () => void {
  const provider = new JsonRpcProvider(url, chainId, {
    staticNetwork: true,
    pollingInterval: pollMs,
  });
  let lastSeen = -1;
  const onBlock = async (blockNumber: number) => {
    if (blockNumber <= lastSeen) return;
    lastSeen = blockNumber;
    try {
      const block = await provider.getBlock(blockNumber);
      if (block?.baseFeePerGas != null && block.baseFeePerGas < level) {
        await provider.send("hardhat_setNextBlockBaseFeePerGas", [toQuantity(level)]);
      }
    } catch {
      // The node may be restarting (fault injection); the next block retries.
    }
  };
  void provider.on("block", onBlock);
  return () => {
    provider.destroy();
  };
}
