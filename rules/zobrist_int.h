/*
 * zobrist_int.h — hash keys for repetition, computed rather than stored:
 * each key is a strong mix of (kind, a, b), so there is no table to fill
 * and nothing mutable.  Keys are stable across runs and builds, which lets
 * the database keep them.
 */
#ifndef KORP_ZOBRIST_INT_H
#define KORP_ZOBRIST_INT_H

#include <stdint.h>

enum zobrist_kind { ZOBRIST_MAN = 1, ZOBRIST_SIDE, ZOBRIST_RESERVE, ZOBRIST_EP };

/* splitmix64's finaliser over a packed index. */
static inline uint64_t zobrist(enum zobrist_kind kind, int a, int b)
{
    uint64_t z = ((uint64_t)kind << 40 | (uint64_t)(unsigned)a << 20 |
                  (uint64_t)(unsigned)b) * 0x9E3779B97F4A7C15ULL + 0x632BE59BD9B4E019ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

#endif
