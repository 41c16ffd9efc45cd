/*
 * main.c — korpd: wires the settings, the database pool, the migrations,
 * the HTTP server and the background workers, then waits for a signal.
 *
 * The first SIGINT or SIGTERM stops gracefully: no new connections, no new
 * background work, the requests in flight get KORP_SHUTDOWN_SECONDS to
 * finish, the workers are stopped and joined, exit 0.  The whole stop is
 * bounded whatever the database does (a frozen one answers nothing until
 * each wait's deadline): it takes at most KORP_SHUTDOWN_SECONDS (at least
 * a second; the background parts at most STOP_PARTS_MS after the
 * requests), and past that korpd exits 0 without waiting for the rest.  A second signal exits at
 * once (status 1).
 */
#include "api.h"
#include "base.h"
#include "config.h"
#include "db.h"
#include "games.h"
#include "rules.h"

#include <curl/curl.h>
#include <sys/resource.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef KORP_VERSION
#define KORP_VERSION "0.0.0"
#endif

/* What the background workers share. */
struct korpd {
    struct korpd_config config;
    struct db_pool *pool;
    atomic_bool stopping;    /* a stop signal came: start nothing new */
};

/* How long the background parts (the listener, the notification workers,
 * the sweeper, the waker) may take to stop once the requests are done. */
#define STOP_PARTS_MS 5000

/* Whether a background job may start its next step. */
static bool may_go_on(struct base_worker *w, struct korpd *k)
{
    return !base_worker_stopping(w) && !atomic_load(&k->stopping);
}

/* Rows a sweep prunes of each table at most, in batches of PRUNE_BATCH:
 * what is left waits for the next sweep, so that a backlog (retention
 * shortened, korpd down for weeks) never holds the sweeper for long. */
#define PRUNE_BATCH 1000
#define PRUNE_BATCHES 20

/* Tables that only grow, pruned by their retention: deliveries first, so
 * that the events they named may go in the same sweep. */
static const struct {
    const char *what;
    enum db_prune_what table;
    size_t days_at;     /* offsetof the retention in struct korpd_config */
} prunes[] = {
    { "notification deliveries", DB_PRUNE_DELIVERIES,
      offsetof(struct korpd_config, delivery_retention_days) },
    { "events", DB_PRUNE_EVENTS, offsetof(struct korpd_config, event_retention_days) },
};

/* Each batch is a statement of its own, and each may wait for its deadline
 * on a hung database: none starts once korpd is stopping. */
static void prune(struct base_worker *w, struct korpd *k)
{
    struct base_err err = { "" };
    int keys = 0;
    for (int b = 0; b < PRUNE_BATCHES && may_go_on(w, k); b++) {
        /* Idempotency keys are kept for 24 hours. */
        if (db_idempotency_prune(k->pool, &keys, &err) != DB_OK)
            base_log(BASE_LOG_WARN, "pruning idempotency keys failed: %s", err.text);
        if (keys < PRUNE_BATCH)
            break;
    }
    for (size_t i = 0; i < sizeof prunes / sizeof prunes[0]; i++) {
        int days = *(const int *)((const char *)&k->config + prunes[i].days_at);
        long long n = PRUNE_BATCH, total = 0;
        for (int b = 0; days > 0 && b < PRUNE_BATCHES && n == PRUNE_BATCH && may_go_on(w, k);
             b++) {
            if (db_prune(k->pool, prunes[i].table, days, PRUNE_BATCH, &n, &err) != DB_OK) {
                base_log(BASE_LOG_WARN, "pruning %s failed: %s", prunes[i].what, err.text);
                break;
            }
            total += n;
        }
        if (total > 0)
            base_log(BASE_LOG_INFO, "pruned %lld %s older than %d days", total, prunes[i].what,
                     days);
    }
}

/* Ends games whose deadline has passed, every KORP_SWEEP_SECONDS, and
 * prunes what only grows.  Safe with several korpd: each game is taken
 * with FOR UPDATE SKIP LOCKED, and each prune deletes rows by id. */
