/*
 * test_rules_roundtrip.c — property tests over both variants: every
 * position korp writes reads back equal.  For every legal move of many
 * positions (start positions, the published game records in tests/data,
 * random playouts with a fixed seed, positions at the counter limits) the
 * move is applied, the position written, read back and written again; the
 * texts, repetition keys and counters must agree, and a move must be
 * irreversible exactly when it resets the halfmove clock.  Transposed move
 * orders must reach equal keys.
 * usage: test_rules_roundtrip DATA_DIR
 */
#include "test_util.h"

#include <stdlib.h>

static const char *data_dir;

/* Counts, so that a test that checks nothing fails. */
static long checked_positions, checked_moves;

/* The written text of pos must read back into a position that writes the
 * same text and has the same key, side and counters. */
static void check_written(const struct rules_variant *v, const struct rules_position *pos)
{
    char text[RULES_TEXT_MAX], again[RULES_TEXT_MAX];
    struct rules_position back;
    struct rules_why why = { 0 };

    v->position_format(pos, text, sizeof text);
    if (v->position_parse(&back, text, &why) != RULES_OK)
        fail_msg("%s: written '%s' does not read back: %s", v->name, text, why.text);
    v->position_format(&back, again, sizeof again);
    if (strcmp(text, again) != 0)
        fail_msg("%s: '%s' reads back as '%s'", v->name, text, again);
    if (v->repetition_key(&back) != v->repetition_key(pos))
        fail_msg("%s: '%s' reads back with another repetition key", v->name, text);
    assert_int_equal(v->side_to_move(&back), v->side_to_move(pos));
    assert_int_equal(v->halfmove_clock(&back), v->halfmove_clock(pos));
    assert_int_equal(v->fullmove_number(&back), v->fullmove_number(pos));
    checked_positions++;
}

/* Every legal move of pos: applied, written, read back; counters step
 * (saturating) or reset exactly on irreversible moves; SAN reads back as
 * the same move. */
static void check_all_moves(const struct rules_variant *v, const struct rules_position *pos)
{
    struct rules_move moves[RULES_MAX_MOVES];
    int n = v->moves_legal(pos, moves);
    int half = v->halfmove_clock(pos), full = v->fullmove_number(pos);
    bool black = v->side_to_move(pos) == RULES_BLACK;

    check_written(v, pos);
    for (int i = 0; i < n; i++) {
        struct rules_position after = *pos;
        struct rules_move again;
        struct rules_why why = { 0 };
        char san[RULES_MOVE_TEXT_MAX];
        bool irreversible = v->move_is_irreversible(pos, moves[i]);

        assert_int_equal(v->position_apply(&after, moves[i]), RULES_OK);
        check_written(v, &after);
        assert_int_equal(v->halfmove_clock(&after),
                         irreversible ? 0 : (half < RULES_COUNTER_MAX ? half + 1 : half));
        assert_int_equal(v->fullmove_number(&after),
                         black && full < RULES_COUNTER_MAX ? full + 1 : full);
        assert_true(v->move_format(pos, moves[i], RULES_NOTATION_SAN, san, sizeof san) > 0);
        if (v->move_parse(pos, san, RULES_DIALECT_DEFAULT, &again, &why) != RULES_OK ||
            memcmp(&again, &moves[i], sizeof again) != 0)
            fail_msg("%s: %s does not read back: %s", v->name, san, why.text);
        checked_moves++;
    }
}

