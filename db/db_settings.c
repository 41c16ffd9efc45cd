/*
 * db_settings.c — what a player sets about being told: notification
 * preferences, webhooks and their deliveries.  Each answers with the JSON
 * object the API shows, built in SQL (db_statements.c: SETTINGS_JSON,
 * WEBHOOK_JSON, DELIVERY_JSON), the one place these objects are written.
 */
#include "db_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct answer {
    enum db_stmt stmt;
    const char *const *params;
    char **json;
};

static enum db_status answer_tx(struct db_tx *tx, void *arg)
{
    struct answer *a = arg;
    PGresult *res = NULL;
    enum db_status rc;

    free(*a->json);          /* a run again starts afresh */
    *a->json = NULL;
    rc = db_exec(tx, a->stmt, a->params, &res);
    if (rc == DB_OK && PQntuples(res) == 0)
        rc = DB_NOT_FOUND;
    if (rc == DB_OK) {
        const char *text = db_row_value(&(struct db_row){ res, 0 }, "json");
        if ((*a->json = strdup(text != NULL ? text : "null")) == NULL)
            rc = db_tx_fail(tx, "out of memory");
    }
    PQclear(res);
    return rc;
}

/* Runs a statement that answers one JSON text; json may be NULL (not wanted). */
static enum db_status answer(struct db_pool *pool, enum db_stmt stmt,
                             const char *const *params, char **json, struct base_err *err)
{
    char *unwanted = NULL;
    struct answer a = { stmt, params, json != NULL ? json : &unwanted };
    enum db_status rc = db_run_tx(pool, answer_tx, &a, err);
    if (rc != DB_OK || json == NULL) {
        free(*a.json);
        *a.json = NULL;
    }
    return rc;
}

/* Room for the text[] literal of every kind: each name with a comma (or
 * the NUL) after it, the braces, and the byte kinds_text keeps for '}'. */
enum {
    KINDS_TEXT_MAX = 3
#define EVENT(NAME, type, MAIL) + sizeof type
#define NOTICE(NAME, type, MAIL) + sizeof type
#include "db_kinds.def"
};

/* A set of kinds as a text[] literal, in the table's order: "{move,game_end}"
 * (cut short, never overrun, in a buffer below KINDS_TEXT_MAX). */
static void kinds_text(db_notification_set set, char *out, size_t size)
{
    size_t used = 0;
    out[used++] = '{';
    for (int i = 0; i < DB_NOTIFICATION_TYPE_COUNT && used + 1 < size; i++)
        if (set & (1u << i)) {
            int n = snprintf(out + used, size - used - 1, "%s%s", used > 1 ? "," : "",
                             db_notification_types[i]);
            used = n < 0 || (size_t)n >= size - used - 1 ? size - 2 : used + (size_t)n;
        }
    snprintf(out + used, size - used, "}");
}

enum db_status db_settings_get(struct db_pool *pool, const char *player_id, char **json,
                               struct base_err *err)
{
    const char *params[1] = { player_id };
    return answer(pool, DB_STMT_SETTINGS_GET, params, json, err);
}

enum db_status db_settings_put(struct db_pool *pool, const char *player_id,
                               const struct db_settings_change *c, char **json,
                               struct base_err *err)
{
    char email_events[KINDS_TEXT_MAX], webhook_events[KINDS_TEXT_MAX], hour[16], hours[16];
    char push_events[KINDS_TEXT_MAX];
    const char *params[12] = {
        player_id,
        c->set_email ? "true" : "false",
        c->set_email ? c->email : NULL,
        c->set_email_enabled ? (c->email_enabled ? "true" : "false") : NULL,
        c->set_email_events ? email_events : NULL,
        c->set_webhook_events ? webhook_events : NULL,
        c->set_digest ? (c->digest ? "true" : "false") : NULL,
        c->set_digest_hour ? hour : NULL,
        c->set_reminder_hours ? hours : NULL,
        c->email_confirmed ? "true" : "false",
        c->language,
        c->set_push_events ? push_events : NULL,
    };
    kinds_text(c->email_events, email_events, sizeof email_events);
    kinds_text(c->push_events, push_events, sizeof push_events);
    kinds_text(c->webhook_events, webhook_events, sizeof webhook_events);
    snprintf(hour, sizeof hour, "%d", c->digest_hour);
    snprintf(hours, sizeof hours, "%d", c->reminder_hours);
    return answer(pool, DB_STMT_SETTINGS_PUT, params, json, err);
}

enum db_status db_email_off(struct db_pool *pool, const char *player_id, struct base_err *err)
{
    const char *params[1] = { player_id };
    return answer(pool, DB_STMT_EMAIL_OFF, params, NULL, err);
}

enum db_status db_clock_now(struct db_pool *pool, long long *now, struct base_err *err)
{
    return db_get_number(pool, DB_STMT_CLOCK_NOW, NULL, "now", false, now, err);
}

struct confirm_state {
    char *email;
    size_t size;
    bool *confirmed;
    long long *now;
};

