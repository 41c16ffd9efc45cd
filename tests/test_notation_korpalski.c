/*
 * test_notation_korpalski.c — reading and writing Korpalski moves: SAN with
 * drops, UCI-style, and the inventor's Polish notation in both forms.
 */
#include "test_util.h"

static const struct rules_variant *V;

static int setup(void **state)
{
    (void)state;
    rules_init();
    V = korpalski();
    return 0;
}

static void expect_format(const struct rules_position *pos, const char *move,
                          enum rules_notation how, const char *expected)
{
    struct rules_move m;
    char why[RULES_WHY_MAX] = "", text[RULES_MOVE_TEXT_MAX];
    if (try_move(V, pos, move, &m, why) != RULES_OK)
        fail_msg("%s: %s", move, why);
    V->move_format(pos, m, how, text, sizeof text);
    if (strcmp(text, expected) != 0)
        fail_msg("%s written as '%s', expected '%s'", move, text, expected);
}

/* Every accepted spelling of one move reads as that move. */
static void expect_same(const struct rules_position *pos, const char *const *texts)
{
    struct rules_move first, m;
    char why[RULES_WHY_MAX] = "";
    if (try_move(V, pos, texts[0], &first, why) != RULES_OK)
        fail_msg("%s: %s", texts[0], why);
    for (int i = 1; texts[i] != NULL; i++) {
        if (try_move(V, pos, texts[i], &m, why) != RULES_OK)
            fail_msg("%s: %s", texts[i], why);
        if (memcmp(&m, &first, sizeof m) != 0)
            fail_msg("%s reads differently from %s", texts[i], texts[0]);
    }
}

/* The inventor's game after 5...R@d5 (ply 10). */
#define MIDGAME "8/8/3q4/3rnQ2/3R1R2/2K2n2/5k2/8[BBNNPPPPPPPPrbbpppppppp] w - - 0 6"

static void test_notation_korpalski_all_forms_read(void **state)
{
    (void)state;
    struct rules_position start = pos_of(V, V->start_text);
    struct rules_position mid = pos_of(V, MIDGAME);
    static const char *const capture[] = { "Rxf3+", "Rxf3", "f4f3", "Wf4:f3+", "W:f3+",
                                           "W:f3", "Rfxf3", "R4xf3", "Wf4:f3", NULL };
    static const char *const drop[] = { "N@e6", "S/e6", "N@e6+", NULL };
    static const char *const pawn[] = { "P@e2", "@e2", "p/e2", "/e2", NULL };
    expect_same(&start, (const char *const[]){ "K@c3", "K/c3", NULL });
    expect_same(&mid, capture);
    expect_same(&mid, drop);
    expect_same(&mid, pawn);
}

static void test_notation_korpalski_written_forms(void **state)
{
    (void)state;
    struct rules_position mid = pos_of(V, MIDGAME);
    struct rules_position start = pos_of(V, V->start_text);
    expect_format(&start, "K@c3", RULES_NOTATION_SAN, "K@c3");
    expect_format(&start, "K@c3", RULES_NOTATION_POLISH_SHORT, "K/c3");
    expect_format(&start, "K@c3", RULES_NOTATION_UCI, "K@c3");
    expect_format(&mid, "f4f3", RULES_NOTATION_SAN, "Rxf3+");
    expect_format(&mid, "f4f3", RULES_NOTATION_POLISH_SHORT, "W:f3+");
    expect_format(&mid, "f4f3", RULES_NOTATION_POLISH_FULL, "Wf4:f3+");
    expect_format(&mid, "f4f3", RULES_NOTATION_UCI, "f4f3");
    expect_format(&mid, "@e2", RULES_NOTATION_SAN, "P@e2");
    expect_format(&mid, "@e2", RULES_NOTATION_POLISH_FULL, "p/e2");
    /* Only the d4 rook reaches d3. */
    expect_format(&mid, "Rd4d3", RULES_NOTATION_SAN, "Rd3");
    expect_format(&mid, "Rd4d3", RULES_NOTATION_POLISH_FULL, "Wd4-d3");
    /* Both rooks reach e4: disambiguate by file. */
    expect_format(&mid, "d4e4", RULES_NOTATION_SAN, "Rde4");
    expect_format(&mid, "d4e4", RULES_NOTATION_POLISH_SHORT, "Wde4");
}

