import { expect } from "chai";
import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import type { JsonRpcApiProvider } from "ethers";
import { Wallet } from "ethers";
import {
  addressOf,
  attestationKey,
  coreContracts,
  DEPLOYMENTS,
  deploymentOf,
  isDeployedChain,
} from "../../../clients/contracts/index.ts";
import { readDeployment } from "../../../relayer/deployments/index.ts";
import { DEVNET_ACCOUNTS } from "../../../relayer/devnet/accounts.ts";
import { DEVNET_OPERATOR, PROJECT_ROOT } from "../../../relayer/devnet/index.ts";
import { executionIdToBytes32 } from "../../../relayer/proofs/index.ts";
import { openAuditWorld, type AuditWorld } from "../../fixtures/audit-world.ts";
import { serveJsonRpc, type RpcBridge } from "../../fixtures/rpc-bridge.ts";

const run = promisify(execFile);
const EXAMPLE = path.join(PROJECT_ROOT, "examples/dapp-integration.ts");

interface ExampleOutput {
  chain: { chainId: number; network: string };
  attestation: {
    executionKey: string;
    workflowCommitment: string;
    executionCommitment: string;
    attester: string;
    timestamp: number;
  } | null;
  interaction: {
    requestId: string;
    txHash: string;
    endpointHash: string;
    responseHash: string;
    timestamp: number;
    matches: boolean;
  };
  circuit: { gateway: string; state: string; failures: number; threshold: number };
}

async function example(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const childEnv = { ...process.env, ...env };
  if (!("INTEGRATOR_PRIVATE_KEY" in env)) delete childEnv.INTEGRATOR_PRIVATE_KEY;
  return run(process.execPath, [EXAMPLE, ...args], { cwd: PROJECT_ROOT, env: childEnv }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (err: { code: number; stdout: string; stderr: string }) => ({
      code: err.code,
      stdout: err.stdout,
      stderr: err.stderr,
    }),
  );
}

