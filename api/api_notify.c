/*
 * api_notify.c — a player's notification preferences (the links in the
 * emails are api_links.c's).
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
    { "push_events", API_LIST, false, false, 0, DB_NOTIFICATION_TYPE_COUNT * 2 },
    { "digest", API_OBJECT, false, false, 0, 0 },
    { "reminder_hours", API_INTEGER, false, false, 0, 720 },
    { "language", API_STRING, false, false, 1, 16 },
    { NULL, API_STRING, false, false, 0, 0 },
};

static const struct api_field digest_fields[] = {
    { "enabled", API_BOOLEAN, false, false, 0, 0 },
    { "hour_utc", API_INTEGER, false, false, 0, 23 },
    { NULL, API_STRING, false, false, 0, 0 },
};

/* The kinds a channel takes (name: "email_events" …), when the body sets
 * them; false with a 422 sent when one is unknown. */
static bool channel_kinds(struct api_request *req, const char *name, bool *set,
                          db_notification_set *kinds, enum MHD_Result *replied)
{
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(req->json, name);
    char why[512];

    if (list == NULL)
        return true;
    if (!api_notification_types(list, kinds, why, sizeof why)) {
        *replied = api_fail(req, API_PROBLEM_INVALID_VALUE, "in '%s': %s", name, why);
        return false;
    }
    *set = true;
    return true;
}

enum MHD_Result api_notifications_put(struct api_request *req)
{
    enum MHD_Result replied;
    const cJSON *json = req->json, *digest = cJSON_GetObjectItemCaseSensitive(json, "digest");
    const cJSON *address = cJSON_GetObjectItemCaseSensitive(json, "email_address");
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
        change.email_confirmed = !req->config->email_confirmation;
    }
    if (cJSON_HasObjectItem(json, "email_enabled")) {
        change.set_email_enabled = true;
        change.email_enabled = api_body_boolean(req, "email_enabled", true);
    }
    if (!channel_kinds(req, "email_events", &change.set_email_events, &change.email_events,
                       &replied) ||
        !channel_kinds(req, "webhook_events", &change.set_webhook_events,
                       &change.webhook_events, &replied) ||
        !channel_kinds(req, "push_events", &change.set_push_events, &change.push_events,
                       &replied))
        return replied;
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
    if (cJSON_HasObjectItem(json, "language")) {
        change.language = api_language_known(api_body_string(req, "language"));
        if (change.language == NULL)
            return api_fail(req, API_PROBLEM_INVALID_VALUE,
                            "'language' must be \"en\" (English), \"pl\" (Polish) or "
                            "\"hu\" (Hungarian)");
    }
    st = db_settings_put(req->config->pool, req->caller.player_id, &change, &answer, &err);
    return api_reply_answer(req, st, answer, err.text, 200, "no such player");
}
