-- Conditional moves, private notes and messages.

-- A player's conditional moves in a game, set while the opponent is to
-- move: lines of moves in UCI, one line a row of text, moves separated by
-- spaces, each starting with the opponent's next move.  `ply` is the plies
-- played when they hold; a move either consumes them (ply + 2) or drops
-- them, in its own transaction, so a row whose ply is not the game's is
-- stale (the game ended otherwise) and counts as none.
CREATE TABLE conditional_moves (
    game_id text NOT NULL REFERENCES games (id),
    player_id text NOT NULL REFERENCES players (id),
    ply integer NOT NULL CHECK (ply >= 0),
    lines text NOT NULL,
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (game_id, player_id)
);

-- A reply played from a player's conditional moves.
ALTER TABLE moves ADD COLUMN conditional boolean NOT NULL DEFAULT false;

-- One private text per player per game, read only by its author.
CREATE TABLE game_notes (
    game_id text NOT NULL REFERENCES games (id),
    player_id text NOT NULL REFERENCES players (id),
    text text NOT NULL CHECK (char_length(text) <= 20000),
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (game_id, player_id)
);

-- Messages between the players of a game, at the ply they were sent
-- (plies played, the move they came with included).
CREATE TABLE game_messages (
    id text PRIMARY KEY,
    game_id text NOT NULL REFERENCES games (id),
    player_id text NOT NULL REFERENCES players (id),
    ply integer NOT NULL CHECK (ply >= 0),
    text text NOT NULL CHECK (char_length(text) BETWEEN 1 AND 500),
    created_at timestamptz NOT NULL
);
CREATE INDEX game_messages_game ON game_messages (game_id, created_at, id);
CREATE INDEX game_messages_sender ON game_messages (game_id, player_id, created_at);

-- "message" becomes a kind of notification, on by default for email and
-- webhooks (as the other kinds a player did not turn off).
CREATE OR REPLACE FUNCTION korp_notification_types() RETURNS text[]
    LANGUAGE sql IMMUTABLE
    AS $$ SELECT ARRAY['challenge', 'challenge_declined', 'challenge_canceled', 'game_start',
                       'move', 'draw_offer', 'claim', 'game_end', 'deadline_near',
                       'message'] $$;
ALTER TABLE notification_settings ALTER COLUMN email_events
    SET DEFAULT ARRAY['move', 'challenge', 'draw_offer', 'game_end', 'deadline_near', 'message'];
UPDATE notification_settings SET email_events = email_events || ARRAY['message']
 WHERE NOT 'message' = ANY (email_events);
UPDATE notification_settings SET webhook_events = webhook_events || ARRAY['message']
 WHERE NOT 'message' = ANY (webhook_events);

-- As migration 004's, and: a message is addressed to the player who did
-- not send it; a conditional reply (payload "conditional") to both players:
-- the one to move, and the one whose conditional move was played.
CREATE OR REPLACE FUNCTION korp_event_addressed(player text, type text, payload jsonb)
    RETURNS boolean
    LANGUAGE sql STABLE
    AS $$
    SELECT coalesce(CASE type
        WHEN 'move' THEN payload->>'status' = 'active' AND (payload->>'to_move' =
            (SELECT CASE WHEN g.white_id = player THEN 'white' ELSE 'black' END
               FROM games g WHERE g.id = payload->>'game_id')
            OR coalesce((payload->>'conditional')::boolean, false))
        WHEN 'challenge' THEN payload->>'opponent' = player
        WHEN 'challenge_canceled' THEN payload->>'opponent' = player
        WHEN 'challenge_declined' THEN payload->>'challenger' = player
        WHEN 'draw_offer' THEN payload->>'draw_offer' IS NULL OR payload->>'draw_offer' <>
            (SELECT CASE WHEN g.white_id = player THEN 'white' ELSE 'black' END
               FROM games g WHERE g.id = payload->>'game_id')
        WHEN 'message' THEN payload->'message'->>'from' <>
            (SELECT CASE WHEN g.white_id = player THEN 'white' ELSE 'black' END
               FROM games g WHERE g.id = payload->>'game_id')
        ELSE true
    END, false) $$;
