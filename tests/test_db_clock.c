/*
 * test_db_clock.c — a game's time worked out from its stored row
 * (db/db_clock.c), against hand-worked cases of the clock rules: a turn's
 * running time is the time no leave covers, a Fischer clock adds its
 * increment after the move (capped), a per-move clock gives its days again,
 * and the deadline is when the side to move's time runs out, leave
 * counted.  Times in whole seconds since 1970.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "db_int.h"

#define DAY 86400LL

/* A case: the pauses, two times (t0 and t1, or t0 and a budget, or now)
 * and what the function must answer, worked out by hand. */
struct pause_case {
    const char *what;
    struct db_pause p[3];
    int n;
    long long a, b, want;
};

static const struct pause_case run_seconds_cases[] = {
    { "no leave", { { 0, 0 } }, 0, 100, 200, 100 },
    { "a day's leave within the turn", { { 120, 150 } }, 1, 100, 200, 70 },
    { "two players' bookings overlapping: 120-170 stopped once",
      { { 120, 150 }, { 140, 170 } }, 2, 100, 200, 50 },
    { "leave in force when the turn began: the clock starts at its end",
      { { 90, 130 } }, 1, 100, 200, 70 },
    { "leave before and after", { { 50, 90 }, { 250, 300 } }, 2, 100, 200, 100 },
    { "leave in force now: the turn ran until it began", { { 120, 150 } }, 1, 100, 140, 20 },
    { "an empty stretch", { { 120, 150 } }, 1, 200, 200, 0 },
    { "a stretch backwards", { { 120, 150 } }, 1, 200, 100, 0 },
};

static const struct pause_case run_out_cases[] = {
    { "no leave", { { 0, 0 } }, 0, 100, 100, 200 },
    { "leave within the time", { { 150, 170 } }, 1, 100, 100, 220 },
    { "leave that starts as the time runs out changes nothing", { { 250, 300 } }, 1, 100, 100,
      200 },
    { "leave that starts before", { { 250, 300 } }, 1, 100, 150, 250 },
    { "leave in force at the start", { { 90, 130 } }, 1, 100, 100, 230 },
    { "110-140 and 160-165 stopped", { { 110, 120 }, { 115, 140 }, { 160, 165 } }, 3, 100, 100,
      235 },
    { "no time", { { 0, 0 } }, 0, 100, 0, 100 },
    { "less than none", { { 0, 0 } }, 0, 100, -5, 100 },
};

static const struct pause_case paused_until_cases[] = {
    { "in force", { { 90, 130 } }, 1, 100, 0, 130 },
    { "bookings that meet are one stretch", { { 90, 130 }, { 130, 160 } }, 2, 100, 0, 160 },
    { "a second apart", { { 90, 130 }, { 131, 160 } }, 2, 100, 0, 130 },
    { "to come", { { 110, 130 } }, 1, 100, 0, 0 },
    { "over", { { 50, 90 }, { 95, 100 } }, 2, 100, 0, 0 },
    { "none", { { 0, 0 } }, 0, 100, 0, 0 },
};

static long long paused_until_at(const struct db_pause *p, int n, long long now, long long unused)
{
    (void)unused;
    return db_clock_paused_until(p, n, now);
}

/* Each case of a table against the function it is for. */
static void check_cases(const char *name, const struct pause_case *cases, size_t count,
                        long long (*fn)(const struct db_pause *, int, long long, long long))
{
    for (size_t i = 0; i < count; i++) {
        long long got = fn(cases[i].p, cases[i].n, cases[i].a, cases[i].b);
        if (got != cases[i].want)
            fail_msg("%s, %s: %lld, not %lld", name, cases[i].what, got, cases[i].want);
    }
}

#define CASES(table) table, sizeof table / sizeof *table

static void run_seconds(void **state)
{
    (void)state;
    check_cases("run seconds", CASES(run_seconds_cases), db_clock_run_seconds);
}

static void run_out(void **state)
{
    (void)state;
    check_cases("run out", CASES(run_out_cases), db_clock_run_out);
}

static void paused_until(void **state)
{
    (void)state;
    check_cases("paused until", CASES(paused_until_cases), paused_until_at);
}

static void time_text_and_pauses(void **state)
{
    (void)state;
    char text[DB_TIME_SIZE];
    struct db_pause *p = NULL;
    int n = -1;
    db_time_text(0, text);
    assert_string_equal(text, "1970-01-01T00:00:00Z");
    db_time_text(1767225600 + 3661, text);   /* 2026-01-01 plus 1 h 1 min 1 s */
    assert_string_equal(text, "2026-01-01T01:01:01Z");
    assert_true(db_pauses_parse("10 20 30 40", &p, &n));
    assert_int_equal(n, 2);
    assert_int_equal(p[0].start, 10);
    assert_int_equal(p[0].end, 20);
    assert_int_equal(p[1].start, 30);
    assert_int_equal(p[1].end, 40);
    free(p);
    assert_true(db_pauses_parse(NULL, &p, &n));
    assert_int_equal(n, 0);
    assert_null(p);
    assert_true(db_pauses_parse("", &p, &n));
    assert_int_equal(n, 0);
}

