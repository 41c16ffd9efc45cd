/*
 * api_game_actions.c — what players (and arbiters) do to a game: move,
 * claim a draw, offer one, resign, abort, adjudicate; and the test clock.
 */
#include "api_int.h"

#include "games.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define IDEMPOTENCY_KEY_MAX 64

static const struct api_field move_fields[] = {
    { "move", API_STRING, true, false, 1, 32 },
    { "ply", API_INTEGER, false, false, 0, 1000000 },
    { "message", API_STRING, false, true, 1, 4 * GAMES_MESSAGE_CHARS },
    { NULL, API_STRING, false, false, 0, 0 },
};

/* Counts a game a request ended. */
static void count_end(struct api_request *req, const struct games_result *r)
{
    if (r->outcome == GAMES_OK && r->game.status != DB_GAME_ACTIVE)
        api_metrics_game(req->metrics, &r->game, false);
}

static bool key_valid(const char *key)
{
    size_t n = strlen(key);
    if (n == 0 || n > IDEMPOTENCY_KEY_MAX)
        return false;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)key[i] < 0x20 || (unsigned char)key[i] > 0x7e)
            return false;
    return true;
}

/* The answer to a move as it is sent and kept under its Idempotency-Key:
 * the game, or the problem naming the move. */
static char *move_answer(const struct games_result *r, const void *move, int *status)
{
    unsigned code = 0;
    cJSON *json = api_outcome_json(r, MHD_HTTP_CREATED, move, &code);
    char *body = json ? cJSON_PrintUnformatted(json) : NULL;
    cJSON_Delete(json);
    *status = (int)code;
    return body;
}

/* A bot account plays through the Bot API, never through the web board's
 * forms (signed in by session); false with the reply sent otherwise. */
static bool not_a_bot_on_the_web(struct api_request *req, enum MHD_Result *replied)
{
    struct base_err err = { "" };
    enum db_status st;
    bool bot = false;

    if (!req->caller.by_session)
        return true;
    st = db_bot_get(req->config->pool, req->caller.player_id, &bot, &err);
    if (st != DB_OK)
        *replied = api_fail_db(req, st, err.text);
    else if (bot)
        *replied = api_fail(req, API_PROBLEM_FORBIDDEN,
                            "a bot account moves through the Bot API "
                            "(POST /api/bot/game/{id}/move/{move}), not the web board");
    return st == DB_OK && !bot;
}

enum MHD_Result api_game_move(struct api_request *req)
{
    const char *key = MHD_lookup_connection_value(req->conn, MHD_HEADER_KIND,
                                                  "Idempotency-Key");
    struct games_key k = { key, req->caller.token_id, req->method, req->path, move_answer,
                           NULL, 0, NULL };
    enum MHD_Result replied;
    struct games_result r;
    const char *move, *message;
    long ply;

    if (!not_a_bot_on_the_web(req, &replied))
        return replied;
    /* Keys are kept per token; a web session's moves (which send ply) have none. */
    if (req->caller.by_session)
        key = NULL;
    if (key != NULL && !key_valid(key))
        return api_fail(req, API_PROBLEM_BAD_REQUEST,
                        "an Idempotency-Key is 1 to %d printable ASCII characters (a UUID is "
                        "a good choice)", IDEMPOTENCY_KEY_MAX);
    if (!api_body_check(req, move_fields, &replied))
        return replied;
    move = api_body_string(req, "move");
    message = api_body_string(req, "message");
    if (message != NULL && !api_message_allowed(req, message, &replied))
        return replied;
    ply = api_body_integer(req, "ply", -1, NULL);
    k.render_arg = move;
    games_move(req->config->pool, req->caller.player_id, req->params[0], move, (int)ply,
               message, key != NULL ? &k : NULL, &r);
    api_metrics_move(req->metrics, &r);
    count_end(req, &r);
    if (key == NULL || r.outcome == GAMES_DB_ERROR || r.outcome == GAMES_KEY_REUSED)
        return api_reply_outcome(req, &r, MHD_HTTP_CREATED, move);
    games_result_clear(&r);
    /* The first answer, or this one as stored: the same bytes either way. */
    return api_reply_stored(req, (unsigned)k.status, k.body);
}

static const struct api_field claim_fields[] = {
    { "kind", API_STRING, true, false, 1, 16 },
    { "move", API_STRING, false, false, 1, 32 },
    { NULL, API_STRING, false, false, 0, 0 },
};

enum MHD_Result api_game_claim(struct api_request *req)
{
    enum MHD_Result replied, rc;
    struct games_result r;
    const char *kind, *move;
    enum games_claim claim;
    enum db_termination named = DB_END_NONE;
    cJSON *json, *game;