static void sweeper(struct base_worker *w, void *arg)
{
    struct korpd *k = arg;
    struct base_err err = { "" };
    while (base_worker_sleep(w, k->config.sweep_seconds * 1000) && may_go_on(w, k)) {
        if (games_sweep(k->pool, &err) < 0)
            base_log(BASE_LOG_WARN, "deadline sweep failed: %s", err.text);
        /* Tournaments start and end at their starts_at and ends_at. */
        if (may_go_on(w, k) && games_tournaments_sweep(k->pool, &err) < 0)
            base_log(BASE_LOG_WARN, "tournament sweep failed: %s", err.text);
        prune(w, k);
    }
}

/* korpd's own periodic jobs, one row each, started after the migrations
 * and stopped with the server.  Today one: the sweeper.  A job that ticks
 * with the sweep belongs in sweeper(); one with a rhythm of its own is a
 * row here built on base_worker.  The other threads are started by the
 * module that owns them: the request workers, the event listener and the
 * stream keep-alive (api_server_start), the notification workers
 * (notify_start), the waker (db_waker_start). */
struct worker_slot {
    const char *name;
    base_worker_fn run;
    struct base_worker *handle;
};

static struct worker_slot workers[] = {
    { "sweeper", sweeper, NULL },
    { NULL, NULL, NULL },
};

static bool workers_start(void *arg, struct base_err *err)
{
    for (struct worker_slot *w = workers; w->name != NULL; w++)
        if ((w->handle = base_worker_start(w->name, w->run, arg, err)) == NULL)
            return false;
    return true;
}

static void workers_stop(void)
{
    for (struct worker_slot *w = workers; w->name != NULL; w++)
        base_worker_ask_stop(w->handle);
    for (struct worker_slot *w = workers; w->name != NULL; w++) {
        base_worker_stop(w->handle);
        w->handle = NULL;
    }
}

/*
 * korpd admin create-arbiter NAME [--password-stdin]: prints the new
 * arbiter's token.  With --password-stdin the first line of standard input
 * is the account's password too, so that the arbiter signs in on the web
 * board (the arbiter's page, /arbiter).
 */
static int admin(struct korpd *k, int argc, char **argv)
{
    char token[BASE_TOKEN_LEN + 1], password[4 * 128 + 3] = "", why[256];
    char hash[BASE_PASSWORD_HASH_SIZE] = "";
    struct base_err err = { "the random generator failed" };
    struct db_player p;
    enum db_status st;
    struct db_pool_config db = { k->config.database_url, 1, k->config.db_timeout_ms, false };
    bool with_password = argc == 5 && strcmp(argv[4], "--password-stdin") == 0;

    if ((argc != 4 && !with_password) || strcmp(argv[2], "create-arbiter") != 0) {
        fprintf(stderr, "usage: korpd admin create-arbiter NAME [--password-stdin]\n");
        return 2;
    }
    if (!db_player_name_valid(argv[3])) {
        fprintf(stderr, "korpd: a name is 2 to 30 letters, digits, '_' or '-', not '%s'\n",
                argv[3]);
        return 2;
    }
    if (with_password) {
        if (fgets(password, sizeof password, stdin) == NULL) {
            fprintf(stderr, "korpd: --password-stdin: no password on standard input\n");
            return 2;
        }
        password[strcspn(password, "\r\n")] = '\0';
        if (!api_password_acceptable(password, argv[3], why, sizeof why)) {
            fprintf(stderr, "korpd: the password: %s\n", why);
            return 2;
        }
        if (!base_password_hash(password, hash, sizeof hash)) {
            fprintf(stderr, "korpd: cannot hash the password\n");
            return 1;
        }
    }
    if ((k->pool = db_pool_new(&db, &err)) == NULL ||
        db_migrate(k->pool, &err) != DB_OK || !base_token_new(token)) {
        fprintf(stderr, "korpd: cannot prepare the database: %s\n", err.text);
        db_pool_free(k->pool);
        return 1;
    }
    st = db_player_create(k->pool, argv[3], NULL, false, with_password ? hash : NULL, true, token,
                          &p, &err);
    db_pool_free(k->pool);
    if (st == DB_CONFLICT) {
        fprintf(stderr, "korpd: the name '%s' is taken\n", argv[3]);
        return 1;
    }
    if (st != DB_OK) {
        fprintf(stderr, "korpd: cannot create the arbiter: %s\n", err.text);
        return 1;
    }
    fprintf(stderr, "korpd: arbiter '%s' created with id %s; its token (shown once):\n",
            p.name, p.id);
    printf("%s\n", token);
    return 0;
}

