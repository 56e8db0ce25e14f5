import type { ValidationIssue } from "../http/index.ts";
import { checkAmount, checkPercent, isPercent, toBaseUnits } from "./amounts.ts";
import { assetDecimals, type AssetCatalogue } from "./catalogue.ts";
import {
  DEFAULT_MAX_ORDERS,
  MAX_ORDERS_LIMIT,
  type Recipient,
  type RecipientsFrom,
  type WorkflowAction,
} from "../model/index.ts";
import { checkAddress } from "./addresses.ts";
import { parseNumber, type RawAction } from "./forms.ts";

/**
 * `recipients_from`: the integration must be one the relayer has configured to list orders; the
 * field names were checked by the wire schema.
 */
export function buildRecipientsFrom(
  a: RawAction,
  catalogue: AssetCatalogue,
  issues: ValidationIssue[],
): RecipientsFrom | undefined {
  const wire = a.recipientsFrom!;
  const path = a.path("recipientsFrom");
  const sources = [...(catalogue.recipientSources ?? [])].sort();
  let ok = true;
  if (!sources.includes(wire.integration)) {
    ok = false;
    issues.push({
      path: `${path}.integration`,
      message: sources.length
        ? `unknown integration "${wire.integration}"; integrations that list orders: ${sources.join(", ")}`
        : `unknown integration "${wire.integration}"; this relayer has no integration that lists orders`,
    });
  }
  let maxOrders = DEFAULT_MAX_ORDERS;
  if (wire.max_orders !== undefined) {
    const value = parseNumber(wire.max_orders);
    if (Number.isInteger(value) && value >= 1 && value <= MAX_ORDERS_LIMIT) maxOrders = value;
    else {
      ok = false;
      issues.push({
        path: `${path}.max_orders`,
        message: `must be a whole number from 1 to ${MAX_ORDERS_LIMIT}`,
      });
    }
  }
  const fields = [wire.id ?? "id", wire.address, wire.amount, ...(wire.asset ? [wire.asset] : [])];
  if (new Set(fields).size !== fields.length) {
    ok = false;
    issues.push({ path, message: "id, address, amount and asset must name different fields" });
  }
  if (!ok) return undefined;
  return {
    integration: wire.integration,
    path: wire.path,
    query: wire.query ?? {},
    id: wire.id ?? "id",
    address: wire.address,
    amount: wire.amount,
    ...(wire.asset ? { asset: wire.asset } : {}),
    maxOrders,
  };
}

export function buildRecipients(
  a: RawAction,
  action: WorkflowAction,
  asset: string | undefined,
  chain: string | undefined,
  catalogue: AssetCatalogue,
  issues: ValidationIssue[],
  hasInput: boolean,
): Recipient[] {
  if (!a.recipients || a.recipients.length === 0) {
    issues.push({
      path: a.path("recipients"),
      message: "required for a multisend action (at least one)",
    });
    return [];
  }
  const decimals = asset ? assetDecimals(catalogue, asset, chain) : undefined;
  const recipients: Recipient[] = [];
  const seen = new Set<string>();
  let percentBps = 0;
  let absoluteTotal = 0n;
  a.recipients.forEach((r, j) => {
    const path = `${a.path("recipients")}.${j}`;
    const address = checkAddress(r.address.trim());
    if (!address.ok) {
      issues.push({ path: `${path}.address`, message: address.message });
    } else if (seen.has(address.address)) {
      issues.push({
        path: `${path}.address`,
        message: `${address.address} appears twice; give it one amount`,
      });
    } else {
      seen.add(address.address);
    }
    if (isPercent(r.amount)) {
      const pct = checkPercent(r.amount);
      if (!pct.ok) issues.push({ path: `${path}.amount`, message: pct.message });
      else {
        percentBps += pct.bps;
        if (address.ok)
          recipients.push({ address: address.address, amount: { kind: "percent", bps: pct.bps } });
      }
    } else if (decimals !== undefined) {
      const amount = checkAmount(r.amount, decimals, asset!);
      if (!amount.ok) issues.push({ path: `${path}.amount`, message: amount.message });
      else {
        absoluteTotal += toBaseUnits(amount.canonical, decimals);
        if (address.ok)
          recipients.push({
            address: address.address,
            amount: { kind: "absolute", amount: amount.canonical },
          });
      }
    }
  });
  if (percentBps > 10_000) {
    issues.push({
      path: a.path("recipients"),
      message: `percentages sum to ${percentBps / 100}%, more than 100%`,
    });
  }
  if (percentBps > 0 && action.amount === undefined && !hasInput) {
    issues.push({
      path: a.path("amount"),
      message:
        "percentage recipients need an amount to share: give amount or chain from a previous action",
    });
  }
  if (decimals !== undefined && action.amount !== undefined) {
    // Absolute amounts come off the top; percentages share the rest of the input.
    const input = toBaseUnits(action.amount, decimals);
    if (absoluteTotal * 10_000n > input * BigInt(10_000 - Math.min(percentBps, 10_000))) {
      issues.push({
        path: a.path("recipients"),
        message: `recipients receive more than the multisend's amount ${action.amount} ${asset}`,
      });
    }
  } else if (
    decimals !== undefined &&
    action.amount === undefined &&
    !hasInput &&
    percentBps === 0
  ) {
    // A first-action multisend of absolute amounts sends exactly their total.
    const total = absoluteTotal.toString().padStart(decimals + 1, "0");
    const whole = total.slice(0, total.length - decimals);
    const fraction = total.slice(total.length - decimals).replace(/0+$/, "");
    if (absoluteTotal > 0n) {
      action.amount = fraction ? `${whole}.${fraction}` : whole;
      action.input = "explicit";
    }
  }
  return recipients;
}
