-- A delivery due now (written by the outbox triggers of migration 700, or made pending again by a
-- redelivery) notifies channel `webhook_deliveries` at commit: the dispatchers LISTEN on it
-- (relayer/webhooks/dispatch.ts, DELIVERY_CHANNEL) and send at once instead of polling. A claim
-- (lease, attempts) or a retry scheduled for later notifies nothing: the dispatcher sets its timer
-- to the next due delivery after each pass. NOTIFY takes a lock at commit, so it fires only when a
-- delivery was written (keys without endpoints never notify).

CREATE FUNCTION webhook_delivery_notify() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('webhook_deliveries', '');
  RETURN NULL;
END $$;

CREATE TRIGGER webhook_delivery_due
  AFTER INSERT OR UPDATE OF state, next_attempt_at ON webhook_deliveries
  FOR EACH ROW WHEN (NEW.state = 'pending' AND NEW.next_attempt_at <= now())
  EXECUTE FUNCTION webhook_delivery_notify();
