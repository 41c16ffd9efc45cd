/*
 * api_jobs.c — the request workers: every handler that may wait on the
 * database runs on one of these threads, not on libmicrohttpd's.
 *
 * libmicrohttpd's pool gives each connection to one of its threads for
 * good, and a thread serves its connections one at a time: a request
 * behind another connection's move on the same thread waited for that
 * whole move (korpd's p99 was twice pgbench's), and so did a resumed
 * event stream.  So once a request has arrived its connection is
 * suspended and the request queued here (event streams too: only their
 * reader runs on libmicrohttpd's thread); the first free worker runs the
 * route (api_reply keeps the answer in the request instead of queueing
 * it), then resumes the connection, and libmicrohttpd's thread queues the
 * answer at its next call of the access handler (api_server.c).  Requests
 * run in arrival order whichever thread they came in on, and the HTTP
 * threads only read and write sockets, but for one case: a route of one
 * short read (API_QUICK) is answered on the HTTP thread, sparing it the
 * two thread switches of the hand-over, while one HTTP thread at least
 * runs no such read and none running has taken long; should one take
 * long (the database hangs), none is answered there for a while.
 */
#include "api_int.h"

#include "base.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

struct api_jobs {
    pthread_mutex_t lock;
    pthread_cond_t ready;
    struct api_request *head, *tail;   /* waiting, oldest first */
    bool stopping;                     /* no more requests taken */
    bool joined;
    /* When each quick read being answered on an HTTP thread began (0: a
     * free place); inline_max places of API_IO_THREADS in use. */
    _Atomic int64_t inline_began_ms[API_IO_THREADS];
    int inline_max;
    _Atomic int64_t inline_after_ms;   /* none answered so before then */
    int count;                         /* threads started */
    pthread_t *threads;
};

static void run(struct api_request *req)
{
    struct MHD_Connection *conn = req->conn;
    req->deferred = true;
    (void)api_route(req);   /* its answer, if any, is in req->answer */
    req->deferred = false;
    req->job_done = true;
    /* The request may be answered and freed from here on: not touched. */
    MHD_resume_connection(conn);
}

static void *work(void *arg)
{
    struct api_jobs *jobs = arg;
    pthread_mutex_lock(&jobs->lock);
    for (;;) {
        struct api_request *req = jobs->head;
        if (req == NULL) {
            if (jobs->stopping)
                break;
            pthread_cond_wait(&jobs->ready, &jobs->lock);
            continue;
        }
        jobs->head = req->job_next;
        if (jobs->head == NULL)
            jobs->tail = NULL;
        pthread_mutex_unlock(&jobs->lock);
        run(req);
        pthread_mutex_lock(&jobs->lock);
    }
    pthread_mutex_unlock(&jobs->lock);
    return NULL;
}

struct api_jobs *api_jobs_start(int workers, int io_threads, struct base_err *err)
{
    struct api_jobs *jobs = calloc(1, sizeof *jobs);
    if (jobs == NULL || (jobs->threads = calloc((size_t)workers, sizeof *jobs->threads)) == NULL) {
        free(jobs);
        base_err_set(err, "out of memory");
        return NULL;
    }
    /* One HTTP thread at least never waits on the database. */
    jobs->inline_max = io_threads - 1 < API_IO_THREADS ? io_threads - 1 : API_IO_THREADS;
    for (int i = 0; i < API_IO_THREADS; i++)
        atomic_init(&jobs->inline_began_ms[i], 0);
    atomic_init(&jobs->inline_after_ms, 0);
    pthread_mutex_init(&jobs->lock, NULL);
    pthread_cond_init(&jobs->ready, NULL);
    for (; jobs->count < workers; jobs->count++)
        if (pthread_create(&jobs->threads[jobs->count], NULL, work, jobs) != 0) {
            base_err_set(err, "cannot start request worker %d of %d", jobs->count + 1, workers);
            api_jobs_free(jobs);
            return NULL;
        }
    return jobs;
}

bool api_jobs_push(struct api_jobs *jobs, struct api_request *req)
{
    req->job_next = NULL;
    pthread_mutex_lock(&jobs->lock);
    if (jobs->stopping) {
        pthread_mutex_unlock(&jobs->lock);
        return false;
    }
    /* Suspended before any worker can take it: a resume must never come
     * first (it would be lost, and the connection suspended for good). */
    MHD_suspend_connection(req->conn);
    if (jobs->tail != NULL)
        jobs->tail->job_next = req;
    else
        jobs->head = req;
    jobs->tail = req;
    pthread_cond_signal(&jobs->ready);
    pthread_mutex_unlock(&jobs->lock);
    return true;
}

int api_jobs_inline_begin(struct api_jobs *jobs)
{
    int64_t now = base_monotonic_ms();
    int free_place = -1;
    if (now < atomic_load(&jobs->inline_after_ms))
        return -1;
    for (int i = 0; i < jobs->inline_max; i++) {
        int64_t began = atomic_load(&jobs->inline_began_ms[i]);
        if (began == 0)
            free_place = free_place < 0 ? i : free_place;
        else if (now - began > API_QUICK_SLOW_US / 1000)
            return -1;   /* one is stuck: the database may hang */
    }
    int64_t none = 0;
    if (free_place < 0 ||
        !atomic_compare_exchange_strong(&jobs->inline_began_ms[free_place], &none, now))
        return -1;
    return free_place;
}

void api_jobs_inline_end(struct api_jobs *jobs, int place, int64_t took_us)
{
    if (took_us > API_QUICK_SLOW_US)
        atomic_store(&jobs->inline_after_ms, base_monotonic_ms() + API_QUICK_PAUSE_MS);
    atomic_store(&jobs->inline_began_ms[place], 0);
}

void api_jobs_stop(struct api_jobs *jobs)
{
    if (jobs == NULL || jobs->joined)
        return;
    /* The workers finish what is queued (each request is answered and its
     * connection resumed), then end; later requests are refused. */
    pthread_mutex_lock(&jobs->lock);
    jobs->stopping = true;
    atomic_store(&jobs->inline_after_ms, INT64_MAX);   /* stopping: every request refused */
    pthread_cond_broadcast(&jobs->ready);
    pthread_mutex_unlock(&jobs->lock);
    for (int i = 0; i < jobs->count; i++)
        pthread_join(jobs->threads[i], NULL);
    jobs->joined = true;
}

void api_jobs_free(struct api_jobs *jobs)
{
    if (jobs == NULL)
        return;
    api_jobs_stop(jobs);
    pthread_cond_destroy(&jobs->ready);
    pthread_mutex_destroy(&jobs->lock);
    free(jobs->threads);
    free(jobs);
}
