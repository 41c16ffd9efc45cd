/*
 * api_server.c — the libmicrohttpd daemon: listening socket, per-request
 * context, body accumulation, dispatch, and the count of requests in
 * flight that a graceful stop waits for.  And the edge (docs/security.md)
 * that needs the connections: open connections per address, and a
 * deadline for the whole request head and another for the whole body
 * (api_edge.c has the rest).  Connections are accepted by the gate
 * (api_gate.c), which reads the first head before libmicrohttpd does.
 *
 * The access handler only sets up its context on the first call and
 * replies on a later one: replying on the first call makes libmicrohttpd
 * close every connection (no keep-alive), which costs about 7x throughput.
 * The one exception is a body announced as too large: that connection must
 * close anyway, and answering at once spares reading the body.
 */
#include "api_int.h"

#include "api_gate.h"
#include "base.h"

#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/*
 * Past the body limit, a chunked body (whose length nobody announced) is
 * read on to its end, to answer 413, but only this much further: a client
 * sending without end is cut off instead.
 */
#define BODY_DISCARD_MOST (16 * API_BODY_LIMIT)

/* Where the current request of a connection stands: its head and its body
 * each have KORP_REQUEST_HEAD_SECONDS to arrive whole. */
enum conn_phase {
    AWAIT_HEAD,     /* the head is coming */
    AWAIT_BODY,     /* the head has arrived, the body (if any) is coming */
    SERVING         /* the request is whole: the route runs, or a stream is open */
};

/*
 * One connection, from libmicrohttpd's STARTED to its CLOSED (its socket
 * context): what the deadlines and the guards need.
 */
struct conn {
    struct conn *prev, *next;      /* the server's list, under its lock */
    int fd;
    struct api_addr peer;
    bool counted;                  /* in the per-address counts */
    enum conn_phase phase;
    bool cut;                      /* shut down for being too slow */
    int64_t since_us;              /* when the current phase began */
    const char *target;            /* the raw request target (URI log) */
    size_t target_len;             /* ... as a C string */
    struct MHD_Connection *mhd;
    /* While its request line is read and its head not yet handed to
     * on_request: the reading thread's mark (its this_thread), and since
     * when; NULL otherwise.  Atomic: other threads look, never act. */
    _Atomic(const char *) line_thread;
    int64_t line_us;
};

/* Each thread's own address: libmicrohttpd's threads mark the heads they
 * read with it. */
static _Thread_local char this_thread;

/* Requests begun by every server of this process: background work reads
 * it to give way while requests come in. */
static atomic_ulong requests_begun;

unsigned long api_requests_begun(void)
{
    return atomic_load(&requests_begun);
}

struct api_server {
    struct MHD_Daemon *daemon;
    struct api_config config;
    struct api_hub *hub;
    struct api_metrics *metrics;
    struct api_limits *limits;
    struct api_addr_list *trusted;
    struct api_addr_list *metrics_allow;
    struct api_conn_counts *counts;
    struct api_analysis *analysis;     /* engine searches */
    struct api_jobs *jobs;             /* the request workers (api_jobs.c) */
    struct api_gate *gate;             /* accepts connections (api_gate.c) */
    atomic_int in_flight;
    bool quiesced;
    /* The connections, and the thread that cuts slow heads. */
    pthread_mutex_t lock;
    pthread_cond_t wake;
    struct conn *conns;
    pthread_t sweeper;
    bool sweeping, stopping;
};

/*
 * The request's id: the client's X-Request-Id when it is 1 to 64 printable
 * characters without spaces (so proxies can correlate), else a new one.
 */
static void request_id(struct MHD_Connection *conn, char out[API_REQUEST_ID_MAX + 1])
{
    const char *given = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "X-Request-Id");
    size_t n = given ? strlen(given) : 0;
    bool usable = n > 0 && n <= API_REQUEST_ID_MAX;
    for (size_t i = 0; usable && i < n; i++)
        usable = given[i] > 0x20 && given[i] < 0x7f;
    if (usable)
        memcpy(out, given, n + 1);
    else if (!base_random_text(out, 16))
        snprintf(out, API_REQUEST_ID_MAX + 1, "-");
}

