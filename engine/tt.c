/*
 * tt.c — the transposition table: buckets of two entries indexed by the
 * low bits of the position's key, the whole key kept to confirm a hit.
 */
#include "engine_int.h"

#include <stdlib.h>
#include <string.h>

int tt_init(struct tt *tt, size_t mb)
{
    size_t bytes, buckets = 1;
    struct tt_entry *entries;

    if (mb < 1)
        mb = 1;
    if (mb > ENGINE_HASH_MAX_MB)
        mb = ENGINE_HASH_MAX_MB;
    bytes = mb << 20;
    while (buckets * 2 * 2 * sizeof(struct tt_entry) <= bytes)
        buckets *= 2;
    entries = calloc(buckets * 2, sizeof *entries);
    if (entries == NULL)
        return -1;
    free(tt->entries);
    tt->entries = entries;
    tt->buckets = buckets;
    return 0;
}

void tt_free(struct tt *tt)
{
    free(tt->entries);
    tt->entries = NULL;
    tt->buckets = 0;
}

void tt_clear(struct tt *tt)
{
    if (tt->entries)
        memset(tt->entries, 0, tt->buckets * 2 * sizeof *tt->entries);
}

void tt_new_search(struct tt *tt)
{
    tt->generation = (uint8_t)((tt->generation + 1) & 63);
}

const struct tt_entry *tt_probe(const struct tt *tt, uint64_t key)
{
    const struct tt_entry *b = &tt->entries[(key & (tt->buckets - 1)) * 2];
    if (b[0].key == key && TT_BOUND(&b[0]) != TT_NONE)
        return &b[0];
    if (b[1].key == key && TT_BOUND(&b[1]) != TT_NONE)
        return &b[1];
    return NULL;
}

void tt_store(struct tt *tt, uint64_t key, struct rules_move move, int score,
              int depth, enum tt_bound bound)
{
    struct tt_entry *b = &tt->entries[(key & (tt->buckets - 1)) * 2];
    struct tt_entry *slot = &b[1];

    if (depth < 0)
        depth = 0;
    /* The deep slot takes a result at least as deep, its own position's
     * newer one, or anything when it holds an earlier search's result;
     * everything else goes to the always-replace slot. */
    if (TT_BOUND(&b[0]) == TT_NONE || b[0].key == key || depth >= b[0].depth ||
        (b[0].bound >> 2) != tt->generation)
        slot = &b[0];
    /* Keep a known best move when the new result has none. */
    if (slot->key == key && move.flags == 0 && move.from == 0 && move.to == 0 &&
        move.piece == 0)
        move = slot->move;
    slot->key = key;
    slot->move = move;
    slot->score = (int16_t)score;
    slot->depth = (uint8_t)(depth > 255 ? 255 : depth);
    slot->bound = (uint8_t)(bound | tt->generation << 2);
}

int tt_score_to(int score, int ply)
{
    if (score >= ENGINE_MATE_BOUND)
        return score + ply;
    if (score <= -ENGINE_MATE_BOUND)
        return score - ply;
    return score;
}

int tt_score_from(int score, int ply)
{
    if (score >= ENGINE_MATE_BOUND)
        return score - ply;
    if (score <= -ENGINE_MATE_BOUND)
        return score + ply;
    return score;
}
