import { CID } from "multiformats/cid";
import * as json from "multiformats/codecs/json";
import { sha256 } from "multiformats/hashes/sha2";
import { identity } from "multiformats/hashes/identity";
import { actionParamsDigest, type ExecutionClaim } from "../../relayer/proofs/index.ts";

const tx = (n: number) => "0x" + n.toString(16).padStart(64, "0");

/** Four actions, one of each type, each exactly at or near its limit. */
export function sampleClaim(executionId = "wf_sample_0001"): ExecutionClaim {
  return {
    executionId,
    salt: 123456789012345678901234567890n,
    actions: [
      {
        type: "swap",
        amountIn: 1_000_000_000_000_000_000n,
        quotedOut: 2_500_000_000n,
        slippageBps: 50,
        // floor(2_500_000_000 * 9950 / 10000) = 2_487_500_000: exactly the minimum
        amountOut: 2_487_500_000n,
        paramsDigest: actionParamsDigest({
          type: "swap",
          from: "WETH",
          to: "USDC",
          dex: "uniswap-v2",
        }),
        txHashes: [tx(0xa1)],
      },
      {
        type: "convert",
        amountIn: "5000000",
        quotedOut: "4999000000000000000",
        slippageBps: 100,
        amountOut: "4990000000000000000",
        txHashes: [tx(0xa2), tx(0xa3)],
      },
      {
        type: "bridge",
        amountIn: 4_000_000n,
        feeCap: 20_000n,
        amountOut: 3_980_000n,
        paramsDigest: actionParamsDigest({
          type: "bridge",
          destination: "arbitrum",
          protocol: "devnet",
        }),
        txHashes: [tx(0xb1), tx(0xb2)],
      },
      {
        type: "multisend",
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
