/*
 * notify_worker.c — the email workers, the listener that wakes them and
 * the webhook loop (notify_hooks.c), the push thread (notify_push.c), and
 * the scheduler of reminders and digests.
 *
 * An email worker claims a batch of due emails (leased, FOR UPDATE SKIP
 * LOCKED), sends each, and records the attempt.  With nothing due it
 * sleeps until the next delivery falls due, or until a NOTIFY on
 * korp_deliveries wakes it (sent after a commit that owes something, by
 * the committing korpd's waker when a delivery is due: db/db_wake.c): a
 * delivery leaves within milliseconds of the commit that made it, and
 * within MAX_IDLE_MS when that korpd died before its NOTIFY.
 */
#include "notify_int.h"

#include "base.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CLAIM_BATCH 16
#define MAX_IDLE_MS 5000     /* looks again at least this often */
#define PRUNE_EVERY_MS (3600 * 1000LL)   /* old deliveries and sessions */

struct notify {
    struct db_pool *pool;
    struct notify_config config;
    struct base_worker **workers;
    int worker_count;
    struct base_worker *scheduler;
    struct db_listener *listener;
    struct notify_hooks *hooks;
    struct notify_pushes *pushes;    /* NULL when push is off */
    atomic_uint next_worker;         /* the email worker a wake-up goes to next */
};

/* ---- Counters ------------------------------------------------------------ */

static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;
static struct notify_stats stats;

void notify_count(const struct db_delivery *d, const struct db_attempt *a)
{
    int channel = d->channel;
    pthread_mutex_lock(&stats_lock);
    if (a->outcome == DB_DELIVERED)
        stats.delivered[channel]++;
    else if (a->outcome == DB_RETRY)
        stats.retried[channel]++;
    else
        stats.failed[channel]++;
    pthread_mutex_unlock(&stats_lock);
}

void notify_stats(struct notify_stats *out)
{
    pthread_mutex_lock(&stats_lock);
    *out = stats;
    pthread_mutex_unlock(&stats_lock);
}

/* ---- Delivering -------------------------------------------------------- */

void notify_record(struct db_pool *pool, const struct db_delivery *d, struct db_attempt *a,
                   const struct base_err *error)
{
    struct base_err err = { "" };
    enum db_status rc;

    a->error = error->text[0] ? error->text : NULL;
    notify_count(d, a);
    base_log(a->outcome == DB_DELIVERED ? BASE_LOG_DEBUG : BASE_LOG_INFO,
             "notify: %s %s msg_%lld attempt %d for %s: %s%s%s", db_channel_text(d->channel),
             d->type, d->id,
             d->attempt, d->player_id,
             a->outcome == DB_DELIVERED ? "delivered"
             : a->outcome == DB_RETRY   ? "will retry"
                                        : "given up",
             error->text[0] ? ": " : "", error->text);
    /* If this record is lost, the lease runs out and the delivery is made
     * again: at least once. */
    if ((rc = db_delivery_finish(pool, d, a, &err)) != DB_OK)
        base_log(BASE_LOG_WARN, "notify: cannot record msg_%lld: %s: %s", d->id,
                 db_status_text(rc), err.text);
}

static void deliver(struct notify *n, struct notify_sender *s, const struct db_delivery *d)
{
    struct base_err error = { "" };
    struct db_attempt a = { 0 };

    notify_email_send(s, d, &a, &error);
    notify_record(n->pool, d, &a, &error);
}

/* Wakes one email worker, the next in turn: one claims what is due, and
 * wakes another when it found a full batch (work). */
static void wake_email(struct notify *n)
{
    if (n->worker_count > 0) {
        unsigned i = atomic_fetch_add(&n->next_worker, 1) % (unsigned)n->worker_count;
        if (n->workers[i] != NULL)
            base_worker_wake(n->workers[i]);
    }
}

/* The longest one email attempt may take: its timeout, and a margin for
 * recording it. */
#define LONGEST_EMAIL_SECONDS (NOTIFY_SMTP_TIMEOUT_SECONDS + 10.0)

/* How long to sleep with nothing claimed: until the next due delivery. */
static int idle_ms(struct notify *n)
{
    struct base_err err = { "" };
    double seconds = 0;
    bool any = false;
    if (db_deliveries_next(n->pool, DB_CHANNEL_EMAIL, &seconds, &any, &err) != DB_OK || !any)
        return MAX_IDLE_MS;
    if (seconds * 1000 >= MAX_IDLE_MS)
        return MAX_IDLE_MS;
    return seconds <= 0.005 ? 5 : (int)(seconds * 1000) + 1;
}

