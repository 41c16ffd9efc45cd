/*
 * notify_push.c — Web Push (RFC 8030): the VAPID key pair (RFC 8292), the
 * message encryption (RFC 8291 over RFC 8188's aes128gcm) and the push
 * thread that sends what the outbox owes on the "push" channel.
 *
 * The key pair is one for all korpd processes of a database: read from
 * KORP_VAPID_PRIVATE_KEY_FILE (a PEM P-256 private key), or made at the
 * first start and kept as a server secret (the 32-byte private scalar and
 * the 65-byte public point).  It is loaded once by notify_push_init before
 * any thread starts and only read after.  Without KORP_PUSH_CONTACT push is
 * off: no key, no thread.
 *
 * A push is one POST to the subscription's endpoint (checked and pinned as
 * a webhook's URL is) with the encrypted JSON {"type", "title", "body",
 * "url", "game_id"} in the player's language.  2xx is delivered; 429, 5xx
 * and no answer are retried through the outbox; 404 and 410 mean the
 * browser unsubscribed: the subscription is forgotten; any other answer
 * gives the push up.
 */
#include "notify_int.h"
#include "notify_mail.h"

#include "base.h"

#include <cjson/cJSON.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/param_build.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define POINT_LEN 65                  /* an uncompressed P-256 point */
#define SCALAR_LEN 32
#define SALT_LEN 16
#define RECORD_SIZE 4096              /* one record holds any push of ours */
#define HEADER_LEN (SALT_LEN + 4 + 1 + POINT_LEN)
#define TAG_LEN 16
#define PLAIN_MAX (RECORD_SIZE - TAG_LEN - 1)
#define KEY_SECRET "vapid private key"
#define JWT_HOURS 12                  /* RFC 8292 allows at most 24 */
#define TTL_SECONDS 86400
#define PUSH_BATCH 16
#define MAX_IDLE_MS 5000
#define ANSWER_MAX (64 * 1024)

/* Set by notify_push_init before threads start; read-only after. */
static EVP_PKEY *vapid_key;
static unsigned char vapid_public[POINT_LEN];
static const char *push_contact;

/* ---- Keys and encodings -------------------------------------------------- */

size_t notify_base64url_encode(const void *data, size_t len, char *out, size_t size)
{
    size_t n = base_base64_encode(data, len, out, size);
    while (n > 0 && out[n - 1] == '=')
        out[--n] = '\0';
    for (size_t i = 0; i < n; i++)
        out[i] = out[i] == '+' ? '-' : out[i] == '/' ? '_' : out[i];
    return n;
}

bool notify_base64url_decode(const char *text, unsigned char *out, size_t size, size_t *len)
{
    char padded[256];
    size_t n = strlen(text);

    *len = 0;
    if (n + 3 >= sizeof padded || n % 4 == 1)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = text[i];
        if (c == '+' || c == '/' || c == '=')
            return false;            /* the URL alphabet only, unpadded */
        padded[i] = c == '-' ? '+' : c == '_' ? '/' : c;
    }
    while (n % 4 != 0)
        padded[n++] = '=';
    padded[n] = '\0';
    return base_base64_decode(padded, out, size, len);
}

/* A P-256 key from its public point and, when priv is not NULL, its scalar. */
static EVP_PKEY *key_from(const unsigned char point[POINT_LEN], const unsigned char *priv)
{
    OSSL_PARAM_BLD *bld = OSSL_PARAM_BLD_new();
    OSSL_PARAM *params = NULL;
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL);
    EVP_PKEY *key = NULL;
    BIGNUM *scalar = priv != NULL ? BN_bin2bn(priv, SCALAR_LEN, NULL) : NULL;

    if (bld == NULL || ctx == NULL || (priv != NULL && scalar == NULL) ||
        !OSSL_PARAM_BLD_push_utf8_string(bld, OSSL_PKEY_PARAM_GROUP_NAME, "prime256v1", 0) ||
        !OSSL_PARAM_BLD_push_octet_string(bld, OSSL_PKEY_PARAM_PUB_KEY, point, POINT_LEN) ||
        (scalar != NULL && !OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_PRIV_KEY, scalar)) ||
        (params = OSSL_PARAM_BLD_to_param(bld)) == NULL || EVP_PKEY_fromdata_init(ctx) <= 0 ||
        EVP_PKEY_fromdata(ctx, &key, priv != NULL ? EVP_PKEY_KEYPAIR : EVP_PKEY_PUBLIC_KEY,
                          params) <= 0)
        key = NULL;
    OSSL_PARAM_free(params);
    OSSL_PARAM_BLD_free(bld);
    EVP_PKEY_CTX_free(ctx);
    BN_clear_free(scalar);
    return key;
}

