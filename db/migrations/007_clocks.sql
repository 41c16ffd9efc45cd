-- Clocks and leave: Fischer clocks beside days per move, and a
-- yearly leave allowance that stops the clocks of a player's games.
--
-- Time is charged in whole seconds of korp_now(): a turn starts at the
-- whole second of the move that began it, leave starts and ends at whole
-- seconds, so that a clock reads the same to the second however late the
-- request that reads it comes within that second.

-- A challenge's clock: days_per_move (as before), or a Fischer clock.
ALTER TABLE challenges
    ADD COLUMN clock_initial_days integer CHECK (clock_initial_days BETWEEN 1 AND 180),
    ADD COLUMN clock_increment_days integer CHECK (clock_increment_days BETWEEN 0 AND 30),
    ADD COLUMN clock_max_days integer CHECK (clock_max_days BETWEEN 1 AND 365),
    ADD COLUMN leave_allowed boolean NOT NULL DEFAULT true,
    ADD CHECK ((clock_initial_days IS NULL) = (clock_increment_days IS NULL)
               AND (clock_initial_days IS NULL) = (clock_max_days IS NULL)
               AND (clock_initial_days IS NULL OR days_per_move IS NULL)
               AND clock_initial_days <= clock_max_days);

-- A game's clock.  white_seconds and black_seconds are each side's time at
-- the start of the current turn (turn_started_at): the side to move's runs
-- from then on, except while a player of the game is on leave.  Per-move
-- clocks give the side to move days_per_move days at each turn.  NULL: no
-- clock (a game without a time limit).
ALTER TABLE games
    ADD COLUMN clock_initial_days integer CHECK (clock_initial_days BETWEEN 1 AND 180),
    ADD COLUMN clock_increment_days integer CHECK (clock_increment_days BETWEEN 0 AND 30),
    ADD COLUMN clock_max_days integer CHECK (clock_max_days BETWEEN 1 AND 365),
    ADD COLUMN leave_allowed boolean NOT NULL DEFAULT true,
    ADD COLUMN white_seconds bigint CHECK (white_seconds >= 0),
    ADD COLUMN black_seconds bigint CHECK (black_seconds >= 0),
    ADD COLUMN turn_started_at timestamptz;

-- Games already running keep their deadline: the side to move's turn began
-- days_per_move days before it.
UPDATE games SET white_seconds = days_per_move * 86400, black_seconds = days_per_move * 86400,
                 turn_started_at = date_trunc('second', deadline - make_interval(days => days_per_move))
    WHERE days_per_move IS NOT NULL AND status = 'active' AND deadline IS NOT NULL;

