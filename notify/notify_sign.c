/*
 * notify_sign.c — Standard Webhooks signatures (HMAC-SHA256 over
 * "<msg_id>.<timestamp>.<body>"), webhook secrets, the HMAC of the server's
 * own signed links.
 */
#include "notify_sign.h"

#include "base.h"

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <stdio.h>
#include <string.h>

/* ---- HMAC-SHA256 ------------------------------------------------------- */

struct part {
    const void *data;
    size_t len;
};

/* HMAC-SHA256 under key of the parts one after the other (no copy of the
 * body).  False on an OpenSSL failure. */
static bool hmac_sha256(const void *key, size_t key_len, const struct part *parts, int n,
                        unsigned char mac[32])
{
    bool ok = false;
    EVP_MAC *hmac = NULL;
    EVP_MAC_CTX *ctx = NULL;
    char digest[] = "SHA256";
    OSSL_PARAM params[] = {
        OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0),
        OSSL_PARAM_construct_end(),
    };
    size_t mac_len = 0;

    hmac = EVP_MAC_fetch(NULL, "HMAC", NULL);
    ctx = hmac ? EVP_MAC_CTX_new(hmac) : NULL;
    if (!ctx || EVP_MAC_init(ctx, key, key_len, params) != 1)
        goto done;
    for (int i = 0; i < n; i++)
        if (EVP_MAC_update(ctx, parts[i].data, parts[i].len) != 1)
            goto done;
    ok = EVP_MAC_final(ctx, mac, &mac_len, 32) == 1 && mac_len == 32;
done:
    EVP_MAC_CTX_free(ctx);
    EVP_MAC_free(hmac);
    return ok;
}

/* ---- Standard Webhooks ------------------------------------------------- */

bool notify_secret_new(char *out, size_t size)
{
    unsigned char key[NOTIFY_SECRET_BYTES];
    bool ok = false;
    if (size < NOTIFY_SECRET_LEN + 1) {
        if (size)
            out[0] = '\0';
        return false;
    }
    out[0] = '\0';
    if (RAND_bytes(key, sizeof key) == 1) {
        memcpy(out, NOTIFY_SECRET_PREFIX, 6);
        ok = base_base64_encode(key, sizeof key, out + 6, size - 6) > 0;
    }
    OPENSSL_cleanse(key, sizeof key);
    return ok;
}

/* The key of a "whsec_<base64>" secret; false if the secret is malformed
 * or the key's length is outside what the spec allows. */
static bool secret_key(const char *secret, unsigned char key[NOTIFY_KEY_MAX_BYTES],
                       size_t *key_len)
{
    size_t prefix = strlen(NOTIFY_SECRET_PREFIX);
    if (!secret || strncmp(secret, NOTIFY_SECRET_PREFIX, prefix) != 0)
        return false;
    if (!base_base64_decode(secret + prefix, key, NOTIFY_KEY_MAX_BYTES, key_len))
        return false;
    return *key_len >= NOTIFY_KEY_MIN_BYTES;
}

bool notify_sign(const char *secret, const char *msg_id, long long timestamp,
                 const char *body, size_t body_len, char *out, size_t size)
{
    bool ok = false;
    unsigned char key[NOTIFY_KEY_MAX_BYTES];
    size_t key_len = 0;
    unsigned char mac[32];
    char stamp[24];

    if (size == 0)
        return false;
    out[0] = '\0';
    if (size < NOTIFY_SIGNATURE_LEN + 1 || !msg_id || !msg_id[0] || strchr(msg_id, '.') ||
        timestamp < 0 || (!body && body_len > 0))
        goto done;
    if (!secret_key(secret, key, &key_len))
        goto done;

    snprintf(stamp, sizeof stamp, ".%lld.", timestamp);
    const struct part parts[] = {
        {msg_id, strlen(msg_id)},
        {stamp, strlen(stamp)},
        {body, body_len},
    };
    if (!hmac_sha256(key, key_len, parts, 3, mac))
        goto done;
    memcpy(out, "v1,", 3);
    ok = base_base64_encode(mac, sizeof mac, out + 3, size - 3) > 0;
done:
    OPENSSL_cleanse(key, sizeof key);
    if (!ok)
        out[0] = '\0';
    return ok;
}

bool notify_sign_all(const char *const *secrets, int n, const char *msg_id,
                     long long timestamp, const char *body, size_t body_len,
                     char *out, size_t size)
{
    size_t used = 0;
    if (size == 0)
        return false;
    out[0] = '\0';
    if (n < 1)
        return false;
    for (int i = 0; i < n; i++) {
        if (i > 0) {
            if (used + 1 >= size)
                goto fail;
            out[used++] = ' ';
        }
        if (!notify_sign(secrets[i], msg_id, timestamp, body, body_len, out + used,
                         size - used))
            goto fail;
        used += strlen(out + used);
    }
    return true;
fail:
    out[0] = '\0';
    return false;
}

/* ---- The server's own signed links --------------------------------------- */

void notify_hmac_hex(const void *key, size_t key_len, const char *text, char out[65])
{
    unsigned char mac[32];
    const struct part part = {text, strlen(text)};
    out[0] = '\0';
    if (!hmac_sha256(key, key_len, &part, 1, mac))
        return;
    for (int i = 0; i < 32; i++)
        snprintf(out + 2 * i, 3, "%02x", mac[i]);
}