bool notify_push_point_valid(const unsigned char *point, size_t len)
{
    EVP_PKEY *key = NULL;
    EVP_PKEY_CTX *ctx = NULL;
    bool ok = len == POINT_LEN && point[0] == 0x04 && (key = key_from(point, NULL)) != NULL &&
              (ctx = EVP_PKEY_CTX_new(key, NULL)) != NULL && EVP_PKEY_public_check(ctx) == 1;
    EVP_PKEY_CTX_free(ctx);
    EVP_PKEY_free(key);
    return ok;
}

/* The uncompressed public point of a P-256 key. */
static bool point_of(EVP_PKEY *key, unsigned char out[POINT_LEN])
{
    size_t len = 0;
    return EVP_PKEY_set_utf8_string_param(key, OSSL_PKEY_PARAM_EC_POINT_CONVERSION_FORMAT,
                                          "uncompressed") == 1 &&
           EVP_PKEY_get_octet_string_param(key, OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY, out,
                                           POINT_LEN, &len) == 1 &&
           len == POINT_LEN;
}

static EVP_PKEY *key_read_file(const char *path, struct base_err *err)
{
    FILE *f = fopen(path, "r");
    EVP_PKEY *key = NULL;
    if (f == NULL) {
        base_err_set(err, "cannot open KORP_VAPID_PRIVATE_KEY_FILE %s", path);
        return NULL;
    }
    key = PEM_read_PrivateKey(f, NULL, NULL, NULL);
    fclose(f);
    if (key == NULL || !EVP_PKEY_is_a(key, "EC") || !point_of(key, vapid_public)) {
        base_err_set(err, "KORP_VAPID_PRIVATE_KEY_FILE %s holds no P-256 private key", path);
        EVP_PKEY_free(key);
        return NULL;
    }
    return key;
}

/* The database's key pair, made by the first korpd that asks. */
static EVP_PKEY *key_from_database(struct db_pool *pool, struct base_err *err)
{
    unsigned char fresh[SCALAR_LEN + POINT_LEN], kept[SCALAR_LEN + POINT_LEN];
    EVP_PKEY *made = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256"), *key = NULL;
    BIGNUM *scalar = NULL;

    if (made == NULL || !EVP_PKEY_get_bn_param(made, OSSL_PKEY_PARAM_PRIV_KEY, &scalar) ||
        BN_bn2binpad(scalar, fresh, SCALAR_LEN) != SCALAR_LEN ||
        !point_of(made, fresh + SCALAR_LEN)) {
        base_err_set(err, "cannot make a VAPID key pair");
        goto done;
    }
    if (db_server_secret(pool, KEY_SECRET, fresh, sizeof fresh, kept, err) != DB_OK)
        goto done;
    memcpy(vapid_public, kept + SCALAR_LEN, POINT_LEN);
    if ((key = key_from(vapid_public, kept)) == NULL)
        base_err_set(err, "the stored VAPID key pair is unusable");
done:
    OPENSSL_cleanse(fresh, sizeof fresh);
    OPENSSL_cleanse(kept, sizeof kept);
    BN_clear_free(scalar);
    EVP_PKEY_free(made);
    return key;
}

