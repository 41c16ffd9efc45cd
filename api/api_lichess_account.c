/*
 * api_lichess_account.c — accounts as bots written for lichess read them:
 * which player a token is, the profile with its perfs, the upgrade to a
 * bot account, and the games being played.
 */
#include "api_lichess.h"

#include "ratings.h"

#include <stdlib.h>
#include <string.h>

/* Tokens /api/token/test answers about at most (lichess's own cap). */
#define TOKENS_TESTED_MAX 1000
/* Games /api/account/playing lists at most. */
#define PLAYING_MAX 50
/* What a korp token lets a lichess client do. */
#define TOKEN_SCOPES "bot:play,board:play,challenge:read,challenge:write"

enum MHD_Result api_lichess_token_test(struct api_request *req)
{
    cJSON *json = cJSON_CreateObject();
    const char *at = req->body != NULL ? req->body : "";
    const char *end = at + req->body_len;
    int tested = 0;

    while (at < end && tested++ < TOKENS_TESTED_MAX) {
        const char *comma = memchr(at, ',', (size_t)(end - at));
        const char *stop = comma != NULL ? comma : end;
        char token[129];
        size_t len;
        struct db_caller caller = { "", "", "", false, false };
        struct base_err err = { "" };
        enum db_status st = DB_NOT_FOUND;

        while (at < stop && (*at == ' ' || *at == '\n' || *at == '\r' || *at == '\t'))
            at++;
        len = (size_t)(stop - at);
        while (len > 0 && (at[len - 1] == ' ' || at[len - 1] == '\n' || at[len - 1] == '\r' ||
                           at[len - 1] == '\t'))
            len--;
        if (len > 0 && len < sizeof token) {
            memcpy(token, at, len);
            token[len] = '\0';
            st = db_caller_find(req->config->pool, token, &caller, &err);
            if (st != DB_OK && st != DB_NOT_FOUND) {
                cJSON_Delete(json);
                return api_fail_db(req, st, err.text);
            }
            if (st == DB_OK && !caller.by_session) {
                cJSON *info = cJSON_AddObjectToObject(json, token);
                cJSON_AddStringToObject(info, "userId", caller.player_id);
                cJSON_AddStringToObject(info, "scopes", TOKEN_SCOPES);
                cJSON_AddNullToObject(info, "expires");
            } else {
                cJSON_AddNullToObject(json, token);
            }
        }
        at = stop + 1;
    }
    return api_reply_json(req, MHD_HTTP_OK, json);
}

/* A perf: the stored rating in v, or korp's starting one. */
static cJSON *perf_json(const struct db_rating *stored, int count, const struct rules_variant *v)
{
    double rating = RATINGS_START_RATING, rd = RATINGS_START_RD;
    int games = 0;
    cJSON *perf = cJSON_CreateObject();

    for (int i = 0; i < count; i++)
        if (stored[i].variant == v) {
            rating = stored[i].rating;
            rd = stored[i].rd;
            games = stored[i].games;
        }
    cJSON_AddNumberToObject(perf, "rating", (double)(long)(rating + 0.5));
    cJSON_AddNumberToObject(perf, "rd", (double)(long)(rd + 0.5));
    cJSON_AddBoolToObject(perf, "prov", rd > RATINGS_PROVISIONAL_RD);
    cJSON_AddNumberToObject(perf, "games", games);
    return perf;
}

/* The player's ratings, as stored (variants never played rated have none). */
static enum db_status ratings_read(struct db_pool *pool, const char *player_id,
                                   struct db_rating *out, int max, int *count,
                                   struct base_err *err)
{
    *count = 0;
    return db_player_ratings(pool, player_id, out, max, count, err);
}

/* A player's public data as lichess shows a user: id, username, title
 * BOT for a bot account, a perf per variant.  NULL with *st set on a
 * database failure. */
static cJSON *user_json(struct api_request *req, const char *id, const char *name,
                        enum db_status *st, struct base_err *err)
{
    struct db_rating stored[8];
    int count = 0;
    bool bot = false;
    cJSON *json, *perfs;

