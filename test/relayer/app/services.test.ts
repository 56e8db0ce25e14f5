import { expect } from "chai";
import { openChains } from "../../../relayer/chains/index.ts";
import { DEFAULT_CHAIN_OUTAGE_WINDOW_SECONDS } from "../../../relayer/execution/index.ts";
import { DEFAULT_REFERENCE_POLICY } from "../../../relayer/routing/index.ts";
import { startInProcessRelayer } from "../../fixtures/relayer.ts";

describe("# the composition root's engine settings", function () {
  this.timeout(60_000);

  it("should hand the engine the configured reference price policy and chain outage window, the libraries' defaults for what is unset", async function () {
    for (const [env, policy, outageSeconds] of [
      [{}, DEFAULT_REFERENCE_POLICY, DEFAULT_CHAIN_OUTAGE_WINDOW_SECONDS],
      [
        { VERIFLOW_MAX_REFERENCE_DEVIATION_BPS: "50", VERIFLOW_CHAIN_OUTAGE_WINDOW_SECONDS: "5" },
        { windowSeconds: DEFAULT_REFERENCE_POLICY.windowSeconds, maxDeviationBps: 50 },
        5,
      ],
      [
        {
          VERIFLOW_REFERENCE_WINDOW_SECONDS: "600",
          VERIFLOW_MAX_REFERENCE_DEVIATION_BPS: "75",
          VERIFLOW_CHAIN_OUTAGE_WINDOW_SECONDS: "0",
        },
        { windowSeconds: 600, maxDeviationBps: 75 },
        0,
      ],
    ] as const) {
      const chains = await openChains({ mode: "embedded", chains: ["ethereum"] });
      const relayer = await startInProcessRelayer({ label: "services", env, chains });
      try {
        expect(relayer.ctx.engine!.referencePolicy, JSON.stringify(env)).to.deep.equal(policy);
        expect(relayer.ctx.engine!.chainOutageWindowSeconds, JSON.stringify(env)).to.equal(
          outageSeconds,
        );
      } finally {
        await relayer.close();
        await chains.close();
      }
    }
  });
});
