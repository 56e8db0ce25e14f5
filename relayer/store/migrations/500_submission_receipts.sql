-- The submission receipt of each execution (relayer/proofs/receipt.ts): the EIP-712 signed
-- commitment to the workflow as submitted and the salt drawn at submission, which the execution
-- proof must reproduce. Null only when the relayer has no ExecutionAttestor to bind it to.
ALTER TABLE workflow_executions ADD COLUMN receipt jsonb;
