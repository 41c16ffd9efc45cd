-- The functions korp keeps in one place instead of copying them into each
-- new migration.  korpd applies this file after the migrations at every
-- start (db_migrate.c), in the same transaction and under the same lock, so
-- CREATE OR REPLACE only: a change here is a change of this file, never a
-- migration.  A migration sees these functions as the migrations before it
-- left them (this file runs after the last one); one that needs a newer
-- version defines it itself, as 014 does for korp_notification_types.
-- The lists of kinds follow db/db_kinds.def (tests/contract/test_kinds.py).

-- The one clock: the database's.  A test server (KORP_TEST_CLOCK=1) sets
-- korp.test_clock for its sessions at connect, and only then is the clock
-- moved forward by the stored offset (the table read only then): written
-- so that PostgreSQL inlines it, and a statement calling it sixteen times
-- costs no more than one calling now().
CREATE OR REPLACE FUNCTION korp_clock_offset() RETURNS interval
    LANGUAGE sql STABLE
    AS $$ SELECT make_interval(secs => offset_seconds) FROM clock $$;

CREATE OR REPLACE FUNCTION korp_now() RETURNS timestamptz
    LANGUAGE sql STABLE
    AS $$ SELECT CASE WHEN current_setting('korp.test_clock', true) = 'on'
                      THEN now() + korp_clock_offset() ELSE now() END $$;

-- Times as the API writes them (RFC 3339, UTC, whole seconds), and as
-- whole seconds since 1970.  STABLE, as what they call is (to_char and
-- extract read session settings): so PostgreSQL inlines them.
CREATE OR REPLACE FUNCTION korp_time(t timestamptz) RETURNS text
    LANGUAGE sql STABLE
    AS $$ SELECT to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') $$;

CREATE OR REPLACE FUNCTION korp_epoch(t timestamptz) RETURNS bigint
    LANGUAGE sql STABLE
    AS $$ SELECT floor(extract(epoch FROM t))::bigint $$;

-- The kinds of notification a player may choose: the event stream's types
-- and the deadline reminder.  The CHECKs of notification_settings and
-- webhooks hold their lists to it.
CREATE OR REPLACE FUNCTION korp_notification_types() RETURNS text[]
    LANGUAGE sql IMMUTABLE
    AS $$ SELECT ARRAY['challenge', 'challenge_declined', 'challenge_cancelled', 'game_start',
                       'move', 'draw_offer', 'claim', 'game_end', 'deadline_near',
                       'message', 'arbiter', 'tournament_start', 'tournament_end'] $$;

-- Whether an event is addressed to the player who has its row, rather than
-- merely about them: a move to the player whose turn it now is (and a
-- conditional reply to both: the one to move, and the one whose
-- conditional move was played), a challenge to the one challenged, a
-- message to the player who did not send it, and so on.  `side`: the
-- player's colour in the event's game ('white' or 'black'; NULL when it has
-- none).  One expression, which PostgreSQL inlines into its caller.
CREATE OR REPLACE FUNCTION korp_event_addressed(player text, side text, type text, payload jsonb)
    RETURNS boolean
    LANGUAGE sql IMMUTABLE
    AS $$
    SELECT coalesce(CASE type
        WHEN 'move' THEN payload->>'status' = 'active'
            AND (payload->>'to_move' = side OR coalesce((payload->>'conditional')::boolean, false))
        WHEN 'challenge' THEN payload->>'opponent' = player
        WHEN 'challenge_cancelled' THEN payload->>'opponent' = player
        WHEN 'challenge_declined' THEN payload->>'challenger' = player
        WHEN 'draw_offer' THEN payload->>'draw_offer' IS NULL OR payload->>'draw_offer' <> side
        WHEN 'message' THEN payload->'message'->>'from' <> side
        ELSE true
    END, false) $$;

