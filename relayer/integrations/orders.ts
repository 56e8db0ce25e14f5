import { getAddress, id as keccakText, isAddress } from "ethers";
import type { EngineStore } from "../accounts/index.ts";
import type { IntegrationClient } from "./client.ts";
import { IntegrationError } from "./errors.ts";
import type { PaymentResponse } from "../config/index.ts";
import type { IntegrationsConfig } from "../config/index.ts";
import type { RecipientsFrom } from "../model/index.ts";

/**
 * Payouts fed by an integration (the CRM's unpaid orders) and their settlement.
 *
 * `recipients_from` names where a multisend's recipients come from and which field of each
 * record is what:
 *
 * ```yaml
 * recipients_from:
 *   integration: crm            # a configured integration (its pinned schema and HMAC apply)
 *   path: /crm/orders
 *   query: { status: unpaid }
 *   id: id                      # default id
 *   address: wallet             # the field holding the 0x payout address
 *   amount: amount              # the field holding the decimal amount
 *   asset: currency             # optional: the field that must equal the multisend's asset
 *   max_orders: 200             # optional: more records than this fails before anything is paid
 * ```
 *
 * (wire schema relayer/workflows/schemas.ts, model `RecipientsFrom` in relayer/model/workflow.ts)
 *
 * `fetchPayableOrders` calls the integration with `X-Blockchain-Proof: true` (the client checks the
 * response HMAC and the pinned schema, and records and anchors the interaction under the
 * execution) and turns its records into payable orders, refusing the whole answer when one record
 * does not fit. `settleOrders` then settles each paid order with `POST /payments` exactly once:
 * the payment's idempotency key is derived from the execution and the order, its state is kept in
 * `integration_order_settlements`, and a run after a crash re-sends only what is not settled, with
 * the same key (the gateway answers the payment it already made).
 */

/** The integrations whose pinned schema lists orders: what a `recipients_from` may name. */
export function orderSources(config: Pick<IntegrationsConfig, "integrations">): string[] {
  return Object.entries(config.integrations)
    .filter(([, cfg]) => cfg.validation.schema === ORDERS_SCHEMA)
    .map(([name]) => name);
}

const ORDERS_SCHEMA = "crm.orders";

/** An order to pay: who, how much, in what, from which record. */
export interface PayableOrder {
  id: string;
  /** EIP-55 checksummed. */
  address: string;
  /** Decimal string > 0, as the record gave it. */
  amount: string;
  asset: string | null;
}

export interface FetchedOrders {
  integration: string;
  orders: PayableOrder[];
  /** The anchored interaction whose response listed them. */
  interactionId: number;
  schemaVersion: string;
}

const DECIMAL = /^\d{1,30}(\.\d{1,18})?$/;

export async function fetchPayableOrders(
  client: IntegrationClient,
  spec: RecipientsFrom,
  context: { executionId: string; actionIndex: number; asset?: string },
): Promise<FetchedOrders> {
  const result = await client.call<{ data: unknown }>({
    method: "GET",
    path: spec.path,
    query: spec.query,
    headers: { "X-Blockchain-Proof": "true" },
    executionId: context.executionId,
    actionIndex: context.actionIndex,
  });
  const invalid = (what: string) =>
    new IntegrationError(
      "INTEGRATION_ORDERS_INVALID",
      result.integration,
      `${what}; no order of this answer was used`,
    );
  const records = result.data.data;
  if (!Array.isArray(records)) throw invalid("the answer has no data list");
  if (records.length > spec.maxOrders)
    throw invalid(
      `the answer lists ${records.length} orders, more than max_orders ${spec.maxOrders}`,
    );
  const seen = new Set<string>();
  const orders = records.map((record: Record<string, unknown>, i): PayableOrder => {
    const field = (name: string) => record[name];
    const id = field(spec.id);
    if (typeof id !== "string" || id === "") throw invalid(`record ${i} has no ${spec.id}`);
    if (seen.has(id)) throw invalid(`order ${id} is listed twice`);
    seen.add(id);
    const address = field(spec.address);
    if (typeof address !== "string" || !isAddress(address))
      throw invalid(`order ${id}: ${spec.address} is not a 0x address`);
    const amount = field(spec.amount);
    if (typeof amount !== "string" || !DECIMAL.test(amount) || !/[1-9]/.test(amount))
      throw invalid(`order ${id}: ${spec.amount} is not a decimal amount greater than 0`);
    let asset: string | null = null;
    if (spec.asset) {
      const value = field(spec.asset);
      if (typeof value !== "string") throw invalid(`order ${id} has no ${spec.asset}`);
      if (context.asset !== undefined && value !== context.asset)
        throw invalid(`order ${id} is in ${value}, the multisend pays ${context.asset}`);
      asset = value;
    }
    return { id, address: getAddress(address.toLowerCase()), amount, asset };
  });
  return {
    integration: result.integration,
    orders,
    interactionId: result.interactionId,
    schemaVersion: result.schemaVersion,
  };
}

