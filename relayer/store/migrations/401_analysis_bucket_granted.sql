-- How many tokens the last update of the text-analysis bucket granted: the requests arriving
-- together take their tokens in one upsert (relayer/analysis/store.ts), which must know how many
-- fitted (the tokens before the update are not returned by an upsert).
ALTER TABLE analysis_rate_bucket ADD COLUMN granted integer NOT NULL DEFAULT 0;
