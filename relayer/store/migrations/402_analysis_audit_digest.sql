-- Each audit record commits to a digest of its content, and each link to the previous hash and
-- that digest (relayer/audit/analysis-chain.ts), so a key's auditor checks the links
-- (GET /v1/analysis/audit/links) without the other keys' records:
--   digest = sha256(JCS({seq, id, api_key_id, analysis_id, record})),
--   hash   = sha256(prev_hash || digest) over the two 32-byte values.
-- The records already written keep their hashes (anchored heads commit to them, and the rows are
-- append-only): their digest stays null and their hash is the v1 formula, over the content. They
-- can only precede the others: a record after the head at this migration must have a digest.
ALTER TABLE analysis_audit ADD COLUMN digest text;
DO $$
BEGIN
  EXECUTE format(
    'ALTER TABLE analysis_audit ADD CONSTRAINT analysis_audit_digest CHECK (digest IS NOT NULL OR seq <= %s)',
    (SELECT seq FROM analysis_audit_head));
END $$;
