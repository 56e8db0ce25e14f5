-- How many requests the last update of a rate window admitted: concurrent requests are counted in
-- one upsert per key (relayer/limits/admission.ts), which admits up to the limit and must know
-- how many of them fitted (the count before the update is not returned by an upsert).
ALTER TABLE rate_limit_counters ADD COLUMN added integer NOT NULL DEFAULT 0;