/* Whether the Content-Length header announces more than we accept. */
static bool announced_too_large(struct MHD_Connection *conn)
{
    const char *v = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
                                                MHD_HTTP_HEADER_CONTENT_LENGTH);
    char *end = NULL;
    unsigned long long n;
    if (v == NULL)
        return false;
    n = strtoull(v, &end, 10);
    return end != v && n > API_BODY_LIMIT;
}

/* ---- Connections: counted per address, and their heads timed. */

static struct conn *conn_of(struct MHD_Connection *c)
{
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info ? info->socket_context : NULL;
}

/* Whether a new connection from addr may open (the gate's accept
 * policy): trusted proxies always may; others while they hold fewer than
 * KORP_CONNECTIONS_PER_ADDRESS, counting those still in the gate. */
static bool gate_admit(void *cls, const struct sockaddr *addr, bool *counted)
{
    struct api_server *server = cls;
    struct api_addr a;
    *counted = false;
    if (!api_addr_from_socket(addr, &a) || api_addr_list_has(server->trusted, &a))
        return true;
    if (api_conn_admit(server->counts, &a)) {
        api_conn_count(server->counts, &a, 1);
        *counted = true;
        return true;
    }
    base_log(BASE_LOG_INFO, "refused a connection: %d already open from this address",
             server->config.connections_per_address);
    return false;
}

/* A connection leaves the gate: handed over (on_connection counts it
 * again), answered, or closed. */
static void gate_release(void *cls, const struct sockaddr *addr)
{
    struct api_server *server = cls;
    struct api_addr a;
    if (api_addr_from_socket(addr, &a))
        api_conn_count(server->counts, &a, -1);
}

static void gate_answered(void *cls, unsigned status, long duration_us)
{
    struct api_server *server = cls;
    api_metrics_request(server->metrics, -1, status, duration_us);
}

static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
                          enum MHD_ConnectionNotificationCode code)
{
    struct api_server *server = cls;
    struct conn *k = *socket_context;

    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *fd =
            MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
        const union MHD_ConnectionInfo *peer =
            MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
        k = calloc(1, sizeof *k);
        *socket_context = k;
        if (k == NULL)
            return;   /* neither counted nor timed: lenient, never wrong */
        k->fd = fd ? fd->connect_fd : -1;
        k->mhd = c;
        k->since_us = base_monotonic_us();
        if (peer != NULL && api_addr_from_socket(peer->client_addr, &k->peer) &&
            !api_addr_list_has(server->trusted, &k->peer)) {
            api_conn_count(server->counts, &k->peer, 1);
            k->counted = true;
        }
        pthread_mutex_lock(&server->lock);
        k->next = server->conns;
        if (k->next != NULL)
            k->next->prev = k;
        server->conns = k;
        pthread_mutex_unlock(&server->lock);
        return;
    }
    /* CLOSED: libmicrohttpd reports it before closing the descriptor, so
     * the sweep never shuts down a descriptor already reused. */
    if (k == NULL)
        return;
    pthread_mutex_lock(&server->lock);
    if (k->prev != NULL)
        k->prev->next = k->next;
    else
        server->conns = k->next;
    if (k->next != NULL)
        k->next->prev = k->prev;
    pthread_mutex_unlock(&server->lock);
    if (k->counted)
        api_conn_count(server->counts, &k->peer, -1);
    free(k);
    *socket_context = NULL;
}

/* The request line has arrived: its raw target, for the NUL guard, and
 * its head is open (for on_mhd_message). */
