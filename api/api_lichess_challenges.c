/*
 * api_lichess_challenges.c — challenges as lichess's clients make and
 * answer them: to a player named by user name, with a form (lichess-bot)
 * or JSON (berserk); accepted, declined with one of lichess's reasons, or
 * cancelled.  Each is one games/ change.
 */
#include "api_lichess.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The longest correspondence time lichess offers, in days per move. */
#define DAYS_MAX 14

/* lichess's reasons to decline, as its clients send them. */
static const char *const decline_reasons[] = {
    "generic", "later", "tooFast", "tooSlow", "timeControl", "rated", "casual",
    "standard", "variant", "noBot", "onlyBot", NULL,
};

/* A challenge's status in lichess's words. */
static const char *status_word(enum db_challenge_status s)
{
    switch (s) {
    case DB_CHALLENGE_OPEN:
        return "created";
    case DB_CHALLENGE_ACCEPTED:
        return "accepted";
    case DB_CHALLENGE_DECLINED:
        return "declined";
    case DB_CHALLENGE_CANCELLED:
        return "canceled";
    }
    return "created";
}

static void add_user(cJSON *json, const char *key, const char *id, const char *name)
{
    cJSON *user;
    if (id[0] == '\0') {
        cJSON_AddNullToObject(json, key);
        return;
    }
    user = cJSON_AddObjectToObject(json, key);
    cJSON_AddStringToObject(user, "id", id);
    cJSON_AddStringToObject(user, "name", name);
}

cJSON *api_lichess_challenge_json(const struct db_challenge *c)
{
    char url[64];
    cJSON *json = cJSON_CreateObject(), *variant, *tc, *perf;

    snprintf(url, sizeof url, "/challenges/%s", c->id);
    cJSON_AddStringToObject(json, "id", c->id);
    cJSON_AddStringToObject(json, "url", url);
    cJSON_AddStringToObject(json, "status", status_word(c->status));
    add_user(json, "challenger", c->challenger_id, c->challenger_name);
    add_user(json, "destUser", c->opponent_id, c->opponent_name);
    variant = cJSON_AddObjectToObject(json, "variant");
    cJSON_AddStringToObject(variant, "key", c->variant->name);
    cJSON_AddStringToObject(variant, "name", c->variant->pgn_name);
    cJSON_AddBoolToObject(json, "rated", c->rated);
    cJSON_AddStringToObject(json, "speed", "correspondence");
    tc = cJSON_AddObjectToObject(json, "timeControl");
    if (c->days_per_move > 0) {
        cJSON_AddStringToObject(tc, "type", "correspondence");
        cJSON_AddNumberToObject(tc, "daysPerTurn", c->days_per_move);
    } else {
        cJSON_AddStringToObject(tc, "type", "unlimited");
    }
    cJSON_AddStringToObject(json, "color", db_color_text(c->color));
    perf = cJSON_AddObjectToObject(json, "perf");
    cJSON_AddStringToObject(perf, "icon", "");   /* lichess's is a glyph of its font */
    cJSON_AddStringToObject(perf, "name", c->variant->pgn_name);
    return json;
}

/* Reads a form's or JSON's boolean: absent is `fallback`. */
static bool read_bool(const struct api_request *req, const char *name, bool fallback, bool *out)
{
    char text[8];
    *out = fallback;
    if (!api_lichess_field(req, name, text, sizeof text))
        return true;
    *out = strcmp(text, "true") == 0;
    return *out || strcmp(text, "false") == 0;
}

enum MHD_Result api_lichess_challenge_create(struct api_request *req)
{
    char variant[16] = "korpalski", color[8] = "random", days[8] = "", limit[8];
    struct base_err err = { "" };
    enum MHD_Result replied;
    struct db_challenge c;
    struct games_result r;
    enum db_status st;
    char *end = NULL;
    long d = 0;

