/* notify_int.h — what the delivery files of notify/ share. */
#ifndef KORP_NOTIFY_INT_H
#define KORP_NOTIFY_INT_H

#include "notify.h"

#include <curl/curl.h>

/* The longest an SMTP conversation may take. */
#define NOTIFY_SMTP_TIMEOUT_SECONDS 30

/* A delivery worker's own things: its curl handle (kept between webhooks,
 * so that connections to an endpoint stay open) and the settings. */
struct notify_sender {
    const struct notify_config *config;
    CURL *curl;
};

/* One attempt at a webhook delivery: fills the attempt (status, latency,
 * error, outcome and retry delay). */
void notify_webhook_send(struct notify_sender *s, const struct db_delivery *d,
                         struct db_attempt *a, struct base_err *error);

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
