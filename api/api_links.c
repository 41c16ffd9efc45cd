/*
 * api_links.c — the pages behind the signed links in emails: the one-click
 * unsubscribe link (RFC 8058: a POST switches email off) and the link that
 * confirms an address.  A GET only shows a page with a button, because
 * mail scanners follow links; the POST does it.  Both links expire
 * (notify_links.c), by korp's clock.
 */
#include "api_int.h"

#include "notify.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A small HTML page; with form_action, a button that POSTs there (and
 * the hidden field RFC 8058 names, when given). */
static enum MHD_Result page(struct api_request *req, unsigned status, const char *title,
                            const char *text, const char *form_action, const char *hidden,
                            const char *button)
{
    struct base_text html = { 0 };
    struct MHD_Response *resp;

    base_text_put(&html,
                  "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
                  "<title>%s</title></head><body><h1>%s</h1><p>%s</p>",
                  title, title, text);
    if (form_action != NULL)
        base_text_put(&html, "<form method=\"post\" action=\"%s\">%s<button>%s</button></form>",
                      form_action, hidden ? hidden : "", button);
    base_text_str(&html, "</body></html>\n");
    if (html.failed) {
        free(html.buf);
        return api_fail_oom(req);
    }
    resp = MHD_create_response_from_buffer(html.len, html.buf, MHD_RESPMEM_MUST_FREE);
    if (resp != NULL) {
        MHD_add_response_header(resp, "Content-Type", "text/html; charset=utf-8");
        MHD_add_response_header(resp, "Cache-Control", "no-store");
        /* As the web board's pages: no script, no framing (clickjacking). */
        MHD_add_response_header(resp, "Content-Security-Policy", API_PAGE_CSP);
        MHD_add_response_header(resp, "X-Frame-Options", "DENY");
        MHD_add_response_header(resp, "Referrer-Policy", "same-origin");
    } else {
        free(html.buf);
    }
    return api_reply(req, status, resp);
}

/* The query of a signed link, or a problem answered (*replied). */
static bool link_query(struct api_request *req, const char **player, const char **exp,
                       const char **sig, enum MHD_Result *replied)
{
    *player = api_query(req, "player");
    *exp = api_query(req, "exp");
    *sig = api_query(req, "sig");
    /* A signature of the wrong form is only a wrong signature (403). */
    if (*player != NULL && *exp != NULL && *sig != NULL && api_id_valid(*player))
        return true;
    *replied = api_fail(req, API_PROBLEM_BAD_REQUEST,
                        "this link needs 'player', 'exp' and 'sig': use the whole link from "
                        "the email");
    return false;
}

static enum MHD_Result link_refused(struct api_request *req, enum notify_link why,
                                    const char *what, const char *instead)
{
    if (why == NOTIFY_LINK_EXPIRED)
        return api_fail(req, API_PROBLEM_FORBIDDEN, "this %s link has expired: %s", what,
                        instead);
    return api_fail(req, API_PROBLEM_FORBIDDEN,
                    "this %s link is not valid: use the whole link from the email", what);
}

/* A link's player is gone (404), or the database failed. */
static enum MHD_Result player_failed(struct api_request *req, enum db_status st,
                                     const char *err)
{
    if (st == DB_NOT_FOUND)
        return api_fail(req, API_PROBLEM_NOT_FOUND, "no such player");
    return api_fail_db(req, st, err);
}

enum MHD_Result api_unsubscribe(struct api_request *req)
{
    const char *player, *exp, *sig;
    char action[256];
    struct base_err err = { "" };
    enum MHD_Result replied;
    enum notify_link valid;
    long long now = 0;
    enum db_status st;

