-- Inboxes: challenges can no longer flood a player, and korpd
-- mails only addresses their owners have confirmed.

-- One open directed challenge per (challenger, opponent).  Duplicates left
-- open from before are cancelled, keeping the newest.
UPDATE challenges c SET status = 'cancelled'
 WHERE c.status = 'open' AND c.opponent_id IS NOT NULL
   AND EXISTS (SELECT 1 FROM challenges n
                WHERE n.status = 'open' AND n.challenger_id = c.challenger_id
                  AND n.opponent_id = c.opponent_id
                  AND (n.created_at, n.id) > (c.created_at, c.id));
CREATE UNIQUE INDEX challenges_one_open_directed ON challenges (challenger_id, opponent_id)
    WHERE status = 'open' AND opponent_id IS NOT NULL;

-- The daily cap (KORP_CHALLENGES_PER_DAY) counts a challenger's challenges
-- of the last 24 hours.
CREATE INDEX challenges_by_challenger ON challenges (challenger_id, created_at);

-- When the player's current address was confirmed (NULL: not yet).  A new
-- address is unconfirmed; addresses given before confirmation existed are
-- taken as confirmed, so that upgrading stops nobody's mail.
ALTER TABLE players ADD COLUMN email_confirmed_at timestamptz;
UPDATE players SET email_confirmed_at = created_at WHERE email IS NOT NULL;

-- Events owe an email only to a confirmed address (the delivery worker
-- checks again when it sends: the address may change meanwhile).
CREATE OR REPLACE FUNCTION korp_event_enqueue() RETURNS trigger
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
                                                       AND coalesce(p.email, '') <> ''
                                                       AND p.email_confirmed_at IS NOT NULL);
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

-- Owes the player a confirmation email for `address`, their current and
-- unconfirmed one, unless three were owed in the last 24 hours (someone
-- typing a stranger's address cannot flood them).  True when owed.
CREATE FUNCTION korp_email_confirmation_owe(player text, address text) RETURNS boolean
    LANGUAGE plpgsql
    AS $$
BEGIN
    IF address IS NULL OR (SELECT count(*) FROM deliveries
                            WHERE player_id = player AND type = 'email_confirm'
                              AND created_at > korp_now() - interval '24 hours') >= 3 THEN
        RETURN false;
    END IF;
    INSERT INTO deliveries (player_id, channel, type, payload, next_attempt_at, created_at)
    VALUES (player, 'email', 'email_confirm', jsonb_build_object('email', address),
            korp_now(), korp_now());
    PERFORM pg_notify('korp_deliveries', '');
    RETURN true;
END $$;
