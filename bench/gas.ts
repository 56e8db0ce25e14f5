/**
 * Gas per core-contract function, measured from real transaction receipts on an in-process EDR
 * chain with the contracts compiled by the production profile (optimizer on, 10 000 runs).
 * Run with `npm run bench:gas`; writes bench/results/gas.json (committed: a change that moves a
 * figure shows in review).
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { StandardMerkleTree } from "@openzeppelin/merkle-tree";
import { keccak256, parseEther, toUtf8Bytes } from "ethers";
import type { ContractTransactionResponse, Signer } from "ethers";
import hre, { network } from "hardhat";
import CoreModule from "../ignition/modules/Core.ts";
import { INTERACTION_TYPES, interactionDomain } from "../relayer/integrations/anchor.ts";

const PROFILE = "production";
const OUT = path.join(path.dirname(fileURLToPath(import.meta.url)), "results", "gas.json");

interface Measurement {
  gasUsed: number;
  scenario: string;
}

const results: Record<string, Measurement> = {};

async function measure(
  name: string,
  scenario: string,
  send: Promise<ContractTransactionResponse>,
): Promise<void> {
  const receipt = await (await send).wait();
  if (!receipt || receipt.status !== 1) throw new Error(`${name}: transaction failed`);
  results[name] = { gasUsed: Number(receipt.gasUsed), scenario };
  console.log(`${name.padEnd(34)} ${String(receipt.gasUsed).padStart(8)}  ${scenario}`);
}

const hashText = (text: string) => keccak256(toUtf8Bytes(text));
/** The EIP-712 signature the registry checks (the relayer's own typed data). */
const signInteraction = async (
  signer: Signer,
  registry: { getAddress(): Promise<string> },
  endpoint: string,
  response: string,
) =>
  signer.signTypedData(
    interactionDomain((await signer.provider!.getNetwork()).chainId, await registry.getAddress()),
    INTERACTION_TYPES,
    { endpointHash: hashText(endpoint), responseHash: hashText(response) },
  );

async function main(): Promise<void> {
  const buildProfile = hre.globalOptions.buildProfile;
  if (buildProfile !== PROFILE) {
    throw new Error(`run with the ${PROFILE} profile: npm run bench:gas (got "${buildProfile}")`);
  }
  const connection = await network.create();
  const { ethers, networkHelpers } = connection;
  const [, relayer, alice, bob, payer] = await ethers.getSigners();
  const deployed = await connection.ignition.deploy(CoreModule, {
    parameters: { Core: { relayer: relayer!.address } },
  });
  const registry = (await ethers.getContractAt("ProofRegistry", deployed.proofRegistry)).connect(
    relayer!,
  );
  const breaker = (
    await ethers.getContractAt("CircuitBreakerGateway", deployed.circuitBreakerGateway)
  ).connect(relayer!);
  const receipt = (await ethers.getContractAt("RevShareReceipt", deployed.revShareReceipt)).connect(
    relayer!,
  );

  // ProofRegistry
  const endpoint = "GET https://crm.example/v2/crm/orders?status=unpaid";
  const shortResponse = '{"orders":[{"id":"o_1","status":"unpaid"}],"hmac":"9f2c41"}';
  const longResponse = JSON.stringify({ data: "x".repeat(2048 - 11) });
  if (longResponse.length !== 2048) throw new Error("the long response must be 2048 bytes");
  await measure(
    "ProofRegistry.logAPIInteraction (short)",
    `${endpoint.length}-byte endpoint, ${shortResponse.length}-byte response`,
    registry.logAPIInteraction(
      endpoint,
      shortResponse,
      await signInteraction(relayer!, registry, endpoint, shortResponse),
    ),
  );
  await measure(
    "ProofRegistry.logAPIInteraction (2 KB)",
    `${endpoint.length}-byte endpoint, 2048-byte response`,
    registry.logAPIInteraction(
      endpoint,
      longResponse,
      await signInteraction(relayer!, registry, endpoint, longResponse),
    ),
  );
  const leaves = Array.from({ length: 1000 }, (_, i) => [
    hashText(`${endpoint}&page=${i}`),
    hashText(`{"page":${i}}`),
    1_767_225_600n + BigInt(i),
  ]);
  const tree = StandardMerkleTree.of(leaves, ["bytes32", "bytes32", "uint256"]);
  await measure(
    "ProofRegistry.anchorBatch",
    "1000-leaf root, 66-character ipfs:// URI",
    registry.anchorBatch(
      tree.root,
      leaves.length,
      "ipfs://bafkreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy",
    ),
  );

  // CircuitBreakerGateway
  const gateway = ethers.Wallet.createRandom().address;
  await measure(
    "CircuitBreakerGateway.recordFailure",
    "first failure of a gateway",
    breaker.recordFailure(gateway),
  );
  await measure(
    "CircuitBreakerGateway.recordFailure (next)",
    "second failure of the same gateway",
    breaker.recordFailure(gateway),
  );
  for (let i = 2; i <= 10; i++) await breaker.recordFailure(gateway);
  await measure(
    "CircuitBreakerGateway.trigger",
    "11 failures over the default threshold of 10",
    breaker.trigger(gateway),
  );

  // RevShareReceipt
  await measure(
    "RevShareReceipt.issueReceipt",
    "first receipt of a new holder",
    receipt.issueReceipt(alice!.address, parseEther("300"), ethers.id("payment:1")),
  );
  await measure(
    "RevShareReceipt.issueReceipt (holder)",
    "another receipt to an existing holder, same snapshot period",
    receipt.issueReceipt(alice!.address, parseEther("50"), ethers.id("payment:2")),
  );
  await receipt.issueReceipt(bob!.address, parseEther("100"), ethers.id("payment:3"));
  await payer!.sendTransaction({ to: await receipt.getAddress(), value: parseEther("4") });
  // Snapshots close periods of the fixed schedule: wait for the first boundary.
  await networkHelpers.time.increaseTo(
    (await receipt.scheduleStart()) + (await receipt.snapshotInterval()),
  );
  await measure("RevShareReceipt.snapshot", "first snapshot, 4 ETH revenue", receipt.snapshot());
  await measure(
    "RevShareReceipt.claim",
    "holder's first claim of a snapshot",
    receipt.connect(alice!).claim(1n),
  );
  await measure(
    "RevShareReceipt.transfer",
    "ERC-20 transfer to an existing holder (two time-weighted balance points)",
    receipt.connect(alice!).transfer(bob!.address, parseEther("10")),
  );
  await networkHelpers.time.increase(86_400n);
  await measure(
    "RevShareReceipt.burn",
    "burn with redeemable ETH accrued over one snapshot",
    receipt.connect(bob!).burn(parseEther("10")),
  );

  const output = {
    profile: PROFILE,
    solc: hre.config.solidity.profiles[PROFILE]!.compilers[0]!.version,
    optimizer: hre.config.solidity.profiles[PROFILE]!.compilers[0]!.settings.optimizer,
    chain: "EDR in-process (hardhat network.create), default hardfork",
    unit: "gas used by the transaction (receipt.gasUsed, includes the 21 000 base and calldata)",
    functions: results,
  };
  await mkdir(path.dirname(OUT), { recursive: true });
  await writeFile(OUT, JSON.stringify(output, null, 2) + "\n");
  console.log(`wrote ${path.relative(process.cwd(), OUT)}`);
}

await main();