    if (!link_query(req, &player, &exp, &sig, &replied))
        return replied;
    if ((st = db_clock_now(req->config->pool, &now, &err)) != DB_OK)
        return api_fail_db(req, st, err.text);
    if ((valid = notify_unsubscribe_check(player, exp, sig, now)) != NOTIFY_LINK_OK)
        return link_refused(req, valid, "unsubscribe",
                            "the links in newer emails work, or turn email off in your "
                            "notification settings");
    if (strcmp(req->method, "GET") == 0) {
        snprintf(action, sizeof action, "/v1/unsubscribe?player=%s&amp;exp=%s&amp;sig=%s",
                 player, exp, sig);
        return page(req, 200, "Turn korp's emails off?",
                    "This stops every email korp sends you. You can turn them on again in "
                    "your notification settings.",
                    action, "<input type=\"hidden\" name=\"List-Unsubscribe\" "
                            "value=\"One-Click\">", "Turn email off");
    }
    st = db_email_off(req->config->pool, player, &err);
    if (st != DB_OK)
        return player_failed(req, st, err.text);
    return page(req, 200, "Emails turned off",
                "korp will send you no more emails. You can turn them on again in your "
                "notification settings.",
                NULL, NULL, NULL);
}

enum MHD_Result api_email_confirm(struct api_request *req)
{
    const char *player, *exp, *sig;
    char email[256], action[256];
    struct base_err err = { "" };
    enum MHD_Result replied;
    enum notify_link valid;
    bool confirmed = false;
    long long now = 0;
    enum db_status st;

    if (!link_query(req, &player, &exp, &sig, &replied))
        return replied;
    st = db_email_confirm_state(req->config->pool, player, email, sizeof email, &confirmed,
                                &now, &err);
    if (st != DB_OK)
        return player_failed(req, st, err.text);
    /* The signature covers the address: a link for an earlier one is bad. */
    valid = notify_confirm_check(player, email, exp, sig, now);
    if (valid != NOTIFY_LINK_OK)
        return link_refused(req, valid, "confirmation",
                            "ask for a new one in your notification settings");
    if (confirmed)
        return page(req, 200, "Address confirmed",
                    "This address is confirmed already: korp mails you here.", NULL, NULL,
                    NULL);
    if (strcmp(req->method, "GET") == 0) {
        snprintf(action, sizeof action, "/v1/email/confirm?player=%s&amp;exp=%s&amp;sig=%s",
                 player, exp, sig);
        return page(req, 200, "Confirm your address?",
                    "Confirm that korp may send the mails you chose (your moves, challenges, "
                    "results) to this address.",
                    action, NULL, "Confirm the address");
    }
    st = db_email_confirm(req->config->pool, player, email, &err);
    if (st != DB_OK && st != DB_NOT_FOUND)   /* not found: confirmed meanwhile */
        return api_fail_db(req, st, err.text);
    return page(req, 200, "Address confirmed",
                "Thank you: korp will send the mails you chose to this address. You can "
                "change which in your notification settings.",
                NULL, NULL, NULL);
}

/* POST /v1/players/me/email/confirmation: the link again. */
enum MHD_Result api_email_confirm_resend(struct api_request *req)
{
    struct base_err err = { "" };
    bool owed = false;
    enum db_status st = db_email_confirm_resend(req->config->pool, req->caller.player_id, &owed,
                                                &err);
    cJSON *json;

    if (st == DB_NOT_FOUND)
        return api_fail(req, API_PROBLEM_CONFLICT,
                        "there is no unconfirmed address to confirm: give one with PUT "
                        "/v1/players/me/notifications (email_address) first");
    if (st != DB_OK)
        return api_fail_db(req, st, err.text);
    if (!owed) {
        req->retry_after = 3600;
        return api_fail(req, API_PROBLEM_TOO_MANY_REQUESTS,
                        "three confirmation emails went to this address in the last 24 "
                        "hours, the most korp sends; use the link of one of them");
    }
    json = cJSON_CreateObject();
    cJSON_AddBoolToObject(json, "sent", true);
    return api_reply_json(req, MHD_HTTP_ACCEPTED, json);
}