/* A small fixed-seed generator (xorshift64), the same on every machine. */
static uint64_t next_random(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Random games from `start`, checking every position on the way. */
static void random_playouts(const struct rules_variant *v, const char *start, int games,
                            int plies, uint64_t seed)
{
    struct rules_move moves[RULES_MAX_MOVES];
    for (int g = 0; g < games; g++) {
        struct rules_position pos = pos_of(v, start);
        for (int ply = 0; ply < plies; ply++) {
            int n = v->moves_legal(&pos, moves);
            check_all_moves(v, &pos);
            if (n == 0)
                break;
            assert_int_equal(v->position_apply(&pos, moves[next_random(&seed) % (uint64_t)n]),
                             RULES_OK);
        }
    }
}

static void test_rules_roundtrip_start_and_random(void **state)
{
    (void)state;
    for (const struct rules_variant *const *v = rules_variant_list(); *v; v++) {
        struct rules_position pos = pos_of(*v, (*v)->start_text);
        check_all_moves(*v, &pos);
        random_playouts(*v, (*v)->start_text, 12, 120, 0x9E3779B97F4A7C15ULL);
    }
    assert_true(checked_moves > 10000);
}

/* The published Korpalski game, ply by ply (inventor-sample.fens.tsv). */
static void test_rules_roundtrip_korpalski_record(void **state)
{
    (void)state;
    const struct rules_variant *v = rules_variant_find("korpalski");
    char path[1024], line[512];
    int positions = 0;
    FILE *f;
    snprintf(path, sizeof path, "%s/inventor-sample.fens.tsv", data_dir);
    f = fopen(path, "r");
    assert_non_null(f);
    while (fgets(line, sizeof line, f) != NULL) {
        char *fen = strrchr(line, '\t');
        if (fen == NULL || line[0] == 'p')
            continue;
        fen[strcspn(fen, "\r\n")] = '\0';
        struct rules_position pos = pos_of(v, fen + 1);
        check_all_moves(v, &pos);
        positions++;
    }
    fclose(f);
    assert_int_equal(positions, 56);
}

struct record {
    const struct rules_variant *v;
    struct rules_position pos;
    bool failed;
    int dialect, plies;
};

static int record_move(void *arg, const char *token)
{
    struct record *r = arg;
    struct rules_move m;
    if (r->failed)
        return 0;
    if (r->v->move_parse(&r->pos, token, r->dialect, &m, NULL) != RULES_OK) {
        r->failed = true;
        return 0;
    }
    check_all_moves(r->v, &r->pos);
    assert_int_equal(r->v->position_apply(&r->pos, m), RULES_OK);
    r->plies++;
    return 0;
}

static int record_end(void *arg)
{
    struct record *r = arg;
    r->pos = pos_of(r->v, r->v->start_text);
    r->failed = false;
    return 0;
}

/* Glinski: the first games of the Hungarian tournament records and
 * Glinski's own mate. */
static void test_rules_roundtrip_glinski_records(void **state)
{
    (void)state;
    static const struct { const char *file; int dialect; size_t limit; } files[] = {
        { "FoolsMate.pgn", RULES_DIALECT_DEFAULT, 1 << 20 },
        { "HexagonalChessTournaments_hu.pgn", RULES_DIALECT_HUNGARIAN, 24000 },
    };
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        struct record r = { rules_variant_find("glinski"), { { 0 } }, false, files[i].dialect, 0 };
        struct rules_pgn_reader reader = { NULL, record_move, record_end, &r };
        char name[256];
        size_t len;
        snprintf(name, sizeof name, "glinski/%s", files[i].file);
        char *text = test_file_read(data_dir, name, &len);
        if (len > files[i].limit) {
            /* Cut at a game boundary. */
            text[files[i].limit] = '\0';
            char *cut = strstr(text + files[i].limit / 2, "\n[Event");
            len = cut ? (size_t)(cut - text) : files[i].limit;
        }
        record_end(&r);
        rules_pgn_read(text, len, &reader);
        free(text);
        assert_true(r.plies > (i == 0 ? 6 : 300));
    }
}

/* The counters at their limits: they saturate and still read back.  A
 * text with a number beyond the limit is refused. */
static void test_rules_roundtrip_counter_limits(void **state)
{
    (void)state;
    static const struct { const char *variant, *text; } limits[] = {
        { "korpalski", "4k3/8/8/8/8/8/p7/R3K3[Rr] b - - 65534 65535" },
        { "korpalski", "4k3/8/8/8/8/8/p7/R3K3[Rr] w - - 65535 65535" },
        { "korpalski", "4k3/8/8/8/8/8/p7/R3K3[Rr] b - - 65535 65534" },
        { "glinski", "1/2k/5/7/9/11/11/11/11/11/1P4K4 b - 65534 65535" },
        { "glinski", "1/2k/5/7/9/11/11/11/11/11/1P4K4 w - 65535 65535" },
    };
    static const struct { const char *variant, *text; } beyond[] = {
        { "korpalski", "4k3/8/8/8/8/8/8/R3K3[] w - - 65536 1" },
        { "korpalski", "4k3/8/8/8/8/8/8/R3K3[] w - - 0 65536" },
        { "glinski", "1/2k/5/7/9/11/11/11/11/11/1P4K4 w - 65536 1" },
        { "glinski", "1/2k/5/7/9/11/11/11/11/11/1P4K4 w - 0 65536" },
    };
    for (size_t i = 0; i < sizeof limits / sizeof *limits; i++) {
        const struct rules_variant *v = rules_variant_find(limits[i].variant);
        struct rules_position pos = pos_of(v, limits[i].text);
        check_all_moves(v, &pos);
        random_playouts(v, limits[i].text, 3, 10, 12345 + i);
    }
    for (size_t i = 0; i < sizeof beyond / sizeof *beyond; i++) {
        const struct rules_variant *v = rules_variant_find(beyond[i].variant);
        struct rules_position pos;
        struct rules_why why = { 0 };
        assert_int_equal(v->position_parse(&pos, beyond[i].text, &why), RULES_ERR_SYNTAX);
    }
    /* By hand: black's quiet king move at 65534 65535 makes 65535 65535,
     * and the next quiet move keeps both numbers. */
    const struct rules_variant *v = rules_variant_find("korpalski");
    struct rules_position pos = pos_of(v, "4k3/8/8/8/8/8/8/R3K3[Rr] b - - 65534 65535");
    play(v, &pos, "Kd8");
    assert_fen(v, &pos, "3k4/8/8/8/8/8/8/R3K3[Rr] w - - 65535 65535");
    play(v, &pos, "Kd1");
    play(v, &pos, "Ke8");
    assert_fen(v, &pos, "4k3/8/8/8/8/8/8/R2K4[Rr] w - - 65535 65535");
}

