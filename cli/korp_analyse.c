/*
 * korp_analyse.c — `korp analyse`: for the final position of a game record
 * (or ply N), the facts an arbiter rules on a claim by, as one JSON object:
 * the same as GET /v1/games/{id}/analysis, from the same rules code.
 */
#include "korp_int.h"

#include <stdio.h>

int korp_analyse(const struct korp_args *args)
{
    struct korp_args replay = *args;
    replay.analyse = true;
    return korp_replay(&replay);
}

static const char *yes(bool b)
{
    return b ? "true" : "false";
}

void korp_print_analysis(const struct rules_variant *v, const struct rules_position *pos,
                         const uint64_t *keys, int count, int ply)
{
    struct rules_report rep;
    struct rules_claim claim = { 0 };
    bool first = true;

    v->position_report(pos, &rep);
    rules_claim_check(v, pos, keys, count, NULL, &claim, NULL);
    printf("{\"ply\":%d,\"status\":\"%s\",\"to_move\":\"%s\",\"halfmove_clock\":%d,"
           "\"fifty_move_claimable\":%s,\"earlier_occurrences\":[",
           ply, rules_status_text(rep.status),
           v->side_to_move(pos) == RULES_WHITE ? "white" : "black", rep.halfmove_clock,
           yes(claim.fifty_move));
    /* keys[count - 1] is the position at `ply`; keys[i] the one at
     * ply - (count - 1 - i).  Every occurrence, not only the claim's few. */
    for (int i = 0; i < count - 1; i++) {
        if (keys[i] != claim.key)
            continue;
        printf("%s%d", first ? "" : ",", ply - (count - 1 - i));
        first = false;
    }
    printf("],\"threefold_claimable\":%s,"
           "\"insufficient_material\":{\"white\":%s,\"black\":%s},"
           "\"can_mate\":{\"white\":%s,\"black\":%s},"
           "\"can_drop\":{\"white\":%s,\"black\":%s},"
           "\"draw_by_agreement_allowed\":%s,\"result\":\"%s\"}\n",
           yes(claim.threefold), yes(!rep.can_mate[RULES_WHITE]),
           yes(!rep.can_mate[RULES_BLACK]), yes(rep.can_mate[RULES_WHITE]),
           yes(rep.can_mate[RULES_BLACK]), yes(rep.can_drop[RULES_WHITE]),
           yes(rep.can_drop[RULES_BLACK]), yes(rep.draw_agreement_allowed),
           rules_result_text(rep.result));
}
