/*
 * fuzz_positions.h — the positions the rules targets (fuzz_apply.c,
 * fuzz_move.c) start from: crowded and empty boards, drops, promotions, en
 * passant and counters at their limits, in both variants.  The first input
 * byte picks one.
 */
#ifndef KORP_FUZZ_POSITIONS_H
#define KORP_FUZZ_POSITIONS_H

#include "rules.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

static const struct {
    const char *variant;
    const char *position;
} fuzz_positions[] = {
    { "korpalski", "8/8/8/8/8/8/8/8[KQRRBBNNPPPPPPPPkqrrbbnnpppppppp] w - - 0 1" },
    { "korpalski", "8/8/3q4/3rnQ2/3R1R2/2K2n2/5k2/8[BBNNPPPPPPPPrbbpppppppp] w - - 0 6" },
    { "korpalski", "r1n1k3/1P6/8/8/8/8/1p6/2B2NK1[RBNq] w - - 0 1" },
    { "korpalski", "rnbq1rk1/ppp2ppp/8/3pP3/8/2NB4/PPP2PPP/5RK1[Pp] w - d6 0 10" },
    { "korpalski", "4k3/8/8/8/8/8/p7/R3K3[Rr] b - - 65534 65535" },
    { "glinski", "b/qbk/n1b1n/r5r/ppppppppp/11/5P5/4P1P4/3P1B1P3/2P2B2P2/1PRNQBKNRP1 w - 0 1" },
    { "glinski", "1/2k/2b1n/7/3pp2p1/3P7/rPp1K6/6P4/5N1Q3/11/5B5 w c6 0 1" },
    { "glinski", "1/3/rP3/7/9/10k/11/11/11/11/K10 w - 0 1" },
    { "glinski", "1/3/rP3/7/9/10k/11/11/11/11/K10 w - 65535 65535" },
    { "glinski", "1/2k/n1br1/7/2ppp4/11/5P5/4P4q1/5B1P3/6R4/4Q1KNR2 w - 0 1" },
};

/* Sets up the rules once, then reads the position BYTE picks into POS; its
 * variant.  A position that does not read is a bug in this table: abort. */
static inline const struct rules_variant *fuzz_position_pick(uint8_t byte,
                                                             struct rules_position *pos)
{
    static bool ready;
    size_t i = byte % (sizeof fuzz_positions / sizeof *fuzz_positions);
    const struct rules_variant *v;

    if (!ready) {
        rules_init();
        ready = true;
    }
    v = rules_variant_find(fuzz_positions[i].variant);
    if (v == NULL || v->position_parse(pos, fuzz_positions[i].position, NULL) != RULES_OK)
        abort();
    return v;
}

#endif
