/*
 * db_ratings.h — ratings, their history and the leaderboard; in
 * db_ratings.c.  db.h includes it.
 */
#ifndef KORP_DB_RATINGS_H
#define KORP_DB_RATINGS_H

#include "db_pool.h"
#include "db_names.h"

/* A player's Glicko-2 rating in a variant, as stored. */
struct db_rating {
    const struct rules_variant *variant;
    double rating, rd, volatility;
    int games;                 /* rated games played */
    double idle_days;          /* db_rating_lock: days since the last rated
                                  game, or -1 for none */
};

/* Locks the player's rating in v for a game's ending (made at `start`'s
 * values if they have none yet) and reads it into out. */
enum db_status db_rating_lock(struct db_tx *tx, const char *player_id,
                              const struct rules_variant *v, const struct db_rating *start,
                              struct db_rating *out);

/* Saves the player's rating after game_id (one more game, rated now) and
 * appends it to their history. */
enum db_status db_rating_record(struct db_tx *tx, const char *player_id,
                                const struct rules_variant *v, const char *game_id,
                                const struct db_rating *after);

/* Stores a rated game's rating changes (after minus before) by colour. */
enum db_status db_game_rating_diff_set(struct db_tx *tx, const char *game_id, double white,
                                       double black);

/* The player's stored ratings (variants where they have played rated). */
enum db_status db_player_ratings(struct db_pool *pool, const char *player_id,
                                 struct db_rating *out, int max, int *count,
                                 struct base_err *err);

/* One point of a rating history. */
struct db_rating_point {
    char game_id[BASE_ID_SIZE];
    char at[DB_TIME_SIZE];
    double rating, rd;
};

/* The player's newest `max` ratings in v after rated games, oldest first. */
enum db_status db_rating_history(struct db_pool *pool, const char *player_id,
                                 const struct rules_variant *v, struct db_rating_point *out,
                                 int max, int *count, struct base_err *err);

/* One row of a leaderboard. */
struct db_leader {
    char id[BASE_ID_SIZE];
    char name[DB_NAME_SIZE];
    double rating, rd;
    int games;
};

/* Players rated in v with RD at most max_rd, highest rating first. */
enum db_status db_leaderboard(struct db_pool *pool, const struct rules_variant *v,
                              double max_rd, struct db_leader *out, int max, int *count,
                              struct base_err *err);

/* Games finished, and games lost on time, in the last 90 days. */
struct db_player_stats {
    int finished_90d, timeouts_90d;
};

enum db_status db_player_stats_get(struct db_pool *pool, const char *player_id,
                                   struct db_player_stats *out, struct base_err *err);

#endif
