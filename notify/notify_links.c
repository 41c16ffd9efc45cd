/*
 * notify_links.c — the one-click unsubscribe links in emails (RFC 8058):
 * /v1/unsubscribe?player=<id>&sig=<HMAC-SHA256 of the id>, under a key
 * that the first korpd on a database makes and every other one reads.
 */
#include "notify_int.h"

#include "notify_sign.h"

#include "base.h"

#include <openssl/rand.h>
#include <stdio.h>
#include <string.h>

#define LINK_KEY_BYTES 32

/* Written once by notify_links_init, before any thread reads it. */
static unsigned char link_key[LINK_KEY_BYTES];
static bool link_key_loaded;

bool notify_links_init(struct db_pool *pool, struct base_err *err)
{
    unsigned char fresh[LINK_KEY_BYTES];
    struct base_err why = { "" };
    enum db_status rc;

    if (RAND_bytes(fresh, sizeof fresh) != 1) {
        base_err_set(err, "the random generator failed");
        return false;
    }
    rc = db_server_secret(pool, "unsubscribe_links", fresh, sizeof fresh, link_key, &why);
    if (rc != DB_OK) {
        base_err_set(err, "cannot load the unsubscribe link key: %s: %s",
                 db_status_text(rc), why.text);
        return false;
    }
    link_key_loaded = true;
    return true;
}

static void signature(const char *player_id, char out[65])
{
    char text[64];
    snprintf(text, sizeof text, "unsubscribe:%s", player_id);
    notify_hmac_hex(link_key, sizeof link_key, text, out);
}

void notify_unsubscribe_url(const char *public_url, const char *player_id, char *out,
                            size_t size)
{
    char sig[65];
    signature(player_id, sig);
    snprintf(out, size, "%s/v1/unsubscribe?player=%s&sig=%s", public_url, player_id, sig);
}

bool notify_unsubscribe_valid(const char *player_id, const char *sig)
{
    char expected[65];
    if (!link_key_loaded || player_id == NULL || sig == NULL ||
        strlen(player_id) != BASE_ID_LEN)
        return false;
    signature(player_id, expected);
    return base_secret_equal(expected, sig);
}