bool notify_push_init(struct db_pool *pool, const struct notify_config *c,
                      struct base_err *err)
{
    if (vapid_key != NULL)
        return true;
    if (c->push_contact == NULL || c->push_contact[0] == '\0') {
        base_log(BASE_LOG_INFO, "push notifications are off (no KORP_PUSH_CONTACT)");
        return true;
    }
    if (strncmp(c->push_contact, "mailto:", 7) != 0 &&
        strncmp(c->push_contact, "https://", 8) != 0) {
        base_err_set(err, "KORP_PUSH_CONTACT must be a mailto: or https: URL");
        return false;
    }
    vapid_key = c->vapid_key_file != NULL && c->vapid_key_file[0] != '\0'
                    ? key_read_file(c->vapid_key_file, err)
                    : key_from_database(pool, err);
    if (vapid_key == NULL)
        return false;
    push_contact = c->push_contact;
    return true;
}

bool notify_push_public_key(char *out, size_t size)
{
    return vapid_key != NULL && notify_base64url_encode(vapid_public, POINT_LEN, out, size) > 0;
}

/* ---- Encryption (RFC 8291) ------------------------------------------------ */

static bool hkdf(const unsigned char *salt, size_t salt_len, const unsigned char *ikm,
                 size_t ikm_len, const void *info, size_t info_len, unsigned char *out,
                 size_t out_len)
{
    EVP_KDF *kdf = EVP_KDF_fetch(NULL, "HKDF", NULL);
    EVP_KDF_CTX *ctx = kdf != NULL ? EVP_KDF_CTX_new(kdf) : NULL;
    OSSL_PARAM params[] = {
        OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, (char *)"SHA256", 0),
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT, (void *)salt, salt_len),
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, (void *)ikm, ikm_len),
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, (void *)info, info_len),
        OSSL_PARAM_construct_end(),
    };
    bool ok = ctx != NULL && EVP_KDF_derive(ctx, out, out_len, params) == 1;
    EVP_KDF_CTX_free(ctx);
    EVP_KDF_free(kdf);
    return ok;
}

static bool ecdh(EVP_PKEY *mine, EVP_PKEY *theirs, unsigned char secret[SCALAR_LEN])
{
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new(mine, NULL);
    size_t len = SCALAR_LEN;
    bool ok = ctx != NULL && EVP_PKEY_derive_init(ctx) == 1 &&
              EVP_PKEY_derive_set_peer(ctx, theirs) == 1 &&
              EVP_PKEY_derive(ctx, secret, &len) == 1 && len == SCALAR_LEN;
    EVP_PKEY_CTX_free(ctx);
    return ok;
}

/* AES-128-GCM of in (len bytes) and the tag, into out. */
static bool seal(const unsigned char key[16], const unsigned char nonce[12],
                 const unsigned char *in, size_t len, unsigned char *out)
{
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int n = 0, last = 0;
    bool ok = ctx != NULL && EVP_EncryptInit_ex(ctx, EVP_aes_128_gcm(), NULL, key, nonce) == 1 &&
              EVP_EncryptUpdate(ctx, out, &n, in, (int)len) == 1 &&
              EVP_EncryptFinal_ex(ctx, out + n, &last) == 1 &&
              EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, TAG_LEN, out + n + last) == 1;
    EVP_CIPHER_CTX_free(ctx);
    return ok;
}

/*
 * The aes128gcm body of one message to a browser: the header (salt, record
 * size, our ephemeral public point) and one record.  *out is malloc'd.
 */
