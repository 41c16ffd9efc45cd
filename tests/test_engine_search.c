/*
 * test_engine_search.c — the engine's search parts by hand-worked cases:
 * static exchange evaluation (engine_see) on positions whose exchanges are
 * counted by hand with chess piece values (P 100, N 310, B 320, R 480,
 * Q 900), and the search's options (MultiPV, aspiration windows,
 * time) by what any correct search must answer.
 */
#include "engine_int.h"
#include "rules.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

static int see_of(const char *variant, const char *fen, const char *move_text)
{
    const struct rules_variant *v = rules_variant_find(variant);
    struct rules_position pos;
    struct rules_move m;
    /* The chess values the cases were counted with, whatever the tuned
     * weights are. */
    struct eval_weights w = *eval_weights_for(v);
    static const int values[RULES_PIECE_TYPES] = { 100, 310, 320, 480, 900, 0 };
    memcpy(w.value, values, sizeof values);
    assert_non_null(v);
    assert_int_equal(v->position_parse(&pos, fen, NULL), RULES_OK);
    assert_int_equal(v->move_parse(&pos, move_text, 0, &m, NULL), RULES_OK);
    return engine_see(v, &w, &pos, m);
}

static void test_see_hand_counted(void **state)
{
    (void)state;
    /* An undefended pawn: +P. */
    assert_int_equal(see_of("korpalski", "4k3/8/8/3p4/8/8/8/3RK3[] w - - 0 1", "d1d5"), 100);
    /* A pawn defended by a pawn, taken by a rook: +P -R. */
    assert_int_equal(see_of("korpalski", "4k3/8/4p3/3p4/8/8/8/3RK3[] w - - 0 1", "d1d5"),
                     100 - 480);
    /* The same pawn taken by a pawn: +P, and the recapture loses nothing
     * more than the pawn taken back: +P -P. */
    assert_int_equal(see_of("korpalski", "4k3/8/4p3/3p4/4P3/8/8/4K3[] w - - 0 1", "e4d5"), 0);
    /* Doubled rooks against one defender: Rd2xd5 Rd8xd5 Rd1xd5 — the rook
     * behind the first is seen once the first has moved: +P -R +R. */
    assert_int_equal(see_of("korpalski", "3rk3/8/8/3p4/8/8/3R4/3RK3[] w - - 0 1", "d2d5"), 100);
    /* A knight defended by a pawn, taken by a queen: +N -Q. */
    assert_int_equal(see_of("korpalski", "4k3/8/2p5/3n4/8/8/8/3QK3[] w - - 0 1", "d1d5"),
                     310 - 900);
    /* A queen defended by a rook, taken by a bishop: +Q -B. */
    assert_int_equal(see_of("korpalski", "3rk3/8/8/3q4/8/1B6/8/4K3[] w - - 0 1", "b3d5"),
                     900 - 320);
    /* A knight defended by a rook, taken by a rook: +N -R. */
    assert_int_equal(see_of("korpalski", "4k3/3r4/8/3n4/8/8/8/3RK3[] w - - 0 1", "d1d5"),
                     310 - 480);
}

struct lines_seen {
    int calls;
    int last_multipv[ENGINE_MAX_PLY];   /* by depth: the highest line reported */
    struct rules_move first[ENGINE_MAX_PLY][8];
};

static void note_line(void *arg, const struct engine_info *info)
{
    struct lines_seen *seen = arg;
    seen->calls++;
    assert_true(info->multipv == seen->last_multipv[info->depth] + 1);
    seen->last_multipv[info->depth] = info->multipv;
    if (info->multipv <= 8 && info->pv_length > 0)
        seen->first[info->depth][info->multipv - 1] = info->pv[0];
}

static void search_lines(const char *fen, int multipv, int depth, struct lines_seen *seen,
                         struct engine_result *r)
{
    const struct rules_variant *v = rules_variant_find("korpalski");
    struct rules_position pos;
    struct engine *e = engine_new(4);
    struct engine_limits lim = { .depth = depth, .multipv = multipv };
    assert_non_null(e);
    assert_int_equal(v->position_parse(&pos, fen, NULL), RULES_OK);
    memset(seen, 0, sizeof *seen);
    engine_stop_reset(e);
    assert_int_equal(engine_search(e, v, &pos, NULL, 0, &lim, note_line, seen, r), 0);
    engine_free(e);
}

/* MultiPV: every iteration reports lines 1..k with different first moves,
 * and never more lines than legal moves. */
static void test_multipv_lines(void **state)
{
    struct lines_seen seen;
    struct engine_result r;
    (void)state;
    /* The sample game's position at ply 12 (many moves): 4 lines. */
    search_lines("8/8/3q4/3r1Q2/3R4/2K2n2/5k2/8[BBNNPPPPPPPPrbbpppppppp] w - - 0 7", 4, 3,
                 &seen, &r);
    assert_true(r.has_move);
    for (int d = 1; d <= 3; d++) {
        assert_int_equal(seen.last_multipv[d], 4);
        for (int i = 0; i < 4; i++)
            for (int j = i + 1; j < 4; j++)
                assert_false(rules_move_equal(seen.first[d][i], seen.first[d][j]));
    }
    /* In check from the queen on the a-file, with b7 and a7 covered by the
     * white king: Kb8 is the only legal move (by hand), so one line. */
    search_lines("k7/8/1K6/8/8/8/8/Q7[] b - - 0 40", 4, 3, &seen, &r);
    assert_true(r.has_move);
    for (int d = 1; d <= 3; d++)
        assert_int_equal(seen.last_multipv[d], 1);
}

/* A clock of 3 s with 30 moves to go allows 100 ms a move and at most
 * four times that: the search ends well before the clock would. */
static void test_clock_bounds_the_search(void **state)
{
    const struct rules_variant *v = rules_variant_find("korpalski");
    struct rules_position pos;
    struct engine *e = engine_new(4);
    struct engine_limits lim = { .time_ms = { 3000, 3000 } };
    struct engine_result r;
    (void)state;
    assert_non_null(e);
    assert_int_equal(v->position_parse(&pos, v->start_text, NULL), RULES_OK);
    engine_stop_reset(e);
    assert_int_equal(engine_search(e, v, &pos, NULL, 0, &lim, NULL, NULL, &r), 0);
    assert_true(r.has_move);
    assert_true(r.time_ms < 1500);
    engine_free(e);
}

int main(void)
{
    rules_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_see_hand_counted),
        cmocka_unit_test(test_multipv_lines),
        cmocka_unit_test(test_clock_bounds_the_search),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
