/*
 * test_rules_api.c — what the server and the arbiter tool rely on, for
 * both variants through the variant table: the checked move path, draw
 * claims over stored keys, mating ability and time-outs, draw agreement,
 * quarter points, stable repetition keys, reason codes and rules_init
 * from several threads.
 */
#include "test_util.h"

#include <ctype.h>
#include <pthread.h>

static const struct rules_variant *K, *G;

static struct rules_report report(const struct rules_variant *v, const char *text)
{
    struct rules_position pos = pos_of(v, text);
    struct rules_report r;
    v->position_report(&pos, &r);
    return r;
}

/* A position and whether each side still has mating material in it. */
struct can_mate_case {
    const char *text;
    bool white, black;
};

static void assert_can_mate(const struct rules_variant *v, const struct can_mate_case *cases,
                            size_t n)
{
    for (size_t i = 0; i < n; i++) {
        struct rules_report r = report(v, cases[i].text);
        if (r.can_mate[0] != cases[i].white || r.can_mate[1] != cases[i].black)
            fail_msg("%s: can_mate %d %d, want %d %d", cases[i].text, r.can_mate[0],
                     r.can_mate[1], cases[i].white, cases[i].black);
    }
}

/* Who wins when white, then black, runs out of time in that position. */
static void assert_on_time(const struct rules_variant *v, const char *text,
                           enum rules_result white_flags, enum rules_result black_flags)
{
    struct rules_report r = report(v, text);
    assert_int_equal(rules_result_on_time(&r, RULES_WHITE), white_flags);
    assert_int_equal(rules_result_on_time(&r, RULES_BLACK), black_flags);
}

/* Parses a move that must be legal. */
static struct rules_move move_of(const struct rules_variant *v,
                                 const struct rules_position *pos, const char *text)
{
    struct rules_move m;
    struct rules_why why = { 0 };
    if (try_move(v, pos, text, &m, &why) != RULES_OK)
        fail_msg("move %s: %s", text, why.text);
    return m;
}

/* A move value that is not legal (here: from an empty square,
 * which used to write out of bounds) is refused by every public path. */
static void test_rules_api_checked_path(void **state)
{
    (void)state;
    static const struct { const char *variant; struct rules_move m; } bad[] = {
        { "korpalski", { 20, 28, RULES_NO_PIECE, 0 } },          /* e3-e4, e3 empty */
        { "korpalski", { 0, 200, RULES_NO_PIECE, 0 } },          /* off the board */
        { "korpalski", { 0, 27, 9, RULES_MOVE_DROP } },          /* type 9 */
        { "korpalski", { 4, 12, RULES_NO_PIECE, 0xFF } },
        { "glinski", { 40, 41, RULES_NO_PIECE, 0 } },
        { "glinski", { 255, 255, 255, 255 } },
        { "glinski", { 0, 5, RULES_QUEEN, RULES_MOVE_PROMOTION } },
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        const struct rules_variant *v = rules_variant_find(bad[i].variant);
        const char *start = strcmp(v->name, "korpalski") == 0
                                ? "4k3/8/8/8/8/8/8/4K3[Nn] w - - 0 10" : v->start_text;
        struct rules_position pos = pos_of(v, start), before = pos;
        char text[RULES_MOVE_TEXT_MAX] = "x", pgn[2048] = "x";
        assert_false(v->move_is_legal(&pos, bad[i].m));
        assert_int_equal(v->position_apply(&pos, bad[i].m), RULES_ERR_ILLEGAL);
        assert_memory_equal(&pos, &before, sizeof pos);
        for (int how = RULES_NOTATION_SAN; how <= RULES_NOTATION_POLISH_FULL; how++) {
            assert_int_equal(v->move_format(&pos, bad[i].m, (enum rules_notation)how, text,
                                             sizeof text), 0);
            assert_string_equal(text, "");
        }
        assert_false(v->move_is_irreversible(&pos, bad[i].m));
        assert_int_equal(rules_pgn_write(v, NULL, &pos, &bad[i].m, 1, RULES_RESULT_NONE, pgn,
                                         sizeof pgn), 0);
        assert_string_equal(pgn, "");
    }
    /* Every legal move passes the check. */
    for (const struct rules_variant *const *v = rules_variant_list(); *v; v++) {
        struct rules_position pos = pos_of(*v, (*v)->start_text);
        struct rules_move moves[RULES_MAX_MOVES];
        int n = (*v)->moves_legal(&pos, moves);
        for (int i = 0; i < n; i++)
            assert_true((*v)->move_is_legal(&pos, moves[i]));
    }
}

