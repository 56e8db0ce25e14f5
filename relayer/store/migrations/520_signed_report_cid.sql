-- The CID of the signed report (body plus artifact_id, signer, signature) as stored in the
-- artifact store beside its body: the one CID an auditor needs (relayer/audit/sources.ts).
-- Null for reports signed before the relayer stored signed copies.
ALTER TABLE engine_reports ADD COLUMN signed_cid text;
