/*
 * notify_webhook.c — one attempt at a webhook delivery, as the Standard
 * Webhooks specification has it: POST of {"type", "timestamp", "data"}
 * with webhook-id (stable across retries), webhook-timestamp and
 * webhook-signature.  The URL was resolved and checked again just before
 * (notify_url_pin, on a resolver thread) and the connection is pinned to the
 * checked address; at most 64 KiB of the answer is read; redirects are not
 * followed.  The transfer itself runs in notify_hooks.c's curl multi loop.
 */
#include "notify_int.h"

#include "base.h"
#include "notify_sign.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ANSWER_MAX (64 * 1024)

/* Counts the answer's bytes, refusing more than ANSWER_MAX. */
static size_t discard(char *data, size_t size, size_t n, void *arg)
{
    size_t *seen = arg;
    (void)data;
    *seen += size * n;
    return *seen > ANSWER_MAX ? 0 : size * n;
}

/* The request body: the event's data under its type and time. */
static char *body_of(const struct db_delivery *d)
{
    cJSON *root = cJSON_CreateObject(), *data = cJSON_Parse(d->payload);
    char when[32], *text = NULL;

    base_time_format(d->created_unix, when);
    if (root != NULL && data != NULL && cJSON_AddStringToObject(root, "type", d->type) &&
        cJSON_AddStringToObject(root, "timestamp", when)) {
        cJSON_AddItemToObject(root, "data", data);
        data = NULL;
        text = cJSON_PrintUnformatted(root);
    }
    cJSON_Delete(data);
    cJSON_Delete(root);
    return text;
}

/* Sets the headers; false if out of memory or a secret is unusable. */
static bool sign(const struct db_delivery *d, const char *body, struct curl_slist **headers,
                 struct base_err *error)
{
    const char *secrets[2] = { d->secret, d->previous_secret };
    char id[40], stamp[48], signature[2 * (NOTIFY_SIGNATURE_LEN + 1) + 32];
    char value[sizeof signature + 32];
    long long now = (long long)time(NULL);
    struct curl_slist *h = NULL;

    snprintf(id, sizeof id, "webhook-id: msg_%lld", d->id);
    snprintf(stamp, sizeof stamp, "webhook-timestamp: %lld", now);
    if (!notify_sign_all(secrets, d->previous_secret[0] ? 2 : 1, id + 12, now, body,
                         strlen(body), signature, sizeof signature)) {
        base_err_set(error, "the webhook's secret is unusable");
        return false;
    }
    snprintf(value, sizeof value, "webhook-signature: %s", signature);
    const char *lines[] = { "Content-Type: application/json", "User-Agent: korp-webhooks/1",
                            id, stamp, value, "Expect:" };
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        struct curl_slist *more = curl_slist_append(h, lines[i]);
        if (more == NULL) {
            curl_slist_free_all(h);
            base_err_set(error, "out of memory");
            return false;
        }
        h = more;
    }
    *headers = h;
    return true;
}

/*
 * What the owner of a webhook (its delivery list) and korpd's log are told
 * when a transfer fails: a short cause, never libcurl's own text, which
 * names addresses, ports and timings of the network korpd is in.
 */
static const struct {
    CURLcode code;
    const char *cause;
} causes[] = {
    { CURLE_OPERATION_TIMEDOUT, "timeout" },
    { CURLE_COULDNT_RESOLVE_HOST, "dns" },
    { CURLE_COULDNT_CONNECT, "connect" },
    { CURLE_SSL_CONNECT_ERROR, "tls" },
    { CURLE_PEER_FAILED_VERIFICATION, "tls" },
    { CURLE_SSL_CERTPROBLEM, "tls" },
    { CURLE_SSL_CIPHER, "tls" },
    { CURLE_SSL_CACERT_BADFILE, "tls" },
    { CURLE_SSL_ISSUER_ERROR, "tls" },
    { CURLE_SSL_ENGINE_INITFAILED, "tls" },
    { CURLE_SSL_PINNEDPUBKEYNOTMATCH, "tls" },
    { CURLE_SSL_INVALIDCERTSTATUS, "tls" },
    { CURLE_SSL_SHUTDOWN_FAILED, "tls" },
    { CURLE_USE_SSL_FAILED, "tls" },
    { CURLE_GOT_NOTHING, "no answer" },
    { CURLE_SEND_ERROR, "send" },
    { CURLE_RECV_ERROR, "receive" },
    { CURLE_WRITE_ERROR, "answer too large" },
    { CURLE_WEIRD_SERVER_REPLY, "not http" },
    { CURLE_HTTP2, "http/2" },
    { CURLE_HTTP2_STREAM, "http/2" },
    { CURLE_OUT_OF_MEMORY, "out of memory" },
};

