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
