/*
 * games_ratings.c — a rated game's end changes both players' Glicko-2
 * ratings in its variant, in the transaction that ends it: one
 * rating period of one game for each player, from both players' values
 * before it, each deviation first grown with the time since that player's
 * last rated game.
 */
#include "games_int.h"

#include "ratings.h"

#include <string.h>

/* Days in one rating period, for the deviation's growth.  Set once by
 * korpd before its threads start (KORP_RATING_PERIOD_DAYS), read after. */
static double period_days = 7;

void games_ratings_set_period(int days)
{
    if (days > 0)
        period_days = days;
}

/* Whether the end of g changes ratings: a rated game finished over the
 * board, on time or by an arbiter (not aborted). */
static bool changes_ratings(const struct db_game *g)
{
    return g->rated && g->status == DB_GAME_FINISHED && g->termination != DB_END_FORFEIT &&
           g->variant != NULL;
}

/* A rating as it stands when the game ends: the deviation grown with idle
 * time. */
static struct ratings_glicko now_of(const struct db_rating *r)
{
    struct ratings_glicko now = { r->rating, r->rd, r->volatility };
    if (r->idle_days > 0)
        now.rd = ratings_rd_after_idle(r->rd, r->volatility, r->idle_days / period_days);
    return now;
}

enum db_status games_ratings_game_over(struct db_tx *tx, struct db_game *g)
{
    static const struct db_rating start = { NULL, RATINGS_START_RATING, RATINGS_START_RD,
                                            RATINGS_START_VOLATILITY, 0, -1 };
    const char *ids[2] = { g->white_id, g->black_id };
    struct db_rating stored[2];
    struct ratings_glicko now[2], after[2];
    int quarters[2];
    enum db_status rc;

    if (!changes_ratings(g) || !rules_result_quarters(g->result, quarters))
        return DB_OK;
    /* Both rows locked in one order (by player id), so that two games of
     * the same players ending at once wait rather than deadlock. */
    int first = strcmp(ids[0], ids[1]) < 0 ? 0 : 1;
    for (int k = 0; k < 2; k++) {
        int side = k == 0 ? first : 1 - first;
        if ((rc = db_rating_lock(tx, ids[side], g->variant, &start, &stored[side])) != DB_OK)
            return rc;
        now[side] = now_of(&stored[side]);
    }
    for (int side = 0; side < 2; side++) {
        const struct ratings_game game = { now[1 - side].rating, now[1 - side].rd,
                                           quarters[side] / 4.0 };
        if (!ratings_glicko2_period(&now[side], &game, 1, RATINGS_DEFAULT_TAU, &after[side]))
            return db_tx_fail(tx, "game %s: a stored rating is out of range", g->id);
    }
    for (int side = 0; side < 2; side++) {
        const struct db_rating saved = { g->variant, after[side].rating, after[side].rd,
                                         after[side].volatility, 0, -1 };
        if ((rc = db_rating_record(tx, ids[side], g->variant, g->id, &saved)) != DB_OK)
            return rc;
        g->rating_diff[side] = after[side].rating - stored[side].rating;
    }
    g->has_rating_diff = true;
    return db_game_rating_diff_set(tx, g->id, g->rating_diff[0], g->rating_diff[1]);
}
