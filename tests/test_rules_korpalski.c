/*
 * test_rules_korpalski.c — one test (at least) per rule of
 * docs/rules/korpalski.md.  Expected counts are worked out by hand in the
 * comments; each test fails when its rule is broken.
 */
#include "test_util.h"

static const struct rules_variant *V;

static int setup(void **state)
{
    (void)state;
    rules_init();
    V = korpalski();
    return V == NULL;
}

static struct rules_report report_of(const struct rules_position *pos)
{
    struct rules_report r;
    V->position_report(pos, &r);
    return r;
}

static struct rules_report report(const char *fen)
{
    struct rules_position pos = pos_of(V, fen);
    return report_of(&pos);
}

/* §2 Drops: a drop may never give check. */
static void test_rules_korpalski_drop_giving_check_refused(void **state)
{
    (void)state;
    struct rules_position pos = pos_of(V, "4k3/8/8/8/8/8/8/4K3[N] w - - 0 10");
    assert_illegal(V, &pos, "N@f6", "a knight on f6 would give check");
    assert_illegal(V, &pos, "N@d6", "would give check");
    assert_ucis(V, &pos, "!N@c7 N@f5");
    /* 62 empty squares minus the 4 from which a knight reaches e8 (c7 d6
     * f6 g7), plus 5 king steps: 63. */
    assert_int_equal(report_of(&pos).legal_moves, 63);
}

/* §2 Drops: a drop may block a check, and must if the king is in check. */
static void test_rules_korpalski_drop_blocking_check_accepted(void **state)
{
    (void)state;
    struct rules_position pos = pos_of(V, "4r2k/8/8/8/8/8/8/4K3[R] w - - 0 10");
    struct rules_move m;
    struct rules_why why = { 0 };
    assert_true(V->in_check(&pos));
    assert_int_equal(try_move(V, &pos, "R@e4", &m, &why), RULES_OK);
    assert_illegal(V, &pos, "R@a4", "does not block");
    /* King: d1 d2 f1 f2 (e2 is on the rook's file); drops: e2..e7. */
    assert_int_equal(report_of(&pos).legal_moves, 10);
}

/* §2 Drops: pawns on ranks 2-7 only. */
static void test_rules_korpalski_pawn_drop_ranks(void **state)
{
    (void)state;
    struct rules_position pos = pos_of(V, "4k3/8/8/8/8/8/8/4K3[P] w - - 0 10");
    assert_illegal(V, &pos, "P@a8", "ranks 2-7");
    assert_illegal(V, &pos, "@h1", "ranks 2-7");
    assert_ucis(V, &pos, "P@a2 P@h7");
    /* 48 squares on ranks 2-7 minus d7 and f7 (check on e8), plus 5 king steps. */
    assert_int_equal(report_of(&pos).legal_moves, 51);
}

/* §2 Drops: a pawn dropped on the seventh may not give check either. */
static void test_rules_korpalski_pawn_drop_on_seventh_no_check(void **state)
{
    (void)state;
    struct rules_position pos = pos_of(V, "3k4/8/8/8/8/8/8/4K3[P] w - - 0 10");
    assert_illegal(V, &pos, "P@e7", "would give check");
    assert_illegal(V, &pos, "P@c7", "would give check");
    assert_true(has_uci(V, &pos, "P@a7"));
}

/* §2 Pawns: a dropped pawn on the second rank may advance two squares. */
static void test_rules_korpalski_dropped_pawn_double_step(void **state)
{
    (void)state;
    struct rules_position pos = pos_of(V, "4k3/8/8/8/8/8/8/4K3[Pp] w - - 0 10");
    play_line(V, &pos, "P@a2 P@h7");
    assert_true(has_uci(V, &pos, "a2a4"));
    play_expect(V, &pos, "a4 h5", "4k3/8/8/7p/P7/8/8/4K3[] w - - 0 12");
}

/* §2 Pawns: en passant, and the canonical en passant field. */
static void test_rules_korpalski_en_passant(void **state)
{
    (void)state;
    struct rules_position pos = pos_of(V, "4k3/8/8/8/1p6/8/P7/4K3[] w - - 0 10");
    play_expect(V, &pos, "a4", "4k3/8/8/8/Pp6/8/8/4K3[] b - a3 0 10");
    play_expect(V, &pos, "bxa3", "4k3/8/8/8/8/p7/8/4K3[] w - - 0 11");
}

