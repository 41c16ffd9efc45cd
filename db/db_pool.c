/*
 * db_pool.c — a fixed-size pool of libpq connections shared by threads.
 *
 * A connection is checked when it is taken: one the server closed (it
 * restarted, or an administrator ended the session) is re-opened then, so
 * the pool heals itself.  Its prepared statements are forgotten with it and
 * prepared again on first use.
 */
#include "db_int.h"

#include "base.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DEFAULT_TIMEOUT_MS 5000
#define MAX_KEYS 64

struct slot {
    PGconn *pg;                           /* NULL until opened */
    bool busy;
    unsigned char prepared[DB_STMT_COUNT];
};

struct db_pool {
    pthread_mutex_t lock;
    pthread_cond_t released;
    int size;
    int timeout_ms;
    bool test_clock;
    bool ready;          /* lock and condition initialised */
    struct slot *slots;
    atomic_ulong waits, wait_timeouts, connects, connect_failures;
    atomic_ulong retries_conflict, retries_broken, errors;
    atomic_int taken;                    /* connections in use */
    /* The connection parameters: ours under the user's, NULL-terminated. */
    char *keys[MAX_KEYS + 1];
    char *values[MAX_KEYS + 1];
    int nparams[DB_STMT_COUNT];          /* each statement's, counted once */
    _Atomic(struct db_waker *) waker;    /* db_wake.c; NULL: none */
    atomic_bool test_kill;               /* KORP_TEST_KILL_AFTER_COMMIT */
};

/* korpd's defaults; the user's URL overrides any of them. */
static const struct {
    const char *key;
    const char *value;   /* NULL: computed */
} defaults[] = {
    { "application_name", "korpd" },
    { "connect_timeout", NULL },        /* from timeout_ms */
    { "keepalives", "1" },
    { "keepalives_idle", "30" },
    { "keepalives_interval", "10" },
    { "keepalives_count", "3" },
    { "options", NULL },                /* the server-side timeouts */
    { NULL, NULL },
};

static bool add_param(struct db_pool *pool, int *n, const char *key, const char *value)
{
    if (*n >= MAX_KEYS)
        return false;
    pool->keys[*n] = strdup(key);
    pool->values[*n] = strdup(value);
    (*n)++;
    return pool->keys[*n - 1] != NULL && pool->values[*n - 1] != NULL;
}

/*
 * Our server-side timeouts go first in `options`: PostgreSQL applies the
 * -c settings in order, so a -c of the user's for the same name wins.
 * korp.clocks says the session's korpd works out the clocks itself (the
 * trigger a korpd of before needs leaves its saves alone: migration 022);
 * korp.test_clock makes korp_now() read the test clock's offset.
 */
static void server_options(char *buf, size_t size, int timeout_ms, bool test_clock,
                           const char *user)
{
    snprintf(buf, size,
             "-c statement_timeout=%d -c lock_timeout=%d"
             " -c idle_in_transaction_session_timeout=%d -c korp.clocks=korpd%s%s%s",
             timeout_ms, timeout_ms / 2, timeout_ms * 6,
             test_clock ? " -c korp.test_clock=on" : "", user ? " " : "", user ? user : "");
}

static const char *user_value(const PQconninfoOption *user, const char *key)
{
    for (; user->keyword != NULL; user++)
        if (user->val != NULL && strcmp(user->keyword, key) == 0)
            return user->val;
    return NULL;
}

