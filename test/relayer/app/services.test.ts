import { expect } from "chai";
import { openChains } from "../../../relayer/chains/index.ts";
import { DEFAULT_CHAIN_OUTAGE_WINDOW_SECONDS } from "../../../relayer/execution/index.ts";
import { DEFAULT_REFERENCE_POLICY } from "../../../relayer/routing/index.ts";
import { startInProcessRelayer } from "../../fixtures/relayer.ts";

describe("# the composition root's engine settings", function () {
  this.timeout(60_000);

  it("should hand the engine the configured reference price policy, the routing library's default for what is unset", async function () {
    for (const [env, policy] of [
      [{}, DEFAULT_REFERENCE_POLICY],
      [
        { VERIFLOW_MAX_REFERENCE_DEVIATION_BPS: "50" },
        { windowSeconds: DEFAULT_REFERENCE_POLICY.windowSeconds, maxDeviationBps: 50 },
      ],
      [
        { VERIFLOW_REFERENCE_WINDOW_SECONDS: "600", VERIFLOW_MAX_REFERENCE_DEVIATION_BPS: "75" },
        { windowSeconds: 600, maxDeviationBps: 75 },
      ],
    ] as const) {
      const chains = await openChains({ mode: "embedded", chains: ["ethereum"] });
      const relayer = await startInProcessRelayer({ label: "services", env, chains });
      try {
        expect(relayer.ctx.engine!.referencePolicy).to.deep.equal(policy);
      } finally {
        await relayer.close();
        await chains.close();
      }
    }
  });

  it("should hand the engine the configured chain outage window, the engine's default when unset", async function () {
    for (const [env, seconds] of [
      [{}, DEFAULT_CHAIN_OUTAGE_WINDOW_SECONDS],
      [{ VERIFLOW_CHAIN_OUTAGE_WINDOW_SECONDS: "5" }, 5],
      [{ VERIFLOW_CHAIN_OUTAGE_WINDOW_SECONDS: "0" }, 0],
    ] as const) {
      const chains = await openChains({ mode: "embedded", chains: ["ethereum"] });
      const relayer = await startInProcessRelayer({ label: "services", env, chains });
      try {
        expect(relayer.ctx.engine!.chainOutageWindowSeconds).to.equal(seconds);
      } finally {
        await relayer.close();
        await chains.close();
      }
    }
  });
});
