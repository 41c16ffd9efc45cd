/*
 * test_replay_glinski.c — real Glinski game records replayed through the
 * rules: the 393 Hungarian tournament games (392 legal to the end, 30 of
 * them ending in mate, game 356 corrupt at ply 109), Glinski's own
 * four-move mate, and the YouTube transcriptions with their broken moves.
 * Expected figures are those of tests/data/README.md.
 * usage: test_replay_glinski DATA_DIR
 */
#include "test_util.h"

#include <stdlib.h>

static char glinski_dir[1024];   /* DATA_DIR/glinski */

struct failure {
    int game, ply;
    char token[64];
    char why[RULES_WHY_MAX];
    enum rules_reason reason;
};

struct replay {
    const struct rules_variant *v;
    unsigned char *dialects;
    struct rules_position pos;
    int game, ply;
    bool failed;
    int games, legal, mates;
    int plies;
    struct failure failures[8];
    int failure_count;
    enum rules_result last_result;
};

static int on_move(void *arg, const char *token)
{
    struct replay *r = arg;
    struct rules_move m;
    struct rules_why why = { 0 };
    if (r->failed)
        return 0;
    if (r->ply == 0)
        r->pos = pos_of(r->v, r->v->start_text);
    r->ply++;
    if (r->v->move_parse(&r->pos, token, r->dialects[r->game], &m, &why) != RULES_OK) {
        r->failed = true;
        if (r->failure_count < 8) {
            struct failure *f = &r->failures[r->failure_count];
            f->game = r->game + 1;
            f->ply = r->ply;
            snprintf(f->token, sizeof f->token, "%s", token);
            snprintf(f->why, sizeof f->why, "%s", why.text);
            f->reason = why.reason;
        }
        r->failure_count++;
        return 0;
    }
    r->v->position_apply(&r->pos, m);
    r->plies++;
    return 0;
}

static int on_game_end(void *arg)
{
    struct replay *r = arg;
    struct rules_report rep;
    if (r->ply > 0 && !r->failed) {
        r->legal++;
        r->v->position_report(&r->pos, &rep);
        r->mates += rep.status == RULES_CHECKMATE;
        r->last_result = rep.result;
    }
    r->games++;
    r->game++;
    r->ply = 0;
    r->failed = false;
    return 0;
}

static void replay(const char *name, struct replay *r)
{
    size_t len;
    char *text = test_file_read(glinski_dir, name, &len);
    int games = rules_pgn_dialects(text, len, NULL, 0);
    struct rules_pgn_reader reader = { NULL, on_move, on_game_end, r };

    memset(r, 0, sizeof *r);
    r->v = rules_variant_find("glinski");
    r->dialects = calloc((size_t)games + 1, 1);
    rules_pgn_dialects(text, len, r->dialects, games);
    assert_int_equal(rules_pgn_read(text, len, &reader), 0);
    free(r->dialects);
    free(text);
}

/* The replay stopped once: in game `game` (0: any), at ply `ply`, on
 * `token`, with a reason that mentions `why_part`. */
static void expect_one_failure(const struct replay *r, int game, int ply, const char *token,
                               const char *why_part)
{
    assert_int_equal(r->failure_count, 1);
    if (game > 0)
        assert_int_equal(r->failures[0].game, game);
    assert_int_equal(r->failures[0].ply, ply);
    assert_string_equal(r->failures[0].token, token);
    assert_non_null(strstr(r->failures[0].why, why_part));
}

/* How many games replayed legally to their end, and how many of those
 * ended in mate. */
static void expect_legal_and_mates(const struct replay *r, int legal, int mates)
{
    assert_int_equal(r->legal, legal);
    assert_int_equal(r->mates, mates);
}

static void test_replay_glinski_hungarian_tournaments(void **state)
{
    static struct replay r;
    (void)state;
    replay("HexagonalChessTournaments_hu.pgn", &r);
    assert_int_equal(r.games, 393);
    expect_legal_and_mates(&r, 392, 30);
    expect_one_failure(&r, 356, 109, "Kf7", "would be in check on f7");
}

static void test_replay_glinski_fools_mate(void **state)
{
    static struct replay r;
    (void)state;
    replay("FoolsMate.pgn", &r);
    expect_legal_and_mates(&r, 1, 1);
    assert_int_equal(r.plies, 7);
    assert_int_equal(r.last_result, RULES_RESULT_WHITE_WINS);
}

static void test_replay_glinski_broken_records_reported(void **state)
{
    static struct replay r;
    (void)state;
    replay("YouTube_HexagonalChess.pgn", &r);
    expect_one_failure(&r, 0, 4, "Bf11e10", "illegal move");
    /* A '+' on a move that gives no check is not an error. */
    replay("YouTube_MangoTownPlays.pgn", &r);
    assert_int_equal(r.games, 3);
    assert_int_equal(r.failure_count, 0);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_replay_glinski_hungarian_tournaments),
        cmocka_unit_test(test_replay_glinski_fools_mate),
        cmocka_unit_test(test_replay_glinski_broken_records_reported),
    };
    rules_init();
    snprintf(glinski_dir, sizeof glinski_dir, "%s/glinski", argc > 1 ? argv[1] : "tests/data");
    return cmocka_run_group_tests(tests, NULL, NULL);
}
