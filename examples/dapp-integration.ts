/**
 * A dApp integrator's tour of Veriflow's on-chain core, on the devnet, with the typed bindings
 * and addresses of `veriflow/contracts` (docs/contracts.md walks through it):
 *
 *   1. read an execution's attestation from ExecutionAttestor (the one given, else the latest);
 *   2. log an API interaction in ProofRegistry (EIP-712 signed) and read the record back;
 *   3. check a gateway's circuit in CircuitBreakerGateway.
 *
 *   npx node examples/dapp-integration.ts [--rpc URL] [--execution ID] [--gateway ADDRESS] [--json]
 *
 * --rpc defaults to `npm run devnet`'s ethereum chain (http://127.0.0.1:8545). Logging needs an
 * account holding ProofRegistry's LOGGER_ROLE and SIGNER_ROLE: its key is read from the
 * environment (INTEGRATOR_PRIVATE_KEY); on the devnet chains only, it defaults to the devnet
 * operator (account #1 of the public test mnemonic), which holds both. Outside this repository
 * import from "veriflow/contracts" instead of the relative path.
 */
import { parseArgs } from "node:util";
import { JsonRpcProvider, keccak256, toUtf8Bytes, Wallet } from "ethers";
import {
  addressOf,
  attestationKey,
  CIRCUIT_STATES,
  coreContracts,
  deploymentOf,
} from "../clients/contracts/index.ts";

/** Hardhat's account #1 of "test test … junk": public, devnet only. */
const DEVNET_OPERATOR_KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";
const DEVNET_CHAIN_IDS = new Set([31337n, 31338n, 31339n]);

const { values } = parseArgs({
  options: {
    rpc: { type: "string", default: "http://127.0.0.1:8545" },
    execution: { type: "string" },
    gateway: { type: "string" },
    json: { type: "boolean", default: false },
  },
});

const provider = new JsonRpcProvider(values.rpc, undefined, { staticNetwork: true });
const out: Record<string, unknown> = {};
const say = (line: string) => {
  if (!values.json) console.log(line);
};

try {
  const { chainId } = await provider.getNetwork();
  const deployment = deploymentOf(chainId);
  const { proofRegistry, circuitBreaker, attestor } = coreContracts(chainId, provider);
  out.chain = { chainId: Number(chainId), network: deployment.network };
  say(
    `chain ${chainId} (${deployment.network}), ProofRegistry ${await proofRegistry.getAddress()}`,
  );

  // 1. An attestation: the one named, else the newest ExecutionAttested event since deployment.
  let key: string | null = values.execution ? attestationKey(values.execution) : null;
  if (key === null) {
    const events = await attestor.queryFilter(
      attestor.filters.ExecutionAttested(),
      deployment.contracts.ExecutionAttestor.blockNumber,
    );
    key = events.at(-1)?.args.executionId ?? null;
  }
  if (key === null || !(await attestor.isAttested(key))) {
    out.attestation = null;
    say(`attestation: none ${values.execution ? `for ${values.execution}` : "on this chain yet"}`);
  } else {
    const a = await attestor.getAttestation(key);
    out.attestation = {
      executionKey: key,
      workflowCommitment: a.workflowCommitment.toString(),
      executionCommitment: a.executionCommitment.toString(),
      attester: a.attester,
      timestamp: Number(a.timestamp),
    };
    say(
      `attestation ${key}: attested by ${a.attester} at ${new Date(Number(a.timestamp) * 1000).toISOString()}`,
    );
    say(
      `  workflow commitment ${a.workflowCommitment}, execution commitment ${a.executionCommitment}`,
    );
  }

  // 2. Log an API interaction: the signer signs {endpointHash, responseHash} under the
  // registry's EIP-712 domain (read from the contract, ERC-5267); the logger submits it.
  const privateKey =
    process.env.INTEGRATOR_PRIVATE_KEY ??
    (DEVNET_CHAIN_IDS.has(chainId) ? DEVNET_OPERATOR_KEY : undefined);
  if (!privateKey)
    throw new Error("set INTEGRATOR_PRIVATE_KEY (an account with LOGGER_ROLE and SIGNER_ROLE)");
  const wallet = new Wallet(privateKey, provider);
  for (const role of ["LOGGER_ROLE", "SIGNER_ROLE"] as const) {
    if (!(await proofRegistry.hasRole(await proofRegistry[role](), wallet.address))) {
      throw new Error(`${wallet.address} lacks ProofRegistry's ${role}`);
    }
  }
  const endpoint = `GET https://api.example.com/v1/prices?pair=ETH-USDC#veriflow-interaction=${crypto.randomUUID()}`;
  const response = JSON.stringify({
    pair: "ETH-USDC",
    price: "3012.55",
    at: new Date().toISOString(),
  });
  const [, name, version, domainChainId, verifyingContract] = await proofRegistry.eip712Domain();
  const value = {
    endpointHash: keccak256(toUtf8Bytes(endpoint)),
    responseHash: keccak256(toUtf8Bytes(response)),
  };
  const signature = await wallet.signTypedData(
    { name, version, chainId: domainChainId, verifyingContract },
    {
      APIInteraction: [
        { name: "endpointHash", type: "bytes32" },
        { name: "responseHash", type: "bytes32" },
      ],
    },
    value,
  );
  const tx = await proofRegistry.connect(wallet).logAPIInteraction(endpoint, response, signature);
  const receipt = await tx.wait();
  if (!receipt || receipt.status !== 1) throw new Error(`logAPIInteraction ${tx.hash} failed`);
  const logged = receipt.logs
    .map((log) => proofRegistry.interface.parseLog(log))
    .find((parsed) => parsed?.name === "APILogged");
  if (!logged) throw new Error(`no APILogged event in ${tx.hash}`);
  const requestId = logged.args.requestId as string;
  const record = await proofRegistry.records(requestId);
  const matches =
    record.endpointHash === value.endpointHash && record.responseHash === value.responseHash;
  out.interaction = {
    requestId,
    txHash: tx.hash,
    blockNumber: receipt.blockNumber,
    endpointHash: record.endpointHash,
    responseHash: record.responseHash,
    timestamp: Number(record.timestamp),
    matches,
  };
  say(`logged interaction ${requestId} in ${tx.hash} (block ${receipt.blockNumber})`);
  say(`  record ${matches ? "matches" : "DOES NOT match"} the endpoint and response hashes`);

  // 3. A circuit: the gateway given, else the devnet's Uniswap router (the relayer's swaps).
  const gateway = values.gateway ?? addressOf(chainId, "UniswapRouter");
  const [state, failures, threshold, cooldown, window, resetAt] = await Promise.all([
    circuitBreaker.state(gateway),
    circuitBreaker.failureCount(gateway),
    circuitBreaker.threshold(),
    circuitBreaker.cooldown(),
    circuitBreaker.failureWindow(),
    circuitBreaker.resetAt(gateway),
  ]);
  out.circuit = {
    gateway,
    state: CIRCUIT_STATES[Number(state)],
    failures: Number(failures),
    threshold: Number(threshold),
    cooldownSeconds: Number(cooldown),
    failureWindowSeconds: Number(window),
    resetAt: Number(resetAt),
  };
  say(
    `circuit of ${gateway}: ${CIRCUIT_STATES[Number(state)]}, ${failures}/${threshold} failures in ${window} s (cooldown ${cooldown} s)`,
  );
  if (values.json) console.log(JSON.stringify(out));
} catch (err) {
  console.error(`dapp-integration: ${(err as Error).message}`);
  process.exitCode = 1;
} finally {
  provider.destroy();
}
