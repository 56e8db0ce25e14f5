-- Active (queued or running) executions per API key, kept by triggers in the same transaction as
-- every insert, state change or delete of workflow_executions. A submission's concurrency check
-- locks and reads the key's one row here (lockActiveCounts in relayer/workflows/executions.ts)
-- instead of counting the key's executions, which grows with their number.
CREATE TABLE workflow_active_counts (
  api_key_id text PRIMARY KEY,
  active     integer NOT NULL CHECK (active >= 0)
);

INSERT INTO workflow_active_counts (api_key_id, active)
  SELECT api_key_id, count(*) FROM workflow_executions
   WHERE state IN ('queued', 'running') GROUP BY api_key_id;

-- Inserts: one upsert per key for the whole statement (a group commit inserts many rows).
CREATE FUNCTION workflow_active_counts_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO workflow_active_counts AS c (api_key_id, active)
    SELECT api_key_id, count(*) FROM inserted
     WHERE state IN ('queued', 'running') GROUP BY api_key_id ORDER BY api_key_id
  ON CONFLICT (api_key_id) DO UPDATE SET active = c.active + EXCLUDED.active;
  RETURN NULL;
END $$;

CREATE TRIGGER workflow_active_counts_insert AFTER INSERT ON workflow_executions
  REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT
  EXECUTE FUNCTION workflow_active_counts_inserted();

-- Updates that enter or leave the active states (or move a row to another key), and deletes.
CREATE FUNCTION workflow_active_counts_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF OLD.state IN ('queued', 'running') THEN
    UPDATE workflow_active_counts SET active = active - 1 WHERE api_key_id = OLD.api_key_id;
  END IF;
  IF TG_OP = 'UPDATE' AND NEW.state IN ('queued', 'running') THEN
    INSERT INTO workflow_active_counts AS c (api_key_id, active) VALUES (NEW.api_key_id, 1)
    ON CONFLICT (api_key_id) DO UPDATE SET active = c.active + 1;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER workflow_active_counts_update AFTER UPDATE ON workflow_executions FOR EACH ROW
  WHEN ((OLD.state IN ('queued', 'running')) IS DISTINCT FROM (NEW.state IN ('queued', 'running'))
        OR (OLD.api_key_id <> NEW.api_key_id AND OLD.state IN ('queued', 'running')))
  EXECUTE FUNCTION workflow_active_counts_changed();

CREATE TRIGGER workflow_active_counts_delete AFTER DELETE ON workflow_executions FOR EACH ROW
  WHEN (OLD.state IN ('queued', 'running'))
  EXECUTE FUNCTION workflow_active_counts_changed();
