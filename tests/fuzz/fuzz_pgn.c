/*
 * fuzz_pgn.c — libFuzzer target for the game record reader, with every
 * token tried as a move on a running Korpalski game.
 */
#include "rules.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct game {
    const struct rules_variant *v;
    struct rules_position pos;
};

static int on_move(void *arg, const char *token)
{
    struct game *g = arg;
    struct rules_move m;
    char why[RULES_WHY_MAX];
    if (g->v->move_parse(&g->pos, token, RULES_DIALECT_DEFAULT, &m, why) == RULES_OK)
        g->v->position_apply(&g->pos, m);
    return 0;
}

static int on_tag(void *arg, const char *name, const char *value)
{
    (void)arg;
    return (int)(strlen(name) + strlen(value)) < 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static bool ready;
    struct game g;
    char why[RULES_WHY_MAX];
    struct rules_pgn_reader reader = { on_tag, on_move, NULL, &g };

    if (!ready) {
        rules_init();
        ready = true;
    }
    g.v = rules_variant_find("korpalski");
    g.v->position_parse(&g.pos, g.v->start_text, why);
    rules_pgn_read((const char *)data, size, &reader);
    return 0;
}
