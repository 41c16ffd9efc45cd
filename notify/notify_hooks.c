/*
 * notify_hooks.c — the webhook loop: one thread that sends every webhook
 * at once through a libcurl multi handle, so that no endpoint, however
 * slow, holds another's deliveries.
 *
 * The loop claims due webhook deliveries (leased, as the email workers
 * do), gives each to a resolver thread (getaddrinfo blocks, so it never
 * runs on the loop: notify_url_pin checks and pins the address there),
 * then starts its transfer on the multi handle and records the attempt
 * when it ends.
 *
 * Each endpoint (scheme, host and port of the URL) has a budget: at most
 * PER_ENDPOINT transfers in flight and WAITING_PER_ENDPOINT claimed and
 * waiting; past that a delivery is given back unsent (db_delivery_defer,
 * not an attempt) for BUSY_DEFER_SECONDS.  An endpoint that fails (no
 * connection, a timeout, 5xx, 429) is pushed back: its deliveries are
 * given back until its back-off ends (doubling from BACK_OFF_SECONDS up to
 * BACK_OFF_MAX_SECONDS while it keeps failing, times KORP_NOTIFY_BACKOFF_SCALE
 * as the retries are), so others go first; the
 * claim, for its part, takes deliveries to failing endpoints last.
 *
 * The handles of one multi share a DNS cache and a connection pool: every
 * entry in the cache came from a pin (checked), and every connection was
 * checked by notify_open_socket when it was opened, so sharing them lets
 * no request reach an address that was not checked.
 */
#include "notify_int.h"

#include "base.h"

#include <ctype.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CLAIM_BATCH 16
#define HELD_MAX 64                 /* claimed and not yet recorded, at most */
#define PER_ENDPOINT 2              /* transfers in flight to one endpoint */
#define WAITING_PER_ENDPOINT 8      /* claimed, waiting for the endpoint */
#define BUSY_DEFER_SECONDS 2.0
#define BACK_OFF_SECONDS 5.0
#define BACK_OFF_MAX_SECONDS 300.0
#define RESOLVERS 4
#define MAX_IDLE_MS 5000            /* looks for due deliveries at least this often */
#define RECORD_MARGIN_SECONDS 10.0  /* resolving and recording, besides the timeout */

struct endpoint {
    char key[NOTIFY_URL_MAX + 1];    /* "scheme://host:port"; "" for a free slot */
    int in_flight, waiting;
    int failures;                    /* in a row */
    long long back_off_until_ms;     /* base_monotonic_ms() */
    struct notify_hook *queue, *queue_tail;   /* waiting, oldest first */
};

/* A FIFO of hooks, shared with the resolver threads under `lock`. */
struct queue {
    struct notify_hook *head, *tail;
};

struct notify_hooks {
    struct db_pool *pool;
    const struct notify_config *config;
    CURLM *multi;
    struct base_worker *loop;
    atomic_bool woken, stopping;

    /* The loop's own (no lock). */
    struct endpoint *endpoints;
    int endpoint_count;
    int held;                        /* hooks claimed and not yet recorded */
    struct notify_hook *flying[HELD_MAX];   /* transfers on the multi handle */
    long long next_claim_ms;

    /* Shared with the resolvers. */
    pthread_mutex_t lock;
    pthread_cond_t more;
    struct queue to_resolve, resolved;
    bool resolvers_stop;
    pthread_t resolvers[RESOLVERS];
    int resolver_count;
};

static void queue_push(struct queue *q, struct notify_hook *h)
{
    h->next = NULL;
    if (q->tail != NULL)
        q->tail->next = h;
    else
        q->head = h;
    q->tail = h;
}

static struct notify_hook *queue_pop(struct queue *q)
{
    struct notify_hook *h = q->head;
    if (h != NULL) {
        q->head = h->next;
        if (q->head == NULL)
            q->tail = NULL;
        h->next = NULL;
    }
    return h;
}

/* ---- Resolvers ----------------------------------------------------------- */

