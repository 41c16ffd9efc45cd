-- An arbiter may close a player's account for rated play (the player
-- keeps playing unrated), and reopen it: rated_closed_at says since when it
-- is closed.  The arbiters' log records closures, reopenings and
-- dismissals too; a dismissal may concern no
-- player (an item about a tournament's game), and an entry may carry what
-- the action did (details: the games ended, the challenges cancelled, the
-- tournaments left, or the item dismissed).
ALTER TABLE players ADD COLUMN rated_closed_at timestamptz;
ALTER TABLE arbiter_log DROP CONSTRAINT arbiter_log_action_check;
ALTER TABLE arbiter_log ADD CONSTRAINT arbiter_log_action_check
    CHECK (action IN ('warn', 'close', 'reopen', 'dismiss'));
ALTER TABLE arbiter_log ALTER COLUMN player_id DROP NOT NULL;
ALTER TABLE arbiter_log ADD COLUMN details jsonb;

-- The fair-play analysis move by move, for the arbiter to read beside the
-- figures: for each move judged, who made it, the move played and the
-- engine's first choice (UCI), whether the move was within the engine's
-- first three, and the centipawns it lost (capped as the figures are).
CREATE TABLE fairplay_moves (
    game_id text NOT NULL REFERENCES fairplay_results (game_id),
    ply integer NOT NULL,
    side text NOT NULL CHECK (side IN ('white', 'black')),
    played text NOT NULL,
    engine text NOT NULL,
    top3 boolean NOT NULL,
    loss integer NOT NULL,
    PRIMARY KEY (game_id, ply)
);
