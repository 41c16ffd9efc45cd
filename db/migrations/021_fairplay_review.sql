-- The thinking times of a game's analysis beyond the median: per side the
-- spread (the interquartile range, in seconds) and the share of moves made
-- in under a minute.  Games analysed before have neither (0).
ALTER TABLE fairplay_results
    ADD COLUMN white_spread_seconds double precision NOT NULL DEFAULT 0,
    ADD COLUMN white_under_minute double precision NOT NULL DEFAULT 0,
    ADD COLUMN black_spread_seconds double precision NOT NULL DEFAULT 0,
    ADD COLUMN black_under_minute double precision NOT NULL DEFAULT 0;