/* §4.1 (Korpalski) and the timeout decisions.  The rules draw the game
 * where the material test holds; then neither side could mate.  Elsewhere
 * a side could mate unless it has nothing but its king (reserve counted). */
static void test_rules_api_can_mate_korpalski(void **state)
{
    (void)state;
    static const struct can_mate_case cases[] = {
        { "4k3/8/8/8/8/8/8/4K3[] w - - 0 1", false, false },        /* K v K */
        { "4k3/8/8/8/8/8/8/4KN2[] w - - 0 1", false, false },       /* K+N v K */
        { "4k3/8/8/8/8/8/8/4K3[n] w - - 0 1", false, false },       /* undropped n */
        { "4kb2/8/8/8/8/8/8/2B1K3[] w - - 0 1", false, false },     /* B v B same colour */
        { "4k1b1/8/8/8/8/8/8/2B1K3[] w - - 0 1", true, true },      /* opposite colours */
        { "4k3/8/8/8/8/8/8/2B1K3[b] w - - 0 1", true, true },       /* b undropped */
        { "4k3/8/8/8/8/8/8/4K3[P] w - - 0 1", true, false },        /* undropped pawn */
        { "4k3/8/8/8/8/8/8/4K3[R] w - - 0 1", true, false },
        { "4k3/8/8/8/8/8/8/3NKN2[] w - - 0 1", true, false },       /* two knights */
        { "4k3/8/8/8/8/8/8/3NK3[n] w - - 0 1", true, true },        /* N v N */
    };
    assert_can_mate(K, cases, sizeof cases / sizeof *cases);
    /* K+R in reserve against a lone king: white flagging draws, black
     * flagging loses. */
    assert_on_time(K, "4k3/8/8/8/8/8/8/4K3[R] w - - 0 1", RULES_RESULT_DRAW,
                   RULES_RESULT_WHITE_WINS);
    struct rules_report r = report(K, K->start_text);
    assert_int_equal(rules_result_on_time(&r, RULES_WHITE), RULES_RESULT_BLACK_WINS);
}

/* Glinski §4: a pawn, a rook, a queen or three minor pieces can mate. */
static void test_rules_api_can_mate_glinski(void **state)
{
    (void)state;
    static const struct can_mate_case cases[] = {
        { "1/2k/5/7/9/11/11/11/11/11/6K4 w - 0 1", false, false },
        { "1/2k/5/7/9/11/11/11/11/11/3N1BK4 w - 0 1", false, false },   /* 2 minors */
        { "1/2k/5/7/9/11/11/11/11/5B5/3N1BK4 w - 0 1", true, false },   /* 3 minors */
        { "1/2k/5/7/9/11/11/11/11/11/1P4K4 w - 0 1", true, false },     /* a pawn */
        { "1/1rk/5/7/9/11/11/11/11/11/4Q1K4 w - 0 1", true, true },     /* Q v R */
    };
    assert_can_mate(G, cases, sizeof cases / sizeof *cases);
    assert_on_time(G, "1/2k/5/7/9/11/11/11/11/11/1P4K4 b - 0 1", RULES_RESULT_DRAW,
                   RULES_RESULT_WHITE_WINS);
}

/* Korpalski §4.4: agreement only with both reserves empty; Glinski §4:
 * any time. */