/* En passant that would expose the king along the rank is illegal, and the
 * field is then written '-'. */
static void test_rules_korpalski_en_passant_pinned(void **state)
{
    (void)state;
    struct rules_position pos = pos_of(V, "4k3/4p1p1/8/KPp1rP2/8/8/8/8[Pp] w - c6 0 2");
    assert_false(has_uci(V, &pos, "b5c6"));
    assert_fen(V, &pos, "4k3/4p1p1/8/KPp1rP2/8/8/8/8[Pp] w - - 0 2");
}

/* §2 Promotion: only to a type in the owner's prison, one move per type. */
static void test_rules_korpalski_promotion_to_prison_types(void **state)
{
    (void)state;
    /* White holds Q R B B N in reserve: the prison has one rook, one knight. */
    struct rules_position pos = pos_of(V, "6k1/4P3/8/8/8/8/8/K7[QRBBNqrrbbnn] w - - 0 30");
    assert_ucis(V, &pos, "e7e8r e7e8n !e7e8q !e7e8b");
    assert_illegal(V, &pos, "e8=Q", "prison holds: rook, knight");
    play(V, &pos, "e8=R+");
    /* The rook left the prison: white's set is complete again. */
    assert_fen(V, &pos, "4R1k1/8/8/8/8/8/8/K7[QRBBNqrrbbnn] b - - 0 30");
}

/* §2 Promotion: with an empty prison the pawn cannot move to the last rank,
 * but it still attacks the squares diagonally in front of it. */
static void test_rules_korpalski_immobile_pawn_still_checks(void **state)
{
    (void)state;
    struct rules_position pos = pos_of(V, "6k1/4P3/8/8/8/8/8/K7[QRRBBNNqrrbbnn] w - - 0 30");
    assert_false(has_uci(V, &pos, "e7e8q"));
    assert_illegal(V, &pos, "e8=Q", "prison is empty");
    pos = pos_of(V, "4k3/4P3/8/8/8/8/8/K7[QRRBBNNqrrbbnn] b - - 0 30");
    assert_ucis(V, &pos, "!e8d8 !e8f8 e8e7");
    assert_true(report("3k4/4P3/8/8/8/8/8/K7[QRRBBNNqrrbbnn] b - - 0 30").in_check);
}

/* §2 King placement: first moves place the kings, never adjacent. */
static void test_rules_korpalski_king_placement(void **state)
{
    (void)state;
    struct rules_position pos = pos_of(V, V->start_text);
    assert_illegal(V, &pos, "Q@d4", "place its king first");
    play(V, &pos, "K@c3");
    assert_illegal(V, &pos, "K@d4", "next to each other");
    assert_illegal(V, &pos, "N@f6", "place its king first");
    assert_true(has_uci(V, &pos, "K@e5"));
    /* 64 squares minus c3 and its 8 neighbours. */
    assert_int_equal(report("8/8/8/8/8/2K5/8/8[QRRBBNNPPPPPPPPkqrrbbnnpppppppp] b - - 0 1")
                         .legal_moves, 55);
}

/* §2 No castling. */
static void test_rules_korpalski_no_castling(void **state)
{
    (void)state;
    struct rules_position pos;
    struct rules_why why = { 0 };
    assert_int_equal(V->position_parse(&pos, "4k3/8/8/8/8/8/8/4K2R[] w K - 0 10", &why),
                     RULES_ERR_SYNTAX);
    assert_non_null(strstr(why.text, "no castling"));
    pos = pos_of(V, "4k3/8/8/8/8/8/8/4K2R[] w - - 0 10");
    assert_false(has_uci(V, &pos, "e1g1"));
}

/* §3 Checkmate counts drops: a drop that blocks saves the king. */
static void test_rules_korpalski_mate_unless_a_drop_blocks(void **state)
{
    (void)state;
    struct rules_report r = report("R6k/6pp/8/8/8/8/8/K7[] b - - 0 40");
    assert_int_equal(r.status, RULES_CHECKMATE);
    assert_int_equal(r.result, RULES_RESULT_WHITE_WINS);
    /* With a knight in reserve black drops it on b8..g8: 6 moves. */
    r = report("R6k/6pp/8/8/8/8/8/K7[n] b - - 0 40");
    assert_int_equal(r.status, RULES_ONGOING);
    assert_int_equal(r.legal_moves, 6);
}

