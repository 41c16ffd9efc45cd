/*
 * fuzz_move.c — libFuzzer target for the move readers: the first byte picks
 * one of a few positions, the rest is a move text in any notation.  A move
 * that reads must be legal and must write and read back as itself.
 */
#include "rules.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const struct {
    const char *variant;
    const char *position;
} positions[] = {
    { "korpalski", "8/8/8/8/8/8/8/8[KQRRBBNNPPPPPPPPkqrrbbnnpppppppp] w - - 0 1" },
    { "korpalski", "8/8/3q4/3rnQ2/3R1R2/2K2n2/5k2/8[BBNNPPPPPPPPrbbpppppppp] w - - 0 6" },
    { "korpalski", "r1n1k3/1P6/8/8/8/8/1p6/2B2NK1[RBNq] w - - 0 1" },
    { "korpalski", "rnbq1rk1/ppp2ppp/8/3pP3/8/2NB4/PPP2PPP/5RK1[Pp] w - d6 0 10" },
    { "glinski", "b/qbk/n1b1n/r5r/ppppppppp/11/5P5/4P1P4/3P1B1P3/2P2B2P2/1PRNQBKNRP1 w - 0 1" },
    { "glinski", "1/2k/2b1n/7/3pp2p1/3P7/rPp1K6/6P4/5N1Q3/11/5B5 w c6 0 1" },
    { "glinski", "1/3/rP3/7/9/10k/11/11/11/11/K10 w - 0 1" },
    { "glinski", "1/2k/n1br1/7/2ppp4/11/5P5/4P4q1/5B1P3/6R4/4Q1KNR2 w - 0 1" },
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static bool ready;
    struct rules_why why;
    char text[64], written[RULES_MOVE_TEXT_MAX];
    const struct rules_variant *v;
    struct rules_position pos;
    struct rules_move move, again;
    size_t n = sizeof positions / sizeof *positions;

    if (!ready) {
        rules_init();
        ready = true;
    }
    if (size < 1 || size > sizeof text)
        return 0;
    v = rules_variant_find(positions[data[0] % n].variant);
    if (v == NULL || v->position_parse(&pos, positions[data[0] % n].position, &why) != RULES_OK)
        abort();
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
