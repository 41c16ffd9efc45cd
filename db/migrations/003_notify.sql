-- Turn notifications: what each player wants to hear and how, their
-- webhooks, and the outbox of deliveries owed.  An event row concerning a
-- player (events, migration 002) enqueues its deliveries by trigger, in
-- the transaction that writes the event: nothing a commit promised can be
-- lost, and nothing is sent from a request handler.

-- The kinds of notification: the event stream's types and the reminder.
CREATE FUNCTION korp_notification_types() RETURNS text[]
    LANGUAGE sql IMMUTABLE
    AS $$ SELECT ARRAY['challenge', 'challenge_declined', 'challenge_canceled', 'game_start',
                       'move', 'draw_offer', 'claim', 'game_end', 'deadline_near'] $$;

CREATE TABLE notification_settings (
    player_id text PRIMARY KEY REFERENCES players (id) ON DELETE CASCADE,
    email_enabled boolean NOT NULL DEFAULT true,
    email_events text[] NOT NULL
        DEFAULT ARRAY['move', 'challenge', 'draw_offer', 'game_end', 'deadline_near']
        CHECK (email_events <@ korp_notification_types()),
    webhook_events text[] NOT NULL DEFAULT korp_notification_types()
        CHECK (webhook_events <@ korp_notification_types()),
    digest boolean NOT NULL DEFAULT false,
    digest_hour integer NOT NULL DEFAULT 7 CHECK (digest_hour BETWEEN 0 AND 23),
    digest_sent_on date,
    reminder_hours integer NOT NULL DEFAULT 24 CHECK (reminder_hours BETWEEN 0 AND 720)
);
INSERT INTO notification_settings (player_id) SELECT id FROM players;

-- The ply whose deadline reminder was sent (one per move to make).
ALTER TABLE games ADD COLUMN reminded_ply integer;

CREATE TABLE webhooks (
    id text PRIMARY KEY,
    player_id text NOT NULL REFERENCES players (id) ON DELETE CASCADE,
    url text NOT NULL CHECK (length(url) BETWEEN 8 AND 2048),
    events text[] NOT NULL CHECK (events <@ korp_notification_types()),
    secret text NOT NULL,
    -- After a rotation deliveries are signed with both secrets for a day.
    previous_secret text,
    previous_until timestamptz,
    enabled boolean NOT NULL DEFAULT true,
    disabled_reason text,
    -- When the current run of failed attempts began (NULL: last one worked).
    failing_since timestamptz,
    created_at timestamptz NOT NULL
);
CREATE INDEX webhooks_player ON webhooks (player_id);

-- The outbox.  A pending row is due at next_attempt_at; a worker claiming
-- it moves next_attempt_at a lease ahead, so that a worker which dies
-- mid-delivery leaves it due again when the lease runs out.
CREATE TABLE deliveries (
    id bigserial PRIMARY KEY,
    player_id text NOT NULL REFERENCES players (id) ON DELETE CASCADE,
    channel text NOT NULL CHECK (channel IN ('email', 'webhook')),
    webhook_id text REFERENCES webhooks (id) ON DELETE CASCADE,
    event_id bigint REFERENCES events (id),
    type text NOT NULL,
    payload jsonb NOT NULL,
    status text NOT NULL DEFAULT 'pending'
        CHECK (status IN ('pending', 'delivered', 'failed')),
    attempts integer NOT NULL DEFAULT 0,
    next_attempt_at timestamptz NOT NULL,
    created_at timestamptz NOT NULL,
    delivered_at timestamptz,
    last_error text,
    CHECK ((channel = 'webhook') = (webhook_id IS NOT NULL))
);
CREATE INDEX deliveries_due ON deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX deliveries_webhook ON deliveries (webhook_id, id);

CREATE TABLE delivery_attempts (
    delivery_id bigint NOT NULL REFERENCES deliveries (id) ON DELETE CASCADE,
    attempt integer NOT NULL,
    at timestamptz NOT NULL,
    status_code integer,
    latency_ms double precision NOT NULL,
    error text,
    PRIMARY KEY (delivery_id, attempt)
);

-- Keys korpd keeps for itself (the one-click unsubscribe links' HMAC key),
-- shared by every korpd process on the database.
CREATE TABLE server_secrets (
    name text PRIMARY KEY,
    value bytea NOT NULL
);

-- Whether an event is addressed to the player who has its row, rather than
-- merely about them: a move to the player whose turn it now is, a
-- challenge to the one challenged, and so on.
CREATE FUNCTION korp_event_addressed(player text, type text, payload jsonb) RETURNS boolean
    LANGUAGE sql STABLE
    AS $$
    SELECT CASE type
        WHEN 'move' THEN payload->>'status' = 'active' AND payload->>'to_move' =
            (SELECT CASE WHEN g.white_id = player THEN 'white' ELSE 'black' END
               FROM games g WHERE g.id = payload->>'game_id')
        WHEN 'challenge' THEN payload->>'opponent' = player
        WHEN 'challenge_canceled' THEN payload->>'opponent' = player
        WHEN 'challenge_declined' THEN payload->>'challenger' = player
        WHEN 'draw_offer' THEN payload->>'draw_offer' IS NULL OR payload->>'draw_offer' <>
            (SELECT CASE WHEN g.white_id = player THEN 'white' ELSE 'black' END
               FROM games g WHERE g.id = payload->>'game_id')
        ELSE true
    END $$;

-- The channel notify workers LISTEN on (payload empty).
CREATE FUNCTION korp_event_enqueue() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
DECLARE
    s notification_settings;
    owed integer;
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
    GET DIAGNOSTICS owed = ROW_COUNT;
    -- With the daily digest on, "your move" comes once a day instead.
    wants_email := s.email_enabled AND NEW.type = ANY (s.email_events)
                   AND NOT (s.digest AND NEW.type = 'move')
                   AND EXISTS (SELECT 1 FROM players p WHERE p.id = NEW.player_id
                                                       AND coalesce(p.email, '') <> '');
    IF wants_email THEN
        INSERT INTO deliveries (player_id, channel, event_id, type, payload,
                                next_attempt_at, created_at)
        VALUES (NEW.player_id, 'email', NEW.id, NEW.type,
                NEW.payload || jsonb_build_object('event_id', NEW.id), NEW.created_at,
                NEW.created_at);
        owed := owed + 1;
    END IF;
    IF owed > 0 THEN
        PERFORM pg_notify('korp_deliveries', '');
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER events_enqueue AFTER INSERT ON events
    FOR EACH ROW EXECUTE FUNCTION korp_event_enqueue();
