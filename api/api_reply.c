/*
 * api_reply.c — the two ways korpd answers: JSON, or an RFC 9457 problem
 * whose status, type and title come from one table.
 */
#include "api_int.h"

#include "base.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    unsigned status;
    const char *type;    /* slug: the problem's type is /problems/<slug> */
    const char *title;
} problems[API_PROBLEM_COUNT] = {
    [API_PROBLEM_NOT_FOUND] = { 404, "not-found", "Not found" },
    [API_PROBLEM_METHOD_NOT_ALLOWED] = { 405, "method-not-allowed", "Method not allowed" },
    [API_PROBLEM_BODY_TOO_LARGE] = { 413, "body-too-large", "Request body too large" },
    [API_PROBLEM_BAD_REQUEST] = { 400, "bad-request", "Bad request" },
    [API_PROBLEM_UNSUPPORTED_MEDIA_TYPE] = { 415, "unsupported-media-type",
                                             "Unsupported media type" },
    [API_PROBLEM_UNAVAILABLE] = { 503, "unavailable", "Service unavailable" },
    [API_PROBLEM_INTERNAL] = { 500, "internal-error", "Internal server error" },
    [API_PROBLEM_UNAUTHORIZED] = { 401, "unauthorized", "Unauthorized" },
    [API_PROBLEM_FORBIDDEN] = { 403, "forbidden", "Forbidden" },
    [API_PROBLEM_CONFLICT] = { 409, "conflict", "Conflict" },
    [API_PROBLEM_NOT_YOUR_TURN] = { 409, "not-your-turn", "Not your turn" },
    [API_PROBLEM_GAME_OVER] = { 409, "game-over", "The game is over" },
    [API_PROBLEM_PLY_MISMATCH] = { 409, "ply-mismatch", "Ply does not match" },
    [API_PROBLEM_ILLEGAL_MOVE] = { 422, "illegal-move", "Illegal move" },
    [API_PROBLEM_DRAW_NOT_ALLOWED] = { 422, "draw-not-allowed", "Draw not allowed" },
    [API_PROBLEM_TOO_MANY_REQUESTS] = { 429, "too-many-requests", "Too many requests" },
    [API_PROBLEM_INVALID_WEBHOOK_URL] = { 422, "invalid-webhook-url",
                                          "The webhook URL cannot be used" },
    [API_PROBLEM_INVALID_VALUE] = { 422, "invalid-value", "A value is not allowed" },
    [API_PROBLEM_NOT_IMPLEMENTED] = { 501, "not-implemented", "Not implemented" },
    [API_PROBLEM_CONDITIONAL_CONFLICT] = { 422, "conditional-conflict",
                                           "Conditional moves disagree" },
    [API_PROBLEM_LEAVE_EXCEEDED] = { 422, "leave-exceeded", "Over the leave allowance" },
    [API_PROBLEM_EVENTS_PRUNED] = { 410, "events-pruned", "Those events are gone" },
    [API_PROBLEM_ANALYSIS_OWN_GAME] = { 403, "analysis-own-game",
                                        "No engine analysis of your own game in play" },
};

/*
 * cJSON allocates through these: a failed allocation marks the request
 * the thread is answering (api_route clears the mark before each handler),
 * so that JSON missing a member it could not allocate is never sent as if
 * whole, and the request is answered by api_fail_oom instead.
 */
static _Thread_local bool json_short;

static void *json_malloc(size_t size)
{
    void *p = malloc(size);
    if (p == NULL)
        json_short = true;
    return p;
}

void api_json_init(void)
{
    cJSON_Hooks hooks = { json_malloc, free };
    cJSON_InitHooks(&hooks);
}

void api_json_watch(void)
{
    json_short = false;
}

static struct MHD_Response *text_response(char *text, const char *content_type)
{
    struct MHD_Response *resp;
    if (text == NULL)
        return NULL;
    resp = MHD_create_response_from_buffer(strlen(text), text, MHD_RESPMEM_MUST_FREE);
    if (resp == NULL) {
        free(text);
        return NULL;
    }
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, content_type);
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    return resp;
}

static struct MHD_Response *json_response(cJSON *json, const char *content_type)
{
    char *text = json ? cJSON_PrintUnformatted(json) : NULL;
    cJSON_Delete(json);
    return text_response(text, content_type);
}

static enum MHD_Result reply_json_text(struct api_request *req, unsigned status, cJSON *json,
                                       const char *content_type)
{
    char *text = json && !json_short ? cJSON_PrintUnformatted(json) : NULL;
    cJSON_Delete(json);
    if (text == NULL || json_short) {
        free(text);
        return api_fail_oom(req);
    }
    return api_reply(req, status, text_response(text, content_type));
}

unsigned api_problem_status(enum api_problem problem)
{
    return problems[problem].status;
}

enum MHD_Result api_reply_stored(struct api_request *req, unsigned status, char *body)
{
    if (body == NULL)
        return api_fail_oom(req);
    return api_reply(req, status, text_response(body, status >= 400 ? "application/problem+json"
                                                                     : "application/json"));
}

