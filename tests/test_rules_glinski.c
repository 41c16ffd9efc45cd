/*
 * test_rules_glinski.c — one test (at least) per rule of
 * docs/rules/glinski.md.  Positions are built by hand; expected moves and
 * counts come from the rules' coordinates (file c, height y), worked out
 * in the comments.
 */
#include "test_util.h"

#include <stdlib.h>

static const struct rules_variant *V;

static int setup(void **state)
{
    (void)state;
    rules_init();
    V = rules_variant_find("glinski");
    return V == NULL;
}

/* The moves from one cell, as "to" cells of their UCI texts, counted. */
static int moves_from(const struct rules_position *pos, const char *from)
{
    struct rules_move moves[RULES_MAX_MOVES];
    char uci[RULES_MOVE_TEXT_MAX];
    int n = V->moves_legal(pos, moves), count = 0;
    for (int i = 0; i < n; i++) {
        V->move_format(pos, moves[i], RULES_NOTATION_UCI, uci, sizeof uci);
        count += strncmp(uci, from, strlen(from)) == 0 &&
                 (uci[strlen(from)] >= 'a' && uci[strlen(from)] <= 'l');
    }
    return count;
}

static struct rules_report report(const char *hfen)
{
    struct rules_position pos = pos_of(V, hfen);
    struct rules_report r;
    V->position_report(&pos, &r);
    return r;
}

/* Height y of a cell name, by the rules' formula y = |c| + 2(rank - 1). */
static int height(const char *cell, int *len)
{
    int c = (int)(strchr("abcdefghikl", cell[0]) - "abcdefghikl") - 5;
    int rank = atoi(cell + 1);
    *len = 1 + (rank >= 10 ? 2 : 1);
    return abs(c) + 2 * (rank - 1);
}

/* §3 Knight: twelve jumps from the centre of an empty board. */
static void test_rules_glinski_knight_twelve_jumps(void **state)
{
    (void)state;
    struct rules_position pos = pos_of(V, "1/3/5/7/9/5N4k/11/11/11/11/K10 w - 0 1");
    assert_int_equal(moves_from(&pos, "f6"), 12);
    /* (+1,+5) from f6 = (0,10) is (1,15): g8; (-3,-1) is (-3,9): c4. */
    assert_ucis(V, &pos, "f6g8 f6c4 !f6f8");
}

/* §3 Pawn: captures on the two forward orthogonal neighbours, not on the
 * bishop directions; f6 is blocked. */
static void test_rules_glinski_pawn_capture_directions(void **state)
{
    (void)state;
    struct rules_position pos = pos_of(V, "1/3/5/7/9/4nrn3k/4pPp4/11/11/11/K10 w - 0 1");
    assert_int_equal(moves_from(&pos, "f5"), 2);
    assert_ucis(V, &pos, "f5e5 f5g5 !f5e6 !f5g6");
}

/* §3 Pawn: after capturing inward onto a starting cell (e4xf5) the pawn
 * may advance two cells. */
static void test_rules_glinski_double_step_after_inward_capture(void **state)
{
    (void)state;
    struct rules_position pos = pos_of(V, "1/3/5/7/9/10k/5n5/4P6/11/11/K10 w - 0 1");
    play_line(V, &pos, "exf5 Kl5");
    assert_true(has_uci(V, &pos, "f5f7"));
    play_expect(V, &pos, "f7", "1/3/5/7/4P4/11/10k/11/11/11/K10 b - 0 2");
}

/* §3 En passant: after ...c7-c5 the pawn on b5 takes b5xc6. */
static void test_rules_glinski_en_passant(void **state)
{
    (void)state;
    struct rules_position pos = pos_of(V, "1/3/5/7/1p7/10k/1P9/11/11/11/K10 b - 0 1");
    play_expect(V, &pos, "c5", "1/3/5/7/9/10k/1Pp8/11/11/11/K10 w c6 0 2");
    play_expect(V, &pos, "bxc6", "1/3/5/7/9/2P7k/11/11/11/11/K10 b - 0 2");
}

/* §3 Promotion: on the last cell of the file, by advance (e10) or by
 * capture (d9), to each of Q R B N. */