/*
 * Stops accepting and waits for requests in flight, until the grace
 * period ends or another signal comes.  True when all finished.
 */
static bool drain(struct api_server *server, const sigset_t *signals, int grace_s)
{
    int64_t deadline = base_monotonic_ms() + (int64_t)grace_s * 1000;
    struct timespec tick = { 0, 50 * 1000 * 1000 };

    api_server_quiesce(server);
    while (api_server_in_flight(server) > 0) {
        int sig = sigtimedwait(signals, NULL, &tick);
        if (sig > 0) {
            base_log(BASE_LOG_WARN, "second signal %d: exiting at once", sig);
            _exit(1);
        }
        if (base_monotonic_ms() >= deadline) {
            base_log(BASE_LOG_WARN, "%d requests still in flight after %d s; exiting anyway",
                     api_server_in_flight(server), grace_s);
            return false;
        }
    }
    return true;
}

/*
 * The stop's bound: a thread that ends korpd (status 0) at a deadline, or at
 * once (status 1) on another signal, whatever the parts still wait for.  It
 * starts with the stop, so that it bounds every part of it: the drain (whose
 * quiesce stops the event listeners), then the background parts.
 */
struct stop_bound {
    sigset_t signals;
    _Atomic int64_t deadline_ms;
    int64_t signalled_ms;
};

static void *stop_bound_wait(void *arg)
{
    struct stop_bound *b = arg;
    for (;;) {
        int64_t left = atomic_load(&b->deadline_ms) - base_monotonic_ms();
        struct timespec wait = { 0, 100 * 1000 * 1000 };   /* sees a new deadline */
        int sig;
        if (left <= 0) {
            base_log(BASE_LOG_WARN, "korpd did not stop within %.1f s of the signal (the "
                     "database may hang): exiting without waiting for the rest",
                     (double)(base_monotonic_ms() - b->signalled_ms) / 1000.0);
            _exit(0);
        }
        if (left < 100)
            wait.tv_nsec = (long)left * 1000000L;
        sig = sigtimedwait(&b->signals, NULL, &wait);
        if (sig > 0) {
            base_log(BASE_LOG_WARN, "second signal %d: exiting at once", sig);
            _exit(1);
        }
    }
    return NULL;
}

/* Exits this much before KORP_SHUTDOWN_SECONDS is over, so that the process
 * has gone by then. */
#define STOP_EXIT_MS 250

/*
 * Starts the bound at the signal: KORP_SHUTDOWN_SECONDS for the whole stop
 * (at least a second).  The thread is never joined: the process ends first.
 */
static void stop_bound_start(struct stop_bound *b, const sigset_t *signals, int grace_s)
{
    pthread_t thread;
    int64_t most = (int64_t)grace_s * 1000 - STOP_EXIT_MS;

    b->signals = *signals;
    b->signalled_ms = base_monotonic_ms();
    atomic_store(&b->deadline_ms, b->signalled_ms + (most > 1000 ? most : 1000));
    if (pthread_create(&thread, NULL, stop_bound_wait, b) == 0)
        pthread_detach(thread);
    else
        base_log(BASE_LOG_WARN, "cannot bound the stop: it waits for every part");
}

/* The requests are done: the background parts get STOP_PARTS_MS, and
 * never more than what is left of the stop's bound. */