static bool build_params(struct db_pool *pool, const char *url, struct base_err *err)
{
    char *parse_err = NULL;
    PQconninfoOption *user = PQconninfoParse(url, &parse_err);
    char text[1024];
    int n = 0;
    bool ok = true;

    if (user == NULL) {
        base_err_set(err, "KORP_DATABASE_URL cannot be read: %s",
                 parse_err ? parse_err : "out of memory");
        PQfreemem(parse_err);
        return false;
    }
    for (int i = 0; ok && defaults[i].key != NULL; i++) {
        const char *key = defaults[i].key, *value = defaults[i].value;
        if (strcmp(key, "connect_timeout") == 0) {
            /* libpq's granularity is seconds, and it treats 1 as 2. */
            int s = (pool->timeout_ms + 999) / 1000;
            snprintf(text, sizeof text, "%d", s < 2 ? 2 : s);
            value = text;
        } else if (strcmp(key, "options") == 0) {
            server_options(text, sizeof text, pool->timeout_ms, pool->test_clock,
                           user_value(user, "options"));
            value = text;
        }
        if (strcmp(key, "options") == 0 || user_value(user, key) == NULL)
            ok = add_param(pool, &n, key, value);
    }
    for (PQconninfoOption *o = user; ok && o->keyword != NULL; o++)
        if (o->val != NULL && strcmp(o->keyword, "options") != 0)
            ok = add_param(pool, &n, o->keyword, o->val);
    if (!ok)
        base_err_set(err, "too many connection parameters, or out of memory");
    PQconninfoFree(user);
    return ok;
}

struct db_pool *db_pool_new(const struct db_pool_config *config, struct base_err *err)
{
    struct db_pool *pool = NULL;
    pthread_condattr_t attr;

    if (config->url == NULL || config->url[0] == '\0' || config->size < 1) {
        base_err_set(err, "database url is empty or pool size below 1");
        return NULL;
    }
    pool = calloc(1, sizeof *pool);
    if (pool == NULL || (pool->slots = calloc((size_t)config->size, sizeof *pool->slots)) == NULL) {
        base_err_set(err, "out of memory");
        free(pool);
        return NULL;
    }
    for (int i = 0; i < DB_STMT_COUNT; i++)
        if ((pool->nparams[i] = db_statement_nparams(db_statements[i].sql)) < 0) {
            base_err_set(err, "statement %s: its parameters are not $1..$n",
                         db_statements[i].name);
            free(pool->slots);
            free(pool);
            return NULL;
        }
    pool->size = config->size;
    pool->timeout_ms = config->timeout_ms > 0 ? config->timeout_ms : DEFAULT_TIMEOUT_MS;
    pool->test_clock = config->test_clock;
    if (!build_params(pool, config->url, err)) {
        db_pool_free(pool);
        return NULL;
    }
    pthread_mutex_init(&pool->lock, NULL);
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&pool->released, &attr);
    pthread_condattr_destroy(&attr);
    pool->ready = true;
    return pool;
}

int db_pool_statement_ms(const struct db_pool *pool)
{
    return pool->timeout_ms + 1000;   /* the server's statement_timeout fires first */
}

int db_pool_nparams(const struct db_pool *pool, enum db_stmt id)
{
    return pool->nparams[id];
}

void db_pool_free(struct db_pool *pool)
{
    if (pool == NULL)
        return;
    for (int i = 0; i < pool->size; i++)
        PQfinish(pool->slots[i].pg);
    for (int i = 0; i < MAX_KEYS; i++) {
        free(pool->keys[i]);
        free(pool->values[i]);
    }
    if (pool->ready) {
        pthread_cond_destroy(&pool->released);
        pthread_mutex_destroy(&pool->lock);
    }
    free(pool->slots);
    free(pool);
}

void db_error_copy(PGconn *conn, const PGresult *res, struct base_err *err)
{
    const char *msg = res ? PQresultErrorMessage(res) : NULL;
    size_t n;
    if (err == NULL)
        return;
    if (msg == NULL || msg[0] == '\0')
        msg = conn ? PQerrorMessage(conn) : "no connection";
    base_err_set(err, "%s", msg);
    n = strlen(err->text);
    while (n > 0 && (err->text[n - 1] == '\n' || err->text[n - 1] == ' '))
        err->text[--n] = '\0';
}

/*
 * Whether an idle connection is still usable.  The server sends a FATAL
 * message and closes the socket when it shuts down, so a dead idle
 * connection is readable; reading that input marks it bad.
 */
