-- Daily caps counted under a lock: a player's requests for an arbiter
-- (three in 24 hours, one open per game) and a director's new tournaments
-- (KORP_TOURNAMENTS_PER_DAY) are counted through these indexes.
CREATE INDEX arbiter_queue_requests ON arbiter_queue (player_id, created_at)
    WHERE kind = 'request';
CREATE INDEX tournaments_by_director ON tournaments (director_id, created_at);
