import { CID } from "multiformats/cid";
import * as json from "multiformats/codecs/json";
import { sha256 } from "multiformats/hashes/sha2";
import { identity } from "multiformats/hashes/identity";
import type { ExecutionClaim, SubmittedWorkflow } from "../../relayer/proofs/index.ts";

const tx = (n: number) => "0x" + n.toString(16).padStart(64, "0");

const alice = "0x00000000000000000000000000000000000A11cE";
const bob = "0x0000000000000000000000000000000000000B0b";
const carol = "0x00000000000000000000000000000000000C4a01";

/**
 * A workflow as the intake normalises it (relayer/model/workflow.ts): one action of each type,
 * the multisend with an absolute amount and two percentages.
 */
export function sampleWorkflow(): SubmittedWorkflow & Record<string, unknown> {
  return {
    modelVersion: 1,
    name: "sample",
    format: "json",
    actions: [
      {
        index: 0,
        type: "swap",
        from: "WETH",
        to: "USDC",
        amount: "1",
        input: "explicit",
        slippageBps: 50,
        dex: "uniswap",
        fallbackChains: [],
      },
      {
        index: 1,
        type: "convert",
        from: "USDC",
        to: "DAI",
        input: "chained",
        slippageBps: 100,
        priority: "cost",
        fallbackChains: [],
      },
      {
        index: 2,
        type: "bridge",
        from: "DAI",
        input: "chained",
        destination: "polygon",
        protocol: "lockmint",
        fallbackChains: [],
      },
      {
        index: 3,
        type: "multisend",
        from: "DAI",
        input: "chained",
        recipients: [
          { address: alice, amount: { kind: "absolute", amount: "1.5" } },
          { address: bob, amount: { kind: "percent", bps: 2500 } },
          { address: carol, amount: { kind: "percent", bps: 1250 } },
        ],
        fallbackChains: [],
      },
    ],
    compliance: { jurisdictions: [], taxForms: [], sanctionsLists: [] },
    fallbackChains: [],
    riskThreshold: 0.7,
    gasStrategy: "eco",
  } as unknown as SubmittedWorkflow & Record<string, unknown>;
}

/** Four actions, one of each type, each exactly at or near its limit. */
export function sampleClaim(executionId = "wf_sample_0001"): ExecutionClaim {
  return {
    executionId,
    salt: 123456789012345678901234567890n,
    workflow: sampleWorkflow(),
    actions: [
      {
        amountIn: 1_000_000_000_000_000_000n,
        quotedOut: 2_500_000_000n,
        // floor(2_500_000_000 * 9950 / 10000) = 2_487_500_000: exactly the minimum
        amountOut: 2_487_500_000n,
        txHashes: [tx(0xa1)],
      },
      {
        amountIn: "2487500000",
        quotedOut: "2487000000000000000000",
        amountOut: "2462130000000000000000",
        txHashes: [tx(0xa2)],
      },
      {
        amountIn: 4_000_000n,
        feeCap: 20_000n,
        amountOut: 3_980_000n,
        txHashes: [tx(0xb1), tx(0xb2)],
      },
      {
        amountIn: 3_000_000n,
        recipientAmounts: [1_500_000n, 1_000_000n, 500_000n],
        txHashes: [tx(0xc1)],
      },
    ],
  };
}

/** A sha2-256 CIDv1 (json codec) of a value, as the artifact store produces. */
export async function jsonCid(value: unknown): Promise<string> {
  const bytes = json.encode(value);
  return CID.create(1, json.code, await sha256.digest(bytes)).toString();
}

/** A CID whose multihash is not sha2-256 (identity). */
export function identityCid(): string {
  return CID.create(1, json.code, identity.digest(json.encode({ tiny: true }))).toString();
}

/** The sample's first two actions (swap, convert): the 2-slot variant's workflow. */
export function twoActions(executionId = "wf_sample_two"): ExecutionClaim {
  const claim = sampleClaim(executionId);
  return {
    ...claim,
    workflow: { ...claim.workflow, actions: claim.workflow.actions.slice(0, 2) },
    actions: claim.actions.slice(0, 2),
  };
}

/** The sample with a six-recipient multisend (two slots): five slots, the 8-slot variant. */
export function wideClaim(executionId = "wf_sample_wide"): ExecutionClaim {
  const claim = sampleClaim(executionId);
  const recipients = [1, 2, 3, 4, 5, 6].map((n) => ({
    address: "0x" + n.toString(16).padStart(40, "0"),
    amount: { kind: "percent", bps: 1000 },
  }));
  const workflowActions = claim.workflow.actions.map((a, i) =>
    i === 3 ? { ...a, recipients } : a,
  );
  const actions = claim.actions.map((a, i) =>
    i === 3
      ? {
          amountIn: 600n,
          recipientAmounts: [100n, 100n, 100n, 100n, 100n, 100n],
          txHashes: a.txHashes,
        }
      : a,
  );
  return { ...claim, workflow: { ...claim.workflow, actions: workflowActions }, actions };
}
