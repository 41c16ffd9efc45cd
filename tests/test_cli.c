/*
 * test_cli.c — the korp tool's public contract: output formats and exit
 * statuses, run as a user's script would run it.
 * usage: test_cli KORP_BINARY DATA_DIR
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "test_file.h"

static const char *korp, *data;

struct run {
    int status;
    char out[1 << 16];
    char last[512];   /* last line of the output */
};

/* Runs korp with a shell tail (arguments, redirections); stderr joins stdout
 * when the tail says 2>&1. */
static void run(struct run *r, const char *fmt, ...)
{
    char tail[2048], cmd[4096];
    va_list ap;
    FILE *p;
    size_t n;
    va_start(ap, fmt);
    vsnprintf(tail, sizeof tail, fmt, ap);
    va_end(ap);
    snprintf(cmd, sizeof cmd, "%s %s", korp, tail);
    p = popen(cmd, "r");
    assert_non_null(p);
    n = fread(r->out, 1, sizeof r->out - 1, p);
    r->out[n] = '\0';
    r->status = WEXITSTATUS(pclose(p));
    while (n > 0 && r->out[n - 1] == '\n')
        n--;
    size_t start = n;
    while (start > 0 && r->out[start - 1] != '\n')
        start--;
    snprintf(r->last, sizeof r->last, "%.*s", (int)(n - start), r->out + start);
}

/* One command (a shell tail as run() takes, where "%s" stands for the
 * data folder), the exit status it must end with and up to two texts its
 * output must contain (NULL: none). */
struct cli_case {
    const char *command;
    int status;
    const char *contains, *also;
};

static void run_cases(const struct cli_case *cases, size_t n)
{
    static struct run r;
    for (size_t i = 0; i < n; i++) {
        run(&r, cases[i].command, data);
        if (r.status != cases[i].status)
            fail_msg("%s: exit %d, want %d", cases[i].command, r.status, cases[i].status);
        for (const char *want = cases[i].contains; want != NULL;
             want = want == cases[i].contains ? cases[i].also : NULL)
            if (strstr(r.out, want) == NULL)
                fail_msg("%s: output lacks '%s':\n%s", cases[i].command, want, r.out);
    }
}

/*
 * korp analyse, checked by hand: both kings, then both knights dropped
 * (irreversible), then the knights go back and forth.  The position after
 * 2...N@f6 (ply 4) recurs after 4...Nf6 (ply 8) and 6...Nf6 (ply 12): at
 * ply 12 it occurred before at plies 4 and 8, and threefold is claimable;
 * 8 plies passed since the last drop.  At ply 9 (after 5.Ng1) the position
 * occurred before only at ply 5 (after 3.Ng1).
 */
static void test_cli_analyse_counts_repetitions(void **state)
{
    static const char game[] = "1. K@e1 K@e8 2. N@f3 N@f6 3. Ng1 Ng8 4. Nf3 Nf6 5. Ng1 Ng8 "
                               "6. Nf3 Nf6";
    struct run r;
    (void)state;
    run(&r, "analyse <<'EOF'\n%s\nEOF", game);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "\"ply\":12,"));
    assert_non_null(strstr(r.out, "\"halfmove_clock\":8,"));
    assert_non_null(strstr(r.out, "\"earlier_occurrences\":[4,8]"));
    assert_non_null(strstr(r.out, "\"threefold_claimable\":true"));
    assert_non_null(strstr(r.out, "\"fifty_move_claimable\":false"));
    /* Reserves are full: no agreement yet (Korpalski), both sides can mate. */
    assert_non_null(strstr(r.out, "\"draw_by_agreement_allowed\":false"));
    assert_non_null(strstr(r.out, "\"can_mate\":{\"white\":true,\"black\":true}"));
    run(&r, "analyse --ply 9 <<'EOF'\n%s\nEOF", game);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "\"earlier_occurrences\":[5]"));
    assert_non_null(strstr(r.out, "\"threefold_claimable\":false"));
    assert_non_null(strstr(r.out, "\"to_move\":\"black\""));
    static const struct cli_case cases[] = {
        /* The inventor's game ends in mate at ply 56 (tests/data/README.md). */
        { "analyse %s/inventor-sample.pgn", 0, "\"ply\":56,\"status\":\"checkmate\"", NULL },
        /* Asking past the end is an error that says so. */
        { "analyse --ply 99 %s/inventor-sample.pgn 2>&1", 1, "only 56 plies", NULL },
        { "analyse --ply x 2>&1 </dev/null", 2, NULL, NULL },
    };
    run_cases(cases, sizeof cases / sizeof *cases);
}

