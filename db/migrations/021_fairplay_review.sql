-- The thinking times of a game's analysis beyond the median: per side the
-- spread (the interquartile range, in seconds) and the share of moves made
-- in under a minute.  Games analysed before have neither (0).
ALTER TABLE fairplay_results
    ADD COLUMN white_spread_seconds double precision NOT NULL DEFAULT 0,
    ADD COLUMN white_under_minute double precision NOT NULL DEFAULT 0,
    ADD COLUMN black_spread_seconds double precision NOT NULL DEFAULT 0,
    ADD COLUMN black_under_minute double precision NOT NULL DEFAULT 0;

-- A player whose figures over their last analysed games pass the
-- thresholds (KORP_FAIRPLAY_REVIEW_*) goes to the arbiter's queue once, as
-- one item about the player (player_id) naming the games (details), its
-- game_id the last of them.
ALTER TABLE arbiter_queue DROP CONSTRAINT arbiter_queue_kind_check;
ALTER TABLE arbiter_queue ADD CONSTRAINT arbiter_queue_kind_check
    CHECK (kind IN ('perpetual', 'request', 'tournament-end', 'fairplay-review'));
CREATE INDEX arbiter_queue_fairplay ON arbiter_queue (player_id, created_at)
    WHERE kind = 'fairplay-review';

-- What arbiters did about players, with who and why: `warn` (message is
-- what the player is shown, under GET /v1/players/me/warnings), answering
-- a fair-play review (item_id).
CREATE TABLE arbiter_log (
    id text PRIMARY KEY,
    arbiter_id text NOT NULL REFERENCES players (id),
    action text NOT NULL CHECK (action IN ('warn')),
    player_id text NOT NULL REFERENCES players (id),
    item_id text REFERENCES arbiter_queue (id),
    reason text NOT NULL,
    message text,
    created_at timestamptz NOT NULL
);
CREATE INDEX arbiter_log_recent ON arbiter_log (created_at, id);
CREATE INDEX arbiter_log_player ON arbiter_log (player_id, created_at);