/** The payment's idempotency key and reference: the same for an order of an execution forever. */
export function settlementKey(executionId: string, orderId: string): string {
  return keccakText(`veriflow.order-settlement:${executionId}:${orderId}`);
}

export interface SettledOrder {
  order_id: string;
  settlement_key: string;
  gateway_payment_id: string;
  interaction_id: number;
}

export interface UnsettledOrder {
  order_id: string;
  settlement_key: string;
  error: string;
}

/**
 * Settles each order (paid on chain by the execution) with the payment gateway, exactly once.
 * Each call goes through the integration's retry policy (payments: the critical policy, 5 attempts
 * with Fibonacci delays); an order still not settled is returned in `unsettled` with its error and
 * is tried again, with the same key, by the next run.
 */
export async function settleOrders(
  deps: { store: EngineStore; client: IntegrationClient },
  input: { executionId: string; orders: PayableOrder[]; currency: string },
  hooks: { onAnswered?: (orderId: string) => void } = {},
): Promise<{ settled: SettledOrder[]; unsettled: UnsettledOrder[] }> {
  const settled: SettledOrder[] = [];
  const unsettled: UnsettledOrder[] = [];
  for (const order of input.orders) {
    const key = settlementKey(input.executionId, order.id);
    await deps.store.query(
      `INSERT INTO integration_order_settlements (settlement_key, execution_id, order_id, amount, currency)
       VALUES ($1, $2, $3, $4, $5) ON CONFLICT (settlement_key) DO NOTHING`,
      [key, input.executionId, order.id, order.amount, input.currency],
    );
    const [row] = await deps.store.query<{
      state: string;
      gateway_payment_id: string | null;
      interaction_id: string | null;
    }>(
      "SELECT state, gateway_payment_id, interaction_id FROM integration_order_settlements WHERE settlement_key = $1",
      [key],
    );
    if (row!.state === "settled") {
      settled.push({
        order_id: order.id,
        settlement_key: key,
        gateway_payment_id: row!.gateway_payment_id!,
        interaction_id: Number(row!.interaction_id),
      });
      continue;
    }
    try {
      const paid = await deps.client.call<PaymentResponse>({
        method: "POST",
        path: "/payments",
        body: {
          amount: order.amount,
          currency: input.currency,
          reference: key,
          order_id: order.id,
        },
        headers: { "Idempotency-Key": key },
        executionId: input.executionId,
      });
      hooks.onAnswered?.(order.id);
      const p = paid.data;
      if (p.status !== "settled" || p.reference !== key || p.amount !== order.amount)
        throw new IntegrationError(
          "INTEGRATION_REQUEST_REFUSED",
          paid.integration,
          `the gateway answered ${p.status} ${p.amount} for ${p.reference}, not settled ${order.amount} for ${key}`,
        );
      await deps.store.query(
        `UPDATE integration_order_settlements SET state = 'settled', gateway_payment_id = $2,
           interaction_id = $3, last_error = NULL, attempts = attempts + 1, updated_at = now()
         WHERE settlement_key = $1`,
        [key, p.id, paid.interactionId],
      );
      settled.push({
        order_id: order.id,
        settlement_key: key,
        gateway_payment_id: p.id,
        interaction_id: paid.interactionId,
      });
    } catch (err) {
      if (!(err instanceof IntegrationError)) throw err;
      await deps.store.query(
        `UPDATE integration_order_settlements SET state = 'failed', last_error = $2,
           attempts = attempts + 1, updated_at = now() WHERE settlement_key = $1`,
        [key, err.message],
      );
      unsettled.push({ order_id: order.id, settlement_key: key, error: err.message });
    }
  }
  return { settled, unsettled };
}
