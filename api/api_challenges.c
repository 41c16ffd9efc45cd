/*
 * api_challenges.c — challenges: made by one player to another, listed,
 * accepted (a game starts), declined or cancelled.
 */
#include "api_int.h"

#include "games.h"

#include <stdio.h>
#include <string.h>

#define MAX_CHALLENGES_LISTED 100

static cJSON *challenge_json(const struct db_challenge *c)
{
    cJSON *json = cJSON_CreateObject(), *p;
    cJSON_AddStringToObject(json, "id", c->id);
    cJSON_AddStringToObject(json, "variant", c->variant ? c->variant->name : "");
    p = cJSON_AddObjectToObject(json, "challenger");
    cJSON_AddStringToObject(p, "id", c->challenger_id);
    cJSON_AddStringToObject(p, "name", c->challenger_name);
    if (c->opponent_id[0] != '\0') {
        p = cJSON_AddObjectToObject(json, "opponent");
        cJSON_AddStringToObject(p, "id", c->opponent_id);
        cJSON_AddStringToObject(p, "name", c->opponent_name);
    } else {
        cJSON_AddNullToObject(json, "opponent");   /* open to anyone */
    }
    cJSON_AddStringToObject(json, "color", db_color_text(c->color));
    if (c->days_per_move > 0)
        cJSON_AddNumberToObject(json, "days_per_move", c->days_per_move);
    else
        cJSON_AddNullToObject(json, "days_per_move");
    cJSON_AddBoolToObject(json, "fifty_move_rule", c->fifty_move_rule);
    cJSON_AddItemToObject(json, "clock", api_clock_json(&c->clock, NULL));
    cJSON_AddBoolToObject(json, "leave_allowed", c->clock.leave_allowed);
    cJSON_AddStringToObject(json, "status", db_challenge_status_text(c->status));
    if (c->game_id[0] != '\0')
        cJSON_AddStringToObject(json, "game_id", c->game_id);
    else
        cJSON_AddNullToObject(json, "game_id");
    cJSON_AddStringToObject(json, "created_at", c->created_at);
    cJSON_AddBoolToObject(json, "rated", c->rated);
    cJSON_AddStringToObject(json, "engines", api_engines_text(c->engines_allowed));
    return json;
}

/* A list of challenges under that name in json. */
static void add_challenges(cJSON *json, const char *name, const struct db_challenge *c, int n)
{
    cJSON *list = cJSON_AddArrayToObject(json, name);
    for (int i = 0; i < n; i++)
        cJSON_AddItemToArray(list, challenge_json(&c[i]));
}

static const struct api_field challenge_fields[] = {
    { "variant", API_STRING, true, false, 1, 32 },
    { "opponent", API_STRING, true, true, 1, 64 },
    { "color", API_STRING, false, false, 1, 16 },
    { "days_per_move", API_INTEGER, false, true, 1, 60 },
    { "fifty_move_rule", API_BOOLEAN, false, false, 0, 0 },
    { "clock", API_OBJECT, false, true, 0, 0 },
    { "leave_allowed", API_BOOLEAN, false, false, 0, 0 },
    { "rated", API_BOOLEAN, false, false, 0, 0 },
    { "engines", API_STRING, false, false, 1, 16 },
    { NULL, API_STRING, false, false, 0, 0 },
};

/* The members of each kind of clock. */
static const struct api_field per_move_fields[] = {
    { "type", API_STRING, true, false, 1, 16 },
    { "days", API_INTEGER, true, false, 1, 60 },
    { NULL, API_STRING, false, false, 0, 0 },
};

static const struct api_field fischer_fields[] = {
    { "type", API_STRING, true, false, 1, 16 },
    { "initial_days", API_INTEGER, true, false, 1, 180 },
    { "increment_days", API_INTEGER, true, false, 0, 30 },
    { "max_days", API_INTEGER, true, false, 1, 365 },
    { NULL, API_STRING, false, false, 0, 0 },
};

static int member_int(const cJSON *json, const char *name)
{
    return (int)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(json, name));
}

/* Reads the body's `clock` (or its days_per_move) and leave_allowed into
 * clock and *days_per_move (0: none); false with why when it is not one
 * korpd knows.  Challenges and tournaments take the same. */
