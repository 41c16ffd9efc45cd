/*
 * claims.c — draw claims for every variant: repetition counting over the
 * stored keys and the fifty-move clock, with or without a move.  One
 * implementation for the server and the arbiter tool, through the variant
 * table only.
 */
#include "rules.h"
#include "report_int.h"

#include <string.h>

int rules_repetition_count(const uint64_t *keys, int count, uint64_t key,
                           int *at, int max_at)
{
    int found = 0;
    for (int i = 0; keys != NULL && i < count; i++) {
        if (keys[i] != key)
            continue;
        if (at != NULL && found < max_at)
            at[found] = i;
        found++;
    }
    return found;
}

/* Records one occurrence at index i. */
static void occurs(struct rules_claim *c, int i)
{
    if (c->at_count < RULES_CLAIM_AT_MAX)
        c->at[c->at_count++] = i;
    c->occurrences++;
}

enum rules_error rules_claim_check(const struct rules_variant *v,
                                   const struct rules_position *pos,
                                   const uint64_t *keys, int count,
                                   const struct rules_move *move,
                                   struct rules_claim *out,
                                   struct rules_why *why)
{
    struct rules_position after = *pos;

    memset(out, 0, sizeof *out);
    if (keys == NULL || count < 0)
        count = 0;
    if (move != NULL) {
        if (v->position_apply(&after, *move) != RULES_OK) {
            why_set(why, RULES_REASON_NOT_LEGAL,
                    "illegal move: the move sent with the claim is not legal here");
            return RULES_ERR_ILLEGAL;
        }
        out->irreversible = v->halfmove_clock(&after) == 0;
        out->key = v->repetition_key(&after);
        /* After an irreversible move no stored position can recur. */
        if (!out->irreversible)
            for (int i = 0; i < count; i++)
                if (keys[i] == out->key)
                    occurs(out, i);
        occurs(out, count);
    } else {
        out->key = v->repetition_key(pos);
        for (int i = 0; i < count; i++)
            if (keys[i] == out->key)
                occurs(out, i);
        /* The list should end with the current position; if it does not,
         * the position counts as its next entry.  (The entry before the
         * current one has the other side to move, so it never matches.) */
        if (count == 0 || keys[count - 1] != out->key)
            occurs(out, count);
    }
    out->halfmove_clock = v->halfmove_clock(&after);
    out->threefold = out->occurrences >= 3;
    out->fifty_move = out->halfmove_clock >= 100;
    return RULES_OK;
}