static void test_cli_perft_last_line_is_count(void **state)
{
    static struct run r;
    (void)state;
    run(&r, "perft 2");
    assert_int_equal(r.status, 0);
    assert_string_equal(r.last, "3612");
    run(&r, "perft --divide 1");
    assert_string_equal(r.last, "64");
    assert_non_null(strstr(r.out, "K@a1 1\n"));
    run(&r, "perft 3 '4k3/4p1p1/8/KPp1rP2/8/8/8/8[Pp] w - c6 0 2'");
    assert_string_equal(r.last, "25704");
    run(&r, "perft --variant korpalski 1 4k3/4p1p1/8/KPp1rP2/8/8/8/8[Pp] w - c6 0 2");
    assert_string_equal(r.last, "44");
}

static void test_cli_replay_reports_result(void **state)
{
    static struct run r;
    (void)state;
    run(&r, "replay %s/inventor-sample.pgn", data);
    assert_int_equal(r.status, 0);
    assert_string_equal(r.last, "result 0-1 checkmate");
    assert_non_null(strstr(r.out, "\n56 Qxb2# 4N1Q1/8/8/8/2n5/8/Kq2k3/8[PPPPPpppp] w - - 0 29\n"));
    run(&r, "replay < %s/inventor-sample-polish.txt", data);
    assert_string_equal(r.last, "result 0-1 checkmate");
    run(&r, "replay </dev/null");
    assert_string_equal(r.last, "result * ongoing");
}

static void test_cli_replay_illegal_move(void **state)
{
    static const struct cli_case cases[] = {
        { "replay 2>&1 <<'EOF'\n1. K@c3 K@d4 2. Q@e4\nEOF", 1,
          "ply 2: K@d4: illegal drop: the kings may not stand next to each other", NULL },
        { "replay 2>&1 <<'EOF'\n1. K@c3 K@e5 2. N@d7\nEOF", 1,
          "ply 3: N@d7: illegal drop: a knight on d7 would give check", NULL },
        { "replay 2>&1 <<'EOF'\n1. K@c3 K@e5 2. Qq9\nEOF", 1, "ply 3: Qq9: not a move", NULL },
    };
    (void)state;
    run_cases(cases, sizeof cases / sizeof *cases);
}

static void test_cli_status_json(void **state)
{
    static struct run r;
    (void)state;
    run(&r, "status '7k/6pp/8/8/8/8/8/R6K[] w - - 0 40'");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "\"status\":\"ongoing\""));
    run(&r, "status 'R6k/6pp/8/8/8/8/8/7K[] b - - 0 40'");
    assert_non_null(strstr(r.out, "\"status\":\"checkmate\""));
    assert_non_null(strstr(r.out, "\"in_check\":true"));
    assert_non_null(strstr(r.out, "\"legal_moves\":0"));
    assert_non_null(strstr(r.out, "\"can_drop\":{\"white\":false,\"black\":false}"));
    run(&r, "status 'R6k/6pp/8/8/8/8/8/7K[Qn] b - - 120 80'");
    assert_non_null(strstr(r.out, "\"status\":\"ongoing\""));
    assert_non_null(strstr(r.out, "\"fifty_move_claimable\":true"));
    assert_non_null(strstr(r.out, "\"can_drop\":{\"white\":true,\"black\":true}"));
}

