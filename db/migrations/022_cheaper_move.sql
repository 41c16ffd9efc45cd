-- korpd works out a game's clocks from its row (db/db_clock.c): a save
-- writes each side's seconds, the turn's start and the deadline itself,
-- and a read gets the stored clock with the leave that stops it.  The
-- trigger of 007 stays for a korpd of before, during a rolling restart: a
-- session of this korpd says so (korp.clocks = 'korpd', set at connect) and
-- the trigger leaves its saves alone.
DROP TRIGGER games_clock ON games;
CREATE TRIGGER games_clock BEFORE UPDATE OF ply, status ON games
    FOR EACH ROW WHEN (OLD.status = 'active' AND OLD.white_seconds IS NOT NULL
                       AND current_setting('korp.clocks', true) IS DISTINCT FROM 'korpd')
    EXECUTE FUNCTION korp_game_clock();

-- One more at each change of what the API shows of a game: its entity tag
-- without building it (api/api_etag.c).
ALTER TABLE games ADD COLUMN version bigint NOT NULL DEFAULT 0;

-- The deliveries an event owes, owed once for each statement that writes
-- events, from the rows it wrote (korp_event_enqueue, db/functions.sql),
-- rather than once for each event.
DROP TRIGGER events_enqueue ON events;
CREATE TRIGGER events_enqueue AFTER INSERT ON events
    REFERENCING NEW TABLE AS new_events
    FOR EACH STATEMENT EXECUTE FUNCTION korp_event_enqueue();