describe("# veriflow/contracts", function () {
  describe("# addresses", function () {
    it("should carry every chain's deployment record and refuse an unknown chain", async function () {
      for (const key of Object.keys(DEPLOYMENTS)) {
        const recorded = await readDeployment(path.join(PROJECT_ROOT, "deployments"), Number(key));
        const record = deploymentOf(key);
        expect(record.network).to.equal(recorded.network);
        for (const [name, contract] of Object.entries(recorded.contracts)) {
          expect(addressOf(key, name), name).to.equal(contract.address);
        }
        for (const [symbol, token] of Object.entries(recorded.tokens)) {
          expect(addressOf(key, symbol), symbol).to.equal(token.address);
        }
      }
      expect(isDeployedChain(31337)).to.equal(true);
      expect(isDeployedChain(1)).to.equal(false);
      expect(() => deploymentOf(1)).to.throw(/no Veriflow deployment for chain 1 \(known: 31337/);
      expect(() => addressOf(31337, "NoSuchContract")).to.throw(/no contract or token/);
      // An inherited property is not a contract name.
      expect(() => addressOf(31337, "toString")).to.throw(/no contract or token/);
    });

    it("should key executions on chain as the relayer's attestor does", function () {
      for (const id of ["exec_01JD8X3V6N2Q5R7T9W0Y1Z2A3B", "x", "0x" + "ab".repeat(32)]) {
        expect(attestationKey(id)).to.equal(executionIdToBytes32(id));
      }
      expect(() => attestationKey("")).to.throw(/empty/);
    });
  });

  describe("# the dApp example on the devnet", function () {
    this.timeout(900_000);
    let world: AuditWorld;
    let bridge: RpcBridge;
    let executionId: string;
    let report: Awaited<ReturnType<AuditWorld["execute"]>>;

    before(async function () {
      world = await openAuditWorld();
      report = await world.execute("dapp-integrator");
      executionId = report.execution_id;
      const chain = world.engine.chains
        .list()
        .find((c) => c.chainId === report.attestation!.chain_id)!;
      bridge = await serveJsonRpc(chain.provider as JsonRpcApiProvider);
    });

    after(async function () {
      await bridge?.close();
      await world?.close();
    });

    it("should default to the devnet operator's public key, which holds the registry's roles", async function () {
      // The example carries the key as a literal (it imports nothing from the relayer).
      const source = await readFile(EXAMPLE, "utf8");
      expect(source).to.contain(DEVNET_OPERATOR.privateKey);
    });

    it("should read the attestation, log an interaction the registry records, and read the circuit", async function () {
      const out = await example(["--rpc", bridge.url, "--json"]);
      expect(out.code, out.stderr).to.equal(0);
      const result = JSON.parse(out.stdout.trim().split("\n").at(-1)!) as ExampleOutput;
      const chainId = report.attestation!.chain_id;
      expect(result.chain.chainId).to.equal(chainId);

      // The newest attestation is this execution's, as the report says and the chain records.
      const { attestor, proofRegistry, circuitBreaker } = coreContracts(
        chainId,
        world.engine.chains.list().find((c) => c.chainId === chainId)!.provider,
      );
      expect(result.attestation!.executionKey).to.equal(report.attestation!.execution_key);
      expect(result.attestation!.executionKey).to.equal(attestationKey(executionId));
      const onChain = await attestor.getAttestation(report.attestation!.execution_key);
      expect(result.attestation!.workflowCommitment).to.equal(
        report.attestation!.commitments!.workflow,
      );
      expect(result.attestation!.executionCommitment).to.equal(
        onChain.executionCommitment.toString(),
      );
      expect(result.attestation!.attester).to.equal(onChain.attester);

      // The interaction is in the registry, attributed to the signer in its event.
      expect(result.interaction.matches).to.equal(true);
      const record = await proofRegistry.records(result.interaction.requestId);
      expect(record.endpointHash).to.equal(result.interaction.endpointHash);
      expect(record.responseHash).to.equal(result.interaction.responseHash);
      expect(Number(record.timestamp)).to.equal(result.interaction.timestamp);
      const receipt = await world.engine.chains
        .list()
        .find((c) => c.chainId === chainId)!
        .provider.getTransactionReceipt(result.interaction.txHash);
      expect(receipt?.status).to.equal(1);
      expect(receipt?.from).to.equal(DEVNET_OPERATOR.address);

      // The router's circuit is closed with what the contract reports.
      expect(result.circuit.gateway).to.equal(addressOf(chainId, "UniswapRouter"));
      expect(result.circuit.state).to.equal("closed");
      expect(result.circuit.threshold).to.equal(Number(await circuitBreaker.threshold()));
      expect(result.circuit.failures).to.equal(
        Number(await circuitBreaker.failureCount(result.circuit.gateway)),
      );
    });

    it("should report an execution that was never attested as none, and an open circuit as open", async function () {
      const chain = world.engine.chains
        .list()
        .find((c) => c.chainId === report.attestation!.chain_id)!;
      const { circuitBreaker } = coreContracts(chain.chainId, chain.operator);
      const gateway = Wallet.createRandom().address;
      const threshold = Number(await circuitBreaker.threshold());
      for (let i = 0; i <= threshold; i++)
        await (await circuitBreaker.recordFailure(gateway)).wait();
      await (await circuitBreaker.trigger(gateway)).wait();

      const out = await example([
        "--rpc",
        bridge.url,
        "--json",
        "--execution",
        "exec_never_submitted",
        "--gateway",
        gateway,
      ]);
      expect(out.code, out.stderr).to.equal(0);
      const result = JSON.parse(out.stdout.trim().split("\n").at(-1)!) as ExampleOutput;
      expect(result.attestation).to.equal(null);
      expect(result.circuit).to.include({ gateway, state: "open" });
      expect(result.circuit.failures).to.equal(Number(await circuitBreaker.failureCount(gateway)));
    });

    it("should refuse a key without the registry's roles and log nothing", async function () {
      const chain = world.engine.chains
        .list()
        .find((c) => c.chainId === report.attestation!.chain_id)!;
      const before = await chain.provider.getBlockNumber();
      const stranger = DEVNET_ACCOUNTS[5]!;
      const out = await example(["--rpc", bridge.url], {
        INTEGRATOR_PRIVATE_KEY: stranger.privateKey,
      });
      expect(out.code).to.equal(1);
      expect(out.stderr).to.contain(`${stranger.address} lacks ProofRegistry's LOGGER_ROLE`);
      expect(await chain.provider.getBlockNumber()).to.equal(before);
      expect(out.stderr).to.not.contain(stranger.privateKey);
    });
  });
});