bool notify_push_encrypt(const unsigned char ua_public[POINT_LEN], const unsigned char auth[16],
                         const char *plain, size_t len, unsigned char **out, size_t *out_len)
{
    static const char key_info[] = "WebPush: info";
    static const char cek_info[] = "Content-Encoding: aes128gcm";
    static const char nonce_info[] = "Content-Encoding: nonce";
    unsigned char info[sizeof key_info + 2 * POINT_LEN], secret[SCALAR_LEN], ikm[32];
    unsigned char salt[SALT_LEN], cek[16], nonce[12], as_public[POINT_LEN];
    unsigned char *body = NULL, *padded = NULL;
    EVP_PKEY *ua = NULL, *as = NULL;
    bool ok = false;

    *out = NULL;
    if (len > PLAIN_MAX || (ua = key_from(ua_public, NULL)) == NULL ||
        (as = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256")) == NULL || !point_of(as, as_public) ||
        !ecdh(as, ua, secret) || RAND_bytes(salt, SALT_LEN) != 1)
        goto done;
    /* Info strings carry their terminating NUL (RFC 8291 section 3.3). */
    memcpy(info, key_info, sizeof key_info);
    memcpy(info + sizeof key_info, ua_public, POINT_LEN);
    memcpy(info + sizeof key_info + POINT_LEN, as_public, POINT_LEN);
    if (!hkdf(auth, 16, secret, sizeof secret, info, sizeof info, ikm, sizeof ikm) ||
        !hkdf(salt, SALT_LEN, ikm, sizeof ikm, cek_info, sizeof cek_info, cek, sizeof cek) ||
        !hkdf(salt, SALT_LEN, ikm, sizeof ikm, nonce_info, sizeof nonce_info, nonce,
              sizeof nonce) ||
        (padded = malloc(len + 1)) == NULL ||
        (body = malloc(HEADER_LEN + len + 1 + TAG_LEN)) == NULL)
        goto done;
    memcpy(padded, plain, len);
    padded[len] = 0x02;              /* the last (and only) record's delimiter */
    memcpy(body, salt, SALT_LEN);
    body[SALT_LEN] = (unsigned char)(RECORD_SIZE >> 24);
    body[SALT_LEN + 1] = (unsigned char)(RECORD_SIZE >> 16 & 0xff);
    body[SALT_LEN + 2] = (unsigned char)(RECORD_SIZE >> 8 & 0xff);
    body[SALT_LEN + 3] = (unsigned char)(RECORD_SIZE & 0xff);
    body[SALT_LEN + 4] = POINT_LEN;
    memcpy(body + SALT_LEN + 5, as_public, POINT_LEN);
    if (!seal(cek, nonce, padded, len + 1, body + HEADER_LEN))
        goto done;
    *out = body;
    *out_len = HEADER_LEN + len + 1 + TAG_LEN;
    body = NULL;
    ok = true;
done:
    OPENSSL_cleanse(secret, sizeof secret);
    OPENSSL_cleanse(ikm, sizeof ikm);
    OPENSSL_cleanse(cek, sizeof cek);
    free(padded);
    free(body);
    EVP_PKEY_free(ua);
    EVP_PKEY_free(as);
    return ok;
}

/* ---- VAPID (RFC 8292) ------------------------------------------------------ */

/* "scheme://host[:port]" of the endpoint: the JWT's audience. */
static bool origin_of(const char *url, char *out, size_t size)
{
    CURLU *u = curl_url();
    char *scheme = NULL, *host = NULL, *port = NULL;
    bool ok = u != NULL && curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK &&
              curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) == CURLUE_OK &&
              curl_url_get(u, CURLUPART_HOST, &host, 0) == CURLUE_OK;
    if (ok && curl_url_get(u, CURLUPART_PORT, &port, CURLU_NO_DEFAULT_PORT) != CURLUE_OK)
        port = NULL;
    if (ok)
        ok = (size_t)snprintf(out, size, "%s://%s%s%s", scheme, host, port ? ":" : "",
                              port ? port : "") < size;
    curl_free(scheme);
    curl_free(host);
    curl_free(port);
    curl_url_cleanup(u);
    return ok;
}

/* ES256 of text: r || s, 64 bytes. */
static bool es256(const char *text, unsigned char out[64])
{
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    unsigned char der[80];
    const unsigned char *p = der;
    size_t len = sizeof der;
    ECDSA_SIG *sig = NULL;
    const BIGNUM *r = NULL, *s = NULL;
    bool ok = md != NULL && EVP_DigestSignInit(md, NULL, EVP_sha256(), NULL, vapid_key) == 1 &&
              EVP_DigestSign(md, der, &len, (const unsigned char *)text, strlen(text)) == 1 &&
              (sig = d2i_ECDSA_SIG(NULL, &p, (long)len)) != NULL;
    if (ok) {
        ECDSA_SIG_get0(sig, &r, &s);
        ok = BN_bn2binpad(r, out, 32) == 32 && BN_bn2binpad(s, out + 32, 32) == 32;
    }
    ECDSA_SIG_free(sig);
    EVP_MD_CTX_free(md);
    return ok;
}

