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

enum MHD_Result api_reply_query(struct api_request *req, enum db_json_query q,
                                 const char *const *params, unsigned ok,
                                 const char *not_found)
{
    char *json = NULL, err[512] = "";
    enum db_status st = db_json_query(req->config->pool, q, params, &json, err, sizeof err);
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
    const char *params[1] = { req->caller.player_id };
    return api_reply_query(req, DB_JQ_SETTINGS_GET, params, 200, "no such player");
}

bool api_notification_types(const cJSON *list, char *out, size_t size, char *why,
                            size_t whysize)
{
    const cJSON *item;
    size_t used = 1;

    cJSON_ArrayForEach(item, list) {
        bool known = false;
        for (int i = 0; i < DB_NOTIFICATION_TYPE_COUNT; i++)
            known = known || strcmp(item->valuestring, db_notification_types[i]) == 0;
        if (!known) {
            char names[512] = "";
            for (int i = 0; i < DB_NOTIFICATION_TYPE_COUNT; i++)
                snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s",
                         i ? ", " : "", db_notification_types[i]);
            snprintf(why, whysize, "'%.64s' is not a kind of notification; the kinds are %s",
                     item->valuestring, names);
            return false;
        }
    }
    /* In the table's order, each once. */
    out[0] = '{';
    for (int i = 0; i < DB_NOTIFICATION_TYPE_COUNT; i++) {
        bool wanted = list == NULL;
        cJSON_ArrayForEach(item, list) wanted = wanted ||
                                               strcmp(item->valuestring,
                                                      db_notification_types[i]) == 0;
        if (wanted)
            used += (size_t)snprintf(out + used, size - used, "%s%s", used > 1 ? "," : "",
                                     db_notification_types[i]);
    }
    snprintf(out + used, size - used, "}");
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
    char email_list[256], webhook_list[256], why[512], enabled[8], on[8], hour[8], hours[8];
    const char *params[9] = { req->caller.player_id, "f", NULL, NULL, NULL, NULL,
                              NULL, NULL, NULL };

    if (!api_body_check(req, settings_fields, &replied))
        return replied;
    if (digest != NULL && !api_json_check(digest, digest_fields, why, sizeof why))
        return api_fail(req, API_PROBLEM_BAD_REQUEST, "in 'digest': %s", why);
    if (address != NULL) {
        if (cJSON_IsString(address) && !base_email_valid(address->valuestring))
            return api_fail(req, API_PROBLEM_INVALID_VALUE,
                            "'email_address' must be one address like anna@example.org, "
                            "or null for none");
        params[1] = "t";
        params[2] = cJSON_IsString(address) ? address->valuestring : NULL;
    }
    if (cJSON_HasObjectItem(json, "email_enabled")) {
        snprintf(enabled, sizeof enabled, "%s", api_body_boolean(req, "email_enabled", true)
                                                    ? "t" : "f");
        params[3] = enabled;
    }
    if (email_events != NULL) {
        if (!api_notification_types(email_events, email_list, sizeof email_list, why,
                                    sizeof why))
            return api_fail(req, API_PROBLEM_INVALID_VALUE, "in 'email_events': %s", why);
        params[4] = email_list;
    }
    if (webhook_events != NULL) {
        if (!api_notification_types(webhook_events, webhook_list, sizeof webhook_list, why,
                                    sizeof why))
            return api_fail(req, API_PROBLEM_INVALID_VALUE, "in 'webhook_events': %s", why);
        params[5] = webhook_list;
    }
    if (digest != NULL) {
        const cJSON *e = cJSON_GetObjectItemCaseSensitive(digest, "enabled");
        const cJSON *h = cJSON_GetObjectItemCaseSensitive(digest, "hour_utc");
        if (e != NULL) {
            snprintf(on, sizeof on, "%s", cJSON_IsTrue(e) ? "t" : "f");
            params[6] = on;
        }
        if (h != NULL) {
            snprintf(hour, sizeof hour, "%d", h->valueint);
            params[7] = hour;
        }
    }
    if (cJSON_HasObjectItem(json, "reminder_hours")) {
        snprintf(hours, sizeof hours, "%ld", api_body_integer(req, "reminder_hours", 24, NULL));
        params[8] = hours;
    }
    return api_reply_query(req, DB_JQ_SETTINGS_PUT, params, 200, "no such player");
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
    } else {
        free(html);
    }
    return api_reply(req, status, resp);
}

enum MHD_Result api_unsubscribe(struct api_request *req)
{
    const char *player = api_query(req, "player"), *sig = api_query(req, "sig");
    const char *params[1] = { player };
    char action[256], *json = NULL, err[512] = "";
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
    st = db_json_query(req->config->pool, DB_JQ_EMAIL_OFF, params, &json, err, sizeof err);
    free(json);
    if (st == DB_NOT_FOUND)
        return api_fail(req, API_PROBLEM_NOT_FOUND, "no such player");
    if (st != DB_OK)
        return api_fail_db(req, st, err);
    return page(req, 200, "Emails turned off",
                "korp will send you no more emails. You can turn them on again in your "
                "notification settings.",
                NULL);
}
