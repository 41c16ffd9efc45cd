/*
 * api_lichess.c — what the routes for bots written for lichess share: its
 * error objects, its {"ok": true}, and who is calling.
 */
#include "api_lichess.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

enum MHD_Result api_lichess_text(struct api_request *req, char *body, const char *type)
{
    struct MHD_Response *resp =
        MHD_create_response_from_buffer(strlen(body), body, MHD_RESPMEM_MUST_FREE);
    if (resp == NULL) {
        free(body);
        return api_fail_oom(req);
    }
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    return api_reply(req, MHD_HTTP_OK, resp);
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

bool api_lichess_game(struct api_request *req, struct db_game *g, enum MHD_Result *replied)
{
    struct base_err err = { "" };
    enum db_status st = db_game_get(req->config->pool, req->params[0], g, &err);

    if (st == DB_NOT_FOUND)
        *replied = api_lichess_error(req, MHD_HTTP_NOT_FOUND, "No such game");
    else if (st != DB_OK)
        *replied = api_fail_db(req, st, err.text);
    return st == DB_OK;
}

enum MHD_Result api_lichess_change(struct api_request *req, api_lichess_change_fn change,
                                   bool starts)
{
    enum MHD_Result replied;
    struct games_result r;

    if (!api_lichess_caller(req, &replied))
        return replied;
    change(req->config->pool, req->caller.player_id, req->params[0], &r);
    if (starts && r.outcome == GAMES_OK)
        api_metrics_game(req->metrics, &r.game, true);
    return api_lichess_done(req, &r);
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

/* Decodes a form's text (len bytes: '+' a space, %XX a byte) into out. */
static void form_decode(const char *text, size_t len, char *out, size_t size)
{
    size_t n = len < size - 1 ? len : size - 1;
    memcpy(out, text, n);
    out[n] = '\0';
    for (char *c = out; *c != '\0'; c++)
        if (*c == '+')
            *c = ' ';
    MHD_http_unescape(out);
}

static bool form_field(const char *body, size_t len, const char *name, char *out, size_t size)
{
    const char *at = body, *end = body + len;
    size_t name_len = strlen(name);

    while (at < end) {
        const char *amp = memchr(at, '&', (size_t)(end - at));
        const char *stop = amp != NULL ? amp : end;
        const char *eq = memchr(at, '=', (size_t)(stop - at));
        if (eq != NULL && (size_t)(eq - at) == name_len && memcmp(at, name, name_len) == 0) {
            form_decode(eq + 1, (size_t)(stop - eq - 1), out, size);
            return true;
        }
        at = stop + 1;
    }
    return false;
}

static bool json_field(const char *body, size_t len, const char *name, char *out, size_t size)
{
    char why[128];
    cJSON *json = NULL;
    const cJSON *item;
    bool found = false;

    if (!api_json_read(body, len, &json, why, sizeof why))
        return false;
    item = cJSON_GetObjectItemCaseSensitive(json, name);
    if (cJSON_IsString(item)) {
        snprintf(out, size, "%s", item->valuestring);
        found = true;
    } else if (cJSON_IsBool(item)) {
        snprintf(out, size, "%s", cJSON_IsTrue(item) ? "true" : "false");
        found = true;
    } else if (cJSON_IsNumber(item)) {
        snprintf(out, size, "%.0f", item->valuedouble);
        found = true;
    }
    cJSON_Delete(json);
    return found;
}

bool api_lichess_field(const struct api_request *req, const char *name, char *out, size_t size)
{
    size_t skip = 0;

    if (req->body == NULL || req->body_len == 0)
        return false;
    while (skip < req->body_len && (req->body[skip] == ' ' || req->body[skip] == '\n' ||
                                    req->body[skip] == '\r' || req->body[skip] == '\t'))
        skip++;
    if (skip < req->body_len && req->body[skip] == '{')
        return json_field(req->body, req->body_len, name, out, size);
    return form_field(req->body, req->body_len, name, out, size);
}
