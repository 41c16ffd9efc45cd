-- Players, their tokens, challenges, games, moves, the event log and
-- idempotency keys: everything a correspondence game needs.  Ids are short
-- random strings made by korpd; times come from korp_now() (one clock).

-- The one clock: the database's, moved forward by a stored offset that
-- only a test server (KORP_TEST_CLOCK=1) may change.
CREATE TABLE clock (
    singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    offset_seconds bigint NOT NULL DEFAULT 0 CHECK (offset_seconds >= 0)
);
INSERT INTO clock DEFAULT VALUES;

CREATE FUNCTION korp_now() RETURNS timestamptz
    LANGUAGE sql STABLE
    AS $$ SELECT now() + make_interval(secs => offset_seconds) FROM clock $$;

-- Times as the API writes them: RFC 3339, UTC, whole seconds.
CREATE FUNCTION korp_time(t timestamptz) RETURNS text
    LANGUAGE sql IMMUTABLE
    AS $$ SELECT to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') $$;

-- White's score in quarter points for a result (Glinski stalemate: 3 or 1).
CREATE FUNCTION korp_white_quarters(result text) RETURNS integer
    LANGUAGE sql IMMUTABLE
    AS $$ SELECT CASE result WHEN '1-0' THEN 4 WHEN '3/4-1/4' THEN 3 WHEN '1/2-1/2' THEN 2
                             WHEN '1/4-3/4' THEN 1 ELSE 0 END $$;

CREATE TABLE players (
    id text PRIMARY KEY,
    name text NOT NULL CHECK (name ~ '^[A-Za-z0-9_-]{2,30}$'),
    email text,
    role text NOT NULL DEFAULT 'player' CHECK (role IN ('player', 'arbiter')),
    created_at timestamptz NOT NULL
);
CREATE UNIQUE INDEX players_name_unique ON players (lower(name));

-- Only a SHA-256 of each token is kept.
CREATE TABLE tokens (
    id text PRIMARY KEY,
    player_id text NOT NULL REFERENCES players (id),
    hash bytea NOT NULL UNIQUE,
    created_at timestamptz NOT NULL,
    last_used_at timestamptz
);
CREATE INDEX tokens_player ON tokens (player_id);

CREATE TABLE challenges (
    id text PRIMARY KEY,
    variant text NOT NULL REFERENCES variants (name),
    challenger_id text NOT NULL REFERENCES players (id),
    opponent_id text NOT NULL REFERENCES players (id),
    color text NOT NULL CHECK (color IN ('white', 'black', 'random')),
    days_per_move integer CHECK (days_per_move BETWEEN 1 AND 60),
    fifty_move_rule boolean NOT NULL,
    status text NOT NULL DEFAULT 'open'
        CHECK (status IN ('open', 'accepted', 'declined', 'cancelled')),
    game_id text,
    created_at timestamptz NOT NULL,
    CHECK (challenger_id <> opponent_id)
);
CREATE INDEX challenges_open_opponent ON challenges (opponent_id) WHERE status = 'open';
CREATE INDEX challenges_open_challenger ON challenges (challenger_id) WHERE status = 'open';

-- A game carries what the next move needs, so that no move replays history:
-- the position, the ply, and the repetition keys of the positions since the
-- last irreversible move (oldest first, the current one last).  `sans` is
-- every move's SAN, space-separated, for the answers: a move appends to it
-- and to the keys in SQL, and never reads the moves table.
CREATE TABLE games (
    id text PRIMARY KEY,
    variant text NOT NULL REFERENCES variants (name),
    white_id text NOT NULL REFERENCES players (id),
    black_id text NOT NULL REFERENCES players (id),
    fen text NOT NULL,
    ply integer NOT NULL DEFAULT 0 CHECK (ply >= 0),
    status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'finished', 'aborted')),
    result text NOT NULL DEFAULT '*'
        CHECK (result IN ('*', '1-0', '0-1', '1/2-1/2', '3/4-1/4', '1/4-3/4')),
    termination text CHECK (termination IN ('checkmate', 'stalemate', 'insufficient-material',
        'threefold', 'fifty-move', 'agreement', 'resignation', 'timeout', 'adjudication')),
    adjudication_reason text,
    days_per_move integer CHECK (days_per_move BETWEEN 1 AND 60),
    deadline timestamptz,
    draw_offer text CHECK (draw_offer IN ('white', 'black')),
    fifty_move_rule boolean NOT NULL,
    repetition_keys bigint[] NOT NULL,
    key_version integer NOT NULL,
    sans text NOT NULL DEFAULT '',
    challenge_id text,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    CHECK ((status = 'active') = (result = '*' AND termination IS NULL) OR status = 'aborted')
);
CREATE INDEX games_newest ON games (created_at DESC, id DESC);
CREATE INDEX games_white ON games (white_id, created_at DESC, id DESC);
CREATE INDEX games_black ON games (black_id, created_at DESC, id DESC);
CREATE INDEX games_due ON games (deadline) WHERE status = 'active' AND deadline IS NOT NULL;

-- Append-only.
CREATE TABLE moves (
    game_id text NOT NULL REFERENCES games (id),
    ply integer NOT NULL CHECK (ply >= 1),
    san text NOT NULL,
    uci text NOT NULL,
    fen text NOT NULL,
    played_at timestamptz NOT NULL,
    PRIMARY KEY (game_id, ply)
);

-- Append-only: one row for each player an event concerns, so that a
-- player's stream is one index range (player_id, id).
CREATE TABLE events (
    id bigserial PRIMARY KEY,
    player_id text NOT NULL REFERENCES players (id),
    game_id text REFERENCES games (id),
    type text NOT NULL,
    payload jsonb NOT NULL,
    created_at timestamptz NOT NULL
);
CREATE INDEX events_player ON events (player_id, id);

-- The first answer to a POST sent with an Idempotency-Key, per token, kept
-- for 24 hours.
CREATE TABLE idempotency_keys (
    token_id text NOT NULL REFERENCES tokens (id) ON DELETE CASCADE,
    key text NOT NULL CHECK (length(key) BETWEEN 1 AND 64),
    method text NOT NULL,
    path text NOT NULL,
    status integer NOT NULL,
    body text NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (token_id, key)
);
CREATE INDEX idempotency_keys_age ON idempotency_keys (created_at);
