/*
 * db_pool.c — a fixed-size pool of libpq connections shared by threads.
 * A broken connection is reset when it is next taken, so the pool heals
 * itself after a database restart.
 */
#include "db_int.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct db_pool {
    pthread_mutex_t lock;
    pthread_cond_t released;
    char *url;
    int size;
    PGconn **conns;    /* NULL until first opened */
    bool *busy;
};

struct db_pool *db_pool_new(const char *url, int size, char *err, size_t errsize)
{
    struct db_pool *pool = NULL;

    if (url == NULL || url[0] == '\0' || size < 1) {
        snprintf(err, errsize, "database url is empty or pool size below 1");
        return NULL;
    }
    pool = calloc(1, sizeof *pool);
    if (pool == NULL)
        goto oom;
    pool->url = strdup(url);
    pool->conns = calloc((size_t)size, sizeof *pool->conns);
    pool->busy = calloc((size_t)size, sizeof *pool->busy);
    if (pool->url == NULL || pool->conns == NULL || pool->busy == NULL)
        goto oom;
    pool->size = size;
    pthread_mutex_init(&pool->lock, NULL);
    pthread_cond_init(&pool->released, NULL);
    return pool;
oom:
    snprintf(err, errsize, "out of memory");
    if (pool != NULL) {
        free(pool->url);
        free(pool->conns);
        free(pool->busy);
        free(pool);
    }
    return NULL;
}

void db_pool_free(struct db_pool *pool)
{
    if (pool == NULL)
        return;
    for (int i = 0; i < pool->size; i++)
        PQfinish(pool->conns[i]);
    pthread_cond_destroy(&pool->released);
    pthread_mutex_destroy(&pool->lock);
    free(pool->url);
    free(pool->conns);
    free(pool->busy);
    free(pool);
}

void db_error_copy(PGconn *conn, const PGresult *res, char *err, size_t errsize)
{
    const char *msg = res ? PQresultErrorMessage(res) : NULL;
    size_t n;
    if (msg == NULL || msg[0] == '\0')
        msg = conn ? PQerrorMessage(conn) : "no connection";
    snprintf(err, errsize, "%s", msg);
    n = strlen(err);
    while (n > 0 && (err[n - 1] == '\n' || err[n - 1] == ' '))
        err[--n] = '\0';
}

static PGconn *connect_to(const char *url)
{
    const char *keys[] = { "dbname", "connect_timeout", "application_name", NULL };
    const char *values[] = { url, "5", "korpd", NULL };
    return PQconnectdbParams(keys, values, 1);
}

PGconn *db_pool_acquire(struct db_pool *pool, char *err, size_t errsize)
{
    int slot = -1;
    PGconn *conn;

    pthread_mutex_lock(&pool->lock);
    for (;;) {
        for (int i = 0; i < pool->size && slot < 0; i++)
            if (!pool->busy[i])
                slot = i;
        if (slot >= 0)
            break;
        pthread_cond_wait(&pool->released, &pool->lock);
    }
    pool->busy[slot] = true;
    conn = pool->conns[slot];
    pthread_mutex_unlock(&pool->lock);

    /* Connecting happens outside the lock: it can take seconds. */
    if (conn == NULL)
        conn = connect_to(pool->url);
    else if (PQstatus(conn) != CONNECTION_OK)
        PQreset(conn);
    if (conn == NULL || PQstatus(conn) != CONNECTION_OK) {
        db_error_copy(conn, NULL, err, errsize);
        PQfinish(conn);
        conn = NULL;
    }
    pthread_mutex_lock(&pool->lock);
    pool->conns[slot] = conn;
    if (conn == NULL) {
        pool->busy[slot] = false;
        pthread_cond_signal(&pool->released);
    }
    pthread_mutex_unlock(&pool->lock);
    return conn;
}

void db_pool_release(struct db_pool *pool, PGconn *conn)
{
    if (conn == NULL)
        return;
    pthread_mutex_lock(&pool->lock);
    for (int i = 0; i < pool->size; i++)
        if (pool->conns[i] == conn)
            pool->busy[i] = false;
    pthread_cond_signal(&pool->released);
    pthread_mutex_unlock(&pool->lock);
}
