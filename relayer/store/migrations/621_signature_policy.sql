-- Per-key signature policy (relayer/auth/middleware.ts). require_signature_v2: version 1 (the
-- spec's timestamp + body) is refused for every request of the key. allow_v1_bodyless: a
-- state-changing request without a body (DELETE, a bodyless POST) may still be signed with
-- version 1, which does not cover the method or the path; off by default.
ALTER TABLE api_keys ADD COLUMN require_signature_v2 boolean NOT NULL DEFAULT false;
ALTER TABLE api_keys ADD COLUMN allow_v1_bodyless boolean NOT NULL DEFAULT false;
