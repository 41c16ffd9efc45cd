/*
 * test_engine.c — the engine library: it never returns an illegal move
 * (self-play games in both variants, every move checked by the rules
 * library), it answers at once when stopped, it knows when there is no
 * move, and its evaluation is symmetric.
 */
#include "engine.h"
#include "rules.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#define GAMES 10
#define NODES_PER_MOVE 800
#define PLIES_MAX 120

static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Plays GAMES games of v, the first two plies random, then the engine on a
 * node budget; asserts that every engine move is legal. */
static void self_play(const char *variant)
{
    const struct rules_variant *v = rules_variant_find(variant);
    struct engine *e = engine_new(4);
    uint64_t rng = 0x2545F4914F6CDD1DULL;
    int engine_moves = 0, finished = 0;

    assert_non_null(v);
    assert_non_null(e);
    for (int g = 0; g < GAMES; g++) {
        struct rules_position pos;
        uint64_t keys[PLIES_MAX + 1];
        int key_count = 0;

        engine_clear(e);
        assert_int_equal(v->position_parse(&pos, v->start_text, NULL), RULES_OK);
        keys[key_count++] = v->repetition_key(&pos);
        for (int ply = 0; ply < PLIES_MAX; ply++) {
            struct rules_move moves[RULES_MAX_MOVES], m;
            struct rules_report rep;
            struct engine_limits lim = { .nodes = NODES_PER_MOVE };
            struct engine_result r;
            int n = v->moves_legal(&pos, moves);

            v->position_report(&pos, &rep);
            if (rep.status != RULES_ONGOING || rep.fifty_move_claimable ||
                rules_repetition_count(keys, key_count, keys[key_count - 1], NULL, 0) >= 3) {
                finished++;
                break;
            }
            if (ply < 2) {
                m = moves[rng_next(&rng) % (uint64_t)n];
            } else {
                engine_stop_reset(e);
                assert_int_equal(engine_search(e, v, &pos, keys, key_count, &lim, NULL, NULL,
                                               &r), 0);
                assert_true(r.has_move);
                if (!v->move_is_legal(&pos, r.best)) {
                    char fen[RULES_TEXT_MAX];
                    v->position_format(&pos, fen, sizeof fen);
                    fail_msg("illegal engine move in %s: from %d to %d piece %d flags %d",
                             fen, r.best.from, r.best.to, r.best.piece, r.best.flags);
                }
                m = r.best;
                engine_moves++;
            }
            bool irreversible = v->move_is_irreversible(&pos, m);
            assert_int_equal(v->position_apply(&pos, m), RULES_OK);
            if (irreversible)
                key_count = 0;
            keys[key_count++] = v->repetition_key(&pos);
        }
    }
    printf("%s: %d games, %d engine moves, %d finished by the rules\n", variant, GAMES,
           engine_moves, finished);
    engine_free(e);
}

/* Self-play in the variant named by the test's state. */
static void test_engine_selfplay(void **state)
{
    self_play(*state);
}

/* Stopped before it starts, a search still returns a legal move, at once. */
static void test_engine_stop_before_search(void **state)
{
    const struct rules_variant *v = rules_variant_find("glinski");
    struct engine *e = engine_new(1);
    struct rules_position pos;
    struct engine_limits lim = { .infinite = true };
    struct engine_result r;

    (void)state;
    assert_int_equal(v->position_parse(&pos, v->start_text, NULL), RULES_OK);
    engine_stop_reset(e);
    engine_stop(e);
    assert_int_equal(engine_search(e, v, &pos, NULL, 0, &lim, NULL, NULL, &r), 0);
    assert_true(r.has_move);
    assert_true(v->move_is_legal(&pos, r.best));
    engine_free(e);
}

/* A mated side has no move to return. */
static void test_engine_no_move_when_mated(void **state)
{
    const struct rules_variant *v = rules_variant_find("korpalski");
    struct engine *e = engine_new(1);
    struct rules_position pos;
    struct engine_limits lim = { .depth = 3 };
    struct engine_result r;
    struct rules_report rep;

    (void)state;
    assert_int_equal(v->position_parse(&pos, "k7/1Q6/1K6/8/8/8/8/8[] b - - 0 40", NULL),
                     RULES_OK);
    v->position_report(&pos, &rep);
    assert_int_equal(rep.status, RULES_CHECKMATE);
    engine_stop_reset(e);
    assert_int_equal(engine_search(e, v, &pos, NULL, 0, &lim, NULL, NULL, &r), 0);
    assert_false(r.has_move);
    engine_free(e);
}

/* Both start positions are symmetric: the evaluation is the tempo alone,
 * which also checks Glinski's mirror table. */
static void test_engine_evaluate_symmetric(void **state)
{
    (void)state;
    for (const struct rules_variant *const *v = rules_variant_list(); *v; v++) {
        struct rules_position pos;
        assert_int_equal((*v)->position_parse(&pos, (*v)->start_text, NULL), RULES_OK);
        int white = engine_evaluate(*v, &pos);
        /* After a null move Black sees the same position. */
        (*v)->null_play(&pos);
        assert_int_equal(engine_evaluate(*v, &pos), white);
    }
}

/* Mate scores and their moves count. */
static void test_engine_mate_moves(void **state)
{
    (void)state;
    assert_int_equal(engine_mate_moves(ENGINE_MATE - 1), 1);
    assert_int_equal(engine_mate_moves(ENGINE_MATE - 3), 2);
    assert_int_equal(engine_mate_moves(-ENGINE_MATE + 2), -1);
    assert_int_equal(engine_mate_moves(-ENGINE_MATE + 4), -2);
    assert_int_equal(engine_mate_moves(250), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_engine_mate_moves),
        cmocka_unit_test(test_engine_evaluate_symmetric),
        cmocka_unit_test(test_engine_no_move_when_mated),
        cmocka_unit_test(test_engine_stop_before_search),
        { "test_engine_selfplay_korpalski", test_engine_selfplay, NULL, NULL, "korpalski" },
        { "test_engine_selfplay_glinski", test_engine_selfplay, NULL, NULL, "glinski" },
    };
    rules_init();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