/* §3 Stalemate: no legal move of any kind, drops included. */
static void test_rules_korpalski_stalemate(void **state)
{
    (void)state;
    struct rules_report r = report("k7/8/1Q6/8/8/8/8/7K[] b - - 0 50");
    assert_int_equal(r.status, RULES_STALEMATE);
    assert_int_equal(r.result, RULES_RESULT_DRAW);
    assert_false(r.in_check);
    r = report("k7/8/1Q6/8/8/8/8/7K[p] b - - 0 50");
    assert_int_equal(r.status, RULES_ONGOING);
}

/* §4.1 Insufficient material counts the reserves. */
static void test_rules_korpalski_insufficient_material(void **state)
{
    (void)state;
    static const struct { const char *fen; bool insufficient; } cases[] = {
        { "4k3/8/8/8/8/8/8/4K3[] w - - 0 1", true },           /* K v K */
        { "4k3/8/8/8/8/8/8/4KN2[] w - - 0 1", true },          /* K+N v K */
        { "4k3/8/8/8/8/8/8/4K3[n] w - - 0 1", true },          /* knight in reserve */
        { "4k3/8/8/8/8/8/8/4K3[B] w - - 0 1", true },          /* bishop in reserve */
        { "4kb2/8/8/8/8/8/8/2B1K3[] w - - 0 1", true },        /* B v B, both dark */
        { "4k1b1/8/8/8/8/8/8/2B1K3[] w - - 0 1", false },      /* opposite colours */
        { "4k3/8/8/8/8/8/8/2B1K3[b] w - - 0 1", false },       /* a bishop undropped */
        { "4k3/8/8/8/8/8/8/4K3[p] w - - 0 1", false },         /* a pawn in reserve */
        { "4k3/8/8/8/8/8/8/3NKN2[] w - - 0 1", false },        /* two knights */
        { "4k3/8/8/8/8/8/8/4K3[R] w - - 0 1", false },         /* a rook */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct rules_report r = report(cases[i].fen);
        if (r.insufficient_material != cases[i].insufficient)
            fail_msg("%s: insufficient_material should be %d", cases[i].fen,
                     cases[i].insufficient);
        assert_int_equal(r.status, cases[i].insufficient ? RULES_INSUFFICIENT_MATERIAL
                                                         : RULES_ONGOING);
    }
}

/* §4.2 Fifty-move rule: drops, captures and pawn moves reset the clock. */
static void test_rules_korpalski_fifty_move_clock(void **state)
{
    (void)state;
    const char *fen = "4k3/8/8/8/8/8/p7/4K2R[Rr] w - - 99 60";
    struct rules_position pos = pos_of(V, fen);
    struct rules_report r;
    play(V, &pos, "Kd1");
    V->position_report(&pos, &r);
    assert_int_equal(r.halfmove_clock, 100);
    assert_true(r.fifty_move_claimable);

    pos = pos_of(V, fen);
    play(V, &pos, "R@a4");
    assert_int_equal(V->halfmove_clock(&pos), 0);
    pos = pos_of(V, fen);
    play(V, &pos, "Rh2");
    play(V, &pos, "a1=R+");   /* a pawn move (a promotion) resets it too */
    assert_int_equal(V->halfmove_clock(&pos), 0);
}

/* §4.3 Repetition: reserves are part of the position. */
static void test_rules_korpalski_repetition_key_counts_reserves(void **state)
{
    (void)state;
    struct rules_position a = pos_of(V, "4k3/8/8/8/8/8/8/4K3[R] w - - 0 10");
    struct rules_position b = pos_of(V, "4k3/8/8/8/8/8/8/4K3[r] w - - 0 10");
    struct rules_position c = pos_of(V, "4k3/8/8/8/8/8/8/4K3[RR] w - - 0 10");
    struct rules_position d = pos_of(V, "4k3/8/8/8/8/8/8/4K3[R] b - - 0 10");
    struct rules_position walk = a;
    assert_true(V->repetition_key(&a) != V->repetition_key(&b));
    assert_true(V->repetition_key(&a) != V->repetition_key(&c));
    assert_true(V->repetition_key(&a) != V->repetition_key(&d));
    play_line(V, &walk, "Kd1 Kd8 Ke1 Ke8");
    assert_true(V->repetition_key(&walk) == V->repetition_key(&a));
}