static bool still_alive(PGconn *pg)
{
    struct pollfd p = { .fd = PQsocket(pg), .events = POLLIN };
    if (PQstatus(pg) != CONNECTION_OK || p.fd < 0)
        return false;
    /* The FATAL message comes first, the end of the stream after it. */
    for (int i = 0; i < 4 && poll(&p, 1, 0) > 0; i++)
        if (!PQconsumeInput(pg) || PQstatus(pg) != CONNECTION_OK)
            return false;
    return PQtransactionStatus(pg) == PQTRANS_IDLE;
}

/* Server notices (and the FATAL of a dying idle connection) go to the log. */
static void on_notice(void *arg, const char *message)
{
    size_t n = strlen(message);
    (void)arg;
    while (n > 0 && message[n - 1] == '\n')
        n--;
    base_log(BASE_LOG_DEBUG, "database: %.*s", (int)n, message);
}

/*
 * Opens a connection within one deadline for the whole of it: libpq's
 * connect_timeout counts each address and host afresh (two for
 * "localhost"), and its blocking connect sees no deadline of ours.  The
 * deadline is the pool's timeout, and at least CONNECT_LEAST_MS (libpq's
 * own least).  NULL with err set on failure.
 */
#define CONNECT_LEAST_MS 2000

static PGconn *connect_within(struct db_pool *pool, struct base_err *err)
{
    int most = pool->timeout_ms > CONNECT_LEAST_MS ? pool->timeout_ms : CONNECT_LEAST_MS;
    int64_t deadline = base_monotonic_ms() + most;
    PGconn *pg = PQconnectStartParams((const char *const *)pool->keys,
                                      (const char *const *)pool->values, 0);
    PostgresPollingStatusType st = PGRES_POLLING_WRITING;   /* libpq's first step */

    while (pg != NULL && PQstatus(pg) != CONNECTION_BAD && st != PGRES_POLLING_OK &&
           st != PGRES_POLLING_FAILED) {
        struct pollfd p = { .fd = PQsocket(pg),
                            .events = st == PGRES_POLLING_READING ? POLLIN : POLLOUT };
        int64_t left = deadline - base_monotonic_ms();
        int n;
        if (left <= 0) {
            base_err_set(err, "the database did not take a connection within %d ms", most);
            PQfinish(pg);
            return NULL;
        }
        n = poll(&p, 1, (int)left);
        if (n < 0 && errno != EINTR)
            break;
        if (n > 0)
            st = PQconnectPoll(pg);
    }
    if (pg == NULL || PQstatus(pg) != CONNECTION_OK) {
        db_error_copy(pg, NULL, err);
        PQfinish(pg);
        return NULL;
    }
    PQsetNoticeProcessor(pg, on_notice, NULL);
    return pg;
}

PGconn *db_pool_connect(struct db_pool *pool, struct base_err *err)
{
    return connect_within(pool, err);
}

enum db_status db_pool_acquire(struct db_pool *pool, struct db_tx *tx, struct base_err *err)
{
    struct timespec until;
    struct slot *s;
    int slot = -1;
    bool waited = false;
    PGconn *pg;

    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_sec += pool->timeout_ms / 1000;
    until.tv_nsec += (long)(pool->timeout_ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&pool->lock);
    for (;;) {
        /* Prefer an open connection over opening a new one. */
        for (int i = 0; i < pool->size && slot < 0; i++)
            if (!pool->slots[i].busy && pool->slots[i].pg != NULL)
                slot = i;
        for (int i = 0; i < pool->size && slot < 0; i++)
            if (!pool->slots[i].busy)
                slot = i;
        if (slot >= 0)
            break;
        if (!waited) {
            waited = true;
            atomic_fetch_add(&pool->waits, 1);
        }
        if (pthread_cond_timedwait(&pool->released, &pool->lock, &until) == ETIMEDOUT) {
            pthread_mutex_unlock(&pool->lock);
            atomic_fetch_add(&pool->wait_timeouts, 1);
            base_err_set(err, "no database connection came free within %d ms (all %d in use)",
                     pool->timeout_ms, pool->size);
            return DB_BUSY;
        }
    }
    s = &pool->slots[slot];
    s->busy = true;
    atomic_fetch_add(&pool->taken, 1);
    pg = s->pg;
    pthread_mutex_unlock(&pool->lock);

