-- No NOTIFY inside a move's transaction.  PostgreSQL holds one
-- cluster-wide lock for a NOTIFYing transaction from just before its commit
-- until its commit record is flushed, so transactions that NOTIFY commit
-- one at a time.  The events' trigger still owes the deliveries in the
-- same transaction; the wake-up of the notify workers now comes after the
-- commit, from korpd's waker (db/db_wake.c: a NOTIFY on korp_deliveries
-- whenever a delivery is due), and a lost wake-up costs at most the
-- workers' periodic look (5 s).  Otherwise as migration 006 wrote it.
CREATE OR REPLACE FUNCTION korp_event_enqueue() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
DECLARE
    s notification_settings;
    wants_email boolean;
BEGIN
    SELECT * INTO s FROM notification_settings WHERE player_id = NEW.player_id;
    IF NOT FOUND OR NOT korp_event_addressed(NEW.player_id, NEW.type, NEW.payload) THEN
        RETURN NULL;
    END IF;
    INSERT INTO deliveries (player_id, channel, webhook_id, event_id, type, payload,
                            next_attempt_at, created_at)
    SELECT NEW.player_id, 'webhook', w.id, NEW.id, NEW.type,
           NEW.payload || jsonb_build_object('event_id', NEW.id), NEW.created_at, NEW.created_at
      FROM webhooks w
     WHERE w.player_id = NEW.player_id AND w.enabled AND NEW.type = ANY (w.events)
       AND NEW.type = ANY (s.webhook_events);
    -- With the daily digest on, "your move" comes once a day instead.
    wants_email := s.email_enabled AND NEW.type = ANY (s.email_events)
                   AND NOT (s.digest AND NEW.type = 'move')
                   AND EXISTS (SELECT 1 FROM players p WHERE p.id = NEW.player_id
                                                       AND coalesce(p.email, '') <> ''
                                                       AND p.email_confirmed_at IS NOT NULL);
    IF wants_email THEN
        INSERT INTO deliveries (player_id, channel, event_id, type, payload,
                                next_attempt_at, created_at)
        VALUES (NEW.player_id, 'email', NEW.id, NEW.type,
                NEW.payload || jsonb_build_object('event_id', NEW.id), NEW.created_at,
                NEW.created_at);
    END IF;
    RETURN NULL;
END $$;
