/*
 * fuzz_pgn.c — libFuzzer target for the game record reader: the dialect
 * scan, every token tried as a move on a running game (Korpalski or
 * Glinski, by the first byte), and the game written back as PGN.
 */
#include "rules.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct game {
    const struct rules_variant *v;
    struct rules_position start, pos;
    struct rules_move moves[256];
    int count;
    int dialect;
};

static int on_move(void *arg, const char *token)
{
    struct game *g = arg;
    struct rules_move m;
    struct rules_why why = { 0 };
    if (g->count < 256 &&
        g->v->move_parse(&g->pos, token, g->dialect, &m, &why) == RULES_OK) {
        g->v->position_apply(&g->pos, m);
        g->moves[g->count++] = m;
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static bool ready;
    static char out[1 << 16];
    struct game g;
    struct rules_why why = { 0 };
    unsigned char dialects[4];
    const char *tags[] = { "Event", "fuzz", "Annotator", "\"\\", NULL };
    struct rules_pgn_reader reader = { NULL, on_move, NULL, &g };

    if (!ready) {
        rules_init();
        ready = true;
    }
    if (size < 1)
        return 0;
    g.v = rules_variant_list()[data[0] % 2];
    g.v->position_parse(&g.start, g.v->start_text, &why);
    g.pos = g.start;
    g.count = 0;
    rules_pgn_dialects((const char *)data + 1, size - 1, dialects, 4);
    g.dialect = data[0] & 2 ? RULES_DIALECT_HUNGARIAN : RULES_DIALECT_DEFAULT;
    rules_pgn_read((const char *)data + 1, size - 1, &reader);
    size_t need = rules_pgn_write(g.v, tags, &g.start, g.moves, g.count, RULES_RESULT_NONE,
                                  out, sizeof out);
    if (need < sizeof out && strlen(out) != need)
        abort();
    return 0;
}