static void test_cli_moves_lists_uci_and_san(void **state)
{
    static struct run r;
    int lines = 0;
    (void)state;
    run(&r, "moves '4k3/8/8/8/8/8/8/4K3[N] w - - 0 10'");
    assert_int_equal(r.status, 0);
    for (char *c = r.out; *c; c++)
        lines += *c == '\n';
    assert_int_equal(lines, 63);
    assert_non_null(strstr(r.out, "N@f5 N@f5\n"));
    assert_non_null(strstr(r.out, "e1d1 Kd1\n"));
}

/* PGN written back: the movetext must equal the published record's. */
static void test_cli_replay_writes_pgn(void **state)
{
    static struct run r;
    size_t n;
    (void)state;
    char *original = test_file_read(data, "inventor-sample.pgn", &n);
    run(&r, "replay --pgn %s", data);
    assert_int_equal(r.status, 2);    /* a folder is not a record */
    run(&r, "replay --pgn %s/inventor-sample.pgn", data);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "[Variant \"Korpalski\"]\n"));
    assert_non_null(strstr(r.out, "[Result \"0-1\"]\n"));
    assert_string_equal(strstr(r.out, "\n\n1. "), strstr(original, "\n\n1. "));
    free(original);
    run(&r, "replay --pgn %s/glinski/FoolsMate.pgn", data);
    assert_non_null(strstr(r.out, "[Variant \"Glinski\"]\n"));
    assert_non_null(strstr(r.out, "\n1. Qc3 Qc6 2. b2 b6 3. Bb1 e6 4. Qxf9# 1-0\n"));
    /* A game from a set-up position, Black to move first. */
    run(&r, "replay --pgn <<'EOF'\n[FEN \"4k3/8/8/8/8/8/8/4K3[Rr] b - - 0 10\"]\n"
            "10... Kd8 11. Kd1\nEOF");
    assert_non_null(strstr(r.out, "[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/8/4K3[Rr] b - - 0 10\"]\n"));
    assert_non_null(strstr(r.out, "\n10... Kd8 11. Kd1 *\n"));
}

static void test_cli_glinski(void **state)
{
    static struct run r;
    (void)state;
    run(&r, "perft --variant glinski 2");
    assert_string_equal(r.last, "2586");
    run(&r, "replay %s/glinski/FoolsMate.pgn", data);
    assert_int_equal(r.status, 0);
    assert_string_equal(r.last, "result 1-0 checkmate");
    assert_non_null(strstr(r.out, "\n7 Qxf9# "));
    run(&r, "status --variant glinski 'k/3/2K2/7/9/11/11/11/11/11/1P9 b - 0 1'");
    assert_non_null(strstr(r.out, "\"status\":\"stalemate\",\"result\":\"3/4-1/4\""));
    static const struct cli_case broken[] = {
        { "replay %s/glinski/YouTube_HexagonalChess.pgn 2>&1", 1, "ply 4: Bf11e10: illegal move",
          NULL },
    };
    run_cases(broken, 1);
    run(&r, "replay %s/glinski/HexagonalChessTournaments_hu.pgn 2>&1 >/dev/null", data);
    assert_int_equal(r.status, 1);
    assert_string_equal(r.last, "game 356: ply 109: Kf7: illegal move: the king would be in check on f7");
}

/* A move after the end of the game is refused (exit 1), naming
 * the ply and the way the game ended.  Kxd2 leaves king against king
 * (korpalski.md §4.1: drawn at once); Ra8 mates (g7 h7 pawns). */
