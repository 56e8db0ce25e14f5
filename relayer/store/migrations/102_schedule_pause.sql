-- Paused schedules (POST /v1/schedules/{id}/pause, /resume): a paused schedule keeps its row and
-- history but has no pg-boss cron entry, and a firing already queued when it was paused does nothing.
ALTER TABLE workflow_schedules ADD COLUMN paused_at timestamptz;
