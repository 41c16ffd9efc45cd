/*
 * games_analysis.c — what an arbiter needs to rule on a claim, read from a
 * stored game: the rules' verdict, earlier occurrences of the position,
 * and which claims would hold now.
 */
#include "games.h"

#include <stdlib.h>
#include <string.h>

bool games_analyse(const struct db_game *g, struct games_analysis *out)
{
    const struct rules_variant *v = g->variant;
    struct rules_position pos;
    struct rules_claim claim;

    memset(out, 0, sizeof *out);
    if (v == NULL || v->position_parse(&pos, g->fen, NULL) != RULES_OK)
        return false;
    v->position_report(&pos, &out->report);
    out->to_move = v->side_to_move(&pos);
    int count = g->key_version == RULES_KEY_VERSION ? g->key_count : 0;
    if (rules_claim_check(v, &pos, g->keys, count, NULL, &claim, NULL) != RULES_OK)
        return false;
    /* Every occurrence (the claim keeps only the first few): keys run
     * oldest first and end with the current position, at ply. */
    out->earlier = malloc((size_t)(g->key_count + 1) * sizeof *out->earlier);
    if (out->earlier == NULL)
        return false;
    int n = rules_repetition_count(g->keys, count, claim.key, out->earlier, count);
    for (int i = 0; i < n; i++)
        if (out->earlier[i] < count - 1)
            out->earlier[out->earlier_count++] = g->ply - (count - 1 - out->earlier[i]);
    out->threefold_claimable = claim.threefold;
    out->fifty_move_claimable = g->fifty_move_rule && claim.fifty_move;
    return true;
}

void games_analysis_clear(struct games_analysis *a)
{
    free(a->earlier);
    a->earlier = NULL;
    a->earlier_count = 0;
}