enum MHD_Result api_reply(struct api_request *req, unsigned status, struct MHD_Response *resp)
{
    enum MHD_Result rc;
    if (resp == NULL)
        return MHD_NO;
    if (status == MHD_HTTP_SERVICE_UNAVAILABLE)
        MHD_add_response_header(resp, MHD_HTTP_HEADER_RETRY_AFTER, API_RETRY_AFTER);
    if (status == MHD_HTTP_TOO_MANY_REQUESTS) {
        char seconds[16];
        snprintf(seconds, sizeof seconds, "%d", req->retry_after > 0 ? req->retry_after : 1);
        MHD_add_response_header(resp, MHD_HTTP_HEADER_RETRY_AFTER, seconds);
    }
    MHD_add_response_header(resp, "X-Request-Id", req->request_id);
    /* Every answer is of the type it names: browsers must not guess. */
    if (MHD_get_response_header(resp, "X-Content-Type-Options") == NULL)
        MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
    req->status = status;
    if (req->deferred) {        /* on a request worker: the HTTP thread queues it */
        if (req->answer != NULL) {   /* answered already: the first answer stands */
            MHD_destroy_response(resp);
            return MHD_NO;
        }
        req->answer = resp;
        req->answer_status = status;
        req->replied = true;
        return MHD_YES;
    }
    rc = MHD_queue_response(req->conn, status, resp);
    MHD_destroy_response(resp);
    req->replied = true;
    return rc;
}

enum MHD_Result api_reply_json(struct api_request *req, unsigned status, cJSON *json)
{
    return reply_json_text(req, status, json, "application/json");
}

cJSON *api_problem_new(enum api_problem problem, const char *detail)
{
    char uri[128];
    cJSON *json = cJSON_CreateObject();
    if (json == NULL)
        return NULL;
    /* Relative references, resolved against the request: /problems/<slug>. */
    snprintf(uri, sizeof uri, "/problems/%s", problems[problem].type);
    cJSON_AddStringToObject(json, "type", uri);
    cJSON_AddStringToObject(json, "title", problems[problem].title);
    cJSON_AddNumberToObject(json, "status", problems[problem].status);
    if (detail != NULL)
        cJSON_AddStringToObject(json, "detail", detail);
    /* The type's slug, stable, for pages to say it in their
     * language (detail stays English, for bots and logs). */
    cJSON_AddStringToObject(json, "reason", problems[problem].type);
    return json;
}

void api_problem_reason(cJSON *problem, const char *reason)
{
    cJSON *text = cJSON_CreateString(reason);
    if (text != NULL && !cJSON_ReplaceItemInObjectCaseSensitive(problem, "reason", text) &&
        !cJSON_AddItemToObject(problem, "reason", text))
        cJSON_Delete(text);
}

struct MHD_Response *api_problem_response(enum api_problem problem, const char *detail,
                                          unsigned *status)
{
    *status = problems[problem].status;
    return json_response(api_problem_new(problem, detail), "application/problem+json");
}

enum MHD_Result api_reply_problem(struct api_request *req, enum api_problem problem,
                                  cJSON *json)
{
    struct MHD_Response *resp;
    if (problem != API_PROBLEM_UNAUTHORIZED)
        return reply_json_text(req, problems[problem].status, json, "application/problem+json");
    resp = json_response(json, "application/problem+json");
    if (resp != NULL)
        MHD_add_response_header(resp, MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Bearer");
    return api_reply(req, problems[problem].status, resp);
}

/*
 * Makes text valid UTF-8 in place: details quote what clients sent, which
 * may not be UTF-8, or may have been cut inside a character by a %.Ns.
 * Each byte that breaks the encoding becomes '?'.
 */
static void utf8_mend(char *text)
{
    size_t n = strlen(text);
    long bad;
    while ((bad = base_utf8_invalid_at((const unsigned char *)text, n)) >= 0)
        text[bad] = '?';
}

enum MHD_Result api_fail_reason(struct api_request *req, enum api_problem problem,
                                const char *reason, const char *fmt, ...)
{
    char detail[512];
    cJSON *json;
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    utf8_mend(detail);
    json = api_problem_new(problem, detail);
    if (json != NULL && reason != NULL)
        api_problem_reason(json, reason);
    return api_reply_problem(req, problem, json);
}

enum MHD_Result api_fail_oom(struct api_request *req)
{
    struct MHD_Response *resp;
    unsigned status;

    base_log(BASE_LOG_ERROR, "%s %s: out of memory", req->method, req->path);
    /* Written without reply_json_text: this is where it turns when short. */
    json_short = false;
    resp = api_problem_response(API_PROBLEM_UNAVAILABLE,
                                "the server is short of memory; try again in a few seconds",
                                &status);
    return api_reply(req, status, resp);
}

enum MHD_Result api_fail_db(struct api_request *req, enum db_status status, const char *err)
{
    switch (status) {
    case DB_BUSY:
    case DB_SERIALIZATION:
        base_log(BASE_LOG_WARN, "%s %s: database busy: %s", req->method, req->path, err);
        return api_fail(req, API_PROBLEM_UNAVAILABLE,
                        "the database is busy; try again in a few seconds");
    case DB_UNREACHABLE:
        base_log(BASE_LOG_WARN, "%s %s: database unreachable: %s", req->method, req->path, err);
        return api_fail(req, API_PROBLEM_UNAVAILABLE,
                        "the database cannot be reached; try again in a few seconds");
    case DB_COMMIT_UNKNOWN:
        base_log(BASE_LOG_ERROR, "%s %s: commit outcome unknown: %s", req->method, req->path,
                 err);
        return api_fail(req, API_PROBLEM_UNAVAILABLE,
                        "the database connection broke while saving; the change may or may "
                        "not have been made: read the resource again before retrying");
    default:
        base_log(BASE_LOG_ERROR, "%s %s: database error (%s): %s", req->method, req->path,
                 db_status_text(status), err);
        return api_fail(req, API_PROBLEM_INTERNAL,
                        "the server could not complete the request; it has been logged");
    }
}
