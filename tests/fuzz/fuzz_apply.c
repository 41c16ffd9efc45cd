/*
 * fuzz_apply.c — libFuzzer target for the checked move path: the first
 * byte picks a position, then each group of four bytes is an arbitrary
 * move value (from, to, piece, flags).  A value must be refused by
 * move_is_legal, position_apply, move_format and rules_pgn_write unless it
 * is one of the legal moves; a legal one is played and the new position
 * must write and read back the same.
 */
#include "fuzz_positions.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char pgn[1 << 14];
    struct rules_move moves[RULES_MAX_MOVES], played[64];
    char text[RULES_MOVE_TEXT_MAX], fen[RULES_TEXT_MAX], again[RULES_TEXT_MAX];
    const struct rules_variant *v;
    struct rules_position pos, start, before, back;
    int count = 0;

    if (size < 1)
        return 0;
    v = fuzz_position_pick(data[0], &pos);
    start = pos;
    for (size_t i = 1; i + 4 <= size && count < 64; i += 4) {
        struct rules_move m = { data[i], data[i + 1], data[i + 2], data[i + 3] };
        int legal = v->moves_legal(&pos, moves);
        bool listed = false;
        for (int k = 0; k < legal; k++)
            listed |= memcmp(&moves[k], &m, sizeof m) == 0;
        if (v->move_is_legal(&pos, m) != listed)
            abort();
        for (int how = RULES_NOTATION_SAN; how <= RULES_NOTATION_POLISH_FULL; how++) {
            size_t len = v->move_format(&pos, m, (enum rules_notation)how, text, sizeof text);
            if ((len > 0) != listed || strlen(text) != len)
                abort();
        }
        (void)v->move_is_irreversible(&pos, m);
        before = pos;
        if (v->position_apply(&pos, m) != (listed ? RULES_OK : RULES_ERR_ILLEGAL))
            abort();
        if (!listed) {
            if (memcmp(&pos, &before, sizeof pos) != 0)
                abort();
            /* A game with the bad move appended is refused as a whole. */
            played[count] = m;
            if (rules_pgn_write(v, NULL, &start, played, count + 1, RULES_RESULT_NONE, pgn,
                                sizeof pgn) != 0 || pgn[0] != '\0')
                abort();
            continue;
        }
        played[count++] = m;
        v->position_format(&pos, fen, sizeof fen);
        if (v->position_parse(&back, fen, NULL) != RULES_OK)
            abort();
        v->position_format(&back, again, sizeof again);
        if (strcmp(fen, again) != 0 || v->repetition_key(&back) != v->repetition_key(&pos))
            abort();
    }
    if (rules_pgn_write(v, NULL, &start, played, count, RULES_RESULT_NONE, pgn, sizeof pgn) == 0)
        abort();
    return 0;
}
