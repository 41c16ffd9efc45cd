/*
 * games_fairplay.c — what a game's end owes the fair-play analysis: a rated
 * game played with engines forbidden and finished over the board (not
 * forfeited, not aborted) is queued for it, in the ending's transaction.
 */
#include "games_int.h"

enum db_status games_fairplay_game_over(struct db_tx *tx, struct db_game *g)
{
    if (!g->rated || g->engines_allowed || g->status != DB_GAME_FINISHED ||
        g->termination == DB_END_FORFEIT)
        return DB_OK;
    return db_fairplay_enqueue(tx, g->id);
}