/* The Authorization header for a push to `endpoint`. */
static bool vapid_header(const char *endpoint, long long now, char *out, size_t size)
{
    static const char header[] = "{\"typ\":\"JWT\",\"alg\":\"ES256\"}";
    char origin[NOTIFY_URL_MAX + 1], head[64], claims[2 * NOTIFY_URL_MAX + 512];
    char token[4 * NOTIFY_URL_MAX + 1024], key[BASE_BASE64_LEN(POINT_LEN) + 1];
    char *text = NULL;
    unsigned char signature[64];
    cJSON *c = cJSON_CreateObject();
    size_t n;
    bool ok = false;

    if (c == NULL || !origin_of(endpoint, origin, sizeof origin) ||
        !cJSON_AddStringToObject(c, "aud", origin) ||
        !cJSON_AddNumberToObject(c, "exp", (double)(now + JWT_HOURS * 3600)) ||
        !cJSON_AddStringToObject(c, "sub", push_contact) ||
        (text = cJSON_PrintUnformatted(c)) == NULL ||
        notify_base64url_encode(header, sizeof header - 1, head, sizeof head) == 0 ||
        notify_base64url_encode(text, strlen(text), claims, sizeof claims) == 0)
        goto done;
    /* The signed input is "header.claims"; the token appends ".signature". */
    n = (size_t)snprintf(token, sizeof token, "%s.%s", head, claims);
    if (n + 2 + BASE_BASE64_LEN(sizeof signature) >= sizeof token || !es256(token, signature))
        goto done;
    token[n++] = '.';
    notify_base64url_encode(signature, sizeof signature, token + n, sizeof token - n);
    notify_base64url_encode(vapid_public, POINT_LEN, key, sizeof key);
    ok = (size_t)snprintf(out, size, "Authorization: vapid t=%s, k=%s", token, key) < size;
done:
    free(text);
    cJSON_Delete(c);
    return ok;
}

/* ---- One push ---------------------------------------------------------------- */

/* The second paragraph of a mail's body (the first greets), on one line. */
static void gist_of(const char *mail, char *out, size_t size)
{
    const char *p = mail != NULL ? strstr(mail, "\n\n") : NULL;
    size_t n = 0;

    out[0] = '\0';
    for (p = p != NULL ? p + 2 : ""; *p && n + 1 < size; p++) {
        if (p[0] == '\n' && p[1] == '\n')
            break;
        out[n++] = *p == '\n' ? ' ' : *p;
    }
    /* Cut inside a UTF-8 character: leave the whole character out. */
    if (((unsigned char)*p & 0xc0) == 0x80) {
        while (n > 0 && ((unsigned char)out[n - 1] & 0xc0) == 0x80)
            n--;
        if (n > 0)
            n--;
    }
    out[n] = '\0';
}

/* The JSON the service worker shows, malloc'd; NULL when the kind has no text. */
static char *message_of(const struct notify_config *c, const struct db_delivery *d,
                        struct base_err *error)
{
    cJSON *data = cJSON_Parse(d->payload), *m = cJSON_CreateObject();
    const cJSON *game = cJSON_GetObjectItemCaseSensitive(data, "game_id");
    const cJSON *challenge = cJSON_GetObjectItemCaseSensitive(data, "challenge_id");
    char subject[512], gist[600], url[1024], *body = NULL, *text = NULL;
    const char *base = c->public_url != NULL ? c->public_url : "";

