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

struct warn_args {
    const char *arbiter_id, *item_id, *reason, *message;
    char *log_id;
};

static enum db_status warn_tx(struct db_tx *tx, struct games_result *r, void *arg)
{
    struct warn_args *a = arg;
    struct db_queue_item item = { 0 };
    enum db_status rc = db_queue_lock(tx, a->item_id, &item);

    if (rc == DB_NOT_FOUND)
        rc = games_refuse(r, GAMES_NOT_FOUND, "no item of the arbiter's queue has the id '%s'",
                          a->item_id);
    else if (rc == DB_OK && (item.kind != DB_QUEUE_FAIRPLAY_REVIEW || !item.open))
        rc = games_refuse(r, GAMES_CONFLICT, "only an open fair-play review is answered with "
                          "a warning: this item is %s", item.open ? "of another kind"
                          : "no longer open");
    else if (rc == DB_OK)
        rc = db_fairplay_warn(tx, a->item_id, a->arbiter_id, a->reason, a->message,
                              a->log_id);
    db_queue_item_clear(&item);
    return rc;
}

void games_fairplay_warn(struct db_pool *pool, const char *arbiter_id, const char *item_id,
                         const char *reason, const char *message, char log_id[BASE_ID_SIZE],
                         struct games_result *out)
{
    struct warn_args a = { arbiter_id, item_id, reason, message, log_id };
    log_id[0] = '\0';
    games_run(pool, warn_tx, &a, out);
}