static void confirm_state_read(void *out, const struct db_row *r)
{
    struct confirm_state *s = out;
    db_row_text(r, "email", s->email, s->size);
    *s->confirmed = db_row_bool(r, "confirmed");
    *s->now = db_row_long(r, "now");
}

enum db_status db_email_confirm_state(struct db_pool *pool, const char *player_id, char *email,
                                      size_t size, bool *confirmed, long long *now,
                                      struct base_err *err)
{
    const char *params[1] = { player_id };
    struct confirm_state s = { email, size, confirmed, now };
    return db_get_row(pool, DB_STMT_EMAIL_CONFIRM_STATE, params, confirm_state_read, &s, err);
}

enum db_status db_email_confirm(struct db_pool *pool, const char *player_id, const char *email,
                                struct base_err *err)
{
    const char *params[2] = { player_id, email };
    long long done = 0;
    enum db_status rc = db_get_number(pool, DB_STMT_EMAIL_CONFIRM, params, "done", true, &done,
                                      err);
    return rc == DB_OK && done == 0 ? DB_NOT_FOUND : rc;
}

static void owed_read(void *out, const struct db_row *r)
{
    *(bool *)out = db_row_bool(r, "owed");
}

enum db_status db_email_confirm_resend(struct db_pool *pool, const char *player_id, bool *owed,
                                       struct base_err *err)
{
    const char *params[1] = { player_id };
    *owed = false;
    return db_get_row(pool, DB_STMT_EMAIL_CONFIRM_RESEND, params, owed_read, owed, err);
}

enum db_status db_webhook_create(struct db_pool *pool, const char *id, const char *player_id,
                                 const char *url, db_notification_set events,
                                 const char *secret, int max, char **json, struct base_err *err)
{
    char kinds[KINDS_TEXT_MAX], most[16];
    const char *params[6] = { id, player_id, url, kinds, secret, most };
    enum db_status rc;

    kinds_text(events, kinds, sizeof kinds);
    snprintf(most, sizeof most, "%d", max);
    rc = answer(pool, DB_STMT_WEBHOOK_CREATE, params, json, err);
    return rc == DB_NOT_FOUND ? DB_CONFLICT : rc;   /* no row: at the maximum */
}

enum db_status db_webhook_list(struct db_pool *pool, const char *player_id, char **json,
                               struct base_err *err)
{
    const char *params[1] = { player_id };
    return answer(pool, DB_STMT_WEBHOOK_LIST, params, json, err);
}

enum db_status db_webhook_get(struct db_pool *pool, const char *player_id, const char *id,
                              char **json, struct base_err *err)
{
    const char *params[2] = { player_id, id };
    return answer(pool, DB_STMT_WEBHOOK_GET, params, json, err);
}

enum db_status db_webhook_delete(struct db_pool *pool, const char *player_id, const char *id,
                                 struct base_err *err)
{
    const char *params[2] = { player_id, id };
    return answer(pool, DB_STMT_WEBHOOK_DELETE, params, NULL, err);
}

enum db_status db_webhook_rotate(struct db_pool *pool, const char *player_id, const char *id,
                                 const char *secret, char **json, struct base_err *err)
{
    const char *params[3] = { player_id, id, secret };
    return answer(pool, DB_STMT_WEBHOOK_ROTATE, params, json, err);
}

enum db_status db_webhook_enable(struct db_pool *pool, const char *player_id, const char *id,
                                 char **json, struct base_err *err)
{
    const char *params[2] = { player_id, id };
    return answer(pool, DB_STMT_WEBHOOK_ENABLE, params, json, err);
}

enum db_status db_delivery_list(struct db_pool *pool, const char *player_id,
                                const char *webhook_id, int limit, char **json, struct base_err *err)
{
    char most[16];
    const char *params[3] = { player_id, webhook_id, most };
    snprintf(most, sizeof most, "%d", limit);
    return answer(pool, DB_STMT_DELIVERY_LIST, params, json, err);
}

enum db_status db_delivery_retry(struct db_pool *pool, const char *player_id,
                                 const char *webhook_id, long long delivery, char **json,
                                 struct base_err *err)
{
    char number[24];
    const char *params[3] = { player_id, webhook_id, number };
    snprintf(number, sizeof number, "%lld", delivery);
    return answer(pool, DB_STMT_DELIVERY_RETRY, params, json, err);
}

enum db_status db_player_search(struct db_pool *pool, const char *prefix, int limit,
                                char **json, struct base_err *err)
{
    char pattern[2 * DB_NAME_SIZE + 2], most[16];
    const char *params[2] = { pattern, most };
    size_t used = 0;

    /* Lower case, with LIKE's wildcard '_' meant literally, and '%' after. */
    for (const char *c = prefix; *c != '\0' && used + 3 < sizeof pattern; c++) {
        char ch = *c >= 'A' && *c <= 'Z' ? (char)(*c - 'A' + 'a') : *c;
        if (ch == '_' || ch == '%' || ch == '\\')
            pattern[used++] = '\\';
        pattern[used++] = ch;
    }
    pattern[used++] = '%';
    pattern[used] = '\0';
    snprintf(most, sizeof most, "%d", limit);
    return answer(pool, DB_STMT_PLAYER_SEARCH, params, json, err);
}
