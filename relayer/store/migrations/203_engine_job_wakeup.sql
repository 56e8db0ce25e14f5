-- An execution inserted `queued` has its `workflow.execute` job inserted in the same transaction
-- (the intake, the submission batch and the schedule firings: relayer/workflows), so it notifies
-- channel `engine_jobs` at commit, once the job is visible: the engine workers of every process
-- LISTEN on it (relayer/execution/worker.ts, EXECUTE_JOB_CHANNEL) and fetch at once instead of
-- polling the queue every half second. NOTIFY collapses identical notifications of a transaction:
-- a batch of submissions notifies once. A retry wakes its worker at its due time; anything a
-- notification missed is found by the workers' slow poll.

CREATE FUNCTION engine_job_notify() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('engine_jobs', '');
  RETURN NULL;
END $$;

CREATE TRIGGER engine_job_sent
  AFTER INSERT ON workflow_executions
  FOR EACH ROW WHEN (NEW.state = 'queued')
  EXECUTE FUNCTION engine_job_notify();
