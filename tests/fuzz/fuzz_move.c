/*
 * fuzz_move.c — libFuzzer target for the move readers: the first byte picks
 * one of a few positions, the rest is a move text in any notation.  A move
 * that reads must be legal and must write and read back as itself.
 */
#include "fuzz_positions.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct rules_why why;
    char text[64], written[RULES_MOVE_TEXT_MAX];
    const struct rules_variant *v;
    struct rules_position pos;
    struct rules_move move, again;

    if (size < 1 || size > sizeof text)
        return 0;
    v = fuzz_position_pick(data[0], &pos);
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';
    for (int dialect = 0; dialect < 2; dialect++) {
        if (v->move_parse(&pos, text, dialect, &move, &why) != RULES_OK)
            continue;
        for (int how = RULES_NOTATION_SAN; how <= RULES_NOTATION_POLISH_FULL; how++) {
            v->move_format(&pos, move, (enum rules_notation)how, written, sizeof written);
            if (v->move_parse(&pos, written, RULES_DIALECT_DEFAULT, &again, &why) != RULES_OK ||
                memcmp(&move, &again, sizeof move) != 0)
                abort();
        }
        v->position_apply(&pos, move);
        break;
    }
    return 0;
}
