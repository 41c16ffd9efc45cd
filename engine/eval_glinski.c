/*
 * eval_glinski.c — the evaluation's weights for Glinski's hexagonal chess.
 *
 * Tables over the 91 cells in the rules library's numbering (rules/
 * glinski_int.h: cells in order of height y, then file c; y = |c| +
 * 2(rank - 1)), from White's side; Black reads them through `mirror`,
 * which maps (c, y) to (c, 20 - y).  Centralisation is by orthogonal
 * steps from f6; pawns gain with height and near their last cell (each
 * file has its own); the king keeps to its own side until the endgame.
 * Chosen by hand (docs/engine.md); there are no reserves, so no drop
 * danger, and the stalemated side scores 1/4 (a loss worth less than a
 * mate: a quarter point is about -250 on our scale).
 */
#include "engine_int.h"

/*
 * The tables are written as the rules that made them, one value per cell:
 * CELLS(X) lists X(c, y) for the 91 cells in the rules' numbering, by
 * height y and then file c.  At height y the cells are those with |c| at
 * most min(y, 20 - y, 5) and of y's parity: HEIGHT_n lists the n + 1 of
 * them.  RING is the number of orthogonal steps from f6 (0, 10): 0 there,
 * 5 on the rim.
 */
#define HEIGHT_0(X, y) X(0, y)
#define HEIGHT_1(X, y) X(-1, y), X(1, y)
#define HEIGHT_2(X, y) X(-2, y), HEIGHT_0(X, y), X(2, y)
#define HEIGHT_3(X, y) X(-3, y), HEIGHT_1(X, y), X(3, y)
#define HEIGHT_4(X, y) X(-4, y), HEIGHT_2(X, y), X(4, y)
#define HEIGHT_5(X, y) X(-5, y), HEIGHT_3(X, y), X(5, y)
#define CELLS(X)                                                                        \
    HEIGHT_0(X, 0), HEIGHT_1(X, 1), HEIGHT_2(X, 2), HEIGHT_3(X, 3), HEIGHT_4(X, 4),     \
    HEIGHT_5(X, 5), HEIGHT_4(X, 6), HEIGHT_5(X, 7), HEIGHT_4(X, 8), HEIGHT_5(X, 9),     \
    HEIGHT_4(X, 10), HEIGHT_5(X, 11), HEIGHT_4(X, 12), HEIGHT_5(X, 13), HEIGHT_4(X, 14), \
    HEIGHT_5(X, 15), HEIGHT_4(X, 16), HEIGHT_3(X, 17), HEIGHT_2(X, 18), HEIGHT_1(X, 19), \
    HEIGHT_0(X, 20)

#define ABS(c) ((c) < 0 ? -(c) : (c))
#define RING(c, y) (ABS(c) + ((ABS((y) - 10) - ABS(c)) > 0 ? (ABS((y) - 10) - ABS(c)) / 2 : 0))
#define BY_RING(c, y, r0, r1, r2, r3, r4, r5)                                           \
    (RING(c, y) == 0 ? (r0) : RING(c, y) == 1 ? (r1) : RING(c, y) == 2 ? (r2) :         \
     RING(c, y) == 3 ? (r3) : RING(c, y) == 4 ? (r4) : (r5))
/* Steps a pawn on (c, y) has left to its file's last cell. */
#define TO_LAST(c, y) ((20 - ABS(c) - (y)) / 2)

/* Pawns gain 3 a height, 6 less off the three centre files, and 8, 22, 45
 * three, two and one step from their last cell (where none stands). */
#define PAWN(c, y)                                                                      \
    (int16_t)(TO_LAST(c, y) == 0                                                        \
                  ? 0                                                                   \
                  : 3 * (y) - 9 + (ABS(c) <= 1 ? 0 : -6) +                              \
                        (TO_LAST(c, y) == 1 ? 45 : TO_LAST(c, y) == 2 ? 22              \
                                                 : TO_LAST(c, y) == 3 ? 8 : 0))
#define KNIGHT(c, y) (int16_t)BY_RING(c, y, 26, 20, 12, 2, -10, -24)
#define BISHOP(c, y) (int16_t)BY_RING(c, y, 14, 12, 8, 2, -4, -12)
/* Rooks: the centre a little, the enemy's side (height 14 up) more. */
#define ROOK(c, y) (int16_t)(BY_RING(c, y, 8, 6, 4, 2, 0, -4) + ((y) >= 14 ? 10 : 0))
#define QUEEN(c, y) (int16_t)BY_RING(c, y, 12, 10, 6, 2, -4, -10)
/* The king keeps low, by bands of two heights, and off the outer files. */
#define KING(c, y)                                                                      \
    (int16_t)(((y) < 2 ? 24 : (y) < 4 ? 14 : (y) < 6 ? 4 : (y) < 8 ? -8 : (y) < 10 ? -20 :  \
               (y) < 12 ? -30 : (y) < 14 ? -38 : (y) < 16 ? -42 : -44) +                  \
              (ABS(c) >= 4 ? -6 : 0))
#define KING_ENDGAME(c, y) (int16_t)BY_RING(c, y, 30, 24, 16, 6, -6, -20)


static const uint8_t mirror[91] = {
    90, 88, 89, 85, 86, 87, 81, 82, 83, 84, 76,
    77, 78, 79, 80, 70, 71, 72, 73, 74, 75, 65,
    66, 67, 68, 69, 59, 60, 61, 62, 63, 64, 54,
    55, 56, 57, 58, 48, 49, 50, 51, 52, 53, 43,
    44, 45, 46, 47, 37, 38, 39, 40, 41, 42, 32,
    33, 34, 35, 36, 26, 27, 28, 29, 30, 31, 21,
    22, 23, 24, 25, 15, 16, 17, 18, 19, 20, 10,
    11, 12, 13, 14,  6,  7,  8,  9,  3,  4,  5,
     1,  2,  0,
};

const struct eval_weights eval_glinski = {
    .cells = 91,
    .mirror = mirror,
    /*                P    N    B    R    Q    K */
    .value =        { 100, 300, 300, 480, 900, 0 },
    .reserve_value = { 0, 0, 0, 0, 0, 0 },
    EVAL_TABLES(CELLS),
    .mobility =     { 0, 3, 2, 2, 1, 0 },
    .drop_danger =  { 0, 0, 0, 0, 0, 0 },
    .danger_scale = 16,
    .danger_max = 500,
    .pawn_last_ranks_no_prison = 1000,   /* Glinski promotes freely */
    EVAL_SHARED_WEIGHTS,
    .phase_full = 2 * (2 * 300 + 3 * 300 + 2 * 480 + 900),
    .stalemate = -250,
};
