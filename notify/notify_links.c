/*
 * notify_links.c — the signed links in emails, under a key that the first
 * korpd on a database makes and every other one reads: the one-click
 * unsubscribe link (RFC 8058), /v1/unsubscribe?player=<id>&exp=<unix>&sig=,
 * and the address confirmation link, /v1/email/confirm?player=&exp=&sig=,
 * whose signature covers the address (a link for an old one confirms
 * nothing).  Both expire at exp (korp's clock, in Unix seconds).
 */
#include "notify_int.h"

#include "notify_sign.h"

#include "base.h"

#include <openssl/rand.h>
#include <stdio.h>
#include <stdlib.h>
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

/* The HMAC of "<purpose>:<player>:<exp>[:<address>]" in hex. */
static void signature(const char *purpose, const char *player_id, long long exp,
                      const char *address, char out[65])
{
    char text[512];
    snprintf(text, sizeof text, "%s:%s:%lld%s%s", purpose, player_id, exp,
             address ? ":" : "", address ? address : "");
    notify_hmac_hex(link_key, sizeof link_key, text, out);
}

static void link(const char *public_url, const char *path, const char *purpose,
                 const char *player_id, long long exp, const char *address, char *out,
                 size_t size)
{
    char sig[65];
    signature(purpose, player_id, exp, address, sig);
    snprintf(out, size, "%s%s?player=%s&exp=%lld&sig=%s", public_url, path, player_id, exp,
             sig);
}

static enum notify_link check(const char *purpose, const char *player_id,
                              const char *exp_text, const char *sig, const char *address,
                              long long now)
{
    char expected[65], *end = NULL;
    long long exp;

    if (!link_key_loaded || player_id == NULL || exp_text == NULL || sig == NULL ||
        strlen(player_id) != BASE_ID_LEN || exp_text[0] < '0' || exp_text[0] > '9')
        return NOTIFY_LINK_BAD;
    exp = strtoll(exp_text, &end, 10);
    if (*end != '\0' || strlen(exp_text) > 12)
        return NOTIFY_LINK_BAD;
    signature(purpose, player_id, exp, address, expected);
    if (!base_secret_equal(expected, sig))
        return NOTIFY_LINK_BAD;
    return exp > now ? NOTIFY_LINK_OK : NOTIFY_LINK_EXPIRED;
}

void notify_unsubscribe_url(const char *public_url, const char *player_id, long long now,
                            char *out, size_t size)
{
    link(public_url, "/v1/unsubscribe", "unsubscribe", player_id,
         now + NOTIFY_UNSUBSCRIBE_DAYS * 86400LL, NULL, out, size);
}

enum notify_link notify_unsubscribe_check(const char *player_id, const char *exp,
                                          const char *sig, long long now)
{
    return check("unsubscribe", player_id, exp, sig, NULL, now);
}

void notify_confirm_url(const char *public_url, const char *player_id, const char *address,
                        long long sent, char *out, size_t size)
{
    link(public_url, "/v1/email/confirm", "confirm", player_id,
         sent + NOTIFY_CONFIRM_DAYS * 86400LL, address, out, size);
}

enum notify_link notify_confirm_check(const char *player_id, const char *address,
                                      const char *exp, const char *sig, long long now)
{
    return check("confirm", player_id, exp, sig, address, now);
}