static void test_rules_glinski_promotion(void **state)
{
    (void)state;
    struct rules_position pos = pos_of(V, "1/3/rP3/7/9/10k/11/11/11/11/K10 w - 0 1");
    assert_int_equal(moves_from(&pos, "e9"), 8);
    assert_ucis(V, &pos, "e9e10q e9e10n e9d9r e9d9b !e9e10");
    play_expect(V, &pos, "exd9=N", "1/3/N4/7/9/10k/11/11/11/11/K10 b - 0 1");
}

/* §3 Bishops never change cell colour: colour is y mod 3, which diagonal
 * steps (±2,0) and (±1,±3) keep and orthogonal steps change. */
static void test_rules_glinski_bishops_keep_colour(void **state)
{
    (void)state;
    struct rules_position start = pos_of(V, V->start_text);
    struct rules_move first[RULES_MAX_MOVES], second[RULES_MAX_MOVES];
    int checked = 0;
    int n = V->moves_legal(&start, first);
    for (int i = 0; i < n; i++) {
        struct rules_position pos = start;
        V->position_apply(&pos, first[i]);
        int m = V->moves_legal(&pos, second);
        for (int j = 0; j < m; j++) {
            char uci[RULES_MOVE_TEXT_MAX], san[RULES_MOVE_TEXT_MAX];
            int len;
            V->move_format(&pos, second[j], RULES_NOTATION_SAN, san, sizeof san);
            if (san[0] != 'B')
                continue;
            V->move_format(&pos, second[j], RULES_NOTATION_UCI, uci, sizeof uci);
            int from = height(uci, &len);
            int to = height(uci + len, &len);
            assert_int_equal(from % 3, to % 3);
            checked++;
        }
    }
    assert_true(checked > 100);
}

/* §4 Stalemate scores 3/4 to the stalemating side. */
static void test_rules_glinski_stalemate_three_quarters(void **state)
{
    (void)state;
    /* Black king f11: its five neighbours f10 e10 g10 e9 g9 are all next
     * to the white king on f9, which does not touch f11. */
    struct rules_report r = report("k/3/2K2/7/9/11/11/11/11/11/1P9 b - 0 1");
    assert_int_equal(r.status, RULES_STALEMATE);
    assert_int_equal(r.result, RULES_RESULT_WHITE_3_4);
    assert_string_equal(rules_result_text(r.result), "3/4-1/4");
    /* Mirrored: the white king on f1 against the black king on f3. */
    r = report("1/3/5/7/8p/11/11/11/5k5/11/5K5 w - 0 1");
    assert_int_equal(r.status, RULES_STALEMATE);
    assert_string_equal(rules_result_text(r.result), "1/4-3/4");
}

/* §4 Insufficient material: a side mates with a pawn, a rook, a queen or
 * three minor pieces; the game is drawn when neither side can. */
static void test_rules_glinski_insufficient_material(void **state)
{
    (void)state;
    static const struct { const char *hfen; bool insufficient; } cases[] = {
        { "1/2k/5/7/9/11/11/11/11/11/6K4 w - 0 1", true },            /* K v K */
        { "1/2k/5/7/9/11/11/11/11/11/3N1BK4 w - 0 1", true },         /* two minors */
        { "1/1bk/5/7/9/11/11/11/11/11/3N2KN3 w - 0 1", true },        /* N N v B */
        { "1/2k/5/7/9/11/11/11/11/5B5/3N1BK4 w - 0 1", false },       /* three minors */
        { "1/2k/5/7/9/11/11/11/11/11/1P4K4 w - 0 1", false },         /* a pawn */
        { "1/2k/5/7/9/11/11/11/11/11/2R3K4 w - 0 1", false },         /* a rook */
        { "1/2k/5/7/9/11/11/11/11/11/4Q1K4 w - 0 1", false },         /* a queen */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct rules_report r = report(cases[i].hfen);
        if (r.insufficient_material != cases[i].insufficient)
            fail_msg("%s: insufficient_material should be %d", cases[i].hfen,
                     cases[i].insufficient);
        if (cases[i].insufficient)
            assert_string_equal(rules_result_text(r.result), "1/2-1/2");
    }
}

