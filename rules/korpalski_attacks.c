/*
 * korpalski_attacks.c — attack tables of the 8x8 board.
 *
 * Sliding attacks use ray tables: the first blocker on a ray is the lowest
 * set bit on rays that go up the board and the highest on rays that go down.
 * Filled once by kp_attacks_init(); read-only afterwards.
 */
#include "korpalski_board.h"

#include <stdlib.h>

enum { NORTH, EAST, NORTHEAST, NORTHWEST, SOUTH, WEST, SOUTHWEST, SOUTHEAST, DIRS };

static const int dir_file[DIRS] = { 0, 1, 1, -1, 0, -1, -1, 1 };
static const int dir_rank[DIRS] = { 1, 0, 1, 1, -1, 0, -1, -1 };

static uint64_t knight_table[64];
static uint64_t king_table[64];
static uint64_t pawn_table[2][64];
static uint64_t ray_table[DIRS][64];
static uint64_t between_table[64][64];
static uint64_t line_table[64][64];

static bool on_board(int file, int rank)
{
    return file >= 0 && file < 8 && rank >= 0 && rank < 8;
}

static uint64_t jumps(int sq, const int (*deltas)[2], int n)
{
    uint64_t b = 0;
    for (int i = 0; i < n; i++) {
        int f = sq % 8 + deltas[i][0], r = sq / 8 + deltas[i][1];
        if (on_board(f, r))
            b |= bb_of(r * 8 + f);
    }
    return b;
}

void kp_attacks_init(void)
{
    static const int knight[8][2] = { { 1, 2 }, { 2, 1 }, { 2, -1 }, { 1, -2 },
                                      { -1, -2 }, { -2, -1 }, { -2, 1 }, { -1, 2 } };
    static const int king[8][2] = { { 1, 0 }, { 1, 1 }, { 0, 1 }, { -1, 1 },
                                    { -1, 0 }, { -1, -1 }, { 0, -1 }, { 1, -1 } };
    static const int white_pawn[2][2] = { { -1, 1 }, { 1, 1 } };
    static const int black_pawn[2][2] = { { -1, -1 }, { 1, -1 } };

    for (int sq = 0; sq < 64; sq++) {
        knight_table[sq] = jumps(sq, knight, 8);
        king_table[sq] = jumps(sq, king, 8);
        pawn_table[RULES_WHITE][sq] = jumps(sq, white_pawn, 2);
        pawn_table[RULES_BLACK][sq] = jumps(sq, black_pawn, 2);
        for (int d = 0; d < DIRS; d++) {
            uint64_t ray = 0;
            int f = sq % 8 + dir_file[d], r = sq / 8 + dir_rank[d];
            for (; on_board(f, r); f += dir_file[d], r += dir_rank[d]) {
                int to = r * 8 + f;
                ray |= bb_of(to);
                between_table[sq][to] = ray & ~bb_of(to);
            }
            ray_table[d][sq] = ray;
        }
    }
    for (int a = 0; a < 64; a++)
        for (int d = 0; d < DIRS; d++)
            for (uint64_t ray = ray_table[d][a]; ray != 0;) {
                int b = bb_pop(&ray);
                line_table[a][b] = ray_table[d][a] | ray_table[(d + 4) % DIRS][a] |
                                   bb_of(a);
            }
}

uint64_t kp_knight_attacks(int sq) { return knight_table[sq]; }
uint64_t kp_king_attacks(int sq) { return king_table[sq]; }
uint64_t kp_pawn_attacks(int color, int sq) { return pawn_table[color][sq]; }
uint64_t kp_between(int a, int b) { return between_table[a][b]; }
uint64_t kp_line(int a, int b) { return line_table[a][b]; }

static inline uint64_t slide(int d, int sq, uint64_t occ)
{
    uint64_t ray = ray_table[d][sq];
    uint64_t blockers = ray & occ;
    if (blockers == 0)
        return ray;
    int first = d < SOUTH ? bb_lsb(blockers) : bb_msb(blockers);
    return ray ^ ray_table[d][first];
}

uint64_t kp_bishop_attacks(int sq, uint64_t occ)
{
    return slide(NORTHEAST, sq, occ) | slide(NORTHWEST, sq, occ) |
           slide(SOUTHWEST, sq, occ) | slide(SOUTHEAST, sq, occ);
}

uint64_t kp_rook_attacks(int sq, uint64_t occ)
{
    return slide(NORTH, sq, occ) | slide(EAST, sq, occ) | slide(SOUTH, sq, occ) |
           slide(WEST, sq, occ);
}

#include "attackers_generic.h"
