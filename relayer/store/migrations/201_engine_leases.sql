-- Execution leases (issue 6): which worker runs an execution (relayer/execution/lease.ts).

-- Which worker runs an execution. A worker holds the lease while it runs the execution and
-- renews it; a worker that dies stops renewing, and after expires_at another worker resumes the
-- execution (its steps and journalled transactions make the resume exactly-once).
CREATE TABLE engine_leases (
  execution_id  text PRIMARY KEY,
  owner         text NOT NULL,
  expires_at    timestamptz NOT NULL
);