static void *on_uri(void *cls, const char *uri, struct MHD_Connection *c)
{
    struct conn *k = conn_of(c);
    (void)cls;
    if (k != NULL) {
        k->target = uri;
        k->target_len = strlen(uri);
        k->line_us = base_monotonic_us();
        atomic_store_explicit(&k->line_thread, &this_thread, memory_order_relaxed);
    }
    return NULL;
}

/* The head is complete (the handler's first call: the body's clock
 * starts), the body is (the request is served), or the request is done and
 * the next head's clock starts (keep-alive). */
static void phase_mark(struct api_server *server, struct MHD_Connection *c,
                       enum conn_phase phase)
{
    struct conn *k = conn_of(c);
    if (k == NULL)
        return;
    pthread_mutex_lock(&server->lock);
    k->phase = phase;
    k->since_us = base_monotonic_us();
    atomic_store_explicit(&k->line_thread, NULL, memory_order_relaxed);
    pthread_mutex_unlock(&server->lock);
}

/*
 * Every API_SWEEP_MS: a connection whose request head, or whose request
 * body, has taken longer than KORP_REQUEST_HEAD_SECONDS is shut down
 * (libmicrohttpd 0.9.75 has only an idle timeout, which each trickled byte
 * resets, and no call to close a connection; after shutdown() it sees the
 * socket end and closes it).  A body trickled a byte at a time, or a chunk
 * that declares more bytes than will ever come, ends here.
 */
static void *sweep(void *arg)
{
    struct api_server *server = arg;
    int64_t limit_us = (int64_t)server->config.request_head_seconds * 1000000;

    pthread_mutex_lock(&server->lock);
    while (!server->stopping) {
        struct timespec until;
        int64_t now = base_monotonic_us();
        for (struct conn *k = server->conns; k != NULL; k = k->next)
            if (k->phase != SERVING && !k->cut && k->fd >= 0 && now - k->since_us > limit_us) {
                shutdown(k->fd, SHUT_RDWR);
                k->cut = true;
            }
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += API_SWEEP_MS * 1000000L;
        until.tv_sec += until.tv_nsec / 1000000000L;
        until.tv_nsec %= 1000000000L;
        pthread_cond_timedwait(&server->wake, &server->lock, &until);
    }
    pthread_mutex_unlock(&server->lock);
    return NULL;
}

/*
 * libmicrohttpd 0.9.75 answers a Content-Length that is no number of bytes
 * itself, and writes its status line and headers twice (api_gate.c says
 * why).  The gate sees only a connection's first head; for the later ones
 * korpd answers in libmicrohttpd's stead from its log callback, which runs
 * on the connection's thread after the head is read and before anything
 * is written: the one connection of this thread whose head is open with
 * such a Content-Length gets korpd's answer, and its sending side is shut,
 * so libmicrohttpd's own answer fails and the connection closes.  Should
 * two such heads be open on one thread (the other one still coming), or
 * the socket have too little room for the whole answer, korpd leaves the
 * answer to libmicrohttpd.  The walk is over all connections, but only on
 * such a refusal.
 */
static const char *const length_refusals[] = {
    "Failed to parse `Content-Length' header.",
    "Too large value of 'Content-Length' header.",
};

/* Whether the socket's send buffer surely takes n more bytes at once. */
static bool room_to_send(int fd, size_t n)
{
    int queued = 0, size = 0;
    socklen_t len = sizeof size;
    if (ioctl(fd, SIOCOUTQ, &queued) != 0 ||
        getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, &len) != 0)
        return false;
    /* The kernel reports twice the size it counts bytes against. */
    return queued == 0 || (size_t)queued + n < (size_t)size / 2;
}

