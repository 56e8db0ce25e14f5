import { expect } from "chai";
import { bridgeDestinationAhead } from "../../../relayer/routing/bridge-ahead.ts";

type Step = { type: string; chain?: string; destination?: string; chained: boolean };
const flows = (a: Step) => a.chained;

describe("# bridgeDestinationAhead", function () {
  it("should name the destination of the bridge an action's output flows into", function () {
    const actions: Step[] = [
      { type: "convert", chained: false },
      { type: "swap", chained: true },
      { type: "bridge", destination: "polygon", chained: true },
      { type: "multisend", chained: true },
    ];
    expect(bridgeDestinationAhead(actions, 0, flows)).to.equal("polygon");
    expect(bridgeDestinationAhead(actions, 1, flows)).to.equal("polygon");
    // After the bridge nothing is ahead.
    expect(bridgeDestinationAhead(actions, 2, flows)).to.equal(undefined);
    expect(bridgeDestinationAhead(actions, 3, flows)).to.equal(undefined);
  });

  it("should stop at an action with its own input or its own chain", function () {
    const ownInput: Step[] = [
      { type: "convert", chained: false },
      { type: "swap", chained: false },
      { type: "bridge", destination: "polygon", chained: true },
    ];
    expect(bridgeDestinationAhead(ownInput, 0, flows)).to.equal(undefined);
    expect(bridgeDestinationAhead(ownInput, 1, flows)).to.equal("polygon");
    const pinned: Step[] = [
      { type: "swap", chained: false },
      { type: "bridge", chain: "arbitrum", destination: "polygon", chained: true },
    ];
    expect(bridgeDestinationAhead(pinned, 0, flows)).to.equal(undefined);
  });
});
