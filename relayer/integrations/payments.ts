import { keccak256, parseUnits, toUtf8Bytes, type Contract, type EventLog, type Log } from "ethers";
import type { EngineStore } from "../accounts/index.ts";
import { TxJournal } from "../transactions/index.ts";
import type { RoutingChain } from "../routing/index.ts";
import type { IntegrationClient } from "./client.ts";
import { IntegrationError } from "./errors.ts";
import type { PaymentResponse } from "../config/index.ts";
import { CONTRACT_NAMES } from "../deployments/index.ts";

/**
 * Payment receipts (spec "Events": after a payment settlement, an ERC-7641 receipt token is
 * delivered to the user). The trigger is the relayer's service fee of a completed execution
 * (`payments.service_fee` in the integration configuration): the fee is settled through the payment
 * gateway integration (`POST /payments` → 201 `{status: "settled"}`), then `RevShareReceipt.
 * issueReceipt(account, fee × 10^18, paymentRef)` mints receipt tokens (1 token per unit of fee) to
 * the paying API key's relayer-managed account.
 *
 * Exactly once, per execution: `paymentRef = keccak256("veriflow.service-fee:" + execution id)`
 * keys the row in `integration_payments` (requested → settled → receipted), is the gateway's
 * `Idempotency-Key` and `reference` (a re-sent request after a crash is the same payment), and the
 * receipt's `paymentRef` on chain (a second issuance is refused by the contract:
 * RevShareReceiptDuplicatePaymentRef); the issuance goes through the transaction journal.
 */
export const RECEIPT_CONTRACT = CONTRACT_NAMES.receipt;

export interface PaymentReceiptView {
  payment_ref: string;
  gateway_payment_id: string;
  amount: string;
  currency: string;
  recipient: string;
  receipt: { chain_id: number; contract: string; tx_hash: string; amount: string };
}

export function serviceFeeRef(executionId: string): string {
  return keccak256(toUtf8Bytes(`veriflow.service-fee:${executionId}`));
}

interface PaymentRow {
  payment_ref: string;
  execution_id: string;
  recipient: string;
  amount: string;
  currency: string;
  state: "requested" | "settled" | "receipted";
  gateway_payment_id: string | null;
  chain_id: number | null;
  contract: string | null;
  receipt_tx: string | null;
}

export function receiptChain(chains: readonly RoutingChain[]): RoutingChain {
  const chain = chains.find((c) => c.deployment.contracts[RECEIPT_CONTRACT]);
  if (!chain) throw new Error(`no configured chain has a ${RECEIPT_CONTRACT}`);
  return chain;
}

export async function settleServiceFee(
  deps: {
    store: EngineStore;
    client: IntegrationClient;
    chains: { list(): readonly RoutingChain[] };
  },
  input: { executionId: string; recipient: string; amount: string; currency: string },
): Promise<PaymentReceiptView> {
  const { store } = deps;
  const ref = serviceFeeRef(input.executionId);
  await store.query(
    `INSERT INTO integration_payments (payment_ref, execution_id, recipient, amount, currency)
     VALUES ($1, $2, $3, $4, $5) ON CONFLICT (payment_ref) DO NOTHING`,
    [ref, input.executionId, input.recipient, input.amount, input.currency],
  );
  let row = await load(store, ref);
  if (row.state === "requested") {
    const { data } = await deps.client.call<PaymentResponse>({
      method: "POST",
      path: "/payments",
      body: { amount: row.amount, currency: row.currency, reference: ref, payer: row.recipient },
      headers: { "Idempotency-Key": ref },
      executionId: input.executionId,
    });
    if (data.status !== "settled" || data.reference !== ref || data.amount !== row.amount) {
      throw new IntegrationError(
        "INTEGRATION_REQUEST_REFUSED",
        deps.client.name,
        `the payment ${data.id} is ${data.status} for ${data.amount} ${data.currency} (reference ${data.reference}); no receipt is issued before it settles for ${row.amount} (reference ${ref})`,
      );
    }
    await store.query(
      "UPDATE integration_payments SET state = 'settled', gateway_payment_id = $2, updated_at = now() WHERE payment_ref = $1 AND state = 'requested'",
      [ref, data.id],
    );
    row = await load(store, ref);
  }
  if (row.state === "settled") {
    const chain = receiptChain(deps.chains.list());
    const receipt = chain.contract(RECEIPT_CONTRACT);
    const tx = await issueOnce(store, chain, receipt, row);
    await store.query(
      `UPDATE integration_payments SET state = 'receipted', chain_id = $2, contract = $3, receipt_tx = $4, updated_at = now()
        WHERE payment_ref = $1`,
      [ref, chain.chainId, await receipt.getAddress(), tx],
    );
    row = await load(store, ref);
  }
  return {
    payment_ref: ref,
    gateway_payment_id: row.gateway_payment_id!,
    amount: row.amount,
    currency: row.currency,
    recipient: row.recipient,
    receipt: {
      chain_id: row.chain_id!,
      contract: row.contract!,
      tx_hash: row.receipt_tx!,
      amount: receiptAmount(row.amount).toString(),
    },
  };
}

/** Receipt tokens for a fee: 18 decimals, one token per unit of the fee's currency. */
export function receiptAmount(amount: string): bigint {
  return parseUnits(amount, 18);
}

async function load(store: EngineStore, ref: string): Promise<PaymentRow> {
  const [row] = await store.query<PaymentRow>(
    "SELECT payment_ref, execution_id, recipient, amount, currency, state, gateway_payment_id, chain_id, contract, receipt_tx FROM integration_payments WHERE payment_ref = $1",
    [ref],
  );
  return row!;
}

async function issueOnce(
  store: EngineStore,
  chain: RoutingChain,
  receipt: Contract,
  row: PaymentRow,
): Promise<string> {
  const signer = chain.operator;
  if (!signer) throw new Error(`no operator key on ${chain.name} to issue receipts`);
  const journal = new TxJournal(store);
  const slot = { executionId: `pay_${row.payment_ref}`, actionIndex: 0, slot: "receipt" };
  const journalled = await journal.find(slot);
  if (!journalled && ((await receipt.getFunction("isReceipted")(row.payment_ref)) as boolean)) {
    // Issued outside this journal: record that issuance, never a second one.
    const [event] = (await receipt.queryFilter(
      receipt.filters.ReceiptIssued!(null, row.payment_ref),
    )) as EventLog[];
    return event!.transactionHash;
  }
  const to = await receipt.getAddress();
  const data = receipt.interface.encodeFunctionData("issueReceipt", [
    row.recipient,
    receiptAmount(row.amount),
    row.payment_ref,
  ]);
  const sent = await journal.sendCall(chain, signer, slot, "attest", { to, data }, { units: -1 });
  if (sent.status !== "confirmed")
    throw new Error(`issueReceipt ${sent.hash} reverted on ${chain.name}`);
  const issued = sent.receipt.logs.some((l: Log) => {
    try {
      return receipt.interface.parseLog(l)?.name === "ReceiptIssued";
    } catch {
      return false;
    }
  });
  if (!issued) throw new Error(`issueReceipt ${sent.hash} emitted no ReceiptIssued`);
  return sent.hash;
}