static void *resolve(void *arg)
{
    struct notify_hooks *H = arg;

    pthread_mutex_lock(&H->lock);
    for (;;) {
        struct notify_hook *h;
        while (!H->resolvers_stop && H->to_resolve.head == NULL)
            pthread_cond_wait(&H->more, &H->lock);
        if (H->resolvers_stop)
            break;
        h = queue_pop(&H->to_resolve);
        pthread_mutex_unlock(&H->lock);
        h->pinned = notify_url_pin(h->d->url, H->config->allow_private, &h->pin,
                                   &h->pin_error);
        pthread_mutex_lock(&H->lock);
        queue_push(&H->resolved, h);
        curl_multi_wakeup(H->multi);
    }
    pthread_mutex_unlock(&H->lock);
    return NULL;
}

static void send_to_resolver(struct notify_hooks *H, struct notify_hook *h)
{
    pthread_mutex_lock(&H->lock);
    queue_push(&H->to_resolve, h);
    pthread_cond_signal(&H->more);
    pthread_mutex_unlock(&H->lock);
}

/* ---- Endpoints ------------------------------------------------------------ */

/* "scheme://host:port" of a URL (the URL itself if it does not parse: the
 * pin refuses it then). */
static void endpoint_key(const char *url, char *out, size_t size)
{
    CURLU *u = curl_url();
    char *scheme = NULL, *host = NULL, *port = NULL;

    if (u != NULL && curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK &&
        curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) == CURLUE_OK &&
        curl_url_get(u, CURLUPART_HOST, &host, 0) == CURLUE_OK &&
        curl_url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT) == CURLUE_OK)
        snprintf(out, size, "%s://%s:%s", scheme, host, port);
    else
        snprintf(out, size, "%s", url);
    for (char *c = out; *c; c++)
        *c = (char)tolower((unsigned char)*c);
    curl_free(scheme);
    curl_free(host);
    curl_free(port);
    curl_url_cleanup(u);
}

/* Whether an endpoint slot holds nothing worth remembering. */
static bool endpoint_idle(const struct endpoint *e, long long now_ms)
{
    return e->in_flight == 0 && e->waiting == 0 && e->back_off_until_ms <= now_ms;
}

/* The slot of the URL's endpoint, made if need be; -1 if out of memory. */
static int endpoint_of(struct notify_hooks *H, const char *url)
{
    char key[sizeof H->endpoints[0].key];
    int free_slot = -1;
    long long now = base_monotonic_ms();

    endpoint_key(url, key, sizeof key);
    for (int i = 0; i < H->endpoint_count; i++) {
        struct endpoint *e = &H->endpoints[i];
        if (e->key[0] != '\0' && strcmp(e->key, key) == 0)
            return i;
        if (free_slot < 0 && (e->key[0] == '\0' || endpoint_idle(e, now)))
            free_slot = i;
    }
    if (free_slot < 0) {
        struct endpoint *more = realloc(H->endpoints,
                                        (size_t)(H->endpoint_count + 1) * sizeof *more);
        if (more == NULL)
            return -1;
        H->endpoints = more;
        free_slot = H->endpoint_count++;
    }
    H->endpoints[free_slot] = (struct endpoint){ 0 };
    snprintf(H->endpoints[free_slot].key, sizeof H->endpoints[free_slot].key, "%s", key);
    return free_slot;
}

/* Whether an attempt's end says the endpoint is in trouble (as opposed to
 * refusing this one request). */
static bool endpoint_failed(const struct notify_hook *h, const struct db_attempt *a)
{
    if (a->outcome == DB_DELIVERED || !h->d->webhook_enabled || (h->pinned && h->easy == NULL))
        return false;
    return a->status_code == 0 || a->status_code == 429 || a->status_code >= 500;
}

/* ---- Holding, giving back, recording ------------------------------------- */

static void release(struct notify_hooks *H, struct notify_hook *h)
{
    H->held--;
    notify_hook_free(h);
}