-- Leave: whole UTC days from start_day, [start_at, end_at) (start_at is the
-- booking's time when it starts on the day it is made).  days is the
-- number of days counted against the allowance; a booking ended early
-- keeps the days it used.
CREATE TABLE leaves (
    id text PRIMARY KEY,
    player_id text NOT NULL REFERENCES players (id),
    start_day date NOT NULL,
    days integer NOT NULL CHECK (days >= 1),
    start_at timestamptz NOT NULL,
    end_at timestamptz NOT NULL,
    created_at timestamptz NOT NULL,
    CHECK (end_at > start_at)
);
CREATE INDEX leaves_player ON leaves (player_id, end_at);

-- The days of a player's leave that fall in a year.
CREATE FUNCTION korp_leave_days_in_year(player text, y integer) RETURNS integer
    LANGUAGE sql STABLE
    AS $$ SELECT coalesce(sum(greatest(0, least(l.start_day + l.days, make_date(y + 1, 1, 1))
                                          - greatest(l.start_day, make_date(y, 1, 1)))), 0)::integer
          FROM leaves l WHERE l.player_id = player $$;

-- Whole seconds since 1970 of a time.
CREATE FUNCTION korp_epoch(t timestamptz) RETURNS bigint
    LANGUAGE sql IMMUTABLE
    AS $$ SELECT floor(extract(epoch FROM t))::bigint $$;

-- The leave that stops a game's clocks: both players' bookings ending
-- after `from`, in order of start (none when the game ignores leave).
CREATE FUNCTION korp_game_pauses(white text, black text, allowed boolean, since timestamptz)
    RETURNS TABLE (s bigint, e bigint)
    LANGUAGE sql STABLE
    AS $$ SELECT korp_epoch(l.start_at), korp_epoch(l.end_at) FROM leaves l
          WHERE allowed AND l.player_id IN (white, black) AND l.end_at > since
          ORDER BY l.start_at $$;

-- Seconds of running time in [t0, t1): the time no leave covers.
CREATE FUNCTION korp_run_seconds(white text, black text, allowed boolean,
                                 t0 timestamptz, t1 timestamptz) RETURNS bigint
    LANGUAGE plpgsql STABLE
    AS $$
DECLARE
    a bigint := korp_epoch(t0);
    b bigint := korp_epoch(t1);
    t bigint := a;
    run bigint := 0;
    p record;
BEGIN
    IF b <= a THEN
        RETURN 0;
    END IF;
    FOR p IN SELECT * FROM korp_game_pauses(white, black, allowed, t0) LOOP
        EXIT WHEN p.s >= b;
        CONTINUE WHEN p.e <= t;
        IF p.s > t THEN
            run := run + (p.s - t);
        END IF;
        t := least(p.e, b);
        EXIT WHEN t >= b;
    END LOOP;
    RETURN run + greatest(0, b - t);
END $$;

-- When `budget` seconds of running time from t0 are used up.
CREATE FUNCTION korp_run_out(white text, black text, allowed boolean, t0 timestamptz,
                             budget bigint) RETURNS timestamptz
    LANGUAGE plpgsql STABLE
    AS $$
DECLARE
    t bigint := korp_epoch(t0);
    left_s bigint := greatest(budget, 0);
    p record;
BEGIN
    FOR p IN SELECT * FROM korp_game_pauses(white, black, allowed, t0) LOOP
        CONTINUE WHEN p.e <= t;
        IF p.s > t THEN
            EXIT WHEN p.s - t >= left_s;
            left_s := left_s - (p.s - t);
        END IF;
        t := p.e;
    END LOOP;
    RETURN to_timestamp(t + left_s);
END $$;

-- The end of the leave stopping a game now (merged over both players'
-- overlapping bookings), or NULL when its clocks run.
CREATE FUNCTION korp_paused_until(white text, black text, allowed boolean) RETURNS timestamptz
    LANGUAGE plpgsql STABLE
    AS $$
DECLARE
    now_s bigint := korp_epoch(korp_now());
    t bigint := now_s;
    p record;
BEGIN
    FOR p IN SELECT * FROM korp_game_pauses(white, black, allowed, korp_now()) LOOP
        EXIT WHEN p.s > t;
        t := greatest(t, p.e);
    END LOOP;
    RETURN CASE WHEN t > now_s THEN to_timestamp(t) END;
END $$;

-- A side's time now: the side to move's runs since the turn began.
CREATE FUNCTION korp_clock_left(g games, white_side boolean) RETURNS bigint
    LANGUAGE sql STABLE
    AS $$ SELECT CASE
            WHEN g.white_seconds IS NULL THEN NULL
            WHEN g.status <> 'active' OR (g.ply % 2 = 0) <> white_side
            THEN CASE WHEN white_side THEN g.white_seconds ELSE g.black_seconds END
            ELSE greatest(0, CASE WHEN white_side THEN g.white_seconds ELSE g.black_seconds END
                 - korp_run_seconds(g.white_id, g.black_id, g.leave_allowed, g.turn_started_at,
                                    korp_now())) END $$;

-- When the side to move of an active game with a clock runs out.
CREATE FUNCTION korp_game_deadline(g games) RETURNS timestamptz
    LANGUAGE sql STABLE
    AS $$ SELECT CASE WHEN g.status = 'active' AND g.white_seconds IS NOT NULL
                      THEN korp_run_out(g.white_id, g.black_id, g.leave_allowed, g.turn_started_at,
                                        CASE WHEN g.ply % 2 = 0 THEN g.white_seconds
                                             ELSE g.black_seconds END) END $$;

-- A move charges the mover the running time of the turn (then adds the
-- increment, capped, on a Fischer clock, or gives a per-move clock's days
-- again) and starts the opponent's turn; a game that ends keeps each side's
-- time as it stood.  The deadline follows.  Every path that saves a game
-- (a move, a conditional reply, a time-out, a resignation) goes through here.
CREATE FUNCTION korp_game_clock() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
DECLARE
    now_s timestamptz := date_trunc('second', korp_now());
    white_to_move boolean := OLD.ply % 2 = 0;
    left_s bigint;
    per_move bigint := NEW.days_per_move::bigint * 86400;
BEGIN
    -- No move and no end (a draw offer): the turn and its deadline stay.
    IF NEW.ply = OLD.ply AND NEW.status = 'active' THEN
        NEW.deadline := OLD.deadline;
        RETURN NEW;
    END IF;
    left_s := greatest(0, CASE WHEN white_to_move THEN OLD.white_seconds ELSE OLD.black_seconds END
                          - korp_run_seconds(OLD.white_id, OLD.black_id, OLD.leave_allowed,
                                             OLD.turn_started_at, now_s));
    IF NEW.ply > OLD.ply THEN
        IF NEW.clock_initial_days IS NOT NULL THEN
            left_s := least(left_s + NEW.clock_increment_days::bigint * 86400,
                            NEW.clock_max_days::bigint * 86400);
        ELSE
            left_s := per_move;
            IF white_to_move THEN
                NEW.black_seconds := per_move;
            ELSE
                NEW.white_seconds := per_move;
            END IF;
        END IF;
    END IF;
    IF white_to_move THEN
        NEW.white_seconds := left_s;
    ELSE
        NEW.black_seconds := left_s;
    END IF;
    NEW.turn_started_at := now_s;
    NEW.deadline := korp_game_deadline(NEW);
    RETURN NEW;
END $$;

CREATE TRIGGER games_clock BEFORE UPDATE OF ply, status ON games
    FOR EACH ROW WHEN (OLD.status = 'active' AND OLD.white_seconds IS NOT NULL)
    EXECUTE FUNCTION korp_game_clock();
