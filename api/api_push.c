/*
 * api_push.c — Web Push: the server's VAPID public key, and a player's
 * browser subscriptions (register, list, delete).  The pushes themselves
 * go through the outbox (notify/notify_push.c).
 */
#include "api_int.h"

#include "base.h"
#include "notify.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SUBSCRIPTIONS_PER_PLAYER 10

static const char push_off[] =
    "push notifications are off on this server (it has no KORP_PUSH_CONTACT)";
static const char not_yours[] =
    "you have no push subscription with that id "
    "(GET /v1/players/me/push-subscriptions lists yours)";

/* PushSubscription.toJSON() of a browser. */
static const struct api_field subscription_fields[] = {
    { "endpoint", API_STRING, true, false, 8, DB_PUSH_ENDPOINT_MAX },
    { "keys", API_OBJECT, true, false, 0, 0 },
    { "expirationTime", API_INTEGER, false, true, 0, LONG_MAX },
    { NULL, API_STRING, false, false, 0, 0 },
};

/* Whether this korpd sends pushes (it has a key). */
static bool push_on(void)
{
    char key[128];
    return notify_push_public_key(key, sizeof key);
}

enum MHD_Result api_push_key(struct api_request *req)
{
    char key[128];
    cJSON *body;

    if (!notify_push_public_key(key, sizeof key))
        return api_fail(req, API_PROBLEM_NOT_FOUND, "%s", push_off);
    if ((body = cJSON_CreateObject()) == NULL ||
        cJSON_AddStringToObject(body, "vapid_public_key", key) == NULL) {
        cJSON_Delete(body);
        return api_fail_db(req, DB_HARD_ERROR, "out of memory");
    }
    return api_reply_json(req, 200, body);
}

/* One of the subscription's keys, base64url of exactly len bytes. */
static bool key_of(const cJSON *keys, const char *name, unsigned char *out, size_t len)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(keys, name);
    size_t got = 0;
    return cJSON_IsString(item) && notify_base64url_decode(item->valuestring, out, len, &got) &&
           got == len;
}

enum MHD_Result api_push_subscribe(struct api_request *req)
{
    enum MHD_Result replied;
    const cJSON *keys;
    const char *endpoint;
    unsigned char p256dh[DB_PUSH_P256DH_LEN], auth[DB_PUSH_AUTH_LEN];
    char id[BASE_ID_SIZE], *json = NULL;
    struct base_err err = { "" }, refused = { "" };
    enum db_status st;
    bool allow_private = req->config->notify != NULL && req->config->notify->allow_private;

    if (!push_on())
        return api_fail(req, API_PROBLEM_NOT_FOUND, "%s", push_off);
    if (!api_body_check(req, subscription_fields, &replied))
        return replied;
    endpoint = api_body_string(req, "endpoint");
    keys = cJSON_GetObjectItemCaseSensitive(req->json, "keys");
    if (!key_of(keys, "p256dh", p256dh, sizeof p256dh) ||
        !notify_push_point_valid(p256dh, sizeof p256dh))
        return api_fail(req, API_PROBLEM_INVALID_VALUE,
                        "'keys.p256dh' must be the base64url of a 65-byte uncompressed P-256 "
                        "point (PushSubscription.toJSON() gives it)");
    if (!key_of(keys, "auth", auth, sizeof auth))
        return api_fail(req, API_PROBLEM_INVALID_VALUE,
                        "'keys.auth' must be the base64url of 16 bytes "
                        "(PushSubscription.toJSON() gives it)");
    if (notify_webhook_url_check(endpoint, allow_private, &refused) != NOTIFY_WEBHOOK_URL_OK)
        return api_fail(req, API_PROBLEM_INVALID_VALUE, "'endpoint': %s", refused.text);
    if (!base_random_text(id, BASE_ID_LEN))
        return api_fail_db(req, DB_HARD_ERROR, "the random generator failed");
    st = db_push_subscription_create(req->config->pool, id, req->caller.player_id, endpoint,
                                     p256dh, auth, SUBSCRIPTIONS_PER_PLAYER, &json, &err);
    if (st == DB_CONFLICT)
        return api_fail(req, API_PROBLEM_CONFLICT,
                        "you have %d push subscriptions already, the most a player may have: "
                        "delete one first (DELETE /v1/players/me/push-subscriptions/{id})",
                        SUBSCRIPTIONS_PER_PLAYER);
    return api_reply_answer(req, st, json, err.text, 201, "no such player");
}

enum MHD_Result api_push_subscription_list(struct api_request *req)
{
    char *json = NULL;
    struct base_err err = { "" };
    enum db_status st =
        db_push_subscription_list(req->config->pool, req->caller.player_id, &json, &err);
    return api_reply_answer(req, st, json, err.text, 200, "no such player");
}

enum MHD_Result api_push_subscription_delete(struct api_request *req)
{
    struct base_err err = { "" };
    enum db_status st;

    if (!api_id_valid(req->params[0]))
        return api_fail(req, API_PROBLEM_NOT_FOUND, "%s", not_yours);
    st = db_push_subscription_delete(req->config->pool, req->caller.player_id, req->params[0],
                                     &err);
    return api_reply_answer(req, st, NULL, err.text, 204, not_yours);
}