static void give_back(struct notify_hooks *H, struct notify_hook *h, double delay_s)
{
    struct base_err err = { "" };
    enum db_status rc = db_delivery_defer(H->pool, h->d, delay_s, &err);
    if (rc != DB_OK)   /* its lease runs out instead */
        base_log(BASE_LOG_WARN, "notify: cannot give msg_%lld back: %s: %s", h->d->id,
                 db_status_text(rc), err.text);
    release(H, h);
}

static void start_next(struct notify_hooks *H, int slot);

/* An attempt is over: record it, tell the endpoint, start what waits. */
static void finished(struct notify_hooks *H, struct notify_hook *h, struct db_attempt *a,
                     const struct base_err *error)
{
    struct endpoint *e = &H->endpoints[h->endpoint];
    int slot = h->endpoint;

    notify_record(H->pool, h->d, a, error);
    e->in_flight--;
    if (endpoint_failed(h, a)) {
        double back = BACK_OFF_SECONDS;
        for (int i = 1; i < e->failures && back < BACK_OFF_MAX_SECONDS; i++)
            back *= 2;
        back = (back > BACK_OFF_MAX_SECONDS ? BACK_OFF_MAX_SECONDS : back) *
               H->config->backoff_scale;
        e->failures++;
        e->back_off_until_ms = base_monotonic_ms() + (long long)(back * 1000);
    } else {
        e->failures = 0;
        e->back_off_until_ms = 0;
    }
    release(H, h);
    start_next(H, slot);
    /* After any attempt, look again at once: its retry, or more, may be due. */
    H->next_claim_ms = base_monotonic_ms();
}

/* Sends the endpoint's waiting deliveries to the resolvers while its budget
 * allows; gives them all back while it is pushed back. */
static void start_next(struct notify_hooks *H, int slot)
{
    struct endpoint *e = &H->endpoints[slot];
    long long now = base_monotonic_ms();

    while (e->queue != NULL && (e->back_off_until_ms > now || e->in_flight < PER_ENDPOINT)) {
        struct notify_hook *h = e->queue;
        e->queue = h->next;
        if (e->queue == NULL)
            e->queue_tail = NULL;
        e->waiting--;
        if (e->back_off_until_ms > now) {
            give_back(H, h, (double)(e->back_off_until_ms - now) / 1000.0);
        } else {
            e->in_flight++;
            send_to_resolver(H, h);
        }
    }
}

/* A claimed delivery: to its endpoint's budget. */
static void admit(struct notify_hooks *H, struct notify_hook *h)
{
    int slot = endpoint_of(H, h->d->url);
    long long now = base_monotonic_ms();
    struct endpoint *e;

    if (slot < 0) {
        give_back(H, h, BUSY_DEFER_SECONDS);
        return;
    }
    e = &H->endpoints[slot];
    h->endpoint = slot;
    if (e->back_off_until_ms > now) {
        give_back(H, h, (double)(e->back_off_until_ms - now) / 1000.0);
    } else if (e->in_flight < PER_ENDPOINT) {
        e->in_flight++;
        send_to_resolver(H, h);
    } else if (e->waiting < WAITING_PER_ENDPOINT) {
        if (e->queue_tail != NULL)
            e->queue_tail->next = h;
        else
            e->queue = h;
        e->queue_tail = h;
        e->waiting++;
    } else {
        give_back(H, h, BUSY_DEFER_SECONDS);
    }
}

/* A pinned (or refused) delivery: its transfer starts, unless the attempt
 * is over already or its claim has run out meanwhile. */
