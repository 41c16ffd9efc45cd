/*
 * engine.c — the engine handle: its table, its stop flag.
 */
#include "engine_int.h"

#include <stdlib.h>

struct engine *engine_new(size_t hash_mb)
{
    struct engine *e = calloc(1, sizeof *e);
    if (e == NULL || tt_init(&e->tt, hash_mb) != 0) {
        free(e);
        return NULL;
    }
    atomic_init(&e->stop, false);
    return e;
}

void engine_free(struct engine *e)
{
    if (e == NULL)
        return;
    tt_free(&e->tt);
    free(e);
}

int engine_hash_resize(struct engine *e, size_t hash_mb)
{
    return tt_init(&e->tt, hash_mb);
}

void engine_clear(struct engine *e)
{
    tt_clear(&e->tt);
}

void engine_stop(struct engine *e)
{
    atomic_store(&e->stop, true);
}

void engine_stop_reset(struct engine *e)
{
    atomic_store(&e->stop, false);
}

bool engine_stop_requested(const struct engine *e)
{
    return atomic_load(&((struct engine *)e)->stop);
}

int engine_evaluate(const struct rules_variant *v, const struct rules_position *pos)
{
    return eval_position(eval_weights_for(v), v, pos);
}

int engine_mate_moves(int score)
{
    if (score >= ENGINE_MATE_BOUND)
        return (ENGINE_MATE - score + 1) / 2;
    if (score <= -ENGINE_MATE_BOUND)
        return -((ENGINE_MATE + score) / 2);
    return 0;
}