    *st = db_bot_get(req->config->pool, id, &bot, err);
    if (*st == DB_OK)
        *st = ratings_read(req->config->pool, id, stored, 8, &count, err);
    if (*st != DB_OK)
        return NULL;
    json = cJSON_CreateObject();
    cJSON_AddStringToObject(json, "id", id);
    cJSON_AddStringToObject(json, "username", name);
    if (bot)
        cJSON_AddStringToObject(json, "title", "BOT");
    perfs = cJSON_AddObjectToObject(json, "perfs");
    for (const struct rules_variant *const *v = rules_variant_list(); *v != NULL; v++)
        cJSON_AddItemToObject(perfs, (*v)->name, perf_json(stored, count, *v));
    return json;
}

enum MHD_Result api_lichess_account(struct api_request *req)
{
    struct base_err err = { "" };
    enum MHD_Result replied;
    enum db_status st;
    cJSON *json;

    if (!api_lichess_caller(req, &replied))
        return replied;
    json = user_json(req, req->caller.player_id, req->caller.name, &st, &err);
    return json != NULL ? api_reply_json(req, MHD_HTTP_OK, json) : api_fail_db(req, st, err.text);
}

enum MHD_Result api_lichess_user(struct api_request *req)
{
    char id[BASE_ID_SIZE], name[DB_NAME_SIZE];
    struct base_err err = { "" };
    enum db_status st = db_player_by_name(req->config->pool, req->params[0], id, name, &err);
    cJSON *json;

    if (st == DB_NOT_FOUND)
        return api_lichess_error(req, MHD_HTTP_NOT_FOUND, "No such user");
    json = st == DB_OK ? user_json(req, id, name, &st, &err) : NULL;
    return json != NULL ? api_reply_json(req, MHD_HTTP_OK, json) : api_fail_db(req, st, err.text);
}

/* Users /api/users/status answers about at most (lichess's cap). */
#define STATUS_IDS_MAX 100

enum MHD_Result api_lichess_users_status(struct api_request *req)
{
    const char *ids = api_query(req, "ids");
    struct base_err err = { "" };
    cJSON *list;
    int asked = 0;

    if (ids == NULL)
        return api_lichess_error(req, MHD_HTTP_BAD_REQUEST, "ids is a comma-separated list");
    list = cJSON_CreateArray();
    for (const char *at = ids; *at != '\0' && asked < STATUS_IDS_MAX; asked++) {
        char one[API_PARAM_MAX + 1], id[BASE_ID_SIZE], name[DB_NAME_SIZE];
        size_t len = strcspn(at, ",");
        enum db_status st = DB_NOT_FOUND;
        bool bot = false, online = false;

        if (len > 0 && len <= API_PARAM_MAX) {
            memcpy(one, at, len);
            one[len] = '\0';
            if (api_id_valid(one))
                st = db_player_by_name(req->config->pool, one, id, name, &err);
            if (st == DB_OK)
                st = db_bot_get(req->config->pool, id, &bot, &err);
        }
        if (st == DB_OK) {
            cJSON *user = cJSON_CreateObject();
            cJSON_AddStringToObject(user, "id", id);
            cJSON_AddStringToObject(user, "name", name);
            if (bot)
                cJSON_AddStringToObject(user, "title", "BOT");
            /* lichess names "online" only when it is true. */
            if (bot && db_bot_online(req->config->pool, id,
                                     api_lichess_online_ms(req->config), &online,
                                     &err) == DB_OK && online)
                cJSON_AddBoolToObject(user, "online", true);
            cJSON_AddItemToArray(list, user);
        } else if (st != DB_NOT_FOUND) {
            cJSON_Delete(list);
            return api_fail_db(req, st, err.text);
        }
        at += len + (at[len] == ',');
    }
    return api_reply_json(req, MHD_HTTP_OK, list);
}

enum MHD_Result api_lichess_upgrade(struct api_request *req)
{
    struct base_err err = { "" };
    enum MHD_Result replied;
    bool refused = false;
    enum db_status st;

    if (!api_lichess_caller(req, &replied))
        return replied;
    st = db_bot_upgrade(req->config->pool, req->caller.player_id, &refused, &err);
    if (st != DB_OK)
        return api_fail_db(req, st, err.text);
    if (refused)
        return api_lichess_error(req, MHD_HTTP_BAD_REQUEST,
                                 "this account has played games: only an account that has "
                                 "played none can become a bot account");
    return api_lichess_ok(req);
}

