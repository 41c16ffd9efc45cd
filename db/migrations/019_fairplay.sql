-- The engine policy of challenges, games and tournaments: whether a player
-- may have an engine analyse their own game in play.  Rated play forbids
-- engines unless it says otherwise, unrated play allows them.
ALTER TABLE challenges ADD COLUMN engines_allowed boolean NOT NULL DEFAULT false;
UPDATE challenges SET engines_allowed = true WHERE NOT rated;
ALTER TABLE games ADD COLUMN engines_allowed boolean NOT NULL DEFAULT false;
UPDATE games SET engines_allowed = true WHERE NOT rated;
ALTER TABLE tournaments ADD COLUMN engines_allowed boolean NOT NULL DEFAULT false;
UPDATE tournaments SET engines_allowed = true WHERE NOT rated;

-- Rated games with engines forbidden, ended and waiting for the fair-play
-- analysis.  A worker holds a row locked (FOR UPDATE SKIP LOCKED) for the
-- whole analysis, in one transaction that stores the result and deletes
-- the row: a korpd that dies meanwhile leaves the row for another.  A game
-- whose moves cannot be replayed is set aside (failed_at) and no longer
-- taken.
CREATE TABLE fairplay_queue (
    game_id text PRIMARY KEY REFERENCES games (id),
    queued_at timestamptz NOT NULL,
    failed_at timestamptz,
    failure text
);

-- The analysis of a game: the node budget it was made at, and per side the
-- moves counted, the shares of them that were the engine's first choice and
-- within its first three, the average centipawn loss against its best, and
-- the median thinking time.
CREATE TABLE fairplay_results (
    game_id text PRIMARY KEY REFERENCES games (id),
    nodes bigint NOT NULL,
    white_moves integer NOT NULL,
    white_top1 double precision NOT NULL,
    white_top3 double precision NOT NULL,
    white_acpl double precision NOT NULL,
    white_median_seconds double precision NOT NULL,
    black_moves integer NOT NULL,
    black_top1 double precision NOT NULL,
    black_top3 double precision NOT NULL,
    black_acpl double precision NOT NULL,
    black_median_seconds double precision NOT NULL,
    analysed_at timestamptz NOT NULL
);