    if (data == NULL || m == NULL ||
        !notify_email_compose(c, d, data, subject, sizeof subject, &body, error))
        goto done;
    gist_of(body, gist, sizeof gist);
    if (cJSON_IsString(game))
        snprintf(url, sizeof url, "%s/games/%s", base, game->valuestring);
    else if (cJSON_IsString(challenge))
        snprintf(url, sizeof url, "%s/challenges/%s", base, challenge->valuestring);
    else
        snprintf(url, sizeof url, "%s/", base);
    if (cJSON_AddStringToObject(m, "type", d->type) &&
        cJSON_AddStringToObject(m, "title", subject) &&
        cJSON_AddStringToObject(m, "body", gist) && cJSON_AddStringToObject(m, "url", url) &&
        (cJSON_IsString(game) ? cJSON_AddStringToObject(m, "game_id", game->valuestring)
                              : cJSON_AddNullToObject(m, "game_id")))
        text = cJSON_PrintUnformatted(m);
done:
    free(body);
    cJSON_Delete(data);
    cJSON_Delete(m);
    return text;
}

static size_t discard(char *data, size_t size, size_t n, void *arg)
{
    size_t *seen = arg;
    (void)data;
    *seen += size * n;
    return *seen > ANSWER_MAX ? 0 : size * n;
}

/* Reads the push service's answer into the attempt. */
static void judge(const struct notify_config *c, const struct db_delivery *d, CURL *curl,
                  CURLcode rc, struct db_attempt *a, bool *gone, struct base_err *error)
{
    long status = 0, os_errno = 0;
    curl_off_t retry_after = -1;

    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
    curl_easy_getinfo(curl, CURLINFO_RETRY_AFTER, &retry_after);
    curl_easy_getinfo(curl, CURLINFO_OS_ERRNO, &os_errno);
    a->status_code = (int)status;
    if (status >= 200 && status < 300) {
        a->outcome = DB_DELIVERED;
        return;
    }
    if (status == 0)
        base_err_set(error, "%s", notify_failure_cause(rc, os_errno));
    else
        base_err_set(error, "http %ld", status);
    if (status == 404 || status == 410) {
        *gone = true;
        a->outcome = DB_FAILED;
        base_err_set(error, "http %ld: the subscription has expired", status);
    } else if (status == 0 || status == 429 || status >= 500) {
        notify_retry_decide(c, d, retry_after > 0 ? (double)retry_after : 0, a);
    } else {
        a->outcome = DB_FAILED;
    }
}

/* One attempt at a push; gone_id names the subscription when the push
 * service has forgotten it ("" otherwise). */
static void push_send(const struct notify_config *c, struct db_pool *pool,
                      const struct db_delivery *d, struct db_attempt *a,
                      char gone_id[BASE_ID_SIZE], struct base_err *error)
{
    bool gone = false;
    struct db_push_target t;
    struct notify_pin pin;
    struct base_err err = { "" };
    struct curl_slist *headers = NULL, *resolve = NULL;
    unsigned char *body = NULL;
    size_t body_len = 0, answered = 0;
    char *text = NULL, auth[8 * NOTIFY_URL_MAX], ttl[32];
    long long started = base_monotonic_us();
    CURL *curl = NULL;
    enum db_status st = db_push_target_of(pool, d->id, &t, &err);

    if (st != DB_OK) {
        base_err_set(error, "%s", st == DB_NOT_FOUND ? "the subscription is gone" : err.text);
        a->outcome = DB_FAILED;
        goto done;
    }
    if ((text = message_of(c, d, error)) == NULL ||
        !notify_push_encrypt(t.p256dh, t.auth, text, strlen(text), &body, &body_len) ||
        !vapid_header(t.endpoint, (long long)time(NULL), auth, sizeof auth)) {
        if (!error->text[0])
            base_err_set(error, "cannot encrypt or sign the push");
        a->outcome = DB_FAILED;
        goto done;
    }
    if (!notify_url_pin(t.endpoint, c->allow_private, &pin, &err)) {
        base_err_set(error, "%s", notify_pin_cause(pin.verdict));
        notify_retry_decide(c, d, 0, a);
        goto done;
    }
    snprintf(ttl, sizeof ttl, "TTL: %d", TTL_SECONDS);
    const char *lines[] = { "Content-Type: application/octet-stream",
                            "Content-Encoding: aes128gcm", ttl,
                            strcmp(d->type, "deadline_near") == 0 ? "Urgency: high"
                                                                  : "Urgency: normal",
                            auth, "User-Agent: korp-push/1", "Expect:" };
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        struct curl_slist *more = curl_slist_append(headers, lines[i]);
        if (more == NULL)
            break;
        headers = more;
    }
    if ((curl = curl_easy_init()) == NULL ||
        !notify_curl_harden(curl, &pin, c->allow_private, &resolve)) {
        base_err_set(error, "cannot set up the request (out of memory)");
        notify_retry_decide(c, d, 0, a);
        goto done;
    }
    curl_easy_setopt(curl, CURLOPT_URL, t.endpoint);
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, (const char *)body);
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)body_len);
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT, (long)c->webhook_timeout_seconds);
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, (long)c->webhook_timeout_seconds);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, discard);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &answered);
    judge(c, d, curl, curl_easy_perform(curl), a, &gone, error);
    if (gone)
        snprintf(gone_id, BASE_ID_SIZE, "%s", t.id);
