/*
 * test_glicko2.c — ratings/: Glickman's worked example, and vectors from a
 * second, independent implementation (tests/server/glicko2_ref.py: the
 * paper's formulas in Python, its volatility found by bisection rather than
 * the Illinois iteration), printed to 10 decimals and copied here.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "ratings.h"

struct vector {
    struct ratings_glicko before;
    struct ratings_game games[3];
    int count;
    double tau;
    struct ratings_glicko after;   /* from glicko2_ref.py */
};

static const struct vector vectors[] = {
    /* Two new players: the winner's view. */
    { { 1500, 350, 0.06 }, { { 1500, 350, 1 } }, 1, 0.5,
      { 1662.3108939063, 290.3189637180, 0.0599996754 } },
    /* A draw against a lower-rated, well-known opponent. */
    { { 1700, 80, 0.06 }, { { 1500, 60, 0.5 } }, 1, 0.5,
      { 1690.9255402527, 79.1707259466, 0.0599984779 } },
    /* A Glinski stalemate given: 3/4. */
    { { 1620, 120, 0.07 }, { { 1580, 90, 0.75 } }, 1, 0.5,
      { 1634.1360097541, 114.4784849465, 0.0699962018 } },
    /* An upset large enough that delta^2 > phi^2 + v (the other bracket). */
    { { 1400, 50, 0.06 }, { { 1900, 50, 1 } }, 1, 1.2,
      { 1413.9543606770, 50.9654152748, 0.0600633745 } },
    /* Three games, tau 0.3. */
    { { 1800, 40, 0.05 }, { { 1200, 300, 0 }, { 1750, 60, 0.5 }, { 2100, 100, 1 } }, 3, 0.3,
      { 1800.5730941081, 40.4891161774, 0.0499989193 } },
    /* No game: only the deviation grows. */
    { { 1500, 300, 0.09 }, { { 0, 0, 0 } }, 0, 0.5, { 1500.0, 300.4071250482, 0.09 } },
};

/* The paper's example: 1464.06 / 151.52 / 0.05999 as the paper rounds its
 * intermediate values, 1464.05 / 151.52 / 0.059996 without rounding. */
static void test_glicko2_paper_example(void **state)
{
    const struct ratings_glicko player = { 1500, 200, 0.06 };
    const struct ratings_game games[] = { { 1400, 30, 1 }, { 1550, 100, 0 }, { 1700, 300, 0 } };
    struct ratings_glicko after;
    (void)state;
    assert_true(ratings_glicko2_period(&player, games, 3, 0.5, &after));
    assert_true(fabs(after.rating - 1464.05) < 0.005);
    assert_true(fabs(after.rd - 151.52) < 0.005);
    assert_true(fabs(after.volatility - 0.059996) < 0.0000005);
}

static void test_glicko2_matches_reference(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof vectors / sizeof *vectors; i++) {
        const struct vector *t = &vectors[i];
        struct ratings_glicko after;
        assert_true(ratings_glicko2_period(&t->before, t->games, t->count, t->tau, &after));
        if (fabs(after.rating - t->after.rating) > 0.001 ||
            fabs(after.rd - t->after.rd) > 0.001 ||
            fabs(after.volatility - t->after.volatility) > 0.000001)
            fail_msg("vector %zu: %.6f %.6f %.8f, reference %.6f %.6f %.8f", i,
                     after.rating, after.rd, after.volatility, t->after.rating,
                     t->after.rd, t->after.volatility);
    }
}

/* A win raises a rating, a loss lowers it, and the two players of one game
 * move in opposite directions. */
static void test_glicko2_direction(void **state)
{
    const struct ratings_glicko p = { 1600, 100, 0.06 };
    const struct ratings_game win = { 1600, 100, 1 }, loss = { 1600, 100, 0 };
    struct ratings_glicko up, down;
    (void)state;
    assert_true(ratings_glicko2_period(&p, &win, 1, 0.5, &up));
    assert_true(ratings_glicko2_period(&p, &loss, 1, 0.5, &down));
    assert_true(up.rating > 1600 && down.rating < 1600);
    assert_true(fabs((up.rating - 1600) - (1600 - down.rating)) < 1e-9);
    assert_true(up.rd < 100 && down.rd < 100);
}

/* sqrt(phi^2 + t sigma^2), capped at 350: 50 grows to 53.1594 in 3
 * periods (hand: (50/173.7178)^2 = 0.082842, + 3 * 0.0036 = 0.093642,
 * sqrt = 0.306010, * 173.7178 = 53.1594). */
static void test_glicko2_rd_after_idle(void **state)
{
    (void)state;
    assert_true(fabs(ratings_rd_after_idle(50, 0.06, 3) - 53.1594) < 0.001);
    assert_true(ratings_rd_after_idle(340, 0.06, 100) == RATINGS_START_RD);
    assert_true(ratings_rd_after_idle(80, 0.06, 0) == 80);
    assert_true(ratings_rd_after_idle(80, 0.06, -1) == 80);
}

static void test_glicko2_refuses_bad_input(void **state)
{
    const struct ratings_glicko p = { 1500, 200, 0.06 }, zero_rd = { 1500, 0, 0.06 };
    const struct ratings_game over = { 1500, 100, 1.5 }, bad_rd = { 1500, -1, 1 };
    const struct ratings_game ok = { 1500, 100, 1 };
    struct ratings_glicko after = { 1, 2, 3 };
    (void)state;
    assert_false(ratings_glicko2_period(&p, &over, 1, 0.5, &after));
    assert_false(ratings_glicko2_period(&p, &bad_rd, 1, 0.5, &after));
    assert_false(ratings_glicko2_period(&zero_rd, &ok, 1, 0.5, &after));
    assert_false(ratings_glicko2_period(&p, &ok, 1, 0, &after));
    assert_false(ratings_glicko2_period(&p, &ok, 1, NAN, &after));
    assert_true(after.rating == 1 && after.rd == 2 && after.volatility == 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_glicko2_paper_example),
        cmocka_unit_test(test_glicko2_matches_reference),
        cmocka_unit_test(test_glicko2_direction),
        cmocka_unit_test(test_glicko2_rd_after_idle),
        cmocka_unit_test(test_glicko2_refuses_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