const char *notify_failure_cause(CURLcode rc, long os_errno)
{
    if (rc == CURLE_COULDNT_CONNECT && os_errno == ECONNREFUSED)
        return "refused";
    for (size_t i = 0; i < sizeof causes / sizeof causes[0]; i++)
        if (causes[i].code == rc)
            return causes[i].cause;
    return "transfer";
}

const char *notify_pin_cause(enum notify_url_verdict verdict)
{
    switch (verdict) {
    case NOTIFY_URL_OK: return "";
    case NOTIFY_URL_BAD_URL: return "bad url";
    case NOTIFY_URL_PRIVATE: return "address not allowed";
    case NOTIFY_URL_UNRESOLVED: return "dns";
    }
    return "bad url";
}

void notify_hook_free(struct notify_hook *h)
{
    if (h == NULL)
        return;
    if (h->easy != NULL)
        curl_easy_cleanup(h->easy);
    curl_slist_free_all(h->headers);
    curl_slist_free_all(h->resolve);
    free(h->body);
    db_deliveries_free(h->d, 1);
    free(h);
}

bool notify_webhook_begin(const struct notify_config *c, struct notify_hook *h,
                          struct db_attempt *a, struct base_err *error)
{
    const struct db_delivery *d = h->d;

    *a = (struct db_attempt){ 0 };
    h->started_us = base_monotonic_us();
    if (!d->webhook_enabled) {
        a->outcome = DB_FAILED;
        base_err_set(error, "the webhook is disabled");
        return false;
    }
    if (!h->pinned) {
        base_err_set(error, "%s", notify_pin_cause(h->pin.verdict));
        notify_retry_decide(c, d, 0, a);
        return false;
    }
    if ((h->body = body_of(d)) == NULL) {
        a->outcome = DB_FAILED;
        base_err_set(error, "the event's data is unreadable");
        return false;
    }
    if (!sign(d, h->body, &h->headers, error)) {
        a->outcome = DB_FAILED;
        return false;
    }
    if ((h->easy = curl_easy_init()) == NULL ||
        !notify_curl_harden(h->easy, &h->pin, c->allow_private, &h->resolve)) {
        base_err_set(error, "cannot set up the request (out of memory)");
        notify_retry_decide(c, d, 0, a);
        return false;
    }
    curl_easy_setopt(h->easy, CURLOPT_URL, d->url);
    curl_easy_setopt(h->easy, CURLOPT_POSTFIELDS, h->body);
    curl_easy_setopt(h->easy, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)strlen(h->body));
    curl_easy_setopt(h->easy, CURLOPT_HTTPHEADER, h->headers);
    curl_easy_setopt(h->easy, CURLOPT_TIMEOUT, (long)c->webhook_timeout_seconds);
    curl_easy_setopt(h->easy, CURLOPT_CONNECTTIMEOUT, (long)c->webhook_timeout_seconds);
    curl_easy_setopt(h->easy, CURLOPT_WRITEFUNCTION, discard);
    curl_easy_setopt(h->easy, CURLOPT_WRITEDATA, &h->answered);
    curl_easy_setopt(h->easy, CURLOPT_ERRORBUFFER, h->curl_error);
    curl_easy_setopt(h->easy, CURLOPT_PRIVATE, (void *)h);
    return true;
}

void notify_webhook_end(const struct notify_config *c, struct notify_hook *h, CURLcode rc,
                        struct db_attempt *a, struct base_err *error)
{
    long status = 0, os_errno = 0;
    curl_off_t retry_after = -1;

    a->latency_ms = (double)(base_monotonic_us() - h->started_us) / 1000.0;
    curl_easy_getinfo(h->easy, CURLINFO_RESPONSE_CODE, &status);
    curl_easy_getinfo(h->easy, CURLINFO_RETRY_AFTER, &retry_after);
    a->status_code = (int)status;
    if (status >= 200 && status < 300) {
        a->outcome = DB_DELIVERED;
    } else if (status == 410) {
        a->outcome = DB_ENDPOINT_GONE;
        a->reason = "the endpoint answered 410 Gone";
        base_err_set(error, "410 Gone: the webhook is disabled");
    } else {
        curl_easy_getinfo(h->easy, CURLINFO_OS_ERRNO, &os_errno);
        if (status != 0)
            base_err_set(error, "http %ld", status);
        else
            base_err_set(error, "%s", notify_failure_cause(rc, os_errno));
        notify_retry_decide(c, h->d, retry_after > 0 ? (double)retry_after : 0, a);
    }
}
