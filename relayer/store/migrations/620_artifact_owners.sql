-- Who owns each stored artifact (relayer/artifacts/owners.ts). Blocks live on disk under their CID
-- and are shared by content; a row per (CID, API key) says that key stored it. Reads are scoped to
-- the owners unless one of them published it. Kinds: upload (POST /artifacts: counted against the
-- key's quota, pruned after the retention), manifest (a /zk/generate batch manifest: pruned after
-- the retention, bounded by the proving quota), report (an execution's final report: kept).
CREATE TABLE artifact_owners (
  cid          text NOT NULL,
  api_key_id   text NOT NULL REFERENCES api_keys (id),
  kind         text NOT NULL CHECK (kind IN ('upload', 'manifest', 'report')),
  bytes        bigint NOT NULL,
  stored_at    timestamptz NOT NULL DEFAULT now(), -- renewed when the key stores it again
  published_at timestamptz,
  PRIMARY KEY (cid, api_key_id)
);
CREATE INDEX artifact_owners_key ON artifact_owners (api_key_id, kind);
CREATE INDEX artifact_owners_expiry ON artifact_owners (stored_at) WHERE kind <> 'report';

-- Reports stored before owners existed belong to their execution's key.
INSERT INTO artifact_owners (cid, api_key_id, kind, bytes, stored_at)
SELECT DISTINCT ON (r.cid, e.api_key_id) r.cid, e.api_key_id, 'report',
       octet_length(r.report::text), r.created_at
  FROM engine_reports r JOIN workflow_executions e ON e.id = r.execution_id
  JOIN api_keys k ON k.id = e.api_key_id
ON CONFLICT DO NOTHING;

-- /zk/generate calls per key and UTC day: the proving and anchoring quota (relayer/limits/zk-quota.ts).
CREATE TABLE zk_quota_counters (
  key_id    text NOT NULL,
  day_start bigint NOT NULL, -- epoch ms of the UTC day's first millisecond
  count     integer NOT NULL,
  PRIMARY KEY (key_id, day_start)
);