/* §5 FEN validation: each fault has its own message. */
static void test_rules_korpalski_fen_validation(void **state)
{
    (void)state;
    static const struct { const char *fen; enum rules_error err; const char *words; } cases[] = {
        { "4k3/8/8/8/8/8/8/NN2K3[N] w - - 0 10", RULES_ERR_INVALID, "3 white knights" },
        { "8/8/8/8/8/8/8/4K3[Q] w - - 0 10", RULES_ERR_INVALID, "black king is neither" },
        { "8/8/8/8/8/8/8/4K3[k] w - - 0 10", RULES_ERR_INVALID, "black king is missing" },
        { "4k2P/8/8/8/8/8/8/4K3[] w - - 0 10", RULES_ERR_INVALID, "pawn on h8" },
        { "4k3/8/8/8/8/8/8/4R1K1[] w - - 0 10", RULES_ERR_INVALID, "black is in check" },
        { "4k3/8/8/8/8/8/8/4K3[] w - e6 0 10", RULES_ERR_INVALID, "en passant square e6" },
        { "8/8/8/3k4/4K3/8/8/8[] w - - 0 10", RULES_ERR_INVALID, "next to each other" },
        { "4k3/8/8/8/8/8/8/4K3 w - - 0 10", RULES_ERR_SYNTAX, "reserves in brackets" },
        { "4k3/8/8/8/8/8/8/4K3[] x - - 0 10", RULES_ERR_SYNTAX, "side to move" },
        { "4k3/8/8/8/8/8/8/4K4[] w - - 0 10", RULES_ERR_SYNTAX, "more than 8" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct rules_position pos;
        struct rules_why why = { 0 };
        enum rules_error err = V->position_parse(&pos, cases[i].fen, &why);
        if (err != cases[i].err || strstr(why.text, cases[i].words) == NULL)
            fail_msg("%s: got %s '%s', want %s mentioning '%s'", cases[i].fen,
                     rules_error_text(err), why.text, rules_error_text(cases[i].err),
                     cases[i].words);
    }
}

/* §5 FEN round trip, reserve order K Q R B N P. */
static void test_rules_korpalski_fen_round_trip(void **state)
{
    (void)state;
    struct rules_position pos = pos_of(V, "8/8/8/8/8/8/8/8[pPkKnNqQ] w - - 0 1");
    assert_fen(V, &pos, "8/8/8/8/8/8/8/8[KQNPkqnp] w - - 0 1");
    pos = pos_of(V, V->start_text);
    assert_fen(V, &pos, V->start_text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rules_korpalski_drop_giving_check_refused),
        cmocka_unit_test(test_rules_korpalski_drop_blocking_check_accepted),
        cmocka_unit_test(test_rules_korpalski_pawn_drop_ranks),
        cmocka_unit_test(test_rules_korpalski_pawn_drop_on_seventh_no_check),
        cmocka_unit_test(test_rules_korpalski_dropped_pawn_double_step),
        cmocka_unit_test(test_rules_korpalski_en_passant),
        cmocka_unit_test(test_rules_korpalski_en_passant_pinned),
        cmocka_unit_test(test_rules_korpalski_promotion_to_prison_types),
        cmocka_unit_test(test_rules_korpalski_immobile_pawn_still_checks),
        cmocka_unit_test(test_rules_korpalski_king_placement),
        cmocka_unit_test(test_rules_korpalski_no_castling),
        cmocka_unit_test(test_rules_korpalski_mate_unless_a_drop_blocks),
        cmocka_unit_test(test_rules_korpalski_stalemate),
        cmocka_unit_test(test_rules_korpalski_insufficient_material),
        cmocka_unit_test(test_rules_korpalski_fifty_move_clock),
        cmocka_unit_test(test_rules_korpalski_repetition_key_counts_reserves),
        cmocka_unit_test(test_rules_korpalski_fen_validation),
        cmocka_unit_test(test_rules_korpalski_fen_round_trip),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
