/* notify_int.h — what the delivery files of notify/ share. */
#ifndef KORP_NOTIFY_INT_H
#define KORP_NOTIFY_INT_H

#include "notify.h"
#include "notify_sign.h"

#include <cjson/cJSON.h>
#include <curl/curl.h>

/* The longest an SMTP conversation may take. */
#define NOTIFY_SMTP_TIMEOUT_SECONDS 30

/* An email worker's own things: its curl handle (kept between messages, so
 * that the connection to the SMTP server stays open) and the settings. */
struct notify_sender {
    const struct notify_config *config;
    CURL *curl;
};

/* One webhook attempt, from its claim to its record (notify_hooks.c). */
struct notify_hook {
    struct db_delivery *d;           /* owned (one, db_deliveries_free) */
    long long lease_end_us;          /* base_monotonic_us() when the claim ends */
    int flying_slot;                 /* in the loop's table of transfers */
    int endpoint;                    /* index in the loop's endpoint table */
    bool pinned;                     /* the resolver thread pinned the URL */
    struct notify_pin pin;
    struct base_err pin_error;       /* why not, when not pinned */
    CURL *easy;
    struct curl_slist *headers, *resolve;
    char *body;
    size_t answered;
    char curl_error[CURL_ERROR_SIZE];
    long long started_us;
    struct notify_hook *next;        /* in the loop's queues */
};

/* The short cause of a failed transfer: "timeout", "dns", "connect",
 * "refused" (os_errno ECONNREFUSED), "tls", "no answer" … ("transfer" for
 * any other). */
const char *notify_failure_cause(CURLcode rc, long os_errno);

/* The short cause of a failed pin: "dns", "address not allowed", "bad url". */
const char *notify_pin_cause(enum notify_url_verdict verdict);

/* Frees a hook and all it owns (its easy handle must be out of any multi). */
void notify_hook_free(struct notify_hook *h);

/*
 * Prepares a pinned hook's transfer (h->easy, with CURLOPT_PRIVATE = h).
 * False when the attempt is over before it starts (disabled webhook, the
 * pin failed, …): a and error say how.
 */
bool notify_webhook_begin(const struct notify_config *c, struct notify_hook *h,
                          struct db_attempt *a, struct base_err *error);

/* Reads a finished transfer into the attempt (status, latency, error,
 * outcome and retry delay). */
void notify_webhook_end(const struct notify_config *c, struct notify_hook *h, CURLcode rc,
                        struct db_attempt *a, struct base_err *error);

/* Logs an attempt, counts it and records it (only while this attempt's
 * claim still holds the delivery). */
void notify_record(struct db_pool *pool, const struct db_delivery *d, struct db_attempt *a,
                   const struct base_err *error);

/* The webhook loop: one thread sending every webhook concurrently. */
struct notify_hooks;
struct notify_hooks *notify_hooks_start(struct db_pool *pool, const struct notify_config *c,
                                        struct base_err *err);
void notify_hooks_wake(struct notify_hooks *h);
void notify_hooks_stop(struct notify_hooks *h);

/* The push thread (notify_push.c): NULL when push is off. */
struct notify_pushes;
struct notify_pushes *notify_pushes_start(struct db_pool *pool, const struct notify_config *c,
                                          struct base_err *err);
void notify_pushes_wake(struct notify_pushes *p);
void notify_pushes_stop(struct notify_pushes *p);

/* The aes128gcm body (RFC 8291) of plain for a browser's keys; *out malloc'd. */
bool notify_push_encrypt(const unsigned char ua_public[65], const unsigned char auth[16],
                         const char *plain, size_t len, unsigned char **out, size_t *out_len);

/* The subject and body (malloc'd) of the mail about one delivery (data:
 * its payload), in the recipient's language; push messages tell the same. */
bool notify_email_compose(const struct notify_config *c, const struct db_delivery *d,
                          const cJSON *data, char *subject, size_t size, char **body,
                          struct base_err *error);

/* One attempt at an email delivery, likewise. */
void notify_email_send(struct notify_sender *s, const struct db_delivery *d,
                       struct db_attempt *a, struct base_err *error);

/*
 * What to do after a failed attempt: retry later (a->retry_s, from the
 * backoff table, scaled and jittered, never sooner than retry_after_s), or
 * give up when the delivery is older than the give-up window (DB_FAILED),
 * or when its endpoint has failed that long (DB_ENDPOINT_GONE).
 */
void notify_retry_decide(const struct notify_config *c, const struct db_delivery *d,
                         double retry_after_s, struct db_attempt *a);

/* Counts an attempt's outcome (notify_stats). */
void notify_count(const struct db_delivery *d, const struct db_attempt *a);

#endif