cJSON *api_lichess_game_item(struct db_pool *pool, const char *player_id,
                             const struct db_game *g, enum db_status *st, struct base_err *err)
{
    bool white = strcmp(g->white_id, player_id) == 0;
    const char *opponent_id = white ? g->black_id : g->white_id;
    struct db_rating stored[8];
    struct db_move *moves = NULL;
    int count = 0, plies = 0;
    cJSON *item, *opponent, *variant, *perf;

    *st = ratings_read(pool, opponent_id, stored, 8, &count, err);
    if (*st == DB_OK)
        *st = db_move_list(pool, g->id, &moves, &plies, err);
    if (*st != DB_OK)
        return NULL;
    item = cJSON_CreateObject();
    cJSON_AddStringToObject(item, "gameId", g->id);
    cJSON_AddStringToObject(item, "fullId", g->id);
    cJSON_AddStringToObject(item, "color", white ? "white" : "black");
    cJSON_AddStringToObject(item, "fen", g->fen);
    /* White has moved after ply 1, Black after ply 2. */
    cJSON_AddBoolToObject(item, "hasMoved", g->ply >= (white ? 1 : 2));
    cJSON_AddBoolToObject(item, "isMyTurn", (g->ply % 2 == 0) == white);
    cJSON_AddStringToObject(item, "lastMove", plies > 0 ? moves[plies - 1].uci : "");
    opponent = cJSON_AddObjectToObject(item, "opponent");
    cJSON_AddStringToObject(opponent, "id", opponent_id);
    cJSON_AddStringToObject(opponent, "username", white ? g->black_name : g->white_name);
    perf = perf_json(stored, count, g->variant);
    cJSON_AddItemToObject(opponent, "rating",
                          cJSON_Duplicate(cJSON_GetObjectItem(perf, "rating"), true));
    cJSON_Delete(perf);
    cJSON_AddStringToObject(item, "perf", g->variant->name);
    cJSON_AddBoolToObject(item, "rated", g->rated);
    if (g->clock.type == DB_CLOCK_NONE)
        cJSON_AddNullToObject(item, "secondsLeft");
    else
        cJSON_AddNumberToObject(item, "secondsLeft",
                                (double)(white ? g->remaining_white : g->remaining_black));
    cJSON_AddStringToObject(item, "source", g->tournament_id[0] ? "arena" : "friend");
    cJSON_AddStringToObject(item, "speed", "correspondence");
    variant = cJSON_AddObjectToObject(item, "variant");
    cJSON_AddStringToObject(variant, "key", g->variant->name);
    cJSON_AddStringToObject(variant, "name", g->variant->pgn_name);
    free(moves);
    return item;
}

enum MHD_Result api_lichess_playing(struct api_request *req)
{
    static const enum db_game_status active = DB_GAME_ACTIVE;
    struct db_game_filter f = { .player_id = req->caller.player_id, .status = &active,
                                .limit = PLAYING_MAX };
    struct db_game *games = NULL;
    cJSON *json, *list;
    bool more = false;
    int count = 0;
    struct base_err err = { "" };
    enum db_status st;
    enum MHD_Result replied;

    if (!api_lichess_caller(req, &replied))
        return replied;
    games = calloc(PLAYING_MAX, sizeof *games);
    if (games == NULL)
        return api_fail_oom(req);
    st = db_game_list(req->config->pool, &f, games, PLAYING_MAX, &count, &more, &err);
    json = cJSON_CreateObject();
    list = cJSON_AddArrayToObject(json, "nowPlaying");
    for (int i = 0; i < count && st == DB_OK; i++)
        cJSON_AddItemToArray(list, api_lichess_game_item(req->config->pool,
                                                         req->caller.player_id, &games[i], &st,
                                                         &err));
    for (int i = 0; i < count; i++)
        db_game_clear(&games[i]);
    free(games);
    if (st != DB_OK) {
        cJSON_Delete(json);
        return api_fail_db(req, st, err.text);
    }
    return api_reply_json(req, MHD_HTTP_OK, json);
}
