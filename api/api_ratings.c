/*
 * api_ratings.c — ratings in the API: a game's `rated` and
 * `rating_diff`, a player's `ratings` and `stats`, their rating history,
 * and the leaderboard of a variant (the provisional players too when
 * asked, marked).
 */
#include "api_int.h"

#include "ratings.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HISTORY_MAX 1000
#define LEADERBOARD_DEFAULT 50
#define LEADERBOARD_MAX 200

/* The variants a player's `ratings` lists, in this order. */
static const char *const rated_variants[] = { "korpalski", "glinski", NULL };

static double two_decimals(double x)
{
    return round(x * 100.0) / 100.0;
}

void api_game_json_ratings(cJSON *json, const struct db_game *g)
{
    cJSON_AddBoolToObject(json, "rated", g->rated);
    if (g->rated && g->has_rating_diff) {
        cJSON *diff = cJSON_AddObjectToObject(json, "rating_diff");
        cJSON_AddNumberToObject(diff, "white", two_decimals(g->rating_diff[0]));
        cJSON_AddNumberToObject(diff, "black", two_decimals(g->rating_diff[1]));
    }
}

static cJSON *rating_json(double rating, double rd, double volatility, int games)
{
    cJSON *r = cJSON_CreateObject();
    cJSON_AddNumberToObject(r, "rating", two_decimals(rating));
    cJSON_AddNumberToObject(r, "rd", two_decimals(rd));
    cJSON_AddNumberToObject(r, "volatility", round(volatility * 1e6) / 1e6);
    cJSON_AddNumberToObject(r, "games", games);
    cJSON_AddBoolToObject(r, "provisional", rd > RATINGS_PROVISIONAL_RD);
    return r;
}

enum db_status api_player_json_ratings(struct api_request *req, cJSON *json,
                                       const char *player_id, struct base_err *err)
{
    struct db_rating stored[8];
    struct db_player_stats stats;
    int count = 0;
    enum db_status st;
    cJSON *ratings, *s;

    if ((st = db_player_ratings(req->config->pool, player_id, stored, 8, &count, err)) != DB_OK ||
        (st = db_player_stats_get(req->config->pool, player_id, &stats, err)) != DB_OK)
        return st;
    ratings = cJSON_AddObjectToObject(json, "ratings");
    for (int k = 0; rated_variants[k] != NULL; k++) {
        const struct rules_variant *v = rules_variant_find(rated_variants[k]);
        const struct db_rating *found = NULL;
        for (int i = 0; i < count; i++)
            if (stored[i].variant == v)
                found = &stored[i];
        cJSON_AddItemToObject(ratings, rated_variants[k],
                              found ? rating_json(found->rating, found->rd, found->volatility,
                                                  found->games)
                                    : rating_json(RATINGS_START_RATING, RATINGS_START_RD,
                                                  RATINGS_START_VOLATILITY, 0));
    }
    s = cJSON_AddObjectToObject(json, "stats");
    cJSON_AddNumberToObject(s, "finished_90d", stats.finished_90d);
    cJSON_AddNumberToObject(s, "timeouts_90d", stats.timeouts_90d);
    return DB_OK;
}

static enum MHD_Result bad_variant(struct api_request *req, const char *what)
{
    return api_fail(req, API_PROBLEM_BAD_REQUEST, "%s must be korpalski or glinski", what);
}

enum MHD_Result api_player_rating_history(struct api_request *req)
{
    const char *id = req->params[0], *variant = api_query(req, "variant");
    const struct rules_variant *v = variant ? db_variant_parse(variant) : NULL;
    struct base_err err = { "" };
    struct db_rating_point *points = NULL;
    struct db_player p;
    int count = 0;
    enum db_status st;
    cJSON *json, *list;

    /* An unknown player is 404 whatever the query says. */
    st = db_player_get(req->config->pool, id, &p, &err);
    if (st == DB_NOT_FOUND)
        return api_fail(req, API_PROBLEM_NOT_FOUND, "no player has the id '%s'", id);
    if (st != DB_OK)
        return api_fail_db(req, st, err.text);
    if (v == NULL)
        return bad_variant(req, "the query parameter 'variant'");
    points = calloc(HISTORY_MAX, sizeof *points);
    if (points == NULL)
        return api_fail_oom(req);
    st = db_rating_history(req->config->pool, id, v, points, HISTORY_MAX, &count, &err);
    if (st != DB_OK) {
        free(points);
        return api_fail_db(req, st, err.text);
    }
    json = cJSON_CreateObject();
    list = cJSON_AddArrayToObject(json, "history");
    for (int i = 0; i < count; i++) {
        cJSON *item = cJSON_CreateObject();
        cJSON_AddStringToObject(item, "game_id", points[i].game_id);
        cJSON_AddStringToObject(item, "at", points[i].at);
        cJSON_AddNumberToObject(item, "rating", two_decimals(points[i].rating));
        cJSON_AddNumberToObject(item, "rd", two_decimals(points[i].rd));
        cJSON_AddItemToArray(list, item);
    }
    free(points);
    return api_reply_json(req, MHD_HTTP_OK, json);
}

enum MHD_Result api_leaderboard(struct api_request *req)
{
    const struct rules_variant *v = db_variant_parse(req->params[0]);
    struct base_err err = { "" };
    struct db_leader *rows = NULL;
    enum MHD_Result replied;
    int want = 0, count = 0;
    enum db_status st;
    cJSON *json, *list;

    if (v == NULL)
        return api_fail(req, API_PROBLEM_NOT_FOUND,
                        "no variant is called '%s': korpalski or glinski", req->params[0]);
    const char *provisional = api_query(req, "provisional");
    if (!api_query_limit(req, LEADERBOARD_DEFAULT, LEADERBOARD_MAX, &want, &replied))
        return replied;
    if (provisional != NULL && strcmp(provisional, "true") != 0 &&
        strcmp(provisional, "false") != 0)
        return api_fail(req, API_PROBLEM_BAD_REQUEST, "'provisional' must be true or false");
    rows = calloc((size_t)want, sizeof *rows);
    if (rows == NULL)
        return api_fail_oom(req);
    /* With provisional=true every rated player (no RD is above the start's). */
    st = db_leaderboard(req->config->pool, v,
                        provisional != NULL && strcmp(provisional, "true") == 0
                            ? RATINGS_START_RD : RATINGS_PROVISIONAL_RD,
                        rows, want, &count, &err);
    if (st != DB_OK) {
        free(rows);
        return api_fail_db(req, st, err.text);
    }
    json = cJSON_CreateObject();
    list = cJSON_AddArrayToObject(json, "players");
    for (int i = 0; i < count; i++) {
        cJSON *item = cJSON_CreateObject();
        cJSON_AddStringToObject(item, "id", rows[i].id);
        cJSON_AddStringToObject(item, "name", rows[i].name);
        cJSON_AddNumberToObject(item, "rating", two_decimals(rows[i].rating));
        cJSON_AddNumberToObject(item, "rd", two_decimals(rows[i].rd));
        cJSON_AddNumberToObject(item, "games", rows[i].games);
        cJSON_AddBoolToObject(item, "provisional", rows[i].rd > RATINGS_PROVISIONAL_RD);
        cJSON_AddItemToArray(list, item);
    }
    free(rows);
    return api_reply_json(req, MHD_HTTP_OK, json);
}
