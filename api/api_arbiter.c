/*
 * api_arbiter.c — the arbiter's queue over HTTP: perpetual-check
 * claims (through POST /v1/games/{id}/claims), players' requests, the queue
 * (arbiters only) and dismissals.
 */
#include "api_int.h"

#include "games.h"

#include <stdlib.h>
#include <string.h>

/* A page of the queue: as many as it ever showed at once, unless ?limit=
 * asks for fewer. */
#define QUEUE_MAX 500

static const struct api_field perpetual_fields[] = {
    { "kind", API_STRING, true, false, 1, 16 },
    { "line", API_STRING, true, false, 1, 512 },
    { NULL, API_STRING, false, false, 0, 0 },
};

bool api_claim_is_perpetual(struct api_request *req)
{
    const char *kind = api_body_string(req, "kind");
    return kind != NULL && strcmp(kind, "perpetual") == 0;
}

/* Replies to what went to the arbiter's queue: 202 {"pending": true,
 * name: id}, or the refusal. */
static enum MHD_Result pending(struct api_request *req, struct games_result *r,
                               const char *name, const char *id)
{
    cJSON *json;
    if (r->outcome != GAMES_OK)
        return api_reply_outcome(req, r, MHD_HTTP_ACCEPTED, NULL);
    games_result_clear(r);
    json = cJSON_CreateObject();
    cJSON_AddBoolToObject(json, "pending", true);
    cJSON_AddStringToObject(json, name, id);
    return api_reply_json(req, MHD_HTTP_ACCEPTED, json);
}

enum MHD_Result api_game_claim_perpetual(struct api_request *req)
{
    enum MHD_Result replied;
    struct games_result r;
    char claim_id[BASE_ID_SIZE] = "";
    bool not_check = false;

    if (api_body_string(req, "line") == NULL)
        return api_fail(req, API_PROBLEM_BAD_REQUEST,
                        "a claim of kind \"perpetual\" needs 'line': the moves to come, "
                        "yours first, like \"Qh5+ Kg8 Qe8+ Kh7 Qh5+\"");
    if (!api_body_check(req, perpetual_fields, &replied))
        return replied;
    games_perpetual_claim(req->config->pool, req->caller.player_id, req->params[0],
                          api_body_string(req, "line"), &not_check, claim_id, &r);
    return pending(req, &r, "claim_id", claim_id);
}

static const struct api_field request_fields[] = {
    { "text", API_LINES, true, false, 1, 2000 },
    { NULL, API_STRING, false, false, 0, 0 },
};

enum MHD_Result api_game_arbiter_request(struct api_request *req)
{
    enum MHD_Result replied;
    struct games_result r;
    char request_id[BASE_ID_SIZE] = "";

    if (!api_body_check(req, request_fields, &replied))
        return replied;
    games_arbiter_request(req->config->pool, req->caller.player_id, req->params[0],
                          api_body_string(req, "text"), request_id, &r);
    if (r.outcome == GAMES_DAILY_LIMIT)
        req->retry_after = r.retry_after;
    return pending(req, &r, "request_id", request_id);
}

enum MHD_Result api_arbiter_queue(struct api_request *req)
{
    struct base_err err = { "" };
    struct db_queue_item *items = NULL;
    struct api_page page = { 0 };
    enum MHD_Result replied;
    int count = 0;
    bool more = false;
    enum db_status st;
    cJSON *json, *list;

    /* Oldest first, paged by a cursor as the game list is. */
    if (!api_query_limit(req, QUEUE_MAX, QUEUE_MAX, &page.limit, &replied) ||
        !api_page_cursor(req, &page, &replied))
        return replied;
    if ((items = calloc((size_t)page.limit + 1, sizeof *items)) == NULL)
        return api_fail_oom(req);
    st = db_queue_list(req->config->pool, page.after_us, page.after_id, items, page.limit,
                       &count, &more, &err);
    if (st != DB_OK) {
        free(items);
        return api_fail_db(req, st, err.text);
    }
    json = cJSON_CreateObject();
    list = cJSON_AddArrayToObject(json, "items");
    for (int i = 0; i < count; i++) {
        cJSON *item = cJSON_CreateObject();
        cJSON *details = cJSON_Parse(items[i].details ? items[i].details : "{}");
        cJSON_AddStringToObject(item, "id", items[i].id);
        cJSON_AddStringToObject(item, "kind", db_queue_kind_text(items[i].kind));
        cJSON_AddStringToObject(item, "game_id", items[i].game_id);
        cJSON_AddStringToObject(item, "created_at", items[i].created_at);
        cJSON_AddItemToObject(item, "details", details ? details : cJSON_CreateObject());
        cJSON_AddItemToArray(list, item);
        db_queue_item_clear(&items[i]);   /* its id and keyset stay */
    }
    api_page_next(json, more, count > 0 ? items[count - 1].created_us : NULL,
                  count > 0 ? items[count - 1].id : NULL);
    free(items);
    return api_reply_json(req, MHD_HTTP_OK, json);
}

static const struct api_field dismiss_fields[] = {
    { "reason", API_LINES, true, false, 1, 500 },
    { NULL, API_STRING, false, false, 0, 0 },
};

enum MHD_Result api_arbiter_dismiss(struct api_request *req)
{
    char log_id[BASE_ID_SIZE] = "";
    enum MHD_Result replied;
    struct games_result r;

    if (!api_body_check(req, dismiss_fields, &replied))
        return replied;
    games_arbiter_dismiss_logged(req->config->pool, req->caller.player_id, req->params[0],
                                 api_body_string(req, "reason"), log_id, &r);
    /* Its log entry is found by the item's id. */
    const char *const reply[][2] = { { "id", req->params[0] }, { "status", "dismissed" } };
    return api_arbiter_acted(req, &r, MHD_HTTP_OK, reply, 2, NULL);
}
