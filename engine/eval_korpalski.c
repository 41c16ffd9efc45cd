/*
 * eval_korpalski.c — the evaluation's weights for Korpalski Chess.
 *
 * All of them are set by hand, the tables from chess and crazyhouse
 * experience.  A Texel fit of the scalar weights on self-play data
 * (bench/tune.sh) was tried and dropped: it did worse in matches than these
 * (docs/engine.md).  Tables are from White's side, a1 = 0, rank 1 first;
 * Black reads them through `mirror`.
 *
 * What is particular to the variant: a man in reserve is worth a little
 * less than the same man on the board (it has yet to be dropped); the king
 * prefers the edge and the corner, where it has fewer neighbours for the
 * enemy to drop on; and a pawn near the last rank counts for little while
 * its side has nothing in prison to promote to.
 */
#include "engine_int.h"

static const int16_t pawn[64] = {
       0,    0,    0,    0,    0,    0,    0,    0,
      -4,    0,    0,    0,    0,    0,    0,   -4,
       1,    5,    5,   11,   11,    5,    5,    1,
       8,   12,   12,   18,   18,   12,   12,    8,
      18,   22,   22,   28,   28,   22,   22,   18,
      34,   38,   38,   38,   38,   38,   38,   34,
      56,   60,   60,   60,   60,   60,   60,   56,
       0,    0,    0,    0,    0,    0,    0,    0,
};

static const int16_t knight[64] = {
     -22,  -22,  -22,  -22,  -22,  -22,  -22,  -22,
     -22,    0,    0,    0,    0,    0,    0,  -22,
     -22,    0,   14,   14,   14,   14,    0,  -22,
     -22,    0,   14,   24,   24,   14,    0,  -22,
     -18,    4,   18,   28,   28,   18,    4,  -18,
     -18,    4,   18,   18,   18,   18,    4,  -18,
     -18,    4,    4,    4,    4,    4,    4,  -18,
     -18,  -18,  -18,  -18,  -18,  -18,  -18,  -18,
};

static const int16_t bishop[64] = {
      -4,  -10,  -10,  -10,  -10,  -10,  -10,   -4,
     -10,    8,    2,    2,    2,    2,    8,  -10,
     -10,    2,   16,   10,   10,   16,    2,  -10,
     -10,    2,   10,   20,   20,   10,    2,  -10,
     -10,    2,   10,   20,   20,   10,    2,  -10,
     -10,    2,   16,   10,   10,   16,    2,  -10,
     -10,    8,    2,    2,    2,    2,    8,  -10,
      -4,  -10,  -10,  -10,  -10,  -10,  -10,   -4,
};

static const int16_t rook[64] = {
       0,    0,    0,    0,    0,    0,    0,    0,
       0,    2,    2,    2,    2,    2,    2,    0,
       0,    2,    4,    4,    4,    4,    2,    0,
       0,    2,    4,    6,    6,    4,    2,    0,
       0,    2,    4,    6,    6,    4,    2,    0,
       0,    2,    4,    4,    4,    4,    2,    0,
      18,   20,   20,   20,   20,   20,   20,   18,
       6,    6,    6,    6,    6,    6,    6,    6,
};

static const int16_t queen[64] = {
      -6,   -6,   -6,   -6,   -6,   -6,   -6,   -6,
      -6,    2,    2,    2,    2,    2,    2,   -6,
      -6,    2,    8,    8,    8,    8,    2,   -6,
      -6,    2,    8,   10,   10,    8,    2,   -6,
      -6,    2,    8,   10,   10,    8,    2,   -6,
      -6,    2,    8,    8,    8,    8,    2,   -6,
      -6,    2,    2,    2,    2,    2,    2,   -6,
      -6,   -6,   -6,   -6,   -6,   -6,   -6,   -6,
};

static const int16_t king[64] = {
      50,   20,   20,   20,   20,   20,   20,   50,
       6,  -34,  -34,  -34,  -34,  -34,  -34,    6,
      -6,  -46,  -46,  -46,  -46,  -46,  -46,   -6,
     -18,  -58,  -58,  -58,  -58,  -58,  -58,  -18,
     -28,  -68,  -68,  -68,  -68,  -68,  -68,  -28,
     -36,  -76,  -76,  -76,  -76,  -76,  -76,  -36,
     -40,  -80,  -80,  -80,  -80,  -80,  -80,  -40,
     -10,  -40,  -40,  -40,  -40,  -40,  -40,  -10,
};

static const int16_t king_endgame[64] = {
     -20,  -20,  -20,  -20,  -20,  -20,  -20,  -20,
     -20,    4,    4,    4,    4,    4,    4,  -20,
     -20,    4,   18,   18,   18,   18,    4,  -20,
     -20,    4,   18,   30,   30,   18,    4,  -20,
     -20,    4,   18,   30,   30,   18,    4,  -20,
     -20,    4,   18,   18,   18,   18,    4,  -20,
     -20,    4,    4,    4,    4,    4,    4,  -20,
     -20,  -20,  -20,  -20,  -20,  -20,  -20,  -20,
};

static const uint8_t mirror[64] = {
    56, 57, 58, 59, 60, 61, 62, 63,
    48, 49, 50, 51, 52, 53, 54, 55,
    40, 41, 42, 43, 44, 45, 46, 47,
    32, 33, 34, 35, 36, 37, 38, 39,
    24, 25, 26, 27, 28, 29, 30, 31,
    16, 17, 18, 19, 20, 21, 22, 23,
     8,  9, 10, 11, 12, 13, 14, 15,
     0,  1,  2,  3,  4,  5,  6,  7,
};

/* Hand-set (docs/engine.md, "Evaluation"); korp-tune's fit is not used. */
const struct eval_weights eval_korpalski = {
    .cells = 64,
    .mirror = mirror,
    /*                P    N    B    R    Q    K */
    .value =        { 100, 310, 320, 480, 900, 0 },
    .reserve_value = { 90, 290, 300, 450, 860, 0 },
    .pst = { pawn, knight, bishop, rook, queen, king },
    .king_endgame = king_endgame,
    .mobility =     { 0, 3, 3, 2, 1, 0 },
    .king_attack =  { 1, 2, 2, 3, 5, 0 },
    .drop_danger =  { 1, 2, 2, 3, 4, 0 },
    .shelter = 2,
    .danger_scale = 8,
    .danger_max = 900,
    .pawn_last_ranks_no_prison = 22,
    .tempo = 10,
    .phase_full = 2 * (2 * 310 + 2 * 320 + 2 * 480 + 900),
    .stalemate = 0,   /* a draw */
};