bool api_clock_read(struct api_request *req, struct db_clock *clock, int *days_per_move,
                    char *why, size_t size)
{
    const cJSON *json = cJSON_GetObjectItemCaseSensitive(req->json, "clock");
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(json, "type");
    enum db_clock_type kind = DB_CLOCK_NONE;
    char inner[200];
    bool days_null = true;
    long days = api_body_integer(req, "days_per_move", 0, &days_null);

    clock->leave_allowed = api_body_boolean(req, "leave_allowed", true);
    if (json == NULL || cJSON_IsNull(json)) {
        *days_per_move = (int)days;
        clock->type = days > 0 ? DB_CLOCK_PER_MOVE : DB_CLOCK_NONE;
        clock->days = (int)days;
        return true;
    }
    if (days > 0 && !days_null) {
        snprintf(why, size, "send either 'clock' or 'days_per_move', not both "
                 "('days_per_move': N is 'clock': {\"type\": \"per_move\", \"days\": N})");
        return false;
    }
    if (!cJSON_IsString(type) || !db_clock_type_parse(type->valuestring, &kind) ||
        kind == DB_CLOCK_NONE) {
        snprintf(why, size, "'clock' needs a 'type': \"per_move\" or \"fischer\"");
        return false;
    }
    if (!api_json_check(json, kind == DB_CLOCK_FISCHER ? fischer_fields : per_move_fields,
                        inner, sizeof inner)) {
        snprintf(why, size, "in 'clock' (%s): %s", type->valuestring, inner);
        return false;
    }
    clock->type = kind;
    if (kind == DB_CLOCK_PER_MOVE) {
        clock->days = *days_per_move = member_int(json, "days");
        return true;
    }
    clock->initial_days = member_int(json, "initial_days");
    clock->increment_days = member_int(json, "increment_days");
    clock->max_days = member_int(json, "max_days");
    if (clock->max_days < clock->initial_days) {
        snprintf(why, size, "a Fischer clock's 'max_days' (%d) must be at least its "
                 "'initial_days' (%d)", clock->max_days, clock->initial_days);
        return false;
    }
    return true;
}

enum MHD_Result api_challenge_create(struct api_request *req)
{
    enum MHD_Result replied;
    struct db_challenge c;
    struct games_result r;
    const char *variant, *opponent, *color;
    char why[256];
    enum db_color chosen = DB_COLOR_NONE;

    if (!api_body_check(req, challenge_fields, &replied))
        return replied;
    variant = api_body_string(req, "variant");
    opponent = api_body_string(req, "opponent");
    color = api_body_string(req, "color");
    if (color == NULL)
        color = "random";
    if (db_variant_parse(variant) == NULL)
        return api_fail(req, API_PROBLEM_BAD_REQUEST,
                        "'variant' must be \"korpalski\" or \"glinski\", not \"%.32s\"", variant);
    if (!db_color_parse(color, &chosen) || chosen == DB_COLOR_NONE)
        return api_fail(req, API_PROBLEM_BAD_REQUEST,
                        "'color' must be \"white\", \"black\" or \"random\", not \"%.16s\"", color);
    if (opponent != NULL && !api_id_valid(opponent))
        return api_fail(req, API_PROBLEM_NOT_FOUND,
                        "no player has that id: 'opponent' is a player id, letters and digits "
                        "(or null for a challenge anyone may accept)");
    if (opponent != NULL && strcmp(opponent, req->caller.player_id) == 0)
        return api_fail(req, API_PROBLEM_BAD_REQUEST,
                        "you cannot challenge yourself; 'opponent' is another player's id");
    memset(&c, 0, sizeof c);
    c.variant = db_variant_parse(variant);
    snprintf(c.challenger_id, sizeof c.challenger_id, "%s", req->caller.player_id);
    snprintf(c.opponent_id, sizeof c.opponent_id, "%s", opponent ? opponent : "");
    c.color = chosen;
    if (!api_clock_read(req, &c.clock, &c.days_per_move, why, sizeof why))
        return api_fail(req, API_PROBLEM_BAD_REQUEST, "%s", why);
    c.fifty_move_rule = api_body_boolean(req, "fifty_move_rule", true);
    c.rated = api_body_boolean(req, "rated", true);
    if (!api_engines_read(req, c.rated, &c.engines_allowed, &replied))
        return replied;
    games_challenge_create(req->config->pool, &c, req->config->challenges_per_day, &r);
    if (r.outcome == GAMES_DAILY_LIMIT)
        req->retry_after = r.retry_after;
    if (r.outcome != GAMES_OK) {
        replied = api_reply_refused(req, &r);
        games_result_clear(&r);
        return replied;
    }
    games_result_clear(&r);
    return api_reply_json(req, MHD_HTTP_CREATED, challenge_json(&c));
}