static void work(struct base_worker *w, void *arg)
{
    struct notify *n = arg;
    struct notify_sender sender = { &n->config, curl_easy_init() };
    int wait_ms = 0;

    if (sender.curl == NULL) {
        base_log(BASE_LOG_ERROR, "notify: cannot make a curl handle");
        return;
    }
    while (base_worker_sleep(w, wait_ms)) {
        struct db_delivery *due = NULL;
        struct base_err err = { "" };
        int count = 0;
        enum db_status rc = db_deliveries_claim(n->pool, CLAIM_BATCH, n->config.lease_seconds,
                                                DB_CHANNEL_EMAIL, &due, &count, &err);
        if (rc != DB_OK) {
            base_log(BASE_LOG_WARN, "notify: cannot claim deliveries: %s: %s",
                     db_status_text(rc), err.text);
            wait_ms = 1000;
            continue;
        }
        long long claimed_us = base_monotonic_us();
        for (int i = 0; i < count && !base_worker_stopping(w); i++) {
            /* Later items of a slow batch: when the lease left is shorter
             * than the longest attempt could be, make it longer, or another
             * worker would send the item again while this one does. */
            double left = n->config.lease_seconds -
                          (double)(base_monotonic_us() - claimed_us) / 1e6;
            double longest = LONGEST_EMAIL_SECONDS;
            if (i > 0 && left < longest) {
                bool ours = false;
                double lease = n->config.lease_seconds > longest ? n->config.lease_seconds
                                                                 : longest;
                if (db_delivery_extend(n->pool, &due[i], lease, &ours, &err) !=
                        DB_OK || !ours)
                    continue;
            }
            deliver(n, &sender, &due[i]);
        }
        db_deliveries_free(due, count);
        /* A full batch: more are due, and another worker helps. */
        if (count == CLAIM_BATCH)
            wake_email(n);
        /* After any work, look again at once: more may have come due. */
        wait_ms = count > 0 ? 0 : idle_ms(n);
    }
    curl_easy_cleanup(sender.curl);
}

/* ---- Waking and scheduling ----------------------------------------------- */

/* A wake-up on korp_deliveries: the payload names the channel with
 * deliveries due, or is "" (after a reconnect, or from a sender that does
 * not say): every channel looks. */
static void wake(void *arg, const char *payload)
{
    struct notify *n = arg;
    enum db_channel channel;
    bool any = !db_channel_parse(payload, &channel);

    if (any || channel == DB_CHANNEL_EMAIL)
        wake_email(n);
    if (any || channel == DB_CHANNEL_WEBHOOK)
        notify_hooks_wake(n->hooks);
    if (any || channel == DB_CHANNEL_PUSH)
        notify_pushes_wake(n->pushes);
}

static void schedule(struct base_worker *w, void *arg)
{
    struct notify *n = arg;
    int period_ms = (n->config.sweep_seconds > 0 ? n->config.sweep_seconds : 60) * 1000;
    long long last_prune_ms = 0;

    do {
        struct base_err err = { "" };
        int sent = 0, owed = 0;
        enum db_status rc = db_reminders_send(n->pool, 100, &sent, &err);
        if (rc != DB_OK)
            base_log(BASE_LOG_WARN, "notify: reminders: %s: %s", db_status_text(rc), err.text);
        else if (sent > 0)
            base_log(BASE_LOG_INFO, "notify: %d deadline reminder(s) sent", sent);
        rc = db_digests_owe(n->pool, &owed, &err);
        if (rc != DB_OK)
            base_log(BASE_LOG_WARN, "notify: digests: %s: %s", db_status_text(rc), err.text);
        else if (owed > 0)
            base_log(BASE_LOG_INFO, "notify: %d daily digest(s) owed", owed);
        if (last_prune_ms == 0 || base_monotonic_ms() - last_prune_ms > PRUNE_EVERY_MS) {
            last_prune_ms = base_monotonic_ms();
            rc = db_records_prune(n->pool, &owed, &err);
            if (rc != DB_OK)
                base_log(BASE_LOG_WARN, "notify: pruning: %s: %s", db_status_text(rc), err.text);
        }
    } while (base_worker_sleep(w, period_ms));
}

struct notify *notify_start(struct db_pool *pool, const struct notify_config *config,
                            struct base_err *err)
{
    struct notify *n = calloc(1, sizeof *n);
    if (n == NULL || (config->workers > 0 &&
                      (n->workers = calloc((size_t)config->workers, sizeof *n->workers)) == NULL)) {
        free(n);
        base_err_set(err, "out of memory");
        return NULL;
    }
    n->pool = pool;
    n->config = *config;
    if (!notify_push_init(pool, config, err)) {
        notify_stop(n);
        return NULL;
    }
    if (config->workers <= 0)
        return n;
    /* Webhooks: one loop sending them all concurrently.  Email: its own
     * workers (none without SMTP settings: another process with them sends
     * it), so that a slow mail server never holds a webhook, nor a slow
     * endpoint an email. */
    if ((n->hooks = notify_hooks_start(pool, &n->config, err)) == NULL) {
        notify_stop(n);
        return NULL;
    }
    n->pushes = notify_pushes_start(pool, &n->config, err);
    bool email = config->smtp_url != NULL && config->smtp_url[0] != '\0';
    for (int i = 0; email && i < config->workers; i++) {
        char name[32];
        snprintf(name, sizeof name, "notify email %d", i + 1);
        if ((n->workers[i] = base_worker_start(name, work, n, err)) == NULL) {
            notify_stop(n);
            return NULL;
        }
        n->worker_count = i + 1;
    }
    if ((n->scheduler = base_worker_start("notify scheduler", schedule, n, err)) ==
            NULL ||
        (n->listener = db_wakeup_start(pool, DB_DELIVERIES_CHANNEL, wake, n, err)) == NULL) {
        notify_stop(n);
        return NULL;
    }
    return n;
}

void notify_stop(struct notify *n)
{
    if (n == NULL)
        return;
    db_listener_stop(n->listener);
    base_worker_stop(n->scheduler);
    notify_hooks_stop(n->hooks);
    notify_pushes_stop(n->pushes);
    /* A sender wakes another when it leaves work behind. */
    base_worker_stop_all(n->workers, n->worker_count);
    free(n->workers);
    free(n);
}
