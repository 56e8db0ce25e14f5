import { parseUnits } from "ethers";
import { VeriflowError } from "../errors/index.ts";
import { tokenOf, type ChainAssets } from "../routing/index.ts";
import type { RecipientsFrom, Workflow } from "../model/index.ts";
import type { PayoutOrders, StepRow, ReportOrders } from "../report/index.ts";

/**
 * CRM-fed payouts in the engine (docs/integrations.md#orders-from-the-crm-as-payout-recipients-recipients_from):
 * a `recipients_from` multisend fetches its orders just before it pays (memoised with its step,
 * so a resumed run pays exactly the orders it fetched, never a second answer), and once the
 * actions are done every paid order is settled with the payment gateway exactly once, before the
 * report is built. The report lists the orders used, the settlements and the unsettled orders.
 */

/** What the engine needs from the integrations (relayer/integrations `Integrations`). */
export interface PayoutSource {
  fetchOrders(
    spec: RecipientsFrom,
    context: { executionId: string; actionIndex: number; asset: string },
  ): Promise<{
    integration: string;
    interactionId: number;
    schemaVersion: string;
    orders: PayoutOrders["orders"];
  }>;
  settleOrders(
    input: { executionId: string; orders: PayoutOrders["orders"]; currency: string },
    hooks?: { onAnswered?: (orderId: string) => void },
  ): Promise<{
    settled: Array<{
      order_id: string;
      settlement_key: string;
      gateway_payment_id: string;
      interaction_id: number;
    }>;
    unsettled: Array<{ order_id: string; settlement_key: string; error: string }>;
  }>;
  interactionResponse(id: number): Promise<{ response: string; response_hash: string }>;
}

/**
 * A payout that cannot be made from the fetched orders: the integration's own code when the
 * orders could not be fetched or checked (`INTEGRATION_*`), `ORDERS_OVER_BUDGET` when they add up
 * to more than the multisend may send, `ORDERS_UNAVAILABLE` without integrations. Nothing is paid.
 */
export class PayoutOrdersError extends VeriflowError {}

/** Fetches (or, resumed, reads back) a `recipients_from` multisend's orders and checks them. */
export async function payoutOrders(
  source: PayoutSource | undefined,
  spec: RecipientsFrom,
  input: { asset: string; amount: string },
  chain: ChainAssets,
  context: {
    executionId: string;
    actionIndex: number;
    memo: <T>(key: string, compute: () => Promise<T>) => Promise<T>;
  },
): Promise<PayoutOrders> {
  if (!source) {
    throw new PayoutOrdersError(
      "ORDERS_UNAVAILABLE",
      `this relayer has no integrations; the orders of ${spec.integration} cannot be fetched`,
    );
  }
  let fetched: PayoutOrders;
  try {
    fetched = await context.memo("orders", async () => {
      const answer = await source.fetchOrders(spec, {
        executionId: context.executionId,
        actionIndex: context.actionIndex,
        asset: input.asset,
      });
      return {
        integration: answer.integration,
        interaction_id: answer.interactionId,
        schema_version: answer.schemaVersion,
        orders: answer.orders,
      };
    });
  } catch (err) {
    if (err instanceof VeriflowError) throw new PayoutOrdersError(err.code, err.message);
    throw err;
  }
  const decimals = tokenOf(chain, input.asset).decimals;
  let total = 0n;
  for (const order of fetched.orders) {
    try {
      total += parseUnits(order.amount, decimals);
    } catch {
      throw new PayoutOrdersError(
        "INTEGRATION_ORDERS_INVALID",
        `order ${order.id}: ${order.amount} has more decimals than ${input.asset} (${decimals}); no order was paid`,
      );
    }
  }
  const budget = parseUnits(input.amount, decimals);
  if (total > budget) {
    throw new PayoutOrdersError(
      "ORDERS_OVER_BUDGET",
      `the ${fetched.orders.length} orders add up to more than the multisend's ${input.amount} ${input.asset}; no order was paid`,
      { orders: fetched.orders.length },
    );
  }
  return fetched;
}

/**
 * Settles every order the execution's completed `recipients_from` multisends paid (whatever the
 * execution's final state: an order paid on chain is owed its settlement) and builds the report's
 * `orders` section. Null when the workflow has no such multisend.
 */
export async function settlePayouts(
  source: PayoutSource | undefined,
  input: { executionId: string; workflow: Workflow; steps: ReadonlyMap<number, StepRow> },
  hooks: { onAnswered?: (orderId: string) => void } = {},
): Promise<ReportOrders | null> {
  const payouts = input.workflow.actions.filter((a) => a.recipientsFrom);
  if (payouts.length === 0) return null;
  const section: ReportOrders = { used: [], settlements: [], unsettled: [] };
  for (const action of payouts) {
    const step = input.steps.get(action.index);
    const result = step?.state === "completed" ? step.result : null;
    if (!result?.orders || result.action !== "multisend") continue;
    const paid = result.orders;
    const anchored = source ? await source.interactionResponse(paid.interaction_id) : null;
    section.used.push({
      action_index: action.index,
      integration: paid.integration,
      interaction_id: paid.interaction_id,
      schema_version: paid.schema_version,
      response_hash: anchored?.response_hash ?? null,
      response: anchored?.response ?? null,
      orders: paid.orders,
    });
    if (paid.orders.length === 0 || !source) continue;
    const outcome = await source.settleOrders(
      { executionId: input.executionId, orders: paid.orders, currency: result.asset },
      hooks,
    );
    section.settlements.push(...outcome.settled.map((s) => ({ action_index: action.index, ...s })));
    section.unsettled.push(...outcome.unsettled.map((u) => ({ action_index: action.index, ...u })));
  }
  return section;
}
