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
    char why[512] = "", id[BASE_ID_SIZE], secret[96];
    struct base_err err = { "" }, refused = { "" };
    char *json = NULL;
    db_notification_set events;
    enum db_status st;
    bool allow_private = req->config->notify != NULL && req->config->notify->allow_private;

    if (!api_body_check(req, webhook_fields, &replied))
        return replied;
    url = api_body_string(req, "url");
    if (!api_notification_types(cJSON_GetObjectItemCaseSensitive(req->json, "events"), &events,
                                why, sizeof why))
        return api_fail(req, API_PROBLEM_INVALID_VALUE, "%s", why);
    if (notify_webhook_url_check(url, allow_private, &refused) != NOTIFY_WEBHOOK_URL_OK)
        return api_fail(req, API_PROBLEM_INVALID_WEBHOOK_URL, "%s", refused.text);
    if (!base_random_text(id, BASE_ID_LEN) || !notify_webhook_secret(secret, sizeof secret))
        return api_fail_db(req, DB_HARD_ERROR, "the random generator failed");
    st = db_webhook_create(req->config->pool, id, req->caller.player_id, url, events, secret,
                           WEBHOOKS_PER_PLAYER, &json, &err);
    if (st == DB_CONFLICT)
        return api_fail(req, API_PROBLEM_CONFLICT,
                        "you have %d webhooks already, the most a player may have: "
                        "delete one first (DELETE /v1/webhooks/{id})", WEBHOOKS_PER_PLAYER);
    return api_reply_answer(req, st, json, err.text, 201, "no such player");
}

enum MHD_Result api_webhook_list(struct api_request *req)
{
    char *json = NULL;
    struct base_err err = { "" };
    enum db_status st = db_webhook_list(req->config->pool, req->caller.player_id, &json, &err);
    return api_reply_answer(req, st, json, err.text, 200, "no such player");
}

/* The webhook id of the path, or a 404 already sent. */
static bool webhook_id(struct api_request *req, enum MHD_Result *replied)
{
    if (api_id_valid(req->params[0]))
        return true;
    *replied = api_fail(req, API_PROBLEM_NOT_FOUND, "%s", not_yours);
    return false;
}

/* What the routes on one webhook do with the player's webhook of that id. */
enum webhook_action { WEBHOOK_GET, WEBHOOK_DELETE, WEBHOOK_ENABLE };

static enum MHD_Result on_webhook(struct api_request *req, enum webhook_action action)
{
    enum MHD_Result replied;
    const char *player = req->caller.player_id, *id = req->params[0];
    char *json = NULL;
    struct base_err err = { "" };
    enum db_status st;

    if (!webhook_id(req, &replied))
        return replied;
    switch (action) {
    case WEBHOOK_GET:
        st = db_webhook_get(req->config->pool, player, id, &json, &err);
        break;
    case WEBHOOK_DELETE:
        st = db_webhook_delete(req->config->pool, player, id, &err);
        break;
    default:
        st = db_webhook_enable(req->config->pool, player, id, &json, &err);
        break;
    }
    return api_reply_answer(req, st, json, err.text, action == WEBHOOK_DELETE ? 204 : 200,
                            not_yours);
}

enum MHD_Result api_webhook_get(struct api_request *req)
{
    return on_webhook(req, WEBHOOK_GET);
}

enum MHD_Result api_webhook_delete(struct api_request *req)
{
    return on_webhook(req, WEBHOOK_DELETE);
}

enum MHD_Result api_webhook_enable(struct api_request *req)
{
    return on_webhook(req, WEBHOOK_ENABLE);
}

enum MHD_Result api_webhook_rotate(struct api_request *req)
{
    enum MHD_Result replied;
    char secret[96], *json = NULL;
    struct base_err err = { "" };
    enum db_status st;

    if (!webhook_id(req, &replied))
        return replied;
    if (!notify_webhook_secret(secret, sizeof secret))
        return api_fail_db(req, DB_HARD_ERROR, "the random generator failed");
    st = db_webhook_rotate(req->config->pool, req->caller.player_id, req->params[0], secret,
                           &json, &err);
    return api_reply_answer(req, st, json, err.text, 200, not_yours);
}

enum MHD_Result api_webhook_deliveries(struct api_request *req)
{
    enum MHD_Result replied;
    const char *limit = api_query(req, "limit");
    char *json = NULL;
    struct base_err err = { "" };
    long n = DELIVERIES_LISTED_DEFAULT;
    enum db_status st;

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
    st = db_delivery_list(req->config->pool, req->caller.player_id, req->params[0], (int)n,
                          &json, &err);
    return api_reply_answer(req, st, json, err.text, 200, not_yours);
}

enum MHD_Result api_webhook_retry(struct api_request *req)
{
    enum MHD_Result replied;
    const char *delivery = req->params[1];
    static const char no_delivery[] =
        "this webhook has no delivery with that id (ids look like msg_123; "
        "GET /v1/webhooks/{id}/deliveries lists them), or it is being sent right now";
    char *json = NULL;
    struct base_err err = { "" };
    enum db_status st;
    size_t digits;

    if (!webhook_id(req, &replied))
        return replied;
    if (strncmp(delivery, "msg_", 4) != 0)
        return api_fail(req, API_PROBLEM_NOT_FOUND, "%s", no_delivery);
    digits = strspn(delivery + 4, "0123456789");
    if (digits == 0 || digits > 18 || delivery[4 + digits] != '\0')
        return api_fail(req, API_PROBLEM_NOT_FOUND, "%s", no_delivery);
    st = db_delivery_retry(req->config->pool, req->caller.player_id, req->params[0],
                           strtoll(delivery + 4, NULL, 10), &json, &err);
    return api_reply_answer(req, st, json, err.text, 202, no_delivery);
}