/* An active game with a clock, White to move at ply 10, its turn begun at
 * t=1000 and read at t=1000+1 h. */
static struct db_game game(enum db_clock_type type)
{
    struct db_game g;
    memset(&g, 0, sizeof g);
    g.status = DB_GAME_ACTIVE;
    g.was_active = true;
    g.clocked = true;
    g.ply = 10;
    g.clock.type = type;
    g.clock.increment_days = 1;
    g.clock.max_days = 6;
    g.clock.days = g.days_per_move = 3;
    g.white_seconds = 5 * DAY;
    g.black_seconds = 2 * DAY;
    g.turn_started = 1000;
    g.now = 1000 + 3600;
    return g;
}

static void charge(void **state)
{
    (void)state;
    long long deadline = -1;
    struct db_pause leave[] = { { 2000, 2000 + DAY } };
    struct db_game g = game(DB_CLOCK_FISCHER);

    /* Read: White's time runs, Black's stands. */
    db_game_clock_now(&g);
    assert_int_equal(g.remaining_white, 5 * DAY - 3600);
    assert_int_equal(g.remaining_black, 2 * DAY);
    assert_string_equal(g.paused_until, "");

    /* White moves: 5 d - 1 h + 1 d, under the 6-day cap; Black's turn from now. */
    g.ply = 11;
    assert_true(db_game_clock_charge(&g, true, &deadline));
    assert_int_equal(g.white_seconds, 6 * DAY - 3600);
    assert_int_equal(g.black_seconds, 2 * DAY);
    assert_int_equal(g.turn_started, 1000 + 3600);
    assert_int_equal(deadline, 1000 + 3600 + 2 * DAY);

    /* The cap: 5 d 23 h left + 1 d is 6 d. */
    g = game(DB_CLOCK_FISCHER);
    g.white_seconds = 6 * DAY - 3600 + 3600;
    g.ply = 11;
    assert_true(db_game_clock_charge(&g, true, &deadline));
    assert_int_equal(g.white_seconds, 6 * DAY);

    /* Per move: both sides have the days again, the mover's time spent. */
    g = game(DB_CLOCK_PER_MOVE);
    g.ply = 11;
    assert_true(db_game_clock_charge(&g, true, &deadline));
    assert_int_equal(g.white_seconds, 3 * DAY);
    assert_int_equal(g.black_seconds, 3 * DAY);
    assert_int_equal(deadline, 1000 + 3600 + 3 * DAY);

    /* Leave from t=2000 for a day, begun within the turn: White's hour
     * counts only 1000-2000, and reading in the leave shows its end. */
    g = game(DB_CLOCK_FISCHER);
    g.pauses = leave;
    g.pause_count = 1;
    db_game_clock_now(&g);
    assert_int_equal(g.remaining_white, 5 * DAY - 1000);
    assert_string_equal(g.paused_until, "1970-01-02T00:33:20Z");   /* 2000 + 86400 */
    /* Black's deadline after White's move now: the leave first, then 2 d. */
    g.ply = 11;
    assert_true(db_game_clock_charge(&g, true, &deadline));
    assert_int_equal(deadline, 2000 + DAY + 2 * DAY);

    /* A resignation on White's turn: the time charged, no deadline. */
    g = game(DB_CLOCK_FISCHER);
    g.status = DB_GAME_FINISHED;
    assert_true(db_game_clock_charge(&g, false, &deadline));
    assert_int_equal(g.white_seconds, 5 * DAY - 3600);
    assert_int_equal(deadline, 0);
    /* Once over, the clocks stand. */
    g.was_active = false;
    db_game_clock_now(&g);
    assert_int_equal(g.remaining_white, 5 * DAY - 3600);

    /* A draw offer (no move, still active) charges nothing; nor does a game
     * without a clock. */
    g = game(DB_CLOCK_FISCHER);
    assert_false(db_game_clock_charge(&g, false, &deadline));
    g.clocked = false;
    g.ply = 11;
    assert_false(db_game_clock_charge(&g, true, &deadline));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(run_seconds),
        cmocka_unit_test(run_out),
        cmocka_unit_test(paused_until),
        cmocka_unit_test(time_text_and_pauses),
        cmocka_unit_test(charge),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
