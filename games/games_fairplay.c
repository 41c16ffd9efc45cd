/*
 * games_fairplay.c — what a game's end owes the fair-play analysis: a rated
 * game played with engines forbidden and finished over the board (not
 * forfeited, not aborted) is queued for it, in the ending's transaction;
 * and what the analysis owes the arbiter: a player whose figures pass the
 * review thresholds goes on the arbiter's queue, once.
 */
#include "games_int.h"

enum db_status games_fairplay_game_over(struct db_tx *tx, struct db_game *g)
{
    if (!g->rated || g->engines_allowed || g->status != DB_GAME_FINISHED ||
        g->termination == DB_END_FORFEIT)
        return DB_OK;
    return db_fairplay_enqueue(tx, g->id);
}

enum db_status games_fairplay_review(struct db_tx *tx, const char *game_id,
                                     const struct db_fairplay_review *review)
{
    struct db_fairplay_due due[2];
    char id[BASE_ID_SIZE];
    enum db_status rc;
    int count = 0;

    if (review->games <= 0)
        return DB_OK;
    if ((rc = db_fairplay_reviews_due(tx, game_id, review, due, &count)) != DB_OK)
        return rc;
    for (int i = 0; i < count && rc == DB_OK; i++)
        rc = db_queue_add(tx, DB_QUEUE_FAIRPLAY_REVIEW, game_id, due[i].player_id,
                          due[i].details, NULL, id);
    return rc;
}
