/**
 * Where an action's output must not stay: the destination of the bridge it flows into. An action
 * routed onto that chain would leave the bridge a same-chain transfer (refused as NO_ROUTE), so
 * routing a swap or convert leaves it out. `flowsOn(action)` says whether a later action runs
 * where the previous output is (the estimate and the engine state the chaining rule each their way).
 */
export function bridgeDestinationAhead<
  A extends { type: string; chain?: string | undefined; destination?: string | undefined },
>(actions: readonly A[], index: number, flowsOn: (action: A) => boolean): string | undefined {
  for (const next of actions.slice(index + 1)) {
    if (next.chain !== undefined || !flowsOn(next)) return undefined;
    if (next.type === "bridge") return next.destination;
  }
  return undefined;
}