    /* A perpetual-check claim goes to an arbiter (api_arbiter.c). */
    if (api_claim_is_perpetual(req))
        return api_game_claim_perpetual(req);
    if (!api_body_check(req, claim_fields, &replied))
        return replied;
    kind = api_body_string(req, "kind");
    move = api_body_string(req, "move");
    /* A claim is named as the termination it would bring. */
    db_termination_parse(kind, &named);
    if (named == DB_END_THREEFOLD)
        claim = GAMES_CLAIM_THREEFOLD;
    else if (named == DB_END_FIFTY_MOVE)
        claim = GAMES_CLAIM_FIFTY_MOVE;
    else
        return api_fail(req, API_PROBLEM_BAD_REQUEST,
                        "'kind' must be \"threefold\" or \"fifty-move\", not \"%.16s\"", kind);
    games_claim(req->config->pool, req->caller.player_id, req->params[0], claim, move, &r);
    if (r.outcome == GAMES_OK)
        api_metrics_claim(req->metrics, claim == GAMES_CLAIM_FIFTY_MOVE, r.claim_accepted);
    count_end(req, &r);
    if (r.outcome != GAMES_OK)
        return api_reply_outcome(req, &r, MHD_HTTP_OK, move);
    game = api_game_json(&r.game);
    json = cJSON_CreateObject();
    cJSON_AddBoolToObject(json, "accepted", r.claim_accepted);
    cJSON_AddStringToObject(json, "reason", r.detail);
    cJSON_AddStringToObject(json, "code", r.code);
    cJSON_AddItemToObject(json, "game", game);
    rc = api_reply_json(req, MHD_HTTP_OK, json);
    games_result_clear(&r);
    return rc;
}

static const struct api_field draw_fields[] = {
    { "action", API_STRING, true, false, 1, 16 },
    { NULL, API_STRING, false, false, 0, 0 },
};

enum MHD_Result api_game_draw(struct api_request *req)
{
    static const char *const actions[] = { "offer", "accept", "decline" };
    enum MHD_Result replied;
    struct games_result r;
    const char *action;
    int which = -1;

    if (!api_body_check(req, draw_fields, &replied))
        return replied;
    action = api_body_string(req, "action");
    for (int i = 0; i < 3; i++)
        if (strcmp(action, actions[i]) == 0)
            which = i;
    if (which < 0)
        return api_fail(req, API_PROBLEM_BAD_REQUEST,
                        "'action' must be \"offer\", \"accept\" or \"decline\", not \"%.16s\"",
                        action);
    games_draw(req->config->pool, req->caller.player_id, req->params[0],
               (enum games_draw_action)which, &r);
    count_end(req, &r);
    return api_reply_outcome(req, &r, MHD_HTTP_OK, NULL);
}

enum MHD_Result api_game_resign(struct api_request *req)
{
    struct games_result r;
    games_resign(req->config->pool, req->caller.player_id, req->params[0], &r);
    count_end(req, &r);
    return api_reply_outcome(req, &r, MHD_HTTP_OK, NULL);
}

enum MHD_Result api_game_abort(struct api_request *req)
{
    struct games_result r;
    games_abort(req->config->pool, req->caller.player_id, req->params[0], &r);
    count_end(req, &r);
    return api_reply_outcome(req, &r, MHD_HTTP_OK, NULL);
}

static const struct api_field adjudication_fields[] = {
    { "result", API_STRING, true, false, 1, 16 },
    { "reason", API_LINES, true, false, 1, 500 },
    { NULL, API_STRING, false, false, 0, 0 },
};

enum MHD_Result api_game_adjudicate(struct api_request *req)
{
    enum MHD_Result replied;
    struct games_result r;
    enum rules_result result = RULES_RESULT_NONE;

    if (!api_body_check(req, adjudication_fields, &replied))
        return replied;
    if (!rules_result_parse(api_body_string(req, "result"), &result) ||
        result == RULES_RESULT_NONE)
        return api_fail(req, API_PROBLEM_BAD_REQUEST,
                        "'result' must be 1-0, 0-1, 1/2-1/2, 3/4-1/4 or 1/4-3/4");
    games_adjudicate(req->config->pool, req->params[0], result,
                     api_body_string(req, "reason"), &r);
    count_end(req, &r);
    return api_reply_outcome(req, &r, MHD_HTTP_OK, NULL);
}

static const struct api_field clock_fields[] = {
    { "offset_seconds", API_INTEGER, true, false, 0, 100L * 365 * 86400 },
    { NULL, API_STRING, false, false, 0, 0 },
};

enum MHD_Result api_admin_clock(struct api_request *req)
{
    enum MHD_Result replied;
    char now[DB_TIME_SIZE];
    struct base_err err = { "" };
    long offset;
    enum db_status st;
    cJSON *json;

    if (!api_body_check(req, clock_fields, &replied))
        return replied;
    offset = api_body_integer(req, "offset_seconds", 0, NULL);
    st = db_clock_set(req->config->pool, offset, now, &err);
    if (st != DB_OK)
        return api_fail_db(req, st, err.text);
    json = cJSON_CreateObject();
    cJSON_AddNumberToObject(json, "offset_seconds", (double)offset);
    cJSON_AddStringToObject(json, "now", now);
    return api_reply_json(req, MHD_HTTP_OK, json);
}