static void test_cli_replay_refuses_moves_after_the_end(void **state)
{
    static struct run r;
    (void)state;
    run(&r, "replay 2>&1 <<'EOF'\n[FEN \"4k3/8/8/8/8/8/3q4/4K3[] w - - 0 40\"]\n"
            "40. Kxd2 Ke7 41. Ke3\nEOF");
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.out, "\n1 Kxd2 4k3/8/8/8/8/8/3K4/8[] b - - 0 40\n"));
    assert_non_null(strstr(r.out,
        "ply 2: Ke7: the game ended at ply 1 by insufficient material\n"));
    assert_null(strstr(r.out, "\n2 Ke7"));
    static const struct cli_case cases[] = {
        { "replay --pgn 2>&1 <<'EOF'\n[FEN \"4k3/8/8/8/8/8/3q4/4K3[] w - - 0 40\"]\n"
          "40. Kxd2 Ke7\nEOF", 1,
          "ply 2: Ke7: the game ended at ply 1 by insufficient material", NULL },
        { "replay 2>&1 <<'EOF'\n[FEN \"7k/6pp/8/8/8/8/8/R6K[] w - - 0 40\"]\n"
          "40. Ra8# Kh7\nEOF", 1, "ply 2: Kh7: the game ended at ply 1 by checkmate\n", NULL },
        /* A start position that is already drawn: ended at ply 0. */
        { "replay 2>&1 <<'EOF'\n[FEN \"4k3/8/8/8/8/8/8/4K3[] w - - 0 40\"]\n40. Kd1\nEOF", 1,
          "ply 1: Kd1: the game ended at ply 0 by insufficient material\n", NULL },
        /* Games that end on their last move still exit 0. */
        { "replay %s/inventor-sample.pgn", 0, NULL, NULL },
    };
    run_cases(cases, sizeof cases / sizeof *cases);
}

/* korp --help: FEN defaults to the start position, for status and moves
 * too.  The Korpalski start: 64 king placements (korpalski.md §2); the
 * Glinski start: 51 moves (glinski.md §6). */
static void test_cli_status_and_moves_default_to_start(void **state)
{
    static struct run r;
    int lines = 0;
    (void)state;
    static const struct cli_case cases[] = {
        { "status", 0, "\"variant\":\"korpalski\",\"status\":\"ongoing\"",
          "\"legal_moves\":64" },
        { "status --variant glinski", 0, "\"legal_moves\":51", NULL },
        { "moves --variant glinski", 0, "h1i3 Ni3\n", NULL },
    };
    run_cases(cases, sizeof cases / sizeof *cases);
    run(&r, "moves");
    assert_int_equal(r.status, 0);
    for (char *c = r.out; *c; c++)
        lines += *c == '\n';
    assert_int_equal(lines, 64);
    assert_non_null(strstr(r.out, "K@e1 K@e1\n"));
}

static void test_cli_bad_arguments_exit_2(void **state)
{
    static const struct cli_case cases[] = {
        { "frobnicate 2>&1", 2, NULL, NULL },
        { "perft x 2>&1", 2, "depth must be a number", NULL },
        { "status 'not a fen' 2>&1", 2, "bad fen", NULL },
        { "moves --variant shogi 2>&1", 2, "unknown variant", NULL },
        { "replay /nonexistent/file 2>&1", 2, NULL, NULL },
    };
    (void)state;
    run_cases(cases, sizeof cases / sizeof *cases);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cli_perft_last_line_is_count),
        cmocka_unit_test(test_cli_replay_reports_result),
        cmocka_unit_test(test_cli_replay_illegal_move),
        cmocka_unit_test(test_cli_status_json),
        cmocka_unit_test(test_cli_moves_lists_uci_and_san),
        cmocka_unit_test(test_cli_replay_writes_pgn),
        cmocka_unit_test(test_cli_glinski),
        cmocka_unit_test(test_cli_replay_refuses_moves_after_the_end),
        cmocka_unit_test(test_cli_status_and_moves_default_to_start),
        cmocka_unit_test(test_cli_bad_arguments_exit_2),
        cmocka_unit_test(test_cli_analyse_counts_repetitions),
    };
    if (!test_args_ok(argc, 2, "test_cli KORP_BINARY DATA_DIR"))
        return 2;
    korp = argv[1];
    data = argv[2];
    return cmocka_run_group_tests(tests, NULL, NULL);
}