static void test_rules_api_draw_agreement(void **state)
{
    (void)state;
    struct rules_position pos = pos_of(K, "4k3/8/8/8/8/8/8/R3K3[p] w - - 0 30");
    struct rules_why why = { 0 };
    assert_false(K->draw_agreement_allowed(&pos, &why));
    assert_string_equal(rules_reason_slug(why.reason), "agreement-not-allowed");
    assert_string_equal(why.text, "draw by agreement refused: a draw may be agreed only "
                                  "when both reserves are empty");
    assert_false(K->draw_agreement_allowed(&pos, NULL));
    assert_false(report(K, "4k3/8/8/8/8/8/8/R3K3[p] w - - 0 30").draw_agreement_allowed);
    pos = pos_of(K, "4k3/7p/8/8/8/8/8/R3K3[] w - - 0 30");
    assert_true(K->draw_agreement_allowed(&pos, &why));
    assert_true(report(K, "4k3/7p/8/8/8/8/8/R3K3[] w - - 0 30").draw_agreement_allowed);
    pos = pos_of(G, G->start_text);
    assert_true(G->draw_agreement_allowed(&pos, &why));
    assert_true(report(G, G->start_text).draw_agreement_allowed);
}

/* Quarter points: 1-0 is 4/0, a draw 2/2, 3/4-1/4 is 3/1. */
static void test_rules_api_quarters(void **state)
{
    (void)state;
    static const struct { enum rules_result r; int w, b; bool known; } cases[] = {
        { RULES_RESULT_WHITE_WINS, 4, 0, true }, { RULES_RESULT_BLACK_WINS, 0, 4, true },
        { RULES_RESULT_DRAW, 2, 2, true },       { RULES_RESULT_WHITE_3_4, 3, 1, true },
        { RULES_RESULT_BLACK_3_4, 1, 3, true },  { RULES_RESULT_NONE, 0, 0, false },
        { (enum rules_result)42, 0, 0, false },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int q[2] = { -1, -1 };
        assert_int_equal(rules_result_quarters(cases[i].r, q), cases[i].known);
        assert_int_equal(q[0], cases[i].w);
        assert_int_equal(q[1], cases[i].b);
    }
}

/* The server's key list: restarted after each irreversible move, one key
 * appended per position.  Kd1 Kd8 Ke1 Ke8 twice brings the start back for
 * the third time at ply 8. */
static void test_rules_api_threefold_over_stored_keys(void **state)
{
    (void)state;
    static const char *const walk[] = { "Kd1", "Kd8", "Ke1", "Ke8", "Kd1", "Kd8", "Ke1" };
    struct rules_position pos = pos_of(K, "4k3/8/8/8/8/8/8/4K3[Rr] w - - 0 30");
    uint64_t keys[16];
    int n = 0, at[4];
    struct rules_claim c;
    struct rules_why why = { 0 };

    keys[n++] = K->repetition_key(&pos);
    for (size_t i = 0; i < sizeof walk / sizeof *walk; i++) {
        struct rules_move m = move_of(K, &pos, walk[i]);
        assert_false(K->move_is_irreversible(&pos, m));
        assert_int_equal(K->position_apply(&pos, m), RULES_OK);
        keys[n++] = K->repetition_key(&pos);
    }
    /* Now: black to move after Ke1, second occurrence (indexes 3 and 7). */
    assert_int_equal(rules_repetition_count(keys, n, keys[n - 1], at, 4), 2);
    assert_int_equal(at[0], 3);
    assert_int_equal(at[1], 7);
    assert_int_equal(rules_claim_check(K, &pos, keys, n, NULL, &c, &why), RULES_OK);
    assert_int_equal(c.occurrences, 2);
    assert_false(c.threefold);
    /* The claim made with Ke8: the start occurs at 0, 4 and after the move. */
    struct rules_move ke8 = move_of(K, &pos, "Ke8");
    assert_int_equal(rules_claim_check(K, &pos, keys, n, &ke8, &c, &why), RULES_OK);
    assert_int_equal(c.occurrences, 3);
    assert_true(c.threefold);
    assert_false(c.irreversible);
    assert_int_equal(c.at_count, 3);
    assert_int_equal(c.at[0], 0);
    assert_int_equal(c.at[1], 4);
    assert_int_equal(c.at[2], n);
    assert_true(c.key == keys[0]);
    /* The claim with a drop: irreversible, the list no longer counts. */
    struct rules_move drop = move_of(K, &pos, "R@a8");
    assert_true(K->move_is_irreversible(&pos, drop));
    assert_int_equal(rules_claim_check(K, &pos, keys, n, &drop, &c, &why), RULES_OK);
    assert_true(c.irreversible);
    assert_int_equal(c.occurrences, 1);
    assert_int_equal(c.halfmove_clock, 0);
    /* A list without the current position: it counts as entry n - 1. */
    assert_int_equal(rules_claim_check(K, &pos, keys, n - 1, NULL, &c, &why), RULES_OK);
    assert_int_equal(c.occurrences, 2);
    assert_int_equal(c.at[1], n - 1);
    /* An illegal move with the claim. */
    struct rules_move bad = { 0, 63, RULES_NO_PIECE, 0 };
    assert_int_equal(rules_claim_check(K, &pos, keys, n, &bad, &c, &why), RULES_ERR_ILLEGAL);
    assert_string_equal(rules_reason_slug(why.reason), "not-legal");
}

