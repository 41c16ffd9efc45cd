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
    struct rules_why why = { 0 };
    char text[RULES_MOVE_TEXT_MAX];
    if (try_move(V, pos, move, &m, &why) != RULES_OK)
        fail_msg("%s: %s", move, why.text);
    V->move_format(pos, m, how, text, sizeof text);
    if (strcmp(text, expected) != 0)
        fail_msg("%s written as '%s', expected '%s'", move, text, expected);
}

/* Every accepted spelling of one move reads as that move. */
static void expect_same(const struct rules_position *pos, const char *const *texts)
{
    struct rules_move first, m;
    struct rules_why why = { 0 };
    if (try_move(V, pos, texts[0], &first, &why) != RULES_OK)
        fail_msg("%s: %s", texts[0], why.text);
    for (int i = 1; texts[i] != NULL; i++) {
        if (try_move(V, pos, texts[i], &m, &why) != RULES_OK)
            fail_msg("%s: %s", texts[i], why.text);
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
    const struct {
        const struct rules_position *pos;
        const char *move;
        enum rules_notation how;
        const char *written;
    } cases[] = {
        { &start, "K@c3", RULES_NOTATION_SAN, "K@c3" },
        { &start, "K@c3", RULES_NOTATION_POLISH_SHORT, "K/c3" },
        { &start, "K@c3", RULES_NOTATION_UCI, "K@c3" },
        { &mid, "f4f3", RULES_NOTATION_SAN, "Rxf3+" },
        { &mid, "f4f3", RULES_NOTATION_POLISH_SHORT, "W:f3+" },
        { &mid, "f4f3", RULES_NOTATION_POLISH_FULL, "Wf4:f3+" },
        { &mid, "f4f3", RULES_NOTATION_UCI, "f4f3" },
        { &mid, "@e2", RULES_NOTATION_SAN, "P@e2" },
        { &mid, "@e2", RULES_NOTATION_POLISH_FULL, "p/e2" },
        /* Only the d4 rook reaches d3. */
        { &mid, "Rd4d3", RULES_NOTATION_SAN, "Rd3" },
        { &mid, "Rd4d3", RULES_NOTATION_POLISH_FULL, "Wd4-d3" },
        /* Both rooks reach e4: disambiguate by file. */
        { &mid, "d4e4", RULES_NOTATION_SAN, "Rde4" },
        { &mid, "d4e4", RULES_NOTATION_POLISH_SHORT, "Wde4" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        expect_format(cases[i].pos, cases[i].move, cases[i].how, cases[i].written);
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

/* Strict about everything but check marks.  MIDGAME, by hand: white K c3,
 * Q f5, R d4 f4; black k f2, q d6, r d5, n e5 f3. */
static void test_notation_korpalski_strict_errors(void **state)
{
    (void)state;
    struct rules_position mid = pos_of(V, MIDGAME);
    struct rules_move m;
    struct rules_why why = { 0 };
    assert_int_equal(try_move(V, &mid, "Re4", &m, &why), RULES_ERR_AMBIGUOUS);
    assert_string_equal(rules_reason_slug(why.reason), "ambiguous");
    assert_non_null(strstr(why.text, "Rde4"));
    assert_non_null(strstr(why.text, "Rfe4"));
    assert_int_equal(try_move(V, &mid, "", &m, &why), RULES_ERR_SYNTAX);
    assert_int_equal(try_move(V, &mid, "N@", &m, &why), RULES_ERR_SYNTAX);
    assert_string_equal(rules_reason_slug(why.reason), "syntax");
    const struct refusal_case cases[] = {
        /* f4xf3 takes the knight: SAN must say so. */
        { MIDGAME, NULL, "Rf3", RULES_ERR_ILLEGAL, "capture-not-marked",
          "illegal move: the move to f3 is a capture; mark it" },
        /* f2 holds the black king; the f4 rook is blocked by the f3 knight and
         * the d4 rook is on neither line. */
        { NULL, NULL, "Rxf2", RULES_ERR_ILLEGAL, "cannot-reach",
          "illegal move: no rook of white can move to f2" },
        { NULL, NULL, "Rd4xd3", RULES_ERR_ILLEGAL, "capture-of-empty-square",
          "illegal move: the move is written as a capture but d3 is empty" },
        /* d6 is behind the black rook on d5. */
        { NULL, NULL, "d4d6", RULES_ERR_ILLEGAL, "cannot-reach",
          "illegal move: the rook on d4 cannot move to d6" },
        { NULL, NULL, "f7f8", RULES_ERR_ILLEGAL, "no-piece-on-square",
          "illegal move: there is no man on f7" },
        { NULL, NULL, "e5c4", RULES_ERR_ILLEGAL, "no-piece-on-square",
          "illegal move: the knight on e5 is black's, and it is white's move" },
        { NULL, NULL, "Bd4e4", RULES_ERR_ILLEGAL, "no-piece-on-square",
          "illegal move: d4 holds a rook, not a bishop" },
        { NULL, NULL, "Nd2", RULES_ERR_ILLEGAL, "no-such-piece",
          "illegal move: white has no knight on the board" },
        { NULL, NULL, "Qf4", RULES_ERR_ILLEGAL, "own-man-on-square",
          "illegal move: f4 is occupied by white's own rook" },
        /* The f3 knight guards d2; the e5 knight guards c4. */
        { NULL, NULL, "Kd2", RULES_ERR_ILLEGAL, "king-in-check",
          "illegal move: the king would be in check on d2" },
        { NULL, NULL, "Kc4", RULES_ERR_ILLEGAL, "king-in-check",
          "illegal move: the king would be in check on c4" },
        { NULL, NULL, "Zz9", RULES_ERR_SYNTAX, "syntax",
          "not a move in any accepted notation: no destination cell" },
        { NULL, NULL, "Q@a1", RULES_ERR_ILLEGAL, "not-in-reserve",
          "illegal drop: white has no queen in reserve" },
        { NULL, NULL, "N@d5", RULES_ERR_ILLEGAL, "drop-on-occupied-square",
          "illegal drop: d5 is occupied; drops never capture" },
        /* e4 is a knight's jump from f2. */
        { NULL, NULL, "N@e4", RULES_ERR_ILLEGAL, "drop-gives-check",
          "illegal drop: a knight on e4 would give check" },
        { NULL, NULL, NULL, RULES_OK, NULL, NULL },
    };
    assert_refusals(V, cases);
}

/* Refusals name what is really wrong: "Kxd2" from e1 names a capture on an
 * empty, unattacked square, which is not a check. */
static void test_notation_korpalski_capture_of_empty_square(void **state)
{
    (void)state;
    struct rules_position pos = pos_of(V, "4k3/8/8/8/8/8/8/4K3[] w - - 0 10");
    assert_true(has_uci(V, &pos, "e1d2"));
    const struct refusal_case cases[] = {
        { "4k3/8/8/8/8/8/8/4K3[] w - - 0 10", NULL,
          "Kxd2", RULES_ERR_ILLEGAL, "capture-of-empty-square",
          "illegal move: the move is written as a capture but d2 is empty" },
        /* A pinned man: the d2 knight stands between the e1 king and the a5
         * bishop; Nf3 would open the diagonal. */
        { "4k3/8/8/b7/8/8/3N4/4K3[] w - - 0 10", NULL,
          "Nf3", RULES_ERR_ILLEGAL, "king-in-check",
          "illegal move: moving the knight on d2 would leave the white king in check" },
        /* In check from the e8 rook: Kd1 is fine, a knight move elsewhere is not. */
        { "k3r3/8/8/8/8/8/1N6/4K3[] w - - 0 10", NULL,
          "Na4", RULES_ERR_ILLEGAL, "king-in-check",
          "illegal move: white is in check and moving the knight on b2 does not end it" },
        { NULL, NULL, "N@e4", RULES_ERR_ILLEGAL, "not-in-reserve",
          "illegal drop: white has no knight in reserve" },
        /* After mate nothing is legal: the refusal says the game is over. */
        { "R6k/6pp/8/8/8/8/8/K7[] b - - 0 40", NULL, "Kg8", RULES_ERR_ILLEGAL, "game-over",
          "illegal move: the game is over: black is checkmated" },
        { NULL, NULL, NULL, RULES_OK, NULL, NULL },
    };
    assert_refusals(V, cases);
}

/* Promotion refusals (§2 Promotion): the prison decides. */
static void test_notation_korpalski_promotion_refusals(void **state)
{
    (void)state;
    const struct refusal_case cases[] = {
        /* White holds Q R B B N: its prison has one rook and one knight. */
        { "6k1/4P3/8/8/8/8/8/K7[QRBBNqrrbbnn] w - - 0 30", NULL,
          "e8=Q", RULES_ERR_ILLEGAL, "promotion-piece-not-captured",
          "illegal move: cannot promote to a queen; white's prison holds: rook, knight" },
        { NULL, NULL, "e8", RULES_ERR_ILLEGAL, "promotion-not-named",
          "illegal move: a move to e8 promotes; name the new piece" },
        { NULL, NULL, "Kb1=R", RULES_ERR_ILLEGAL, "not-a-promotion",
          "illegal move: the move to b1 is not a promotion" },
        /* The whole set is at home: the prison is empty. */
        { "6k1/4P3/8/8/8/8/8/K7[QRRBBNNqrrbbnn] w - - 0 30", NULL,
          "e8=R", RULES_ERR_ILLEGAL, "prison-empty",
          "illegal move: a pawn may reach the last rank only by promoting to a "
          "captured piece, and white's prison is empty" },
        /* King placement first. */
        { V->start_text, NULL, "Q@d4", RULES_ERR_ILLEGAL, "king-not-placed",
          "illegal drop: white must place its king first" },
        { NULL, NULL, "e2e4", RULES_ERR_ILLEGAL, "king-not-placed",
          "illegal move: white must first place its king (K@square)" },
        { NULL, "K@c3", "K@d4", RULES_ERR_ILLEGAL, "kings-adjacent",
          "illegal drop: the kings may not stand next to each other" },
        { "4k3/8/8/8/8/8/8/4K3[P] w - - 0 10", NULL,
          "P@a8", RULES_ERR_ILLEGAL, "pawn-drop-rank",
          "illegal drop: pawns may be dropped on ranks 2-7 only" },
        { NULL, NULL, NULL, RULES_OK, NULL, NULL },
    };
    assert_refusals(V, cases);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_notation_korpalski_all_forms_read),
        cmocka_unit_test(test_notation_korpalski_written_forms),
        cmocka_unit_test(test_notation_korpalski_promotion_forms),
        cmocka_unit_test(test_notation_korpalski_check_marks),
        cmocka_unit_test(test_notation_korpalski_strict_errors),
        cmocka_unit_test(test_notation_korpalski_capture_of_empty_square),
        cmocka_unit_test(test_notation_korpalski_promotion_refusals),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
