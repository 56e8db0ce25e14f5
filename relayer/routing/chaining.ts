/**
 * What an action hands to the next one (the chaining rule, docs/engine.md): an asset, an amount
 * of it in whole units, and the chain where it is (a bridge's output is on its destination).
 */
export interface ActionFlow {
  asset: string;
  amount: string;
  chain: string;
}
