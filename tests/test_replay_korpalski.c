/*
 * test_replay_korpalski.c — the inventor's game, from the PGN and from the
 * Polish text as printed: after every ply the FEN (and SAN) must equal the
 * independent record in inventor-sample.fens.tsv, and the end is mate, 0-1.
 * usage: test_replay_korpalski DATA_DIR
 */
#include "test_util.h"

#include <stdlib.h>

#define MAX_PLIES 128

static const char *data_dir;
static char expected_san[MAX_PLIES][RULES_MOVE_TEXT_MAX];
static char expected_fen[MAX_PLIES][RULES_TEXT_MAX];
static int expected_plies;

struct replay {
    const struct rules_variant *v;
    struct rules_position pos;
    int ply;
    int games;
};

static int setup(void **state)
{
    size_t len;
    char *text = test_file_read(data_dir, "inventor-sample.fens.tsv", &len);
    char *save = NULL;
    (void)state;
    rules_init();
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        int ply;
        char san[RULES_MOVE_TEXT_MAX], uci[RULES_MOVE_TEXT_MAX], fen[RULES_TEXT_MAX];
        if (sscanf(line, "%d\t%23[^\t]\t%23[^\t]\t%191[^\n]", &ply, san, uci, fen) != 4 ||
            ply < 1 || ply > MAX_PLIES)
            continue;
        memcpy(expected_san[ply - 1], san, sizeof san);
        memcpy(expected_fen[ply - 1], fen, sizeof fen);
        expected_plies = ply;
    }
    free(text);
    return expected_plies != 56;
}

static int on_move(void *arg, const char *token)
{
    struct replay *r = arg;
    struct rules_move m;
    struct rules_why why = { 0 };
    char san[RULES_MOVE_TEXT_MAX], fen[RULES_TEXT_MAX];
    if (r->v->move_parse(&r->pos, token, RULES_DIALECT_DEFAULT, &m, &why) != RULES_OK)
        fail_msg("ply %d: %s: %s", r->ply + 1, token, why.text);
    r->v->move_format(&r->pos, m, RULES_NOTATION_SAN, san, sizeof san);
    r->v->position_apply(&r->pos, m);
    r->v->position_format(&r->pos, fen, sizeof fen);
    assert_true(r->ply < expected_plies);
    assert_string_equal(san, expected_san[r->ply]);
    assert_string_equal(fen, expected_fen[r->ply]);
    r->ply++;
    return 0;
}

static int on_game_end(void *arg)
{
    ((struct replay *)arg)->games++;
    return 0;
}

static void replay_file(const char *name)
{
    size_t len;
    char *text = test_file_read(data_dir, name, &len);
    struct replay r = { korpalski(), { { 0 } }, 0, 0 };
    struct rules_pgn_reader reader = { NULL, on_move, on_game_end, &r };
    struct rules_report rep;

    r.pos = pos_of(r.v, r.v->start_text);
    assert_int_equal(rules_pgn_read(text, len, &reader), 0);
    free(text);
    assert_int_equal(r.games, 1);
    assert_int_equal(r.ply, 56);
    r.v->position_report(&r.pos, &rep);
    assert_int_equal(rep.status, RULES_CHECKMATE);
    assert_int_equal(rep.result, RULES_RESULT_BLACK_WINS);
}

/* Replays the record named by the test's state. */
static void test_replay_korpalski_record(void **state)
{
    replay_file(*state);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        { "test_replay_korpalski_pgn", test_replay_korpalski_record, NULL, NULL,
          "inventor-sample.pgn" },
        { "test_replay_korpalski_polish", test_replay_korpalski_record, NULL, NULL,
          "inventor-sample-polish.txt" },
    };
    data_dir = argc > 1 ? argv[1] : "tests/data";
    return cmocka_run_group_tests(tests, setup, NULL);
}
