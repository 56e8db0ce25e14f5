import { z } from "zod";

/**
 * Response schemas of the external systems, per family and pinned API version (spec "Versioning":
 * schema validation can be pinned to an API version and run in strict mode). `strict` refuses
 * unknown fields; otherwise they are dropped. A mismatch is a typed error and the data is not used.
 */
const screening = z.object({
  address: z.string().regex(/^0x[0-9a-fA-F]{40}$/),
  sanctioned: z.boolean(),
  /** Lists or reasons the provider matched (informational). */
  sources: z.array(z.string()).optional(),
  risk_score: z.number().min(0).max(1).optional(),
});

const order = z.object({
  id: z.string().min(1),
  customer: z.string().min(1),
  amount: z.string().regex(/^\d+(\.\d+)?$/),
  currency: z.string().min(3).max(8),
  status: z.enum(["unpaid", "paid", "cancelled"]),
});

const payment = z.object({
  id: z.string().min(1),
  status: z.enum(["settled", "pending", "failed"]),
  amount: z.string().regex(/^\d+(\.\d+)?$/),
  currency: z.string().min(3).max(8),
  reference: z.string().min(1),
});

/**
 * A warehouse's stock (`GET /inventory`, the monitored path; the spec does not show its shape):
 * every item by its SKU with the quantity on hand at a location, as of a time.
 */
const stockItem = z.object({
  sku: z.string().regex(/^[A-Za-z0-9._-]{1,64}$/),
  name: z.string().min(1).max(200),
  quantity: z.number().int().min(0),
  location: z.string().min(1).max(64),
});
const inventory = z.object({
  as_of: z.iso.datetime({ offset: true }),
  items: z.array(stockItem).max(10_000),
});

export const RESPONSE_SCHEMAS: Record<string, Record<string, z.ZodObject>> = {
  "compliance.screening": { "1.0": screening },
  "crm.orders": {
    "2.3": z.object({ data: z.array(order.omit({ currency: true })), hmac: z.string() }),
    "2.4": z.object({ data: z.array(order), hmac: z.string().regex(/^[0-9a-f]{64}$/) }),
    /** 2.5: each order carries the customer's payout wallet (a multisend's `recipients_from`). */
    "2.5": z.object({
      data: z.array(order.extend({ wallet: z.string().regex(/^0x[0-9a-fA-F]{40}$/) })),
      hmac: z.string().regex(/^[0-9a-f]{64}$/),
    }),
  },
  "payments.create": { "1.0": payment },
  "inventory.stock": { "1.0": inventory },
};

/**
 * The families a monitor can follow: the collection whose items are compared between polls and
 * the field that identifies an item.
 */
export const MONITORED_COLLECTIONS: Record<string, { collection: string; key: string }> = {
  "inventory.stock": { collection: "items", key: "sku" },
};

export type ScreeningResponse = z.infer<typeof screening>;
export type PaymentResponse = z.infer<typeof payment>;
export type InventoryResponse = z.infer<typeof inventory>;

export function responseSchema(family: string, version: string, strict: boolean): z.ZodType {
  const schema = RESPONSE_SCHEMAS[family]?.[version];
  if (!schema) throw new Error(`no response schema ${family}@${version}`);
  return strict ? deepStrict(schema) : schema;
}

/** Strict mode: unknown fields refused at every object level. */
function deepStrict(schema: z.ZodType): z.ZodType {
  if (schema instanceof z.ZodObject) {
    const shape = Object.fromEntries(
      Object.entries(schema.shape as Record<string, z.ZodType>).map(([k, v]) => [k, deepStrict(v)]),
    );
    return z.strictObject(shape);
  }
  if (schema instanceof z.ZodArray) return z.array(deepStrict(schema.element as z.ZodType));
  if (schema instanceof z.ZodOptional) return deepStrict(schema.unwrap() as z.ZodType).optional();
  return schema;
}