/* Fifty moves: claimable at 100 plies, also with the move that reaches
 * it; a Korpalski drop resets the clock (§4.2), a Glinski capture too. */
static void test_rules_api_fifty_move_claims(void **state)
{
    (void)state;
    struct rules_position pos = pos_of(K, "4k3/8/8/8/8/8/8/4K3[Rr] w - - 99 60");
    struct rules_claim c;
    struct rules_move kd1 = move_of(K, &pos, "Kd1"), drop = move_of(K, &pos, "R@a4");
    assert_int_equal(rules_claim_check(K, &pos, NULL, 0, NULL, &c, NULL), RULES_OK);
    assert_false(c.fifty_move);
    assert_int_equal(rules_claim_check(K, &pos, NULL, 0, &kd1, &c, NULL), RULES_OK);
    assert_true(c.fifty_move);
    assert_int_equal(c.halfmove_clock, 100);
    assert_int_equal(rules_claim_check(K, &pos, NULL, 0, &drop, &c, NULL), RULES_OK);
    assert_false(c.fifty_move);

    pos = pos_of(G, "1/2k/5/7/9/11/11/11/11/11/2R3K4 w - 100 80");
    assert_int_equal(rules_claim_check(G, &pos, NULL, 0, NULL, &c, NULL), RULES_OK);
    assert_true(c.fifty_move);
    struct rules_move rook = move_of(G, &pos, "Rc2");
    assert_false(G->move_is_irreversible(&pos, rook));
    pos = pos_of(G, "1/2k/5/7/9/11/11/11/11/11/1P4K4 w - 100 80");
    struct rules_move pawn = move_of(G, &pos, "b2");
    assert_true(G->move_is_irreversible(&pos, pawn));
    assert_int_equal(rules_claim_check(G, &pos, NULL, 0, &pawn, &c, NULL), RULES_OK);
    assert_false(c.fifty_move);
    assert_true(c.irreversible);
}

/*
 * Keys are stored in the database (RULES_KEY_VERSION 1).  These values were
 * taken from this library, on purpose: the test exists to catch an
 * accidental change of the hashing, which would need a new key version.
 */
static void test_rules_api_key_values_pinned(void **state)
{
    (void)state;
    static const struct { const char *variant, *text; uint64_t key; } pins[] = {
        { "korpalski", "8/8/8/8/8/8/8/8[KQRRBBNNPPPPPPPPkqrrbbnnpppppppp] w - - 0 1",
          0x4670a39d69ed9cd7ULL },
        { "korpalski", "4k3/8/8/8/Pp6/8/8/4K3[] b - a3 0 10", 0xd4013ff7a44a1a1fULL },
        { "korpalski", "rnbq1rk1/ppp2ppp/8/3pP3/8/2NB4/PPP2PPP/5RK1[Pp] w - d6 0 10",
          0x9dfbd291ce5a9be1ULL },
        { "glinski", "b/qbk/n1b1n/r5r/ppppppppp/11/5P5/4P1P4/3P1B1P3/2P2B2P2/1PRNQBKNRP1 w - 0 1",
          0x0bcc05793b5747d2ULL },
        { "glinski", "1/3/5/7/9/10k/1Pp8/11/11/11/K10 w c6 0 2", 0x00949aa9cae9406aULL },
        { "glinski", "1/3/5/7/9/10k/1Pp8/11/11/11/K10 b - 0 2", 0x85d10d91cc7e3904ULL },
    };
    assert_int_equal(RULES_KEY_VERSION, 1);
    for (size_t i = 0; i < sizeof pins / sizeof *pins; i++) {
        const struct rules_variant *v = rules_variant_find(pins[i].variant);
        struct rules_position pos = pos_of(v, pins[i].text);
        if (v->repetition_key(&pos) != pins[i].key)
            fail_msg("%s: key changed: bump RULES_KEY_VERSION", pins[i].text);
    }
    /* Clocks are not part of the position. */
    struct rules_position a = pos_of(G, "1/3/5/7/9/10k/1Pp8/11/11/11/K10 b - 0 2");
    struct rules_position b = pos_of(G, "1/3/5/7/9/10k/1Pp8/11/11/11/K10 b - 40 70");
    assert_true(G->repetition_key(&a) == G->repetition_key(&b));
}

