-- Orders paid by an execution and settled with the payment gateway (relayer/integrations/orders.ts):
-- one row per order of an execution, keyed by its settlement key
-- (keccak256("veriflow.order-settlement:" + execution id + ":" + order id)), which is also the
-- payment's Idempotency-Key and reference. requested → settled, or failed (tried again, same key).
CREATE TABLE integration_order_settlements (
  settlement_key      text PRIMARY KEY,
  execution_id        text NOT NULL,
  order_id            text NOT NULL,
  amount              text NOT NULL,
  currency            text NOT NULL,
  state               text NOT NULL DEFAULT 'requested',   -- requested | settled | failed
  gateway_payment_id  text,
  interaction_id      bigint REFERENCES integration_interactions (id),
  attempts            integer NOT NULL DEFAULT 0,
  last_error          text,
  created_at          timestamptz NOT NULL DEFAULT now(),
  updated_at          timestamptz NOT NULL DEFAULT now(),
  UNIQUE (execution_id, order_id)
);