/* Plays a list of moves from a position. */
static struct rules_position after(const struct rules_variant *v, const char *start,
                                   const char *const *moves)
{
    struct rules_position pos = pos_of(v, start);
    for (int i = 0; moves[i] != NULL; i++)
        play(v, &pos, moves[i]);
    return pos;
}

/* Two move orders to one position: equal keys (and, with equal ply
 * counts, equal texts). */
static void test_rules_roundtrip_transpositions(void **state)
{
    (void)state;
    const struct rules_variant *k = rules_variant_find("korpalski");
    const struct rules_variant *g = rules_variant_find("glinski");
    static const char *const ka[] = { "K@e1", "K@e8", "N@c3", "N@c6", "R@a1", "R@h8", NULL };
    static const char *const kb[] = { "K@e1", "K@e8", "R@a1", "R@h8", "N@c3", "N@c6", NULL };
    /* A double step with no en passant capture possible equals two single
     * steps; the white king's triangle e1-d1-d2-e1 makes up the tempo. */
    static const char *const kc[] = { "e4", "Kd8", "Kd1", "Ke8", "Kd2", "Kd8", "Ke1", "Ke8",
                                      NULL };
    static const char *const kd[] = { "e3", "Kd8", "e4", "Ke8", "Kd1", "Kd8", "Ke1", "Ke8",
                                      NULL };
    /* Glinski: the two knights of each side, in either order; black's
     * jumps mirror white's h1-i3 and d1-c3 (rank r of a file of length L
     * mirrors rank L + 1 - r): h9-i6 and d9-c6. */
    static const char *const ga[] = { "Ni3", "Nc6", "Nc3", "Ni6", NULL };
    static const char *const gb[] = { "Nc3", "Ni6", "Ni3", "Nc6", NULL };
    const char *pawn = "4k3/8/8/8/8/8/4P3/4K3[] w - - 0 20";
    struct rules_position a = after(k, k->start_text, ka), b = after(k, k->start_text, kb);
    char ta[RULES_TEXT_MAX], tb[RULES_TEXT_MAX];

    assert_true(k->repetition_key(&a) == k->repetition_key(&b));
    k->position_format(&a, ta, sizeof ta);
    k->position_format(&b, tb, sizeof tb);
    assert_string_equal(ta, tb);
    a = after(k, pawn, kc);
    b = after(k, pawn, kd);
    /* Eight plies from move 20: move 24; clocks 7 and 5 since the pawn moves. */
    assert_fen(k, &a, "4k3/8/8/8/4P3/8/8/4K3[] w - - 7 24");
    assert_fen(k, &b, "4k3/8/8/8/4P3/8/8/4K3[] w - - 5 24");
    assert_int_equal(k->side_to_move(&a), k->side_to_move(&b));
    assert_true(k->repetition_key(&a) == k->repetition_key(&b));
    a = after(g, g->start_text, ga);
    b = after(g, g->start_text, gb);
    assert_true(g->repetition_key(&a) == g->repetition_key(&b));
    g->position_format(&a, ta, sizeof ta);
    g->position_format(&b, tb, sizeof tb);
    assert_string_equal(ta, tb);
    /* And different positions differ: one knight back home or the other. */
    play(g, &a, "Nh1");
    play(g, &b, "Nd1");
    assert_true(g->repetition_key(&a) != g->repetition_key(&b));
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rules_roundtrip_start_and_random),
        cmocka_unit_test(test_rules_roundtrip_korpalski_record),
        cmocka_unit_test(test_rules_roundtrip_glinski_records),
        cmocka_unit_test(test_rules_roundtrip_counter_limits),
        cmocka_unit_test(test_rules_roundtrip_transpositions),
    };
    if (!test_args_ok(argc, 1, "test_rules_roundtrip DATA_DIR"))
        return 2;
    data_dir = argv[1];
    rules_init();
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    printf("checked %ld positions and %ld moves\n", checked_positions, checked_moves);
    return failed;
}