static void stop_bound_tighten(struct stop_bound *b)
{
    int64_t until = base_monotonic_ms() + STOP_PARTS_MS;
    if (until < atomic_load(&b->deadline_ms))
        atomic_store(&b->deadline_ms, until);
}

int main(int argc, char **argv)
{
    static struct korpd k;
    static struct stop_bound bound;
    struct korpd_config config;
    struct db_pool *pool = NULL;
    struct db_waker *waker = NULL;
    struct api_server *server = NULL;
    struct notify *notify = NULL;
    struct base_err err = { "" };
    sigset_t signals;
    int sig = 0, rc = 1;
    bool notify_only = false;

    for (int i = 1; i < argc; i++) {
        if (i == 1 && strcmp(argv[i], "admin") == 0) {
            if (!korpd_config_load(&k.config, &err)) {
                fprintf(stderr, "korpd: %s\n", err.text);
                return 2;
            }
            return admin(&k, argc, argv);
        }
        if (strcmp(argv[i], "--notify-only") == 0) {
            notify_only = true;
            continue;
        }
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            printf("usage: korpd [--help] [--version] [--notify-only]\n"
                   "       korpd admin create-arbiter NAME [--password-stdin]\n"
                   "                                         prints the new arbiter's token (with\n"
                   "                                         a password from stdin: signs in on the web)\n\n"
                   "--notify-only runs the notification workers alone (no HTTP), as many\n"
                   "processes as you like beside the ones serving HTTP.\n\n"
                   "korp's correspondence play server; configured by the environment.\n\n%s",
                   korpd_config_help);
            return 0;
        }
        if (strcmp(argv[i], "--version") == 0) {
            printf("korpd %s\n", KORP_VERSION);
            return 0;
        }
        fprintf(stderr, "korpd: unknown argument '%s' (see korpd --help)\n", argv[i]);
        return 2;
    }
    if (!korpd_config_load(&config, &err)) {
        fprintf(stderr, "korpd: %s\n", err.text);
        return 2;
    }
    base_log_set_level(config.log_level);
    base_log(BASE_LOG_DEBUG,
             "settings: %d database connections, %d request workers, statements within "
             "%d ms, sweep every %d s, wake-ups every %d ms, streams read at least every "
             "%d ms%s",
             config.db_pool_size, config.http_threads, config.db_timeout_ms,
             config.sweep_seconds, config.wake_interval_ms, config.events_backstop_ms,
             config.web_dir != NULL ? ", web/ from KORP_WEB_DIR" : "");
    if (config.http_threads < config.db_pool_size)
        base_log(BASE_LOG_WARN,
                 "KORP_HTTP_THREADS (%d) is below KORP_DB_POOL_SIZE (%d): at most %d "
                 "requests can use the database at once",
                 config.http_threads, config.db_pool_size, config.http_threads);
    rules_init();
    games_ratings_set_period(config.rating_period_days);
    /* Every event stream holds a descriptor: take all the system allows. */
    {
        struct rlimit files;
        if (getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur < files.rlim_max) {
            files.rlim_cur = files.rlim_max;
            setrlimit(RLIMIT_NOFILE, &files);
        }
    }
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        base_log(BASE_LOG_ERROR, "cannot initialise libcurl");
        return 1;
    }

    /* Signals are taken by sigwait below, never by the other threads. */
    sigemptyset(&signals);
    sigaddset(&signals, SIGINT);
    sigaddset(&signals, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &signals, NULL);
    signal(SIGPIPE, SIG_IGN);

    struct db_pool_config db = { config.database_url, config.db_pool_size,
                                 config.db_timeout_ms, config.test_clock };
    pool = db_pool_new(&db, &err);
    if (pool == NULL)
        goto fail;
    if (db_migrate(pool, &err) != DB_OK) {
        base_log(BASE_LOG_ERROR, "cannot prepare the database: %s", err.text);
        goto done;
    }
    /* Events are NOTIFYed after their commit by the waker, many commits in
     * one NOTIFY. */
    if ((waker = db_waker_start(pool, config.wake_interval_ms, &err)) == NULL)
        goto fail;
    if (config.test_kill_after_commit) {
        base_log(BASE_LOG_WARN, "KORP_TEST_KILL_AFTER_COMMIT=1: korpd dies after its first "
                                "commit of events (tests only)");
        db_pool_test_kill_after_commit(pool);
    }
    k.config = config;
    k.pool = pool;
    if (!notify_links_init(pool, &err))
        goto fail;
    if (notify_only && k.config.notify.workers < 1)
        k.config.notify.workers = 1;
    if ((notify = notify_start(pool, &k.config.notify, &err)) == NULL)
        goto fail;
    if (notify_only) {
        base_log(BASE_LOG_INFO, "delivering notifications only (%d workers), no HTTP",
                 k.config.notify.workers);
        while (sigwait(&signals, &sig) != 0)
            ;
        base_log(BASE_LOG_INFO, "stopping on signal %d", sig);
        rc = 0;
        goto done;
    }
    if (!workers_start(&k, &err))
        goto fail;
    struct db_fairplay_review review = { config.fairplay_review_games,
                                         config.fairplay_review_top1,
                                         config.fairplay_review_acpl };
    if (!api_fairplay_start(pool, config.fairplay_workers, config.fairplay_nodes, &review,
                            &err))
        goto fail;
    struct api_config api = {
        .host = config.listen_host,
        .port = config.listen_port,
        .threads = config.http_threads,
        .pool = pool,
        .version = KORP_VERSION,
        .test_clock = config.test_clock,
        .keepalive_seconds = config.keepalive_seconds,
        .rate_limit = config.rate_limit,
        .rate_burst = config.rate_burst,
        .notify = &k.config.notify,
        .streams_per_player = config.streams_per_player,
        .streams_per_address = config.streams_per_address,
        .session_max_days = config.session_max_days,
        .signup_limit = config.signup_limit,
        .trusted_proxies = config.trusted_proxies,
        .metrics_allow = config.metrics_allow,
        .connections_per_address = config.connections_per_address,
        .request_head_seconds = config.request_head_seconds,
        .email_confirmation = config.email_confirmation,
        .challenges_per_day = config.challenges_per_day,
        .leave_days_per_year = config.leave_days_per_year,
        .events_backstop_ms = config.events_backstop_ms,
        .event_retention_days = config.event_retention_days,
        .analysis_per_hour = config.analysis_per_hour,
        .analysis_concurrent = config.analysis_concurrent,
        .web_dir = config.web_dir,
        .tournaments_per_day = config.tournaments_per_day,
    };
    if (config.test_clock)
        base_log(BASE_LOG_WARN, "KORP_TEST_CLOCK=1: arbiters may move the clock (tests only)");
    server = api_server_start(&api, &err);
    if (server == NULL)
        goto fail;
    base_log(BASE_LOG_INFO,
             "listening on http://%s:%u (schema version %d, %d database connections, "
             "%d request workers)",
             config.listen_host, config.listen_port, db_schema_version(), config.db_pool_size,
             config.http_threads);
    while (sigwait(&signals, &sig) != 0)
        ;
    stop_bound_start(&bound, &signals, config.shutdown_seconds);
    atomic_store(&k.stopping, true);
    base_log(BASE_LOG_INFO, "stopping on signal %d: finishing requests in flight (up to %d s)",
             sig, config.shutdown_seconds);
    if (!drain(server, &signals, config.shutdown_seconds)) {
        /* Handlers still run, and joining any part could hang on a dead
         * database. */
        _exit(0);
    }
    stop_bound_tighten(&bound);
    rc = 0;
    goto done;
fail:
    base_log(BASE_LOG_ERROR, "%s", err.text);
done:
    api_server_stop(server);
    notify_stop(notify);
    api_fairplay_stop();
    workers_stop();
    db_waker_stop(waker);
    db_pool_free(pool);
    curl_global_cleanup();
    if (rc == 0)
        base_log(BASE_LOG_INFO, "stopped");
    return rc;
}