    if (!api_lichess_caller(req, &replied))
        return replied;
    memset(&c, 0, sizeof c);
    api_lichess_field(req, "variant", variant, sizeof variant);
    api_lichess_field(req, "color", color, sizeof color);
    if (api_lichess_field(req, "clock.limit", limit, sizeof limit))
        return api_lichess_error(req, MHD_HTTP_BAD_REQUEST,
                                 "korp plays correspondence games only: send days, or no time "
                                 "control at all");
    if (api_lichess_field(req, "days", days, sizeof days)) {
        d = strtol(days, &end, 10);
        if (end == days || *end != '\0' || d < 1 || d > DAYS_MAX)
            return api_lichess_error(req, MHD_HTTP_BAD_REQUEST,
                                     "days must be a whole number from 1 to %d", DAYS_MAX);
    }
    c.variant = db_variant_parse(variant);
    if (c.variant == NULL)
        return api_lichess_error(req, MHD_HTTP_BAD_REQUEST,
                                 "variant must be korpalski or glinski");
    if (!db_color_parse(color, &c.color) || c.color == DB_COLOR_NONE)
        return api_lichess_error(req, MHD_HTTP_BAD_REQUEST,
                                 "color must be white, black or random");
    if (!read_bool(req, "rated", false, &c.rated))
        return api_lichess_error(req, MHD_HTTP_BAD_REQUEST, "rated must be true or false");
    st = db_player_by_name(req->config->pool, req->params[0], c.opponent_id, c.opponent_name,
                           &err);
    if (st == DB_NOT_FOUND)
        return api_lichess_error(req, MHD_HTTP_NOT_FOUND, "No such user");
    if (st != DB_OK)
        return api_fail_db(req, st, err.text);
    if (strcmp(c.opponent_id, req->caller.player_id) == 0)
        return api_lichess_error(req, MHD_HTTP_BAD_REQUEST, "You cannot challenge yourself");
    snprintf(c.challenger_id, sizeof c.challenger_id, "%s", req->caller.player_id);
    c.days_per_move = (int)d;
    c.clock.type = d > 0 ? DB_CLOCK_PER_MOVE : DB_CLOCK_NONE;
    c.clock.days = (int)d;
    c.clock.leave_allowed = true;
    c.fifty_move_rule = true;
    games_challenge_create(req->config->pool, &c, req->config->challenges_per_day, &r);
    if (r.outcome != GAMES_OK)
        return api_lichess_refusal(req, &r);
    games_result_clear(&r);
    return api_reply_json(req, MHD_HTTP_OK, api_lichess_challenge_json(&c));
}

enum MHD_Result api_lichess_challenge_accept(struct api_request *req)
{
    return api_lichess_change(req, games_challenge_accept, true);
}

/* Declines (as the opponent, with a reason) or cancels (as the challenger,
 * reason NULL). */
static enum MHD_Result close_challenge(struct api_request *req, const char *reason)
{
    enum MHD_Result replied;
    struct db_challenge c;
    struct games_result r;

    if (!api_lichess_caller(req, &replied))
        return replied;
    if (reason != NULL)
        games_challenge_decline(req->config->pool, req->caller.player_id, req->params[0],
                                reason, &c, &r);
    else
        games_challenge_close(req->config->pool, req->caller.player_id, req->params[0], false,
                              &c, &r);
    return api_lichess_done(req, &r);
}

enum MHD_Result api_lichess_challenge_decline(struct api_request *req)
{
    char reason[16] = "generic";
    enum MHD_Result replied;
    bool known = false;

    if (!api_lichess_caller(req, &replied))
        return replied;
    api_lichess_field(req, "reason", reason, sizeof reason);
    for (const char *const *k = decline_reasons; *k != NULL; k++)
        known = known || strcmp(reason, *k) == 0;
    if (!known)
        return api_lichess_error(req, MHD_HTTP_BAD_REQUEST,
                                 "reason must be one of generic, later, tooFast, tooSlow, "
                                 "timeControl, rated, casual, standard, variant, noBot, onlyBot");
    return close_challenge(req, reason);
}

enum MHD_Result api_lichess_challenge_cancel(struct api_request *req)
{
    return close_challenge(req, NULL);
}
