/*
 * db_ratings.c — Glicko-2 ratings as stored: a player's rating
 * per variant, locked and saved in a game's ending transaction, its history,
 * the leaderboard, and the player's recent record.
 */
#include "db_int.h"

#include <stdio.h>
#include <string.h>

#define R(kind, member) DB_##kind(struct db_rating, member, #member)
static const struct db_col rating_cols[] = {
    R(DOUBLE, rating), R(DOUBLE, rd), R(DOUBLE, volatility), R(INT, games), DB_COLS_END
};

static void rating_read(void *out, const struct db_row *row)
{
    struct db_rating *r = out;
    db_row_read(row, rating_cols, out, sizeof *r);
    r->variant = db_variant_parse(db_row_value(row, "variant"));
    r->idle_days = db_row_is_null(row, "idle_days") ? -1 : db_row_double(row, "idle_days");
}

enum db_status db_rating_lock(struct db_tx *tx, const char *player_id,
                              const struct rules_variant *v, const struct db_rating *start,
                              struct db_rating *out)
{
    char rating[32], rd[32], vol[32];
    const char *params[5] = { player_id, v->name, rating, rd, vol };
    snprintf(rating, sizeof rating, "%.17g", start->rating);
    snprintf(rd, sizeof rd, "%.17g", start->rd);
    snprintf(vol, sizeof vol, "%.17g", start->volatility);
    return db_exec_row(tx, DB_STMT_RATING_LOCK, params, rating_read, out);
}

enum db_status db_rating_record(struct db_tx *tx, const char *player_id,
                                const struct rules_variant *v, const char *game_id,
                                const struct db_rating *after)
{
    char rating[32], rd[32], vol[32];
    const char *params[6] = { player_id, v->name, game_id, rating, rd, vol };
    PGresult *res = NULL;
    enum db_status rc;
    snprintf(rating, sizeof rating, "%.17g", after->rating);
    snprintf(rd, sizeof rd, "%.17g", after->rd);
    snprintf(vol, sizeof vol, "%.17g", after->volatility);
    rc = db_exec(tx, DB_STMT_RATING_RECORD, params, &res);
    PQclear(res);
    return rc;
}

enum db_status db_game_rating_diff_set(struct db_tx *tx, const char *game_id, double white,
                                       double black)
{
    char w[32], b[32];
    const char *params[3] = { game_id, w, b };
    PGresult *res = NULL;
    enum db_status rc;
    snprintf(w, sizeof w, "%.17g", white);
    snprintf(b, sizeof b, "%.17g", black);
    rc = db_exec(tx, DB_STMT_GAME_RATING_DIFF, params, &res);
    PQclear(res);
    return rc;
}

enum db_status db_player_ratings(struct db_pool *pool, const char *player_id,
                                 struct db_rating *out, int max, int *count,
                                 struct base_err *err)
{
    const char *params[1] = { player_id };
    return db_get_rows(pool, DB_STMT_PLAYER_RATINGS, params, rating_read, out, sizeof *out,
                       max, count, err);
}

#define P(kind, member) DB_##kind(struct db_rating_point, member, #member)
static const struct db_col point_cols[] = {
    P(TEXT, game_id), P(TEXT, at), P(DOUBLE, rating), P(DOUBLE, rd), DB_COLS_END
};

DB_READER(point_read, struct db_rating_point, point_cols)

enum db_status db_rating_history(struct db_pool *pool, const char *player_id,
                                 const struct rules_variant *v, struct db_rating_point *out,
                                 int max, int *count, struct base_err *err)
{
    char limit[16];
    const char *params[3] = { player_id, v->name, limit };
    snprintf(limit, sizeof limit, "%d", max);
    return db_get_rows(pool, DB_STMT_RATING_HISTORY, params, point_read, out, sizeof *out,
                       max, count, err);
}

#define L(kind, member, name) DB_##kind(struct db_leader, member, name)
static const struct db_col leader_cols[] = {
    L(TEXT, id, "player_id"), L(TEXT, name, "name"), L(DOUBLE, rating, "rating"),
    L(DOUBLE, rd, "rd"), L(INT, games, "games"), DB_COLS_END
};

DB_READER(leader_read, struct db_leader, leader_cols)

enum db_status db_leaderboard(struct db_pool *pool, const struct rules_variant *v,
                              double max_rd, struct db_leader *out, int max, int *count,
                              struct base_err *err)
{
    char rd[32], limit[16];
    const char *params[3] = { v->name, rd, limit };
    snprintf(rd, sizeof rd, "%.17g", max_rd);
    snprintf(limit, sizeof limit, "%d", max);
    return db_get_rows(pool, DB_STMT_LEADERBOARD, params, leader_read, out, sizeof *out, max,
                       count, err);
}

static void stats_read(void *out, const struct db_row *row)
{
    struct db_player_stats *s = out;
    s->finished_90d = db_row_int(row, "finished_90d");
    s->timeouts_90d = db_row_int(row, "timeouts_90d");
}

enum db_status db_player_stats_get(struct db_pool *pool, const char *player_id,
                                   struct db_player_stats *out, struct base_err *err)
{
    const char *params[1] = { player_id };
    memset(out, 0, sizeof *out);
    return db_get_row(pool, DB_STMT_PLAYER_STATS, params, stats_read, out, err);
}
