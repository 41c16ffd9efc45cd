/*
 * test_engine_mate.c — the mate-in-N suites: built, proved and replayed.
 *
 *   test_engine_mate check VARIANT FILE [DEPTH_EXTRA]
 *       For each line "FEN ; mate N ; bm MOVE": proves with a plain
 *       exhaustive search (below) that the side to move mates in N and not
 *       in N - 1; then the engine searches at the fixed depth 2N - 1 +
 *       DEPTH_EXTRA (default 2) and must report "mate N" with a first move
 *       that the plain search proves mates in N.  Exit 0 when all pass.
 *   test_engine_mate generate VARIANT GAMES SEED
 *       Plays GAMES self-play games (random moves mixed into the engine's,
 *       from SEED) and prints every position the plain search proves a
 *       mate in 1 or 2 (and mate in 3, where the engine first suspects
 *       one), as suite lines.
 *
 * The plain search is independent of the engine: AND/OR minimax over the
 * rules library's legal moves with no evaluation, no move ordering, no
 * table; it stops looking at a node's moves only once that node's value is
 * decided (one mating move, one escaping reply), which is exact.
 */
#include "engine.h"
#include "rules.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool defender_lost(const struct rules_variant *v, const struct rules_position *pos,
                          int n);

/* Whether the side to move can force mate within n of its moves. */
static bool mates_in(const struct rules_variant *v, const struct rules_position *pos, int n,
                     struct rules_move *first)
{
    struct rules_move moves[RULES_MAX_MOVES];
    int count = v->moves_legal(pos, moves);
    if (n < 1)
        return false;
    for (int i = 0; i < count; i++) {
        struct rules_position next = *pos;
        v->position_apply(&next, moves[i]);
        /* A mate in 1 must check; deeper mates may start quietly. */
        if (n == 1 && !v->in_check(&next))
            continue;
        if (defender_lost(v, &next, n - 1)) {
            if (first)
                *first = moves[i];
            return true;
        }
    }
    return false;
}

/* Whether the side to move is mated now or within n of the opponent's
 * moves whatever it plays.  Stalemate is not a loss here (in Glinski it
 * scores 1/4, but it is not mate). */
static bool defender_lost(const struct rules_variant *v, const struct rules_position *pos,
                          int n)
{
    struct rules_move moves[RULES_MAX_MOVES];
    int count = v->moves_legal(pos, moves);
    if (count == 0)
        return v->in_check(pos);
    if (n < 1)
        return false;
    for (int i = 0; i < count; i++) {
        struct rules_position next = *pos;
        v->position_apply(&next, moves[i]);
        if (!mates_in(v, &next, n, NULL))
            return false;
    }
    return true;
}

/* ---- check -------------------------------------------------------------- */

static int check(const struct rules_variant *v, const char *path, int extra)
{
    char line[1024];
    int checked = 0, failed = 0;
    struct engine *e = engine_new(16);
    FILE *f = fopen(path, "r");

    if (f == NULL || e == NULL) {
        fprintf(stderr, "test_engine_mate: cannot read %s\n", path);
        engine_free(e);
        if (f)
            fclose(f);
        return 2;
    }
    while (fgets(line, sizeof line, f) != NULL) {
        struct rules_position pos, next;
        struct rules_why why = { 0 };
        struct engine_limits lim = { 0 };
        struct engine_result r;
        char *semi = strchr(line, ';'), *mate;
        char text[RULES_MOVE_TEXT_MAX] = "";
        int n;

        if (line[0] == '#' || semi == NULL)
            continue;
        *semi = '\0';
        mate = strstr(semi + 1, "mate ");
        if (mate == NULL || (n = atoi(mate + 5)) < 1 ||
            v->position_parse(&pos, line, &why) != RULES_OK) {
            printf("FAIL %s: bad suite line %s\n", line, why.text);
            failed++;
            continue;
        }
        checked++;
        if (!mates_in(v, &pos, n, NULL) || mates_in(v, &pos, n - 1, NULL)) {
            printf("FAIL %s: the plain search does not prove mate in exactly %d\n", line, n);
            failed++;
            continue;
        }
        engine_clear(e);
        engine_stop_reset(e);
        lim.depth = 2 * n - 1 + extra;
        engine_search(e, v, &pos, NULL, 0, &lim, NULL, NULL, &r);
        v->move_format(&pos, r.best, RULES_NOTATION_UCI, text, sizeof text);
        next = pos;
        if (!r.has_move || v->position_apply(&next, r.best) != RULES_OK) {
            printf("FAIL %s: engine gave no legal move\n", line);
            failed++;
        } else if (engine_mate_moves(r.score) != n) {
            printf("FAIL %s: engine at depth %d says score %d (mate %d), not mate %d\n", line,
                   lim.depth, r.score, engine_mate_moves(r.score), n);
            failed++;
        } else if (!defender_lost(v, &next, n - 1)) {
            printf("FAIL %s: engine's move %s does not mate in %d\n", line, text, n);
            failed++;
        } else {
            printf("ok   mate %d %s -> %s\n", n, line, text);
        }
    }
    fclose(f);
    engine_free(e);
    printf("%d positions, %d failed\n", checked, failed);
    return failed || checked == 0 ? 1 : 0;
}

