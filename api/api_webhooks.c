/*
 * api_webhooks.c — a player's webhooks: register (the secret shown once),
 * list, show, delete, rotate the secret, enable again, and each one's
 * deliveries with their attempts (and a retry).
 */
#include "api_int.h"

#include "base.h"
#include "notify.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WEBHOOKS_PER_PLAYER 10
#define DELIVERIES_LISTED_DEFAULT 50
#define DELIVERIES_LISTED_MAX 500

static const char not_yours[] = "you have no webhook with that id (GET /v1/webhooks lists yours)";

static const struct api_field webhook_fields[] = {
    { "url", API_STRING, true, false, 8, 2048 },
    { "events", API_LIST, false, false, 1, DB_NOTIFICATION_TYPE_COUNT * 2 },
    { NULL, API_STRING, false, false, 0, 0 },
};

enum MHD_Result api_webhook_create(struct api_request *req)
{
    enum MHD_Result replied;
    const char *url;
    char events[256], why[512] = "", id[DB_ID_SIZE], secret[96], max[8], err[512] = "";
    char *json = NULL;
    enum db_status st;
    const char *params[6] = { id, req->caller.player_id, NULL, events, secret, max };
    bool allow_private = req->config->notify != NULL && req->config->notify->allow_private;

    if (!api_body_check(req, webhook_fields, &replied))
        return replied;
    url = api_body_string(req, "url");
    if (!api_notification_types(cJSON_GetObjectItemCaseSensitive(req->json, "events"), events,
                                sizeof events, why, sizeof why))
        return api_fail(req, API_PROBLEM_INVALID_VALUE, "%s", why);
    if (notify_webhook_url_check(url, allow_private, why, sizeof why) != NOTIFY_WEBHOOK_URL_OK)
        return api_fail(req, API_PROBLEM_INVALID_WEBHOOK_URL, "%s", why);
    if (!base_random_text(id, 10) || !notify_webhook_secret(secret, sizeof secret))
        return api_fail_db(req, DB_HARD_ERROR, "the random generator failed");
    params[2] = url;
    snprintf(max, sizeof max, "%d", WEBHOOKS_PER_PLAYER);
    st = db_json_query(req->config->pool, DB_JQ_WEBHOOK_CREATE, params, &json, err,
                         sizeof err);
    if (st == DB_NOT_FOUND)
        return api_fail(req, API_PROBLEM_CONFLICT,
                        "you have %d webhooks already, the most a player may have: "
                        "delete one first (DELETE /v1/webhooks/{id})", WEBHOOKS_PER_PLAYER);
    if (st != DB_OK)
        return api_fail_db(req, st, err);
    return api_reply_stored(req, 201, json);
}

enum MHD_Result api_webhook_list(struct api_request *req)
{
    const char *params[1] = { req->caller.player_id };
    return api_reply_query(req, DB_JQ_WEBHOOK_LIST, params, 200, "no such player");
}

/* The webhook id of the path, or a 404 already sent. */
static bool webhook_id(struct api_request *req, enum MHD_Result *replied)
{
    if (api_id_valid(req->params[0]))
        return true;
    *replied = api_fail(req, API_PROBLEM_NOT_FOUND, "%s", not_yours);
    return false;
}

/* The routes that take only the player and the webhook id. */
static enum MHD_Result on_webhook(struct api_request *req, enum db_json_query q, unsigned ok)
{
    enum MHD_Result replied;
    const char *params[2] = { req->caller.player_id, req->params[0] };
    if (!webhook_id(req, &replied))
        return replied;
    return api_reply_query(req, q, params, ok, not_yours);
}

enum MHD_Result api_webhook_get(struct api_request *req)
{
    return on_webhook(req, DB_JQ_WEBHOOK_GET, 200);
}

enum MHD_Result api_webhook_delete(struct api_request *req)
{
    return on_webhook(req, DB_JQ_WEBHOOK_DELETE, 204);
}

enum MHD_Result api_webhook_enable(struct api_request *req)
{
    return on_webhook(req, DB_JQ_WEBHOOK_ENABLE, 200);
}

enum MHD_Result api_webhook_rotate(struct api_request *req)
{
    enum MHD_Result replied;
    char secret[96];
    const char *params[3] = { req->caller.player_id, req->params[0], secret };
    if (!webhook_id(req, &replied))
        return replied;
    if (!notify_webhook_secret(secret, sizeof secret))
        return api_fail_db(req, DB_HARD_ERROR, "the random generator failed");
    return api_reply_query(req, DB_JQ_WEBHOOK_ROTATE, params, 200, not_yours);
}

enum MHD_Result api_webhook_deliveries(struct api_request *req)
{
    enum MHD_Result replied;
    const char *limit = api_query(req, "limit");
    char count[16];
    const char *params[3] = { req->caller.player_id, req->params[0], count };
    long n = DELIVERIES_LISTED_DEFAULT;

    if (!webhook_id(req, &replied))
        return replied;
    if (limit != NULL) {
        char *end = NULL;
        n = strtol(limit, &end, 10);
        if (limit[0] < '0' || limit[0] > '9' || *end != '\0' || n < 1 ||
            n > DELIVERIES_LISTED_MAX)
            return api_fail(req, API_PROBLEM_BAD_REQUEST,
                            "'limit' must be a whole number from 1 to %d",
                            DELIVERIES_LISTED_MAX);
    }
    snprintf(count, sizeof count, "%ld", n);
    return api_reply_query(req, DB_JQ_DELIVERY_LIST, params, 200, not_yours);
}

enum MHD_Result api_webhook_retry(struct api_request *req)
{
    enum MHD_Result replied;
    const char *delivery = req->params[1];
    const char *params[3] = { req->caller.player_id, req->params[0], NULL };
    static const char no_delivery[] =
        "this webhook has no delivery with that id (ids look like msg_123; "
        "GET /v1/webhooks/{id}/deliveries lists them), or it is being sent right now";
    size_t digits;

    if (!webhook_id(req, &replied))
        return replied;
    if (strncmp(delivery, "msg_", 4) != 0)
        return api_fail(req, API_PROBLEM_NOT_FOUND, "%s", no_delivery);
    digits = strspn(delivery + 4, "0123456789");
    if (digits == 0 || digits > 18 || delivery[4 + digits] != '\0')
        return api_fail(req, API_PROBLEM_NOT_FOUND, "%s", no_delivery);
    params[2] = delivery + 4;
    return api_reply_query(req, DB_JQ_DELIVERY_RETRY, params, 202, no_delivery);
}