static void test_notation_korpalski_promotion_forms(void **state)
{
    (void)state;
    struct rules_position pos = pos_of(V, "6k1/4P3/8/8/8/8/8/K7[QRBBNqrrbbnn] w - - 0 30");
    static const char *const rook[] = { "e8=R+", "e7e8r", "e8R", "pe7-e8=W+", "pe8=W",
                                        "e8=W", NULL };
    expect_same(&pos, rook);
    expect_format(&pos, "e7e8r", RULES_NOTATION_SAN, "e8=R+");
    expect_format(&pos, "e7e8n", RULES_NOTATION_SAN, "e8=N");
    expect_format(&pos, "e7e8r", RULES_NOTATION_POLISH_SHORT, "pe8=W+");
    expect_format(&pos, "e7e8r", RULES_NOTATION_POLISH_FULL, "pe7-e8=W+");
    expect_format(&pos, "e7e8r", RULES_NOTATION_UCI, "e7e8r");
    assert_illegal(V, &pos, "e8", "name the new piece");
}

/* Check marks: lenient (missing or extra '+' is no error); mate is written. */
static void test_notation_korpalski_check_marks(void **state)
{
    (void)state;
    struct rules_position pos = pos_of(V, "7k/6pp/8/8/8/8/8/K7[Q] w - - 0 40");
    static const char *const quiet[] = { "Kb1", "Kb1+", "Kb1#", NULL };
    expect_same(&pos, quiet);
    pos = pos_of(V, "7k/6pp/8/8/8/8/8/K6R[] w - - 0 40");
    expect_format(&pos, "h1h7", RULES_NOTATION_SAN, "Rxh7+");
    pos = pos_of(V, "7k/6pp/8/8/8/8/8/K5R1[] w - - 0 40");
    expect_format(&pos, "g1g7", RULES_NOTATION_SAN, "Rxg7");
    pos = pos_of(V, "7k/6pp/8/8/8/8/8/R6K[] w - - 0 40");
    expect_format(&pos, "a1a8", RULES_NOTATION_SAN, "Ra8#");
    expect_format(&pos, "a1a8", RULES_NOTATION_POLISH_SHORT, "Wa8X");
}

/* Strict about everything but check marks. */
static void test_notation_korpalski_strict_errors(void **state)
{
    (void)state;
    struct rules_position mid = pos_of(V, MIDGAME);
    struct rules_move m;
    char why[RULES_WHY_MAX] = "";
    assert_int_equal(try_move(V, &mid, "Re4", &m, why), RULES_ERR_AMBIGUOUS);
    assert_non_null(strstr(why, "Rde4"));
    assert_non_null(strstr(why, "Rfe4"));
    assert_illegal(V, &mid, "Rf3", "capture");      /* SAN capture without x */
    assert_illegal(V, &mid, "Rxf2", NULL);           /* x on a non-capture, own piece */
    assert_illegal(V, &mid, "Rd4xd3", "captures nothing");
    assert_int_equal(try_move(V, &mid, "Zz9", &m, why), RULES_ERR_SYNTAX);
    assert_int_equal(try_move(V, &mid, "", &m, why), RULES_ERR_SYNTAX);
    assert_int_equal(try_move(V, &mid, "N@", &m, why), RULES_ERR_SYNTAX);
    assert_illegal(V, &mid, "Q@a1", "no queen in reserve");
    assert_illegal(V, &mid, "N@d5", "occupied");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_notation_korpalski_all_forms_read),
        cmocka_unit_test(test_notation_korpalski_written_forms),
        cmocka_unit_test(test_notation_korpalski_promotion_forms),
        cmocka_unit_test(test_notation_korpalski_check_marks),
        cmocka_unit_test(test_notation_korpalski_strict_errors),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