static void begin(struct notify_hooks *H, struct notify_hook *h)
{
    const struct notify_config *c = H->config;
    struct base_err error = { "" }, err = { "" };
    struct db_attempt a = { 0 };
    double longest = c->webhook_timeout_seconds + RECORD_MARGIN_SECONDS;
    double left = (double)(h->lease_end_us - base_monotonic_us()) / 1e6;

    if (left < longest) {
        /* Waited for its endpoint or its name: the claim must outlast the
         * transfer, or another worker would send it meanwhile. */
        bool ours = false;
        double lease = c->lease_seconds > longest ? c->lease_seconds : longest;
        if (db_delivery_extend(H->pool, h->d, lease, &ours, &err) != DB_OK || !ours) {
            H->endpoints[h->endpoint].in_flight--;
            int slot = h->endpoint;
            release(H, h);
            start_next(H, slot);
            return;
        }
        h->lease_end_us = base_monotonic_us() + (long long)(lease * 1e6);
    }
    if (!notify_webhook_begin(c, h, &a, &error)) {
        finished(H, h, &a, &error);
        return;
    }
    for (int i = 0; i < HELD_MAX; i++)
        if (H->flying[i] == NULL) {
            h->flying_slot = i;
            break;
        }
    if (curl_multi_add_handle(H->multi, h->easy) != CURLM_OK) {
        base_err_set(&error, "cannot start the request (out of memory)");
        notify_retry_decide(c, h->d, 0, &a);
        finished(H, h, &a, &error);
        return;
    }
    H->flying[h->flying_slot] = h;
}

/* Transfers that ended. */
static void reap(struct notify_hooks *H)
{
    CURLMsg *msg;
    int left = 0;

    while ((msg = curl_multi_info_read(H->multi, &left)) != NULL) {
        struct notify_hook *h = NULL;
        void *p = NULL;
        struct base_err error = { "" };
        struct db_attempt a = { 0 };
        if (msg->msg != CURLMSG_DONE)
            continue;
        CURL *easy = msg->easy_handle;
        CURLcode rc = msg->data.result;
        curl_easy_getinfo(easy, CURLINFO_PRIVATE, &p);
        h = p;
        curl_multi_remove_handle(H->multi, easy);
        H->flying[h->flying_slot] = NULL;
        notify_webhook_end(H->config, h, rc, &a, &error);
        finished(H, h, &a, &error);
    }
}

/* Claims what is due, as far as HELD_MAX allows; when to look next. */
static void claim(struct notify_hooks *H)
{
    const struct notify_config *c = H->config;
    struct db_delivery *due = NULL;
    struct base_err err = { "" };
    int count = 0, max = HELD_MAX - H->held;
    long long now = base_monotonic_ms();

    max = max > CLAIM_BATCH ? CLAIM_BATCH : max;
    enum db_status rc = db_deliveries_claim(H->pool, max, c->lease_seconds, DB_CHANNEL_WEBHOOK,
                                            &due, &count, &err);
    if (rc != DB_OK) {
        base_log(BASE_LOG_WARN, "notify: cannot claim webhooks: %s: %s", db_status_text(rc),
                 err.text);
        H->next_claim_ms = now + 1000;
        return;
    }
    for (int i = 0; i < count; i++) {
        struct notify_hook *h = calloc(1, sizeof *h);
        struct db_delivery *one = malloc(sizeof *one);
        if (h == NULL || one == NULL) {
            /* Left to its lease. */
            free(h);
            free(one);
            continue;
        }
        *one = due[i];
        due[i].payload = NULL;       /* now the hook's */
        h->d = one;
        h->lease_end_us = base_monotonic_us() + (long long)(c->lease_seconds * 1e6);
        H->held++;
        admit(H, h);
    }
    db_deliveries_free(due, count);
    if (count == max && count > 0) {
        H->next_claim_ms = now;      /* more may be due */
    } else {
        double seconds = 0;
        bool any = false;
        int wait = MAX_IDLE_MS;
        if (db_deliveries_next(H->pool, DB_CHANNEL_WEBHOOK, &seconds, &any, &err) == DB_OK &&
            any && seconds * 1000 < MAX_IDLE_MS)
            wait = seconds <= 0.005 ? 5 : (int)(seconds * 1000) + 1;
        H->next_claim_ms = now + wait;
    }
}