static void answer_refused_length(struct api_server *server)
{
    struct conn *refused = NULL;
    enum api_head_verdict verdict = API_HEAD_PASS;
    int open = 0, fd = -1;
    int64_t since_us = 0;

    pthread_mutex_lock(&server->lock);
    for (struct conn *k = server->conns; k != NULL; k = k->next) {
        const char *v;
        enum api_head_verdict kv;
        if (atomic_load_explicit(&k->line_thread, memory_order_relaxed) != &this_thread ||
            k->mhd == NULL)
            continue;
        /* Only this thread touches its connections: reading k's headers
         * here is as safe as in its own callbacks.  One already answered
         * (by libmicrohttpd, its head's buffer given up) is not the one. */
        if (MHD_get_connection_info(k->mhd, MHD_CONNECTION_INFO_HTTP_STATUS) != NULL)
            continue;
        v = MHD_lookup_connection_value(k->mhd, MHD_HEADER_KIND,
                                        MHD_HTTP_HEADER_CONTENT_LENGTH);
        if (v == NULL || (kv = api_head_length(v, strlen(v))) == API_HEAD_PASS)
            continue;
        open++;
        refused = k;
        verdict = kv;
    }
    if (open == 1 && room_to_send(refused->fd, API_HEAD_ANSWER_MOST)) {
        atomic_store_explicit(&refused->line_thread, NULL, memory_order_relaxed);
        fd = refused->fd;
        since_us = refused->line_us;
    }
    pthread_mutex_unlock(&server->lock);
    if (fd >= 0)
        gate_answered(server, api_head_refuse(fd, verdict, "-", since_us),
                      (long)(base_monotonic_us() - since_us));
    else
        base_log(BASE_LOG_DEBUG, "libmicrohttpd refused a Content-Length; left to it (%d "
                 "heads could be the one, or the socket is full)", open);
}

/* libmicrohttpd's messages: at debug level, but for the one it is answered
 * in stead of. */
static void on_mhd_message(void *cls, const char *format, va_list ap)
{
    char text[512];
    size_t n;

    for (size_t i = 0; i < sizeof length_refusals / sizeof *length_refusals; i++)
        if (strncmp(format, length_refusals[i], strlen(length_refusals[i])) == 0) {
            answer_refused_length(cls);
            return;
        }
    if (!base_log_wants(BASE_LOG_DEBUG))
        return;
    vsnprintf(text, sizeof text, format, ap);
    n = strlen(text);
    while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == ' '))
        text[--n] = '\0';
    for (size_t i = 0; i < n; i++)     /* it may quote what a client sent */
        if ((unsigned char)text[i] < 0x20 || text[i] == 0x7f)
            text[i] = '?';
    base_log(BASE_LOG_DEBUG, "libmicrohttpd: %s", text);
}

/*
 * Whether the request target held a NUL byte: libmicrohttpd cuts the
 * target there, and then the version it parsed does not follow the target
 * in its buffer.  (It parses the line in place: tests/security pins this.)
 */