/* ---- generate ----------------------------------------------------------- */

static bool kings_placed(const struct rules_variant *v, const struct rules_position *pos)
{
    return v->reserve_count(pos, RULES_WHITE, RULES_KING) == 0 &&
           v->reserve_count(pos, RULES_BLACK, RULES_KING) == 0;
}

static int generate(const struct rules_variant *v, int games, uint64_t seed)
{
    enum { SEEN_MAX = 4096 };
    static uint64_t seen[SEEN_MAX];
    int seen_count = 0, found[4] = { 0, 0, 0, 0 };
    struct engine *e = engine_new(16);
    uint64_t rng = engine_rng_seed(seed);

    if (e == NULL)
        return 2;
    for (int g = 0; g < games; g++) {
        struct rules_position pos;
        v->position_parse(&pos, v->start_text, NULL);
        for (int ply = 0; ply < 160; ply++) {
            struct rules_move moves[RULES_MAX_MOVES], first;
            struct rules_report rep;
            struct engine_limits lim = { 0 };
            struct engine_result r;
            int count = v->moves_legal(&pos, moves);
            char fen[RULES_TEXT_MAX], text[RULES_MOVE_TEXT_MAX];

            v->position_report(&pos, &rep);
            if (count == 0 || rep.status != RULES_ONGOING || rep.halfmove_clock >= 80)
                break;
            uint64_t key = v->repetition_key(&pos);
            bool fresh = kings_placed(v, &pos) && ply >= 6;
            for (int i = 0; i < seen_count && fresh; i++)
                fresh = seen[i] != key;
            if (fresh && seen_count < SEEN_MAX) {
                int n = 0;
                seen[seen_count++] = key;
                if (mates_in(v, &pos, 1, &first))
                    n = 1;
                else if (mates_in(v, &pos, 2, &first))
                    n = 2;
                else {
                    engine_stop_reset(e);
                    lim.depth = 5;
                    engine_search(e, v, &pos, NULL, 0, &lim, NULL, NULL, &r);
                    if (engine_mate_moves(r.score) == 3 && mates_in(v, &pos, 3, &first))
                        n = 3;
                }
                if (n > 0) {
                    v->position_format(&pos, fen, sizeof fen);
                    v->move_format(&pos, first, RULES_NOTATION_UCI, text, sizeof text);
                    printf("%s ; mate %d ; bm %s\n", fen, n, text);
                    fflush(stdout);
                    found[n]++;
                }
            }
            /* Mostly the engine's move, sometimes a random one: games that
             * blunder into mates, from many openings. */
            struct rules_move m = moves[engine_rng_next(&rng) % (uint64_t)count];
            if (engine_rng_next(&rng) % 100 >= 35) {
                engine_stop_reset(e);
                memset(&lim, 0, sizeof lim);
                lim.nodes = 1500;
                engine_search(e, v, &pos, NULL, 0, &lim, NULL, NULL, &r);
                if (r.has_move)
                    m = r.best;
            }
            v->position_apply(&pos, m);
        }
        fprintf(stderr, "game %d: mates in 1/2/3 so far %d %d %d\n", g + 1, found[1],
                found[2], found[3]);
    }
    engine_free(e);
    return 0;
}

int main(int argc, char **argv)
{
    const struct rules_variant *v;

    rules_init();
    if (argc < 4 || (v = rules_variant_find(argv[2])) == NULL) {
        fprintf(stderr, "usage: test_engine_mate check VARIANT FILE [DEPTH_EXTRA]\n"
                        "       test_engine_mate generate VARIANT GAMES SEED\n");
        return 2;
    }
    if (strcmp(argv[1], "check") == 0)
        return check(v, argv[3], argc > 4 ? atoi(argv[4]) : 2);
    if (strcmp(argv[1], "generate") == 0 && argc > 4)
        return generate(v, atoi(argv[3]), strtoull(argv[4], NULL, 10));
    fprintf(stderr, "test_engine_mate: unknown mode %s\n", argv[1]);
    return 2;
}
