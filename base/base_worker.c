/*
 * base_worker.c — background threads that sleep on a condition variable,
 * so that a stop request or a wake-up reaches them at once.
 */
#include "base.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct base_worker {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    atomic_bool stop;           /* set under lock, so that a sleeper sees it; read anywhere */
    bool woken;
    base_worker_fn fn;
    void *arg;
    char name[32];
};

static void *run(void *arg)
{
    struct base_worker *w = arg;
    w->fn(w, w->arg);
    return NULL;
}

struct base_worker *base_worker_start(const char *name, base_worker_fn fn, void *arg,
                                      struct base_err *err)
{
    struct base_worker *w = calloc(1, sizeof *w);
    pthread_condattr_t attr;
    sigset_t all, old;
    int rc;

    if (w == NULL) {
        base_err_set(err, "out of memory");
        return NULL;
    }
    snprintf(w->name, sizeof w->name, "%s", name);
    w->fn = fn;
    w->arg = arg;
    pthread_mutex_init(&w->lock, NULL);
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&w->changed, &attr);
    pthread_condattr_destroy(&attr);

    /* The thread inherits this mask: signals stay with main's sigwait. */
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    rc = pthread_create(&w->thread, NULL, run, w);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        base_err_set(err, "cannot start the %s thread: %s", name, strerror(rc));
        pthread_cond_destroy(&w->changed);
        pthread_mutex_destroy(&w->lock);
        free(w);
        return NULL;
    }
    return w;
}

bool base_worker_stopping(struct base_worker *w)
{
    return atomic_load(&w->stop);
}

bool base_worker_sleep(struct base_worker *w, int ms)
{
    struct timespec until;
    bool stop;

    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_sec += ms / 1000;
    until.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&w->lock);
    while (!w->stop && !w->woken)
        if (pthread_cond_timedwait(&w->changed, &w->lock, &until) == ETIMEDOUT)
            break;
    w->woken = false;
    stop = w->stop;
    pthread_mutex_unlock(&w->lock);
    return !stop;
}

void base_worker_wake(struct base_worker *w)
{
    pthread_mutex_lock(&w->lock);
    w->woken = true;
    pthread_cond_signal(&w->changed);
    pthread_mutex_unlock(&w->lock);
}

void base_worker_ask_stop(struct base_worker *w)
{
    if (w == NULL)
        return;
    pthread_mutex_lock(&w->lock);
    w->stop = true;
    pthread_cond_signal(&w->changed);
    pthread_mutex_unlock(&w->lock);
}

/* Frees a worker whose thread has ended. */
static void release(struct base_worker *w)
{
    pthread_cond_destroy(&w->changed);
    pthread_mutex_destroy(&w->lock);
    free(w);
}

void base_worker_stop(struct base_worker *w)
{
    if (w == NULL)
        return;
    base_worker_ask_stop(w);
    pthread_join(w->thread, NULL);
    release(w);
}

void base_worker_stop_all(struct base_worker **ws, int n)
{
    for (int i = 0; i < n; i++)
        base_worker_ask_stop(ws[i]);
    for (int i = 0; i < n; i++)
        if (ws[i] != NULL)
            pthread_join(ws[i]->thread, NULL);
    for (int i = 0; i < n; i++) {
        if (ws[i] != NULL)
            release(ws[i]);
        ws[i] = NULL;
    }
}