/* §5 HFEN: round trip and clear errors. */
static void test_rules_glinski_hfen_validation(void **state)
{
    (void)state;
    static const struct { const char *hfen; enum rules_error err; const char *words; } cases[] = {
        { "1/2k/5/7/9/11/11/11/11/11/11 w - 0 1", RULES_ERR_INVALID, "white has 0 kings" },
        { "1/P1k/5/7/9/11/11/11/11/11/6K4 w - 0 1", RULES_ERR_INVALID, "pawn on e10" },
        { "1/2k/5/7/9/11/11/11/6R4/11/6K4 w - 0 1", RULES_ERR_INVALID, "black is in check" },
        { "1/2k/5/7/9/11/11/11/11/11/6K4 w e6 0 1", RULES_ERR_INVALID, "en passant cell e6" },
        { "1/2k/5/7/9/11/11/11/11/11/6K5 w - 0 1", RULES_ERR_SYNTAX, "rank 1" },
        { "1/2k/5/7/9/11/11/11/11/6K4 w - 0 1", RULES_ERR_SYNTAX, "11 ranks" },
        { "1/2k/5/7/9/11/11/11/11/11/6K4 x - 0 1", RULES_ERR_SYNTAX, "side to move" },
    };
    struct rules_position pos = pos_of(V, V->start_text);
    assert_fen(V, &pos, V->start_text);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct rules_why why = { 0 };
        enum rules_error err = V->position_parse(&pos, cases[i].hfen, &why);
        if (err != cases[i].err || strstr(why.text, cases[i].words) == NULL)
            fail_msg("%s: got %s '%s', want %s mentioning '%s'", cases[i].hfen,
                     rules_error_text(err), why.text, rules_error_text(cases[i].err),
                     cases[i].words);
    }
}

/* §5 Notation: coordinate, SAN, long form, Hungarian letters. */
static void test_rules_glinski_notation_forms(void **state)
{
    (void)state;
    struct rules_position pos = pos_of(V, V->start_text);
    struct rules_move a, b;
    struct rules_why why = { 0 };
    assert_int_equal(try_move(V, &pos, "Ni3", &a, &why), RULES_OK);
    assert_int_equal(try_move(V, &pos, "h1i3", &b, &why), RULES_OK);
    assert_memory_equal(&a, &b, sizeof a);
    assert_int_equal(try_move(V, &pos, "Nh1i3", &b, &why), RULES_OK);
    assert_memory_equal(&a, &b, sizeof a);
    assert_int_equal(V->move_parse(&pos, "Hi3", RULES_DIALECT_HUNGARIAN, &b, &why), RULES_OK);
    assert_memory_equal(&a, &b, sizeof a);
    /* Glinski's own 1. Qc3 Qc6 2. b2 b6: then English B (bishop) is
     * Hungarian F (futo); Hungarian B is the rook (bastya). */
    play_line(V, &pos, "Qe1c3 Qe10c6 b1b2 b7b6");
    assert_int_equal(V->move_parse(&pos, "Fb1", RULES_DIALECT_HUNGARIAN, &b, &why), RULES_OK);
    assert_int_equal(try_move(V, &pos, "Bb1", &a, &why), RULES_OK);
    assert_memory_equal(&a, &b, sizeof a);
    assert_int_equal(try_move(V, &pos, "N@f6", &a, &why), RULES_ERR_ILLEGAL);
    assert_non_null(strstr(why.text, "no drops"));
}

/* Refusals say what is really wrong, with a reason code.  From
 * the start g2 is empty and attacked by nothing: Kxg2 is wrong only in its
 * capture mark.  File letters skip j: the file after i is k. */