static bool target_has_nul(struct MHD_Connection *conn, const char *version)
{
    const struct conn *k = conn_of(conn);
    if (k == NULL || k->target == NULL || version == NULL || version[0] == '\0')
        return false;
    return (uintptr_t)(k->target + k->target_len + 1) != (uintptr_t)version;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn,
                                  const char *url, const char *method,
                                  const char *version, const char *upload_data,
                                  size_t *upload_data_size, void **con_cls)
{
    struct api_server *server = cls;
    struct api_request *req = *con_cls;

    if (req == NULL) {
        enum MHD_Result replied;
        phase_mark(server, conn, AWAIT_BODY);
        req = calloc(1, sizeof *req);
        if (req == NULL)
            return MHD_NO;
        req->config = &server->config;
        req->hub = server->hub;
        req->metrics = server->metrics;
        req->limits = server->limits;
        req->trusted = server->trusted;
        req->metrics_allow = server->metrics_allow;
        req->analysis = server->analysis;
        req->route_index = -1;
        req->conn = conn;
        req->method = method;
        req->path = url;
        req->route = "-";
        req->started_us = base_monotonic_us();
        request_id(conn, req->request_id);
        *con_cls = req;
        atomic_fetch_add(&server->in_flight, 1);
        atomic_fetch_add(&requests_begun, 1);
        api_metrics_in_flight(req->metrics, 1);
        if (api_head_refused(req, target_has_nul(conn, version), &replied))
            return replied;
        if (announced_too_large(conn)) {
            req->body_too_large = true;
            return api_route(req);
        }
        return MHD_YES;
    }
    if (req->job_done) {          /* resumed: a worker has answered */
        enum MHD_Result rc;
        req->job_done = false;
        if (req->answer == NULL)   /* it answered nothing: close, never route it twice */
            return MHD_NO;
        rc = MHD_queue_response(conn, req->answer_status, req->answer);
        MHD_destroy_response(req->answer);
        req->answer = NULL;
        return rc;
    }
    if (req->replied) {
        *upload_data_size = 0;   /* answered already: the rest is discarded */
        return MHD_YES;
    }
    if (*upload_data_size > 0) {
        size_t n = *upload_data_size;
        if (req->body_too_large) {
            /* Chunked, past the limit: read on to answer 413 at its end. */
            *upload_data_size = 0;
            req->body_len += n;
            if (req->body_len <= BODY_DISCARD_MOST)
                return MHD_YES;
            base_log(BASE_LOG_INFO, "%s %s: chunked body past %d KiB; closing the connection",
                     req->method, req->path, BODY_DISCARD_MOST / 1024);
            return MHD_NO;
        }
        if (req->body_len + n <= API_BODY_LIMIT) {
            char *grown = realloc(req->body, req->body_len + n + 1);
            if (grown == NULL)
                return MHD_NO;
            memcpy(grown + req->body_len, upload_data, n);
            req->body = grown;
            req->body_len += n;
            req->body[req->body_len] = '\0';
            *upload_data_size = 0;
            return MHD_YES;
        }
        /*
         * Past the limit without a Content-Length (chunked): libmicrohttpd
         * 0.9.75 cannot queue a response in the middle of a body, so the
         * rest is read and dropped, and 413 answered at its end (below,
         * through api_route); BODY_DISCARD_MOST and the body's deadline
         * bound what a client can make korpd read.
         */
        free(req->body);
        req->body = NULL;
        req->body_len += n;
        req->body_too_large = true;
        *upload_data_size = 0;
        return MHD_YES;
    }
    phase_mark(server, conn, SERVING);
    if (req->body_too_large)
        return api_route(req);
    if (api_route_inline(req))
        return api_route(req);
    int place;
    if (api_route_quick(req) && db_pool_has_free(server->config.pool) &&
        (place = api_jobs_inline_begin(server->jobs)) >= 0) {
        int64_t began = base_monotonic_us();
        enum MHD_Result rc = api_route(req);
        api_jobs_inline_end(server->jobs, place, base_monotonic_us() - began);
        return rc;
    }
    if (api_jobs_push(server->jobs, req))
        return MHD_YES;
    return api_fail(req, API_PROBLEM_UNAVAILABLE, "korpd is stopping; send it again");
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
    struct api_server *server = cls;
    struct api_request *req = *con_cls;
    (void)toe;
    phase_mark(server, conn, AWAIT_HEAD);
    if (req != NULL) {
        /* One access-log line per request. */
        int64_t took = base_monotonic_us() - req->started_us;
        base_log(BASE_LOG_INFO, "%s %s %u %.1f ms id=%s", req->method, req->route,
                 req->status, (double)took / 1000.0, req->request_id);
        api_metrics_request(req->metrics, req->route_index, req->status, (long)took);
        api_metrics_in_flight(req->metrics, -1);
        if (req->answer != NULL)
            MHD_destroy_response(req->answer);
        cJSON_Delete(req->json);
        free(req->body);
        free(req);
        *con_cls = NULL;
        atomic_fetch_sub(&server->in_flight, 1);
    }
}

static int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/*
 * Percent-decoding of paths and query values, in place, except %00: a NUL
 * would end the C string early, so that /v1/games/<id>%00/moves answered
 * as /v1/games/<id>.  Left encoded, it makes the id invalid (404).
 */
