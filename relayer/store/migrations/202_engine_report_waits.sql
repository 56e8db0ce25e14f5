-- A failed or cancelled execution whose report reads a chain (its transactions' evidence) that
-- stayed unreachable past the outage window: its state and error are final and recorded, its
-- report waits here until the chain answers. The engine's recovery sweep finalises it again
-- (relayer/execution/worker.ts); the report's insertion ends the wait.
CREATE TABLE engine_report_waits (
  execution_id text PRIMARY KEY,
  since        timestamptz NOT NULL DEFAULT now()
);
