/*
 * api_lichess.c — what the routes for bots written for lichess share: its
 * error objects, its {"ok": true}, and who is calling.
 */
#include "api_lichess.h"

#include <stdarg.h>
#include <stdio.h>

enum MHD_Result api_lichess_error(struct api_request *req, unsigned status, const char *fmt, ...)
{
    char text[512];
    va_list ap;
    cJSON *json = cJSON_CreateObject();

    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (json == NULL || cJSON_AddStringToObject(json, "error", text) == NULL) {
        cJSON_Delete(json);
        return api_fail_oom(req);
    }
    return api_reply_json(req, status, json);
}

enum MHD_Result api_lichess_ok(struct api_request *req)
{
    cJSON *json = cJSON_CreateObject();
    if (json == NULL || cJSON_AddBoolToObject(json, "ok", true) == NULL) {
        cJSON_Delete(json);
        return api_fail_oom(req);
    }
    return api_reply_json(req, MHD_HTTP_OK, json);
}

bool api_lichess_caller(struct api_request *req, enum MHD_Result *replied)
{
    /* The route table names the caller of a valid token (identify_quietly). */
    if (req->authenticated)
        return true;
    *replied = api_lichess_error(req, MHD_HTTP_UNAUTHORIZED, "No such token");
    return false;
}

enum MHD_Result api_lichess_refusal(struct api_request *req, struct games_result *r)
{
    enum MHD_Result rc;
    unsigned status = MHD_HTTP_BAD_REQUEST;

    if (r->outcome == GAMES_DB_ERROR) {
        rc = api_fail_db(req, r->db, r->err.text);
        games_result_clear(r);
        return rc;
    }
    /* What the caller may not touch, lichess answers as what is not there. */
    if (r->outcome == GAMES_NOT_FOUND || r->outcome == GAMES_NOT_YOURS ||
        r->outcome == GAMES_FORBIDDEN)
        status = MHD_HTTP_NOT_FOUND;
    else if (r->outcome == GAMES_DAILY_LIMIT) {
        status = MHD_HTTP_TOO_MANY_REQUESTS;
        req->retry_after = r->retry_after;
    }
    rc = api_lichess_error(req, status, "%s", r->detail);
    games_result_clear(r);
    return rc;
}

enum MHD_Result api_lichess_done(struct api_request *req, struct games_result *r)
{
    if (r->outcome != GAMES_OK)
        return api_lichess_refusal(req, r);
    if (r->game.status != DB_GAME_ACTIVE)
        api_metrics_game(req->metrics, &r->game, false);
    games_result_clear(r);
    return api_lichess_ok(req);
}