static void loop(struct base_worker *w, void *arg)
{
    struct notify_hooks *H = arg;

    while (!base_worker_stopping(w) && !atomic_load(&H->stopping)) {
        struct queue ready = { NULL, NULL };
        struct notify_hook *h;
        int running = 0, timeout_ms;
        long long now;

        pthread_mutex_lock(&H->lock);
        ready = H->resolved;
        H->resolved = (struct queue){ NULL, NULL };
        pthread_mutex_unlock(&H->lock);
        while ((h = queue_pop(&ready)) != NULL)
            begin(H, h);

        now = base_monotonic_ms();
        if (atomic_exchange(&H->woken, false))
            H->next_claim_ms = now;
        if (H->held < HELD_MAX && H->next_claim_ms <= now)
            claim(H);

        curl_multi_perform(H->multi, &running);
        reap(H);

        now = base_monotonic_ms();
        timeout_ms = H->held < HELD_MAX ? (int)(H->next_claim_ms - now) : 1000;
        timeout_ms = timeout_ms < 0 ? 0 : timeout_ms > 1000 ? 1000 : timeout_ms;
        curl_multi_poll(H->multi, NULL, 0, timeout_ms, NULL);
    }
}

/* ---- Start and stop ---------------------------------------------------- */

struct notify_hooks *notify_hooks_start(struct db_pool *pool, const struct notify_config *c,
                                        struct base_err *err)
{
    struct notify_hooks *H = calloc(1, sizeof *H);

    if (H == NULL || (H->multi = curl_multi_init()) == NULL) {
        free(H);
        base_err_set(err, "cannot make the webhook loop (out of memory)");
        return NULL;
    }
    H->pool = pool;
    H->config = c;
    atomic_init(&H->woken, true);
    atomic_init(&H->stopping, false);
    pthread_mutex_init(&H->lock, NULL);
    pthread_cond_init(&H->more, NULL);
    for (int i = 0; i < RESOLVERS; i++) {
        if (pthread_create(&H->resolvers[i], NULL, resolve, H) != 0) {
            base_err_set(err, "cannot start a webhook resolver thread");
            notify_hooks_stop(H);
            return NULL;
        }
        H->resolver_count = i + 1;
    }
    if ((H->loop = base_worker_start("notify webhooks", loop, H, err)) == NULL) {
        notify_hooks_stop(H);
        return NULL;
    }
    return H;
}

void notify_hooks_wake(struct notify_hooks *H)
{
    if (H == NULL)
        return;
    atomic_store(&H->woken, true);
    curl_multi_wakeup(H->multi);
}

/* What a stopped loop still holds is given back at once: the next worker
 * sends it (at least once). */
static void give_all_back(struct notify_hooks *H)
{
    struct notify_hook *h;
    int count = 0;

    for (int i = 0; i < HELD_MAX; i++)
        if ((h = H->flying[i]) != NULL) {
            curl_multi_remove_handle(H->multi, h->easy);
            H->flying[i] = NULL;
            give_back(H, h, 0);
            count++;
        }
    while ((h = queue_pop(&H->to_resolve)) != NULL || (h = queue_pop(&H->resolved)) != NULL)
        give_back(H, h, 0), count++;
    for (int i = 0; i < H->endpoint_count; i++)
        while ((h = H->endpoints[i].queue) != NULL) {
            H->endpoints[i].queue = h->next;
            give_back(H, h, 0);
            count++;
        }
    if (count > 0)
        base_log(BASE_LOG_INFO, "notify: %d webhook(s) given back unsent at stop", count);
}

void notify_hooks_stop(struct notify_hooks *H)
{
    if (H == NULL)
        return;
    atomic_store(&H->stopping, true);
    curl_multi_wakeup(H->multi);
    base_worker_stop(H->loop);
    pthread_mutex_lock(&H->lock);
    H->resolvers_stop = true;
    pthread_cond_broadcast(&H->more);
    pthread_mutex_unlock(&H->lock);
    for (int i = 0; i < H->resolver_count; i++)
        pthread_join(H->resolvers[i], NULL);
    give_all_back(H);
    curl_multi_cleanup(H->multi);
    pthread_mutex_destroy(&H->lock);
    pthread_cond_destroy(&H->more);
    free(H->endpoints);
    free(H);
}
