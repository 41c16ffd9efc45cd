-- Rated games and a Glicko-2 rating per player and variant
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

-- Round-robin tournaments: a director, players numbered by lot at the
-- start, every game created at once (FIDE Berger tables).
CREATE TABLE tournaments (
    id text PRIMARY KEY,
    name text NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
    variant text NOT NULL REFERENCES variants (name),
    director_id text NOT NULL REFERENCES players (id),
    status text NOT NULL DEFAULT 'open'
        CHECK (status IN ('open', 'active', 'finished', 'canceled')),
    days_per_move integer CHECK (days_per_move BETWEEN 1 AND 60),
    clock jsonb,
    rated boolean NOT NULL,
    double boolean NOT NULL,
    max_players integer NOT NULL CHECK (max_players BETWEEN 3 AND 30),
    leave_allowed boolean NOT NULL,
    min_rating double precision,
    max_rating double precision,
    max_timeout_percent integer CHECK (max_timeout_percent BETWEEN 0 AND 100),
    starts_at timestamptz,
    ends_at timestamptz,
    -- The games still going at ends_at went to the arbiter's queue.
    ends_at_handled boolean NOT NULL DEFAULT false,
    created_at timestamptz NOT NULL
);
CREATE INDEX tournaments_status ON tournaments (status, created_at DESC, id DESC);
CREATE INDEX tournaments_due ON tournaments (starts_at) WHERE status = 'open';

CREATE TABLE tournament_players (
    tournament_id text NOT NULL REFERENCES tournaments (id),
    player_id text NOT NULL REFERENCES players (id),
    number integer,             -- drawn by lot at the start
    withdrawn boolean NOT NULL DEFAULT false,
    joined_at timestamptz NOT NULL,
    PRIMARY KEY (tournament_id, player_id)
);
CREATE INDEX tournament_players_player ON tournament_players (player_id);

ALTER TABLE games ADD COLUMN tournament_id text REFERENCES tournaments (id);
CREATE INDEX games_tournament ON games (tournament_id) WHERE tournament_id IS NOT NULL;

-- A new termination, `forfeit` (a withdrawal after the start): added to
-- whatever list the CHECK holds by now, so that other migrations' words stay.
DO $$
DECLARE
    def text;
BEGIN
    SELECT pg_get_constraintdef(oid) INTO def FROM pg_constraint
     WHERE conrelid = 'games'::regclass AND conname = 'games_termination_check';
    IF def IS NOT NULL AND position('''forfeit''' IN def) = 0 THEN
        ALTER TABLE games DROP CONSTRAINT games_termination_check;
        EXECUTE 'ALTER TABLE games ADD CONSTRAINT games_termination_check '
                || regexp_replace(def, '\]\)', ', ''forfeit''::text])');
    END IF;
END $$;

-- A tournament game's round in the Berger tables (1..), for the crosstable.
ALTER TABLE games ADD COLUMN tournament_round integer;

-- Three more kinds of notification (events of the same names): an
-- arbiter's decision, a tournament's start and end.  Added to whatever
-- list korp_notification_types() holds by now, so that other migrations'
-- kinds stay; new players get them by email too, and players whose
-- webhooks take every kind keep doing so.
DO $$
DECLARE
    added text[] := ARRAY['arbiter', 'tournament_start', 'tournament_end'];
    before text[] := korp_notification_types();
    after text[] := before || ARRAY(SELECT k FROM unnest(added) k WHERE k <> ALL (before));
BEGIN
    EXECUTE format('CREATE OR REPLACE FUNCTION korp_notification_types() RETURNS text[]'
                   ' LANGUAGE sql IMMUTABLE AS %L',
                   format('SELECT %L::text[]', after));
    -- The default as migrations 003 and 008 (the message kind) left it, and these.
    EXECUTE format('ALTER TABLE notification_settings ALTER COLUMN email_events SET DEFAULT'
                   ' %L::text[]', ARRAY['move', 'challenge', 'draw_offer', 'game_end',
                                        'deadline_near', 'message'] || added);
    UPDATE notification_settings SET webhook_events = after WHERE webhook_events @> before;
END $$;
