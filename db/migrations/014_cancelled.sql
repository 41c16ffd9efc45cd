-- "cancelled", spelt one way in the API as a challenge's status always was:
-- the kind of event and notification challenge_canceled becomes
-- challenge_cancelled, and a tournament's status canceled becomes
-- cancelled.  Stored rows follow; korpd still reads the older spelling
-- where a client sends it.
--
-- From here on korp_notification_types, korp_event_addressed and
-- korp_event_enqueue live in db/functions.sql, which korpd applies after
-- the migrations at every start.  This migration runs before that file
-- does, so it makes the list of kinds its rows need itself.
DO $$
DECLARE
    after text[] := array_replace(korp_notification_types(), 'challenge_canceled',
                                  'challenge_cancelled');
BEGIN
    EXECUTE format('CREATE OR REPLACE FUNCTION korp_notification_types() RETURNS text[]'
                   ' LANGUAGE sql IMMUTABLE AS %L',
                   format('SELECT %L::text[]', after));
END $$;

UPDATE notification_settings
   SET email_events = array_replace(email_events, 'challenge_canceled', 'challenge_cancelled'),
       webhook_events = array_replace(webhook_events, 'challenge_canceled', 'challenge_cancelled')
 WHERE 'challenge_canceled' = ANY (email_events) OR 'challenge_canceled' = ANY (webhook_events);
UPDATE webhooks SET events = array_replace(events, 'challenge_canceled', 'challenge_cancelled')
 WHERE 'challenge_canceled' = ANY (events);
UPDATE events SET type = 'challenge_cancelled' WHERE type = 'challenge_canceled';
UPDATE deliveries SET type = 'challenge_cancelled' WHERE type = 'challenge_canceled';

ALTER TABLE tournaments DROP CONSTRAINT tournaments_status_check;
UPDATE tournaments SET status = 'cancelled' WHERE status = 'canceled';
ALTER TABLE tournaments ADD CONSTRAINT tournaments_status_check
    CHECK (status IN ('open', 'active', 'finished', 'cancelled'));