static size_t unescape(void *cls, struct MHD_Connection *conn, char *s)
{
    char *out = s;
    (void)cls;
    (void)conn;
    for (const char *in = s; *in != '\0'; in++) {
        int hi, lo;
        if (in[0] == '%' && (hi = hex_value(in[1])) >= 0 && (lo = hex_value(in[2])) >= 0 &&
            (hi | lo) != 0) {
            *out++ = (char)(hi * 16 + lo);
            in += 2;
        } else {
            *out++ = *in;
        }
    }
    *out = '\0';
    return (size_t)(out - s);
}

/* Binds and listens here, so that a taken port is reported in words. */
static int listen_on(const char *host, unsigned short port, struct base_err *err)
{
    struct sockaddr_in addr;
    int one = 1;
    int fd;

    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    if (inet_pton(AF_INET, host, &addr.sin_addr) != 1) {
        base_err_set(err, "cannot listen on %s:%u: not an IPv4 address", host, port);
        return -1;
    }
    fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        base_err_set(err, "cannot create a socket: %s", strerror(errno));
        return -1;
    }
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(fd, (struct sockaddr *)&addr, sizeof addr) != 0 || listen(fd, 128) != 0) {
        int e = errno;
        base_err_set(err, "cannot listen on %s:%u: %s%s", host, port, strerror(e),
                 e == EADDRINUSE ? " (is another korpd already running? set KORP_LISTEN)" : "");
        close(fd);
        return -1;
    }
    return fd;
}

/* Frees what a server holds besides its daemon (which must be stopped):
 * the sweep thread is stopped first. */
static void server_free(struct api_server *server)
{
    api_jobs_free(server->jobs);
    if (server->sweeping) {
        pthread_mutex_lock(&server->lock);
        server->stopping = true;
        pthread_cond_signal(&server->wake);
        pthread_mutex_unlock(&server->lock);
        pthread_join(server->sweeper, NULL);
    }
    if (server->hub != NULL) {
        api_hub_close(server->hub);
        api_hub_free(server->hub);
    }
    api_metrics_free(server->metrics);
    api_limits_free(server->limits);
    api_addr_list_free(server->trusted);
    api_addr_list_free(server->metrics_allow);
    api_conn_counts_free(server->counts);
    api_analysis_free(server->analysis);
    pthread_cond_destroy(&server->wake);
    pthread_mutex_destroy(&server->lock);
    free(server);
}

struct api_server *api_server_start(const struct api_config *config, struct base_err *err)
{
    struct api_server *server = calloc(1, sizeof *server);
    int threads = config->threads > 0 ? config->threads : 2;
    int fd;