    /* Connecting happens outside the lock: it can take seconds. */
    if (pg != NULL && !still_alive(pg)) {
        base_log(BASE_LOG_WARN, "database connection %d was closed by the server; reconnecting",
                 slot);
        PQfinish(pg);
        pg = NULL;
    }
    if (pg == NULL) {
        memset(s->prepared, 0, sizeof s->prepared);
        pg = connect_within(pool, err);
        atomic_fetch_add(&pool->connects, 1);
        if (pg == NULL) {
            atomic_fetch_add(&pool->connect_failures, 1);
            pthread_mutex_lock(&pool->lock);
            s->pg = NULL;
            s->busy = false;
            atomic_fetch_sub(&pool->taken, 1);
            pthread_cond_signal(&pool->released);
            pthread_mutex_unlock(&pool->lock);
            return DB_UNREACHABLE;
        }
        s->pg = pg;   /* only this thread touches a busy slot */
    }
    memset(tx, 0, sizeof *tx);
    tx->pool = pool;
    tx->slot = slot;
    tx->pg = pg;
    tx->prepared = s->prepared;
    tx->statement_ms = db_pool_statement_ms(pool);
    tx->err = err;
    return DB_OK;
}

void db_pool_release(struct db_tx *tx)
{
    struct db_pool *pool = tx->pool;
    struct slot *s;

    if (pool == NULL)
        return;
    s = &pool->slots[tx->slot];
    if (!tx->broken && PQstatus(tx->pg) == CONNECTION_OK &&
        PQtransactionStatus(tx->pg) != PQTRANS_IDLE) {
        /* Left inside a transaction (a failed request): roll it back. */
        struct base_err ignored = { "" };
        struct base_err *saved = tx->err;
        tx->err = &ignored;
        if (PQtransactionStatus(tx->pg) == PQTRANS_ACTIVE ||
            db_exec_sql(tx, "ROLLBACK", 0, NULL, NULL) != DB_OK)
            tx->broken = true;
        tx->err = saved;
    }
    if (tx->broken || PQstatus(tx->pg) != CONNECTION_OK) {
        PQfinish(tx->pg);
        s->pg = NULL;
    }
    pthread_mutex_lock(&pool->lock);
    s->busy = false;
    atomic_fetch_sub(&pool->taken, 1);
    pthread_cond_signal(&pool->released);
    pthread_mutex_unlock(&pool->lock);
    tx->pool = NULL;
}

bool db_pool_has_free(struct db_pool *pool)
{
    return pool != NULL && atomic_load(&pool->taken) < pool->size;
}

void db_pool_count(struct db_pool *pool, enum db_counter counter)
{
    switch (counter) {
    case DB_COUNT_RETRY_CONFLICT: atomic_fetch_add(&pool->retries_conflict, 1); break;
    case DB_COUNT_RETRY_BROKEN: atomic_fetch_add(&pool->retries_broken, 1); break;
    case DB_COUNT_ERROR: atomic_fetch_add(&pool->errors, 1); break;
    }
}

void db_pool_stats(struct db_pool *pool, struct db_pool_stats *out)
{
    out->waits = atomic_load(&pool->waits);
    out->wait_timeouts = atomic_load(&pool->wait_timeouts);
    out->connects = atomic_load(&pool->connects);
    out->connect_failures = atomic_load(&pool->connect_failures);
    out->retries_conflict = atomic_load(&pool->retries_conflict);
    out->retries_broken = atomic_load(&pool->retries_broken);
    out->errors = atomic_load(&pool->errors);
}

void db_pool_waker_set(struct db_pool *pool, struct db_waker *waker)
{
    atomic_store(&pool->waker, waker);
}

struct db_waker *db_pool_waker(struct db_pool *pool)
{
    return atomic_load(&pool->waker);
}

void db_pool_test_kill_after_commit(struct db_pool *pool)
{
    atomic_store(&pool->test_kill, true);
}

bool db_pool_test_kill(struct db_pool *pool)
{
    return atomic_load(&pool->test_kill);
}