enum MHD_Result api_challenge_list(struct api_request *req)
{
    static const int max = MAX_CHALLENGES_LISTED;
    struct db_challenge in[MAX_CHALLENGES_LISTED], out[MAX_CHALLENGES_LISTED];
    int count_in = 0, count_out = 0;
    struct base_err err = { "" };
    enum db_status st = db_challenge_list(req->config->pool, req->caller.player_id, in, max,
                                          &count_in, out, max, &count_out, &err);
    cJSON *json;

    if (st != DB_OK)
        return api_fail_db(req, st, err.text);
    json = cJSON_CreateObject();
    add_challenges(json, "incoming", in, count_in);
    add_challenges(json, "outgoing", out, count_out);
    return api_reply_json(req, MHD_HTTP_OK, json);
}

enum MHD_Result api_challenge_accept(struct api_request *req)
{
    struct games_result r;
    enum MHD_Result rc;
    cJSON *json;

    games_challenge_accept(req->config->pool, req->caller.player_id, req->params[0], &r);
    if (r.outcome != GAMES_OK)
        return api_reply_outcome(req, &r, MHD_HTTP_CREATED, NULL);
    api_metrics_game(req->metrics, &r.game, true);
    json = cJSON_CreateObject();
    cJSON_AddStringToObject(json, "game_id", r.game.id);
    cJSON_AddItemToObject(json, "game", api_game_json(&r.game));
    rc = api_reply_json(req, MHD_HTTP_CREATED, json);
    games_result_clear(&r);
    return rc;
}

static enum MHD_Result close_challenge(struct api_request *req, bool decline)
{
    struct games_result r;
    struct db_challenge c;

    games_challenge_close(req->config->pool, req->caller.player_id, req->params[0], decline,
                          &c, &r);
    if (r.outcome != GAMES_OK)
        return api_reply_outcome(req, &r, MHD_HTTP_OK, NULL);
    games_result_clear(&r);
    return api_reply_json(req, MHD_HTTP_OK, challenge_json(&c));
}

enum MHD_Result api_challenge_decline(struct api_request *req)
{
    return close_challenge(req, true);
}

enum MHD_Result api_challenge_cancel(struct api_request *req)
{
    return close_challenge(req, false);
}

/* Challenges anyone may accept (opponent null), newest first. */
enum MHD_Result api_challenge_open(struct api_request *req)
{
    struct db_challenge open[MAX_CHALLENGES_LISTED];
    struct base_err err = { "" };
    int count = 0;
    enum db_status st = db_challenges_open(req->config->pool, open, MAX_CHALLENGES_LISTED,
                                           &count, &err);
    cJSON *json;

    if (st != DB_OK)
        return api_fail_db(req, st, err.text);
    json = cJSON_CreateObject();
    add_challenges(json, "challenges", open, count);
    return api_reply_json(req, MHD_HTTP_OK, json);
}

/* One challenge, for anyone with its link (the email's). */
enum MHD_Result api_challenge_get(struct api_request *req)
{
    struct db_challenge c;
    struct base_err err = { "" };
    enum db_status st = db_challenge_get(req->config->pool, req->params[0], &c, &err);
    if (st == DB_NOT_FOUND)
        return api_fail(req, API_PROBLEM_NOT_FOUND, "no challenge has the id '%s'",
                        req->params[0]);
    if (st != DB_OK)
        return api_fail_db(req, st, err.text);
    return api_reply_json(req, MHD_HTTP_OK, challenge_json(&c));
}
