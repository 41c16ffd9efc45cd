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

/*
 * The tables are written as the rules that made them, one value per square
 * (a1 = 0): SQUARES(X) lists X(square) for all 64.  RING is how far in
 * from the edge a square lies: 0 on the edge, 3 on the four centre squares.
 */
#define FILE_OF(sq) ((sq) % 8)
#define RANK_OF(sq) ((sq) / 8)
#define MIN2(a, b) ((a) < (b) ? (a) : (b))
#define RING(sq) MIN2(MIN2(FILE_OF(sq), 7 - FILE_OF(sq)), MIN2(RANK_OF(sq), 7 - RANK_OF(sq)))
#define BY_RING(sq, edge, r1, r2, centre) \
    (RING(sq) == 0 ? (edge) : RING(sq) == 1 ? (r1) : RING(sq) == 2 ? (r2) : (centre))
#define BY_RANK(sq, r1, r2, r3, r4, r5, r6, r7, r8)                                  \
    (RANK_OF(sq) == 0 ? (r1) : RANK_OF(sq) == 1 ? (r2) : RANK_OF(sq) == 2 ? (r3) :    \
     RANK_OF(sq) == 3 ? (r4) : RANK_OF(sq) == 4 ? (r5) : RANK_OF(sq) == 5 ? (r6) :    \
     RANK_OF(sq) == 6 ? (r7) : (r8))
#define EDGE_FILE(sq) (FILE_OF(sq) == 0 || FILE_OF(sq) == 7)
#define LONG_DIAGONAL(sq) (FILE_OF(sq) == RANK_OF(sq) || FILE_OF(sq) == 7 - RANK_OF(sq))

#define RANK_SQUARES(X, r) \
    X(8 * (r)), X(8 * (r) + 1), X(8 * (r) + 2), X(8 * (r) + 3), X(8 * (r) + 4), \
    X(8 * (r) + 5), X(8 * (r) + 6), X(8 * (r) + 7)
#define SQUARES(X)                                                                      \
    RANK_SQUARES(X, 0), RANK_SQUARES(X, 1), RANK_SQUARES(X, 2), RANK_SQUARES(X, 3),      \
    RANK_SQUARES(X, 4), RANK_SQUARES(X, 5), RANK_SQUARES(X, 6), RANK_SQUARES(X, 7)

/* Pawns gain as they advance; -4 on the edge files, +6 in the centre files
 * on ranks 3 to 5. */
#define PAWN(sq)                                                                        \
    (int16_t)(RANK_OF(sq) == 0 || RANK_OF(sq) == 7                                      \
                  ? 0                                                                   \
                  : BY_RANK(sq, 0, 0, 5, 12, 22, 38, 60, 0) + (EDGE_FILE(sq) ? -4 : 0) +  \
                        ((FILE_OF(sq) == 3 || FILE_OF(sq) == 4) && RANK_OF(sq) >= 2 &&    \
                                 RANK_OF(sq) <= 4                                       \
                             ? 6                                                        \
                             : 0))
/* Knights want the centre, and a little more in the enemy's half. */
#define KNIGHT(sq) (int16_t)(BY_RING(sq, -22, 0, 14, 24) + (RANK_OF(sq) >= 4 ? 4 : 0))
/* Bishops want the centre and the long diagonals. */
#define BISHOP(sq) \
    (int16_t)(BY_RING(sq, -10, 2, 10, 20) + (LONG_DIAGONAL(sq) && RING(sq) < 3 ? 6 : 0))
/* Rooks: the centre a little, the seventh rank much. */
#define ROOK(sq)                                                                        \
    (int16_t)(RANK_OF(sq) == 6 ? (EDGE_FILE(sq) ? 18 : 20)                              \
              : RANK_OF(sq) == 7 ? 6 : BY_RING(sq, 0, 2, 4, 6))
#define QUEEN(sq) (int16_t)BY_RING(sq, -6, 2, 8, 10)
/* The king keeps to its first rank, in a corner or on an edge file, where
 * the enemy has fewest neighbouring squares to drop on. */
#define KING(sq)                                                                        \
    (int16_t)(BY_RANK(sq, 20, -34, -46, -58, -68, -76, -80, -40) +                       \
              (EDGE_FILE(sq) ? (RANK_OF(sq) == 0 || RANK_OF(sq) == 7 ? 30 : 40) : 0))
/* With few men left the king goes to the centre. */
#define KING_ENDGAME(sq) (int16_t)BY_RING(sq, -20, 4, 18, 30)
/* The square seen from Black's side: the same file, the rank mirrored. */
#define MIRROR(sq) (uint8_t)((sq) ^ 56)

static const uint8_t mirror[64] = { SQUARES(MIRROR) };

/* Hand-set (docs/engine.md, "Evaluation"); korp-tune's fit is not used. */
const struct eval_weights eval_korpalski = {
    .cells = 64,
    .mirror = mirror,
    /*                P    N    B    R    Q    K */
    .value =        { 100, 310, 320, 480, 900, 0 },
    .reserve_value = { 90, 290, 300, 450, 860, 0 },
    EVAL_TABLES(SQUARES),
    .mobility =     { 0, 3, 3, 2, 1, 0 },
    .drop_danger =  { 1, 2, 2, 3, 4, 0 },
    .danger_scale = 8,
    .danger_max = 900,
    .pawn_last_ranks_no_prison = 22,
    EVAL_SHARED_WEIGHTS,
    .phase_full = 2 * (2 * 310 + 2 * 320 + 2 * 480 + 900),
    .stalemate = 0,   /* a draw */
};