static void test_rules_glinski_refusal_reasons(void **state)
{
    (void)state;
    struct rules_position pos = pos_of(V, V->start_text);
    assert_true(has_uci(V, &pos, "g1g2"));
    const struct refusal_case cases[] = {
        { V->start_text, NULL, "Kxg2", RULES_ERR_ILLEGAL, "capture-of-empty-square",
          "illegal move: the move is written as a capture but g2 is empty" },
        /* i2 captures onto h3 and k2 (orthogonal forward neighbours, (+-1,+1));
         * k2 is empty, so no pawn of file i can go to file k. */
        { NULL, NULL, "ixk", RULES_ERR_ILLEGAL, "cannot-reach",
          "illegal move: no pawn on file i can move to file k" },
        /* h1 jumps to i3 ((+1,+5) from (1,1) is (2,6)); no knight is on file k. */
        { NULL, NULL, "Nki3", RULES_ERR_ILLEGAL, "cannot-reach",
          "illegal move: no knight on file k can move to i3" },
        { NULL, NULL, "Kf2", RULES_ERR_ILLEGAL, "own-man-on-square",
          "illegal move: f2 is occupied by white's own bishop" },
        { NULL, NULL, "N@f6", RULES_ERR_ILLEGAL, "no-drops",
          "illegal move: glinski has no drops" },
        { NULL, NULL, "f6f7", RULES_ERR_ILLEGAL, "no-piece-on-square",
          "illegal move: there is no man on f6" },
        /* e1-e7 is the queen's file, blocked by the e4 pawn. */
        { NULL, NULL, "Qxe7", RULES_ERR_ILLEGAL, "cannot-reach",
          "illegal move: no queen of white can move to e7" },
        /* Kings on f6 (0,10) and f8 (0,14): (0,4) is no king step, but f7
         * (0,12) is one step, (0,-2), from f8. */
        { "1/3/5/3k3/9/5K5/11/11/11/11/11 w - 0 1", NULL,
          "Kf7", RULES_ERR_ILLEGAL, "king-in-check",
          "illegal move: the king would be in check on f7" },
        { NULL, NULL, NULL, RULES_OK, NULL, NULL },
    };
    assert_refusals(V, cases);
}

/* §2 The set has 1 Q, 2 R, 3 B, 2 N, 9 P; men beyond it can only be
 * promoted pawns, so their excess is at most the missing pawns. */
static void test_rules_glinski_promoted_men_counted(void **state)
{
    (void)state;
    static const struct { const char *hfen; const char *words; } refused[] = {
        /* 12 white knights: 10 beyond the set, but only 9 pawns missing. */
        { "1/2k/5/7/9/11/11/11/NNNNNNNNNNN/11/N5K4 w - 0 1",
          "white has 10 men beyond its starting set but only 9 pawns missing" },
        /* 9 pawns and 2 queens: 1 beyond the set, no pawn missing. */
        { "1/2k/5/7/9/11/11/11/Q10/1PPPPPPPPP1/Q5K4 w - 0 1",
          "white has 1 men beyond its starting set but only 0 pawns missing" },
    };
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
        struct rules_position pos;
        struct rules_why why = { 0 };
        enum rules_error err = V->position_parse(&pos, refused[i].hfen, &why);
        if (err != RULES_ERR_INVALID || strstr(why.text, refused[i].words) == NULL ||
            why.reason != RULES_REASON_INVALID_POSITION)
            fail_msg("%s: got %s '%s'", refused[i].hfen, rules_error_text(err), why.text);
    }
    /* 8 pawns and 2 queens: one pawn promoted. */
    pos_of(V, "1/2k/5/7/9/11/11/11/Q10/1PPPPPPPP2/Q5K4 w - 0 1");
    /* 4 bishops and 7 pawns (black king on e10, on no bishop's line). */
    pos_of(V, "1/k2/5/7/9/11/11/11/BB9/1PPPPPPP3/BB4K4 w - 0 1");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rules_glinski_knight_twelve_jumps),
        cmocka_unit_test(test_rules_glinski_pawn_capture_directions),
        cmocka_unit_test(test_rules_glinski_double_step_after_inward_capture),
        cmocka_unit_test(test_rules_glinski_en_passant),
        cmocka_unit_test(test_rules_glinski_promotion),
        cmocka_unit_test(test_rules_glinski_bishops_keep_colour),
        cmocka_unit_test(test_rules_glinski_stalemate_three_quarters),
        cmocka_unit_test(test_rules_glinski_insufficient_material),
        cmocka_unit_test(test_rules_glinski_hfen_validation),
        cmocka_unit_test(test_rules_glinski_notation_forms),
        cmocka_unit_test(test_rules_glinski_refusal_reasons),
        cmocka_unit_test(test_rules_glinski_promoted_men_counted),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