-- The trigger of events, once for each statement that writes some: owes
-- each event's deliveries (its player's webhooks that take its kind, a
-- push to each of their browsers' subscriptions when they take it by push,
-- and an email when they take it by email at a confirmed address, unless
-- the daily digest tells "your move" once a day instead) in the
-- transaction that writes it, so nothing a commit promised can be lost.
-- No NOTIFY here: PostgreSQL holds one cluster-wide lock for a NOTIFYing
-- transaction until its commit is flushed; korpd's waker wakes the notify
-- workers after the commit (db_wake.c), and a lost wake-up costs at most
-- the workers' periodic look.
CREATE OR REPLACE FUNCTION korp_event_enqueue() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    WITH s AS (
        SELECT e.id AS event_id, e.player_id, e.type, e.payload, e.created_at,
               n.webhook_events, n.push_events, n.email_enabled, n.email_events, n.digest
          FROM new_events e
          JOIN notification_settings n ON n.player_id = e.player_id
          LEFT JOIN games g ON e.type IN ('move', 'draw_offer', 'message')
                           AND g.id = e.payload->>'game_id'
         WHERE korp_event_addressed(e.player_id,
                                    CASE WHEN g.white_id = e.player_id THEN 'white'
                                         WHEN g.id IS NOT NULL THEN 'black' END,
                                    e.type, e.payload)),
    owed (event_id, channel, webhook_id, push_subscription_id) AS (
        SELECT s.event_id, 'webhook', w.id, NULL FROM s JOIN webhooks w ON w.player_id = s.player_id
         WHERE w.enabled AND s.type = ANY (w.events) AND s.type = ANY (s.webhook_events)
        UNION ALL
        SELECT s.event_id, 'push', NULL, ps.id FROM s
          JOIN push_subscriptions ps ON ps.player_id = s.player_id
         WHERE s.type = ANY (s.push_events)
        UNION ALL
        SELECT s.event_id, 'email', NULL, NULL FROM s
         WHERE s.email_enabled AND s.type = ANY (s.email_events)
           AND NOT (s.digest AND s.type = 'move')
           AND EXISTS (SELECT FROM players p WHERE p.id = s.player_id AND p.email <> ''
                                               AND p.email_confirmed_at IS NOT NULL))
    INSERT INTO deliveries (player_id, channel, webhook_id, push_subscription_id, event_id, type,
                            payload, next_attempt_at, created_at)
    SELECT s.player_id, o.channel, o.webhook_id, o.push_subscription_id, s.event_id, s.type,
           s.payload || jsonb_build_object('event_id', s.event_id), s.created_at, s.created_at
      FROM owed o JOIN s ON s.event_id = o.event_id
     ORDER BY s.event_id;
    RETURN NULL;
END $$;

-- Owes the player a confirmation email for `address`, their current and
-- unconfirmed one, unless three were owed in the last 24 hours (someone
-- typing a stranger's address cannot flood them).  True when owed.  A lock
-- on the player, held until the transaction ends, makes the count and the
-- insert one step: a second caller waits, then counts (with a snapshot of
-- its own, the function being VOLATILE) what the first one wrote.
CREATE OR REPLACE FUNCTION korp_email_confirmation_owe(player text, address text)
    RETURNS boolean
    LANGUAGE plpgsql VOLATILE
    AS $$
DECLARE
    owed boolean;
BEGIN
    IF address IS NULL THEN
        RETURN false;
    END IF;
    PERFORM pg_advisory_xact_lock(hashtext('korp email confirmations ' || player));
    INSERT INTO deliveries (player_id, channel, type, payload, next_attempt_at, created_at)
    SELECT player, 'email', 'email_confirm', jsonb_build_object('email', address), korp_now(),
           korp_now()
     WHERE (SELECT count(*) FROM deliveries d
             WHERE d.player_id = player AND d.type = 'email_confirm'
               AND d.created_at > korp_now() - interval '24 hours') < 3;
    owed := FOUND;
    IF owed THEN
        PERFORM pg_notify('korp_deliveries', '');
    END IF;
    RETURN owed;
END $$;