    if (server == NULL) {
        base_err_set(err, "out of memory");
        return NULL;
    }
    pthread_mutex_init(&server->lock, NULL);
    pthread_cond_init(&server->wake, NULL);
    server->config = *config;
    api_json_init();
    if ((server->trusted = api_addr_list_new("KORP_TRUSTED_PROXIES", config->trusted_proxies,
                                             err)) == NULL ||
        (server->metrics_allow = api_addr_list_new("KORP_METRICS_ALLOW", config->metrics_allow,
                                                   err)) == NULL) {
        server_free(server);
        return NULL;
    }
    server->metrics = api_metrics_new();
    server->limits = api_limits_new(config->rate_limit, config->rate_burst);
    server->counts = api_conn_counts_new(config->connections_per_address);
    server->analysis = api_analysis_new(config->analysis_per_hour, config->analysis_concurrent);
    if (server->metrics == NULL || server->limits == NULL || server->counts == NULL ||
        server->analysis == NULL) {
        base_err_set(err, "out of memory");
        server_free(server);
        return NULL;
    }
    if ((server->hub = api_hub_new(config->pool, config->keepalive_seconds,
                                      config->events_backstop_ms, err)) == NULL) {
        server_free(server);
        return NULL;
    }
    if (config->request_head_seconds > 0) {
        if (pthread_create(&server->sweeper, NULL, sweep, server) != 0) {
            base_err_set(err, "cannot start the request-head sweep");
            server_free(server);
            return NULL;
        }
        server->sweeping = true;
    }
    if ((server->jobs = api_jobs_start(threads, threads < API_IO_THREADS ? threads
                                                                          : API_IO_THREADS,
                                       err)) == NULL) {
        server_free(server);
        return NULL;
    }
    fd = listen_on(config->host, config->port, err);
    if (fd < 0) {
        server_free(server);
        return NULL;
    }
    server->daemon = MHD_start_daemon(
        MHD_USE_EPOLL_INTERNAL_THREAD | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ITC |
            MHD_ALLOW_SUSPEND_RESUME | MHD_USE_NO_LISTEN_SOCKET | MHD_USE_ERROR_LOG, 0,
        /* Not MHD_OPTION_PER_IP_CONNECTION_LIMIT: it sees only the socket's
         * address and exempts nobody, so behind a proxy it would cap the
         * whole site.  gate_admit counts per address and exempts proxies. */
        NULL, NULL,
        on_request, server,
        /* First, so that every message comes to it. */
        MHD_OPTION_EXTERNAL_LOGGER, on_mhd_message, server,
        MHD_OPTION_THREAD_POOL_SIZE, (unsigned)(threads < API_IO_THREADS ? threads : API_IO_THREADS),
        MHD_OPTION_NOTIFY_COMPLETED, on_completed, server,
        MHD_OPTION_NOTIFY_CONNECTION, on_connection, server,
        MHD_OPTION_URI_LOG_CALLBACK, on_uri, server,
        MHD_OPTION_CONNECTION_TIMEOUT, 60u,
        /* Idle event streams are connections too (suspended, not threads). */
        MHD_OPTION_CONNECTION_LIMIT, (unsigned)API_CONNECTION_LIMIT,
        /* Each connection's memory pool (headers, buffers): 16 KiB instead of
         * 32 keeps 10 000 idle event streams near 160 MB (docs/benchmarks.md). */
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)API_CONNECTION_MEMORY,
        MHD_OPTION_UNESCAPE_CALLBACK, unescape, NULL,
        /* Not MHD_OPTION_STRICT_FOR_CLIENT: on 0.9.75 it writes some of its
         * own answers twice and silently closes on a space in the target. */
        MHD_OPTION_END);
    if (server->daemon == NULL) {
        base_err_set(err, "cannot start the HTTP server on %s:%u", config->host,
                 config->port);
        close(fd);
        server_free(server);
        return NULL;
    }
    {
        const struct api_gate_hooks hooks = { gate_admit, gate_release, gate_answered, server };
        server->gate = api_gate_start(fd, server->daemon, config->request_head_seconds,
                                      &hooks, err);
    }
    if (server->gate == NULL) {
        MHD_stop_daemon(server->daemon);
        server_free(server);
        return NULL;
    }
    return server;
}

void api_server_quiesce(struct api_server *server)
{
    if (server == NULL || server->quiesced)
        return;
    /* No new connections: the gate closes the listening socket. */
    api_gate_stop(server->gate);
    server->quiesced = true;
    /* Streams would hold the drain until its deadline: end them now. */
    api_hub_close(server->hub);
}

int api_server_in_flight(struct api_server *server)
{
    return server ? atomic_load(&server->in_flight) : 0;
}

void api_server_stop(struct api_server *server)
{
    if (server == NULL)
        return;
    /* Suspended connections must be resumed before the daemon stops: the
     * workers answer what they hold, the streams end. */
    api_jobs_stop(server->jobs);
    api_hub_close(server->hub);
    api_gate_free(server->gate);     /* hands nothing over to a stopped daemon */
    server->gate = NULL;
    MHD_stop_daemon(server->daemon);
    server_free(server);
}
