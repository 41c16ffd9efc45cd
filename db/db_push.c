/*
 * db_push.c — Web Push subscriptions: a player's list, and the target of a
 * push delivery.  The subscription's JSON is built in SQL (db_statements.def).
 */
#include "db_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Reads the "json" column into a malloc'd text (NULL if out of memory). */
static void json_read(void *out, const struct db_row *row)
{
    const char *text = db_row_value(row, "json");
    *(char **)out = strdup(text != NULL ? text : "null");
}

static enum db_status json_get(struct db_pool *pool, enum db_stmt stmt, const char *const *params,
                               char **json, struct base_err *err)
{
    char *text = NULL;
    enum db_status rc = db_get_row(pool, stmt, params, json_read, &text, err);
    if (rc == DB_OK && text == NULL) {
        base_err_set(err, "out of memory");
        rc = DB_HARD_ERROR;
    }
    if (rc != DB_OK || json == NULL) {
        free(text);
        text = NULL;
    }
    if (json != NULL)
        *json = text;
    return rc;
}

static void hex_of(const unsigned char *bytes, size_t len, char *out)
{
    for (size_t i = 0; i < len; i++)
        snprintf(out + 2 * i, 3, "%02x", bytes[i]);
}

static bool bytes_of(const char *hex, unsigned char *out, size_t len)
{
    if (hex == NULL || strlen(hex) != 2 * len)
        return false;
    for (size_t i = 0; i < len; i++) {
        unsigned int byte;
        if (sscanf(hex + 2 * i, "%2x", &byte) != 1)
            return false;
        out[i] = (unsigned char)byte;
    }
    return true;
}

enum db_status db_push_subscription_create(struct db_pool *pool, const char *id,
                                           const char *player_id, const char *endpoint,
                                           const unsigned char p256dh[DB_PUSH_P256DH_LEN],
                                           const unsigned char auth[DB_PUSH_AUTH_LEN], int max,
                                           char **json, struct base_err *err)
{
    char key[2 * DB_PUSH_P256DH_LEN + 1], secret[2 * DB_PUSH_AUTH_LEN + 1], most[16];
    const char *params[6] = { id, player_id, endpoint, key, secret, most };
    enum db_status rc;

    hex_of(p256dh, DB_PUSH_P256DH_LEN, key);
    hex_of(auth, DB_PUSH_AUTH_LEN, secret);
    snprintf(most, sizeof most, "%d", max);
    rc = json_get(pool, DB_STMT_PUSH_SUBSCRIPTION_CREATE, params, json, err);
    return rc == DB_NOT_FOUND ? DB_CONFLICT : rc;   /* no row: at the maximum */
}

enum db_status db_push_subscription_list(struct db_pool *pool, const char *player_id,
                                         char **json, struct base_err *err)
{
    const char *params[1] = { player_id };
    return json_get(pool, DB_STMT_PUSH_SUBSCRIPTION_LIST, params, json, err);
}

enum db_status db_push_subscription_delete(struct db_pool *pool, const char *player_id,
                                           const char *id, struct base_err *err)
{
    const char *params[2] = { player_id, id };
    return json_get(pool, DB_STMT_PUSH_SUBSCRIPTION_DELETE, params, NULL, err);
}

/* A target, with its keys from hex; an unreadable one reads as no id. */
static void target_read(void *out, const struct db_row *row)
{
    struct db_push_target *t = out;
    memset(t, 0, sizeof *t);
    db_row_text(row, "endpoint", t->endpoint, sizeof t->endpoint);
    if (bytes_of(db_row_value(row, "p256dh"), t->p256dh, sizeof t->p256dh) &&
        bytes_of(db_row_value(row, "auth"), t->auth, sizeof t->auth))
        db_row_text(row, "id", t->id, sizeof t->id);
}

enum db_status db_push_target_of(struct db_pool *pool, long long delivery_id,
                                 struct db_push_target *out, struct base_err *err)
{
    char id[24];
    const char *params[1] = { id };
    enum db_status rc;

    snprintf(id, sizeof id, "%lld", delivery_id);
    rc = db_get_row(pool, DB_STMT_PUSH_TARGET, params, target_read, out, err);
    if (rc == DB_OK && out->id[0] == '\0') {
        base_err_set(err, "the subscription's keys are unreadable");
        rc = DB_HARD_ERROR;
    }
    return rc;
}

enum db_status db_push_subscription_gone(struct db_pool *pool, const char *id,
                                         struct base_err *err)
{
    const char *params[1] = { id };
    enum db_status rc = json_get(pool, DB_STMT_PUSH_SUBSCRIPTION_GONE, params, NULL, err);
    return rc == DB_NOT_FOUND ? DB_OK : rc;
}
