-- Payment receipts (relayer/integrations/payments.ts): one row per settled fee, keyed by its
-- paymentRef (keccak256("veriflow.service-fee:" + execution id)); requested → settled → receipted.
CREATE TABLE integration_payments (
  payment_ref         text PRIMARY KEY,
  execution_id        text NOT NULL,
  recipient           text NOT NULL,
  amount              text NOT NULL,
  currency            text NOT NULL,
  state               text NOT NULL DEFAULT 'requested',
  gateway_payment_id  text,
  chain_id            integer,
  contract            text,
  receipt_tx          text,
  created_at          timestamptz NOT NULL DEFAULT now(),
  updated_at          timestamptz NOT NULL DEFAULT now()
);
