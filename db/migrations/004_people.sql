-- People on the web board: passwords (Argon2id, encoded with their
-- parameters and salt), sign-in sessions (only the SHA-256 of the cookie's
-- value is kept), and open challenges (no opponent until someone accepts).

ALTER TABLE players ADD COLUMN password_hash text;

CREATE TABLE sessions (
    id text PRIMARY KEY,
    hash bytea NOT NULL UNIQUE,
    player_id text NOT NULL REFERENCES players (id) ON DELETE CASCADE,
    csrf_token text NOT NULL,
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    last_seen_at timestamptz NOT NULL
);
CREATE INDEX sessions_player ON sessions (player_id);
CREATE INDEX sessions_expiry ON sessions (expires_at);

ALTER TABLE challenges ALTER COLUMN opponent_id DROP NOT NULL;
CREATE INDEX challenges_open ON challenges (created_at)
    WHERE status = 'open' AND opponent_id IS NULL;

-- An open challenge's events concern its challenger only; a NULL answer
-- (nobody addressed) is no.
CREATE OR REPLACE FUNCTION korp_event_addressed(player text, type text, payload jsonb)
    RETURNS boolean
    LANGUAGE sql STABLE
    AS $$
    SELECT coalesce(CASE type
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
    END, false) $$;
