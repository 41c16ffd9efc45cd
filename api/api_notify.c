/*
 * api_notify.c — a player's notification preferences, and the one-click
 * unsubscribe link every email carries (RFC 8058: a POST switches email
 * off; a GET only shows a page, because mail scanners follow links).
 */
#include "api_int.h"

#include "notify.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum MHD_Result api_reply_answer(struct api_request *req, enum db_status st, char *json,
                                 const char *err, unsigned ok, const char *not_found)
{
    if (st == DB_NOT_FOUND)
        return api_fail(req, API_PROBLEM_NOT_FOUND, "%s", not_found);
    if (st != DB_OK)
        return api_fail_db(req, st, err);
    if (ok == 204) {
        free(json);
        return api_reply(req, 204, MHD_create_response_from_buffer(0, "",
                                                                   MHD_RESPMEM_PERSISTENT));
    }
    return api_reply_stored(req, ok, json);
}

enum MHD_Result api_notifications_get(struct api_request *req)
{
    char *json = NULL;
    struct base_err err = { "" };
    enum db_status st = db_settings_get(req->config->pool, req->caller.player_id, &json, &err);
    return api_reply_answer(req, st, json, err.text, 200, "no such player");
}

bool api_notification_types(const cJSON *list, db_notification_set *out, char *why,
                            size_t whysize)
{
    const cJSON *item;

    *out = list == NULL ? DB_NOTIFICATION_ALL : 0;
    cJSON_ArrayForEach(item, list) {
        int kind = db_notification_type_index(item->valuestring);
        if (kind < 0) {
            char names[512] = "";
            for (int i = 0; i < DB_NOTIFICATION_TYPE_COUNT; i++)
                snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s",
                         i ? ", " : "", db_notification_types[i]);
            snprintf(why, whysize, "'%.64s' is not a kind of notification; the kinds are %s",
                     item->valuestring, names);
            return false;
        }
        *out |= 1u << kind;
    }
    return true;
}

static const struct api_field settings_fields[] = {
    { "email_address", API_STRING, false, true, 3, 254 },
    { "email_enabled", API_BOOLEAN, false, false, 0, 0 },
    { "email_events", API_LIST, false, false, 0, DB_NOTIFICATION_TYPE_COUNT * 2 },
    { "webhook_events", API_LIST, false, false, 0, DB_NOTIFICATION_TYPE_COUNT * 2 },
    { "digest", API_OBJECT, false, false, 0, 0 },
    { "reminder_hours", API_INTEGER, false, false, 0, 720 },
    { NULL, API_STRING, false, false, 0, 0 },
};

static const struct api_field digest_fields[] = {
    { "enabled", API_BOOLEAN, false, false, 0, 0 },
    { "hour_utc", API_INTEGER, false, false, 0, 23 },
    { NULL, API_STRING, false, false, 0, 0 },
};

enum MHD_Result api_notifications_put(struct api_request *req)
{
    enum MHD_Result replied;
    const cJSON *json = req->json, *digest = cJSON_GetObjectItemCaseSensitive(json, "digest");
    const cJSON *address = cJSON_GetObjectItemCaseSensitive(json, "email_address");
    const cJSON *email_events = cJSON_GetObjectItemCaseSensitive(json, "email_events");
    const cJSON *webhook_events = cJSON_GetObjectItemCaseSensitive(json, "webhook_events");
    struct db_settings_change change = { 0 };
    char why[512], *answer = NULL;
    struct base_err err = { "" };
    enum db_status st;