/* Reason codes: stable kebab-case slugs, one per code. */
static void test_rules_api_reason_slugs(void **state)
{
    (void)state;
    for (int r = 0; r < RULES_REASON_COUNT; r++) {
        const char *slug = rules_reason_slug((enum rules_reason)r);
        assert_string_not_equal(slug, "unknown");
        for (const char *c = slug; *c; c++)
            assert_true(islower((unsigned char)*c) || *c == '-');
        for (int o = 0; o < r; o++)
            assert_string_not_equal(slug, rules_reason_slug((enum rules_reason)o));
    }
    assert_string_equal(rules_reason_slug(RULES_REASON_DROP_GIVES_CHECK), "drop-gives-check");
    assert_string_equal(rules_reason_slug(RULES_REASON_KING_IN_CHECK), "king-in-check");
    assert_string_equal(rules_reason_slug(RULES_REASON_CAPTURE_OF_EMPTY_SQUARE),
                        "capture-of-empty-square");
    assert_string_equal(rules_reason_slug(RULES_REASON_COUNT), "unknown");
    assert_string_equal(rules_reason_slug((enum rules_reason)-1), "unknown");
}

static void *init_and_count(void *arg)
{
    uint64_t *out = arg;
    rules_init();
    struct rules_position pos;
    const struct rules_variant *v = rules_variant_find("glinski");
    if (v->position_parse(&pos, v->start_text, NULL) == RULES_OK)
        *out = v->perft(&pos, 2);
    return NULL;
}

/* rules_init from several threads at once, then again: every thread sees
 * ready tables (glinski.md §6: perft 2 from the start is 2586). */
static void test_rules_api_init_from_threads(void **state)
{
    (void)state;
    pthread_t threads[8];
    uint64_t counts[8] = { 0 };
    for (int i = 0; i < 8; i++)
        assert_int_equal(pthread_create(&threads[i], NULL, init_and_count, &counts[i]), 0);
    for (int i = 0; i < 8; i++) {
        assert_int_equal(pthread_join(threads[i], NULL), 0);
        assert_int_equal(counts[i], 2586);
    }
    rules_init();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rules_api_init_from_threads),
        cmocka_unit_test(test_rules_api_checked_path),
        cmocka_unit_test(test_rules_api_can_mate_korpalski),
        cmocka_unit_test(test_rules_api_can_mate_glinski),
        cmocka_unit_test(test_rules_api_draw_agreement),
        cmocka_unit_test(test_rules_api_quarters),
        cmocka_unit_test(test_rules_api_threefold_over_stored_keys),
        cmocka_unit_test(test_rules_api_fifty_move_claims),
        cmocka_unit_test(test_rules_api_key_values_pinned),
        cmocka_unit_test(test_rules_api_reason_slugs),
    };
    /* No rules_init here: the first test calls it from threads.  Finding
     * a variant needs no tables. */
    K = rules_variant_find("korpalski");
    G = rules_variant_find("glinski");
    if (K == NULL || G == NULL)
        return 1;
    return cmocka_run_group_tests(tests, NULL, NULL);
}
