-- Issue 19: rated games and a Glicko-2 rating per player and variant
-- (computed in C by ratings/, stored here).

-- Challenges are rated unless they say otherwise; a game is rated when its
-- challenge (or tournament) was.  Games made before this migration stay
-- unrated.
ALTER TABLE challenges ADD COLUMN rated boolean NOT NULL DEFAULT true;
ALTER TABLE games ADD COLUMN rated boolean NOT NULL DEFAULT false,
    -- After minus before, for each side, once a rated game is over.
    ADD COLUMN rating_diff_white double precision,
    ADD COLUMN rating_diff_black double precision;

-- A player's current rating in a variant; no row: the starting values.
CREATE TABLE ratings (
    player_id text NOT NULL REFERENCES players (id),
    variant text NOT NULL REFERENCES variants (name),
    rating double precision NOT NULL,
    rd double precision NOT NULL CHECK (rd > 0),
    volatility double precision NOT NULL CHECK (volatility > 0),
    games integer NOT NULL DEFAULT 0 CHECK (games >= 0),
    last_rated_at timestamptz,
    PRIMARY KEY (player_id, variant)
);
CREATE INDEX ratings_leaderboard ON ratings (variant, rating DESC, player_id);

-- Append-only: a player's rating after each rated game.
CREATE TABLE rating_history (
    player_id text NOT NULL REFERENCES players (id),
    variant text NOT NULL REFERENCES variants (name),
    game_id text NOT NULL REFERENCES games (id),
    at timestamptz NOT NULL,
    rating double precision NOT NULL,
    rd double precision NOT NULL,
    PRIMARY KEY (player_id, game_id)
);
CREATE INDEX rating_history_player ON rating_history (player_id, variant, at, game_id);

-- What waits for an arbiter: perpetual-check claims, players' requests, and
-- tournament games still going at the tournament's end.  An adjudication
-- of the game resolves its open items; an arbiter may dismiss one.
CREATE TABLE arbiter_queue (
    id text PRIMARY KEY,
    kind text NOT NULL CHECK (kind IN ('perpetual', 'request', 'tournament-end')),
    game_id text NOT NULL REFERENCES games (id),
    player_id text REFERENCES players (id),
    details jsonb NOT NULL DEFAULT '{}',
    status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'resolved', 'dismissed')),
    reason text,
    created_at timestamptz NOT NULL,
    resolved_at timestamptz
);
CREATE INDEX arbiter_queue_open ON arbiter_queue (created_at, id) WHERE status = 'open';
CREATE INDEX arbiter_queue_game ON arbiter_queue (game_id) WHERE status = 'open';