    if (!api_body_check(req, settings_fields, &replied))
        return replied;
    if (digest != NULL && !api_json_check(digest, digest_fields, why, sizeof why))
        return api_fail(req, API_PROBLEM_BAD_REQUEST, "in 'digest': %s", why);
    if (address != NULL) {
        if (cJSON_IsString(address) && !base_email_valid(address->valuestring))
            return api_fail(req, API_PROBLEM_INVALID_VALUE,
                            "'email_address' must be one address like anna@example.org, "
                            "or null for none");
        change.set_email = true;
        change.email = cJSON_IsString(address) ? address->valuestring : NULL;
    }
    if (cJSON_HasObjectItem(json, "email_enabled")) {
        change.set_email_enabled = true;
        change.email_enabled = api_body_boolean(req, "email_enabled", true);
    }
    if (email_events != NULL) {
        if (!api_notification_types(email_events, &change.email_events, why, sizeof why))
            return api_fail(req, API_PROBLEM_INVALID_VALUE, "in 'email_events': %s", why);
        change.set_email_events = true;
    }
    if (webhook_events != NULL) {
        if (!api_notification_types(webhook_events, &change.webhook_events, why, sizeof why))
            return api_fail(req, API_PROBLEM_INVALID_VALUE, "in 'webhook_events': %s", why);
        change.set_webhook_events = true;
    }
    if (digest != NULL) {
        const cJSON *e = cJSON_GetObjectItemCaseSensitive(digest, "enabled");
        const cJSON *h = cJSON_GetObjectItemCaseSensitive(digest, "hour_utc");
        change.set_digest = e != NULL;
        change.digest = cJSON_IsTrue(e);
        change.set_digest_hour = h != NULL;
        change.digest_hour = h != NULL ? h->valueint : 0;
    }
    if (cJSON_HasObjectItem(json, "reminder_hours")) {
        change.set_reminder_hours = true;
        change.reminder_hours = (int)api_body_integer(req, "reminder_hours", 24, NULL);
    }
    st = db_settings_put(req->config->pool, req->caller.player_id, &change, &answer, &err);
    return api_reply_answer(req, st, answer, err.text, 200, "no such player");
}

/* A small HTML page (the GET shows a button; the POST says it is done). */
static enum MHD_Result page(struct api_request *req, unsigned status, const char *title,
                            const char *text, const char *form_action)
{
    char *html = malloc(4096);
    if (html != NULL)
        snprintf(html, 4096,
                 "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
                 "<title>%s</title></head><body><h1>%s</h1><p>%s</p>%s%s%s</body></html>\n",
                 title, title, text, form_action ? "<form method=\"post\" action=\"" : "",
                 form_action ? form_action : "",
                 form_action ? "\"><input type=\"hidden\" name=\"List-Unsubscribe\" "
                               "value=\"One-Click\"><button>Turn email off</button></form>"
                             : "");
    struct MHD_Response *resp;
    if (html == NULL)
        return api_fail(req, API_PROBLEM_INTERNAL, "out of memory");
    resp = MHD_create_response_from_buffer(strlen(html), html, MHD_RESPMEM_MUST_FREE);
    if (resp != NULL) {
        MHD_add_response_header(resp, "Content-Type", "text/html; charset=utf-8");
        MHD_add_response_header(resp, "Cache-Control", "no-store");
        /* As the web board's pages: no script, no framing (clickjacking). */
        MHD_add_response_header(resp, "Content-Security-Policy", API_PAGE_CSP);
        MHD_add_response_header(resp, "X-Frame-Options", "DENY");
        MHD_add_response_header(resp, "Referrer-Policy", "same-origin");
    } else {
        free(html);
    }
    return api_reply(req, status, resp);
}

enum MHD_Result api_unsubscribe(struct api_request *req)
{
    const char *player = api_query(req, "player"), *sig = api_query(req, "sig");
    char action[256];
    struct base_err err = { "" };
    enum db_status st;

    if (player == NULL || sig == NULL || !api_id_valid(player))
        return api_fail(req, API_PROBLEM_BAD_REQUEST,
                        "this link needs 'player' and 'sig': use the whole link from the email");
    if (!notify_unsubscribe_valid(player, sig))
        return api_fail(req, API_PROBLEM_FORBIDDEN,
                        "this unsubscribe link is not valid: use the whole link from the email");
    if (strcmp(req->method, "GET") == 0) {
        snprintf(action, sizeof action, "/v1/unsubscribe?player=%s&amp;sig=%s", player, sig);
        return page(req, 200, "Turn korp's emails off?",
                    "This stops every email korp sends you. You can turn them on again in "
                    "your notification settings.",
                    action);
    }
    st = db_email_off(req->config->pool, player, &err);
    if (st == DB_NOT_FOUND)
        return api_fail(req, API_PROBLEM_NOT_FOUND, "no such player");
    if (st != DB_OK)
        return api_fail_db(req, st, err.text);
    return page(req, 200, "Emails turned off",
                "korp will send you no more emails. You can turn them on again in your "
                "notification settings.",
                NULL);
}