done:
    a->latency_ms = (double)(base_monotonic_us() - started) / 1000.0;
    if (curl != NULL)
        curl_easy_cleanup(curl);
    curl_slist_free_all(headers);
    curl_slist_free_all(resolve);
    free(body);
    free(text);
}

/* ---- The push thread ------------------------------------------------------- */

struct notify_pushes {
    struct db_pool *pool;
    const struct notify_config *config;
    struct base_worker *worker;
};

static int idle_ms(struct notify_pushes *P)
{
    struct base_err err = { "" };
    double seconds = 0;
    bool any = false;
    if (db_deliveries_next(P->pool, DB_CHANNEL_PUSH, &seconds, &any, &err) != DB_OK || !any ||
        seconds * 1000 >= MAX_IDLE_MS)
        return MAX_IDLE_MS;
    return seconds <= 0.005 ? 5 : (int)(seconds * 1000) + 1;
}

static void push_loop(struct base_worker *w, void *arg)
{
    struct notify_pushes *P = arg;
    int wait_ms = 0;

    while (base_worker_sleep(w, wait_ms)) {
        struct db_delivery *due = NULL;
        struct base_err err = { "" };
        int count = 0;
        enum db_status rc = db_deliveries_claim(P->pool, PUSH_BATCH, P->config->lease_seconds,
                                                DB_CHANNEL_PUSH, &due, &count, &err);
        if (rc != DB_OK) {
            base_log(BASE_LOG_WARN, "notify: cannot claim pushes: %s: %s", db_status_text(rc),
                     err.text);
            wait_ms = 1000;
            continue;
        }
        for (int i = 0; i < count && !base_worker_stopping(w); i++) {
            struct base_err error = { "" };
            struct db_attempt a = { 0 };
            char gone[BASE_ID_SIZE] = "";
            push_send(P->config, P->pool, &due[i], &a, gone, &error);
            notify_record(P->pool, &due[i], &a, &error);
            /* Its owed pushes go with it. */
            if (gone[0] && db_push_subscription_gone(P->pool, gone, &err) != DB_OK)
                base_log(BASE_LOG_WARN, "notify: cannot forget push subscription %s: %s", gone,
                         err.text);
        }
        db_deliveries_free(due, count);
        wait_ms = count > 0 ? 0 : idle_ms(P);
    }
}

struct notify_pushes *notify_pushes_start(struct db_pool *pool, const struct notify_config *c,
                                          struct base_err *err)
{
    struct notify_pushes *P;

    if (vapid_key == NULL)
        return NULL;                  /* push is off: nothing to send */
    if ((P = calloc(1, sizeof *P)) == NULL) {
        base_err_set(err, "out of memory");
        return NULL;
    }
    P->pool = pool;
    P->config = c;
    if ((P->worker = base_worker_start("notify push", push_loop, P, err)) == NULL) {
        base_log(BASE_LOG_ERROR, "notify: cannot start the push thread: %s", err->text);
        free(P);
        return NULL;
    }
    return P;
}

void notify_pushes_wake(struct notify_pushes *P)
{
    if (P != NULL)
        base_worker_wake(P->worker);
}

void notify_pushes_stop(struct notify_pushes *P)
{
    if (P == NULL)
        return;
    base_worker_stop(P->worker);
    free(P);
}
