/*
 * api_gate.c — the door in front of libmicrohttpd (api_gate.h): korpd
 * accepts connections itself, waits until the first request head is whole
 * (peeking: the bytes stay in the socket for libmicrohttpd), and judges it
 * before libmicrohttpd reads it.
 *
 * Why: libmicrohttpd 0.9.75 checks Content-Length while it parses the head,
 * before any request callback of ours, and answers a value that is no
 * number (-1, abc, 2 , one past 2^64) itself: it queues its answer, then its
 * state machine moves past the queued answer and writes the status line and
 * headers a second time.  Seeing the first head first, the gate answers it
 * once and libmicrohttpd never has the connection.
 *
 * What the gate does not see: a head that reaches an open (kept-alive)
 * connection after its first request was read, and pipelined heads that
 * arrive after the first one or follow a chunked body.  For those, korpd
 * answers from libmicrohttpd's log callback (api_server.c), with the same
 * answer (api_head_refuse).  Slow heads: a connection waits in the gate at
 * most the head's deadline, the same KORP_REQUEST_HEAD_SECONDS that
 * api_server.c's sweep holds libmicrohttpd's connections to, and is then
 * closed unanswered.
 */
#include "api_gate.h"

#include "api_int.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/queue.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

/* After the gate's answer, what the client still sends is read and dropped
 * (closing a socket with unread bytes resets it, and the client may lose
 * the answer) for this long, and at most this much. */
#define LINGER_MS 2000
#define LINGER_MOST (1024 * 1024)

/* Connections accepted at one wake-up, so that pending ones are served too. */
#define ACCEPT_BURST 64

/* ---- The head, as libmicrohttpd 0.9.75 splits it. */

#define NO_LINE SIZE_MAX

/* The end of the line starting at i (the index of its CR LF or bare LF) and
 * where the next begins; NO_LINE when the line is not whole yet.  A CR that
 * no LF follows belongs to the line, as in libmicrohttpd. */
static size_t line_end(const char *b, size_t len, size_t i, size_t *next)
{
    for (size_t j = i; j < len; j++) {
        if (b[j] == '\n') {
            *next = j + 1;
            return j;
        }
        if (b[j] == '\r' && j + 1 < len && b[j + 1] == '\n') {
            *next = j + 2;
            return j;
        }
    }
    return NO_LINE;
}

static bool named(const char *line, size_t name_len, const char *name)
{
    return name_len == strlen(name) && strncasecmp(line, name, name_len) == 0;
}

/*
 * A Content-Length value (what follows the colon, to the line's end) as
 * libmicrohttpd reads it: spaces and tabs before it skipped, then digits
 * only, at least one, fitting 64 bits.
 */
static enum api_head_verdict length_value(const char *v, const char *end, uint64_t *out)
{
    uint64_t n = 0;
    while (v < end && (*v == ' ' || *v == '\t'))
        v++;
    if (v == end)
        return API_HEAD_BAD_LENGTH;
    for (; v < end; v++) {
        unsigned d = (unsigned)(unsigned char)*v - '0';
        if (d > 9)
            return API_HEAD_BAD_LENGTH;
        if (n > (UINT64_MAX - d) / 10) {
            /* Too large, unless something further makes it no number. */
            while (++v < end)
                if ((unsigned)(unsigned char)*v - '0' > 9)
                    return API_HEAD_BAD_LENGTH;
            return API_HEAD_HUGE_LENGTH;
        }
        n = n * 10 + d;
    }
    *out = n;
    return API_HEAD_PASS;
}

/* One head, from *at: its verdict, and on API_HEAD_PASS *at past it and
 * *body the length of its body, or -1 when the gate cannot follow it. */
static enum api_head_verdict head_scan(const char *b, size_t len, size_t *at, int64_t *body)
{
    enum api_head_verdict verdict = API_HEAD_PASS;
    size_t i = *at, next = 0, e;
    int lengths = 0;
    bool coded = false;          /* a Transfer-Encoding */
    bool in_length = false;      /* the field being read is a Content-Length */
    uint64_t length = 0;

    /* Empty lines before the request line are skipped. */
    while ((e = line_end(b, len, i, &next)) == i)
        i = next;
    if (e == NO_LINE)
        return API_HEAD_INCOMPLETE;
    for (i = next; (e = line_end(b, len, i, &next)) != i; i = next) {
        const char *colon;
        if (e == NO_LINE)
            return API_HEAD_INCOMPLETE;
        if (b[i] == ' ' || b[i] == '\t') {
            /* A continuation, joined to the value with spaces: a length
             * with one is no number. */
            if (in_length)
                verdict = API_HEAD_BAD_LENGTH;
            continue;
        }
        in_length = false;
        colon = memchr(b + i, ':', e - i);
        if (colon == NULL)
            continue;    /* libmicrohttpd refuses the line itself, once */
        if (named(b + i, (size_t)(colon - (b + i)), "Content-Length")) {
            enum api_head_verdict v = length_value(colon + 1, b + e, &length);
            in_length = true;
            lengths++;
            /* A malformed length outranks a large one: 400 before 413. */
            if (v == API_HEAD_BAD_LENGTH || verdict == API_HEAD_PASS)
                verdict = v;
        } else if (named(b + i, (size_t)(colon - (b + i)), "Transfer-Encoding")) {
            coded = true;
        }
    }
    *at = next;
    *body = coded ? -1 : lengths == 0 ? 0 : lengths == 1 && length <= INT64_MAX ? (int64_t)length : -1;
    return verdict;
}

enum api_head_verdict api_head_length(const char *value, size_t len)
{
    uint64_t n;
    return length_value(value, value + len, &n);
}

enum api_head_verdict api_head_scan(const char *buf, size_t len)
{
    size_t at = 0;
    bool whole = false;

    while (at < len) {
        int64_t body = 0;
        enum api_head_verdict v = head_scan(buf, len, &at, &body);
        if (v == API_HEAD_INCOMPLETE)
            break;
        if (v != API_HEAD_PASS)
            return v;
        whole = true;
        if (body < 0 || (uint64_t)body > len - at)
            break;
        at += (size_t)body;
    }
    return whole ? API_HEAD_PASS : API_HEAD_INCOMPLETE;
}

/* ---- The gate's connections and thread. */

enum waiting_state {
    HEAD,      /* its first head is coming */
    LINGER     /* answered by the gate: what still comes is dropped */
};

struct waiting {
    LIST_ENTRY(waiting) link;    /* the gate's list */
    int fd;
    struct sockaddr_storage addr;
    socklen_t addr_len;
    bool counted;
    enum waiting_state state;
    int64_t since_us;          /* accepted */
    int64_t deadline_us;
    size_t drained;
};

struct api_gate {
    int listen_fd;
    int epoll_fd;
    int wake_fd;
    struct MHD_Daemon *daemon;
    int64_t head_us;
    struct api_gate_hooks hooks;
    LIST_HEAD(, waiting) list;
    size_t count;
    pthread_t thread;
    bool running;
    atomic_bool stopping;
    char buf[API_CONNECTION_MEMORY];   /* the thread's: peeks, drained bytes */
};

static void forget(struct api_gate *g, struct waiting *w)
{
    epoll_ctl(g->epoll_fd, EPOLL_CTL_DEL, w->fd, NULL);
    LIST_REMOVE(w, link);
    g->count--;
    if (w->counted)
        g->hooks.release(g->hooks.cls, (const struct sockaddr *)&w->addr);
    free(w);
}

static void drop(struct api_gate *g, struct waiting *w)
{
    int fd = w->fd;
    forget(g, w);
    close(fd);
}

/* libmicrohttpd takes the connection (and closes it should it refuse). */
static void hand_over(struct api_gate *g, struct waiting *w)
{
    int fd = w->fd;
    struct sockaddr_storage addr = w->addr;
    socklen_t len = w->addr_len;
    /* Released first: libmicrohttpd counts it again when it starts it. */
    forget(g, w);
    if (MHD_add_connection(g->daemon, fd, (const struct sockaddr *)&addr, len) != MHD_YES)
        base_log(BASE_LOG_INFO, "libmicrohttpd refused a connection (at its limit)");
}

/* The request's method, for the access log: its first word, printable. */
static void method_of(const char *b, size_t len, char *out, size_t size)
{
    size_t i = 0, n = 0;
    while (i < len && (b[i] == '\r' || b[i] == '\n'))
        i++;
    while (i < len && n + 1 < size && b[i] > 0x20 && b[i] < 0x7f)
        out[n++] = b[i++];
    if (n == 0)
        out[n++] = '-';
    out[n] = '\0';
}

unsigned api_head_refuse(int fd, enum api_head_verdict verdict, const char *method,
                         int64_t since_us)
{
    enum api_problem problem =
        verdict == API_HEAD_HUGE_LENGTH ? API_PROBLEM_BODY_TOO_LARGE : API_PROBLEM_BAD_REQUEST;
    unsigned status = api_problem_status(problem);
    char detail[128], id[API_REQUEST_ID_MAX + 1], date[64], out[API_HEAD_ANSWER_MOST];
    char *body = NULL;
    cJSON *json;
    struct tm tm;
    time_t now = time(NULL);
    int len;
    long took;

    if (problem == API_PROBLEM_BODY_TOO_LARGE)
        snprintf(detail, sizeof detail, "the request body is larger than %d KiB",
                 API_BODY_LIMIT / 1024);
    else
        snprintf(detail, sizeof detail, "the Content-Length header is not a number of bytes");
    json = api_problem_new(problem, detail);
    body = json != NULL ? cJSON_PrintUnformatted(json) : NULL;
    cJSON_Delete(json);
    if (!base_random_text(id, 16))
        snprintf(id, sizeof id, "-");
    gmtime_r(&now, &tm);
    strftime(date, sizeof date, "%a, %d %b %Y %H:%M:%S GMT", &tm);
    len = snprintf(out, sizeof out,
                   "HTTP/1.1 %u %s\r\nDate: %s\r\nConnection: close\r\n"
                   "Content-Type: application/problem+json\r\nCache-Control: no-store\r\n"
                   "X-Request-Id: %s\r\nX-Content-Type-Options: nosniff\r\n"
                   "Content-Length: %zu\r\n\r\n%s",
                   status, MHD_get_reason_phrase_for(status), date, id,
                   body != NULL ? strlen(body) : 0, body != NULL ? body : "");
    free(body);
    /* One send; should the socket take only part of it (a client that
     * reads nothing), the connection is cut both ways. */
    if (len > 0 && (size_t)len < sizeof out &&
        send(fd, out, (size_t)len, MSG_NOSIGNAL | MSG_DONTWAIT) == len)
        shutdown(fd, SHUT_WR);
    else
        shutdown(fd, SHUT_RDWR);
    took = (long)(base_monotonic_us() - since_us);
    base_log(BASE_LOG_INFO, "%s - %u %.1f ms id=%s (a Content-Length libmicrohttpd would "
             "answer twice: answered by korpd)", method, status, (double)took / 1000.0, id);
    return status;
}

/* Answers the head the gate refuses, and lingers. */
static void answer(struct api_gate *g, struct waiting *w, size_t peeked,
                   enum api_head_verdict verdict)
{
    char method[16];
    unsigned status;

    method_of(g->buf, peeked, method, sizeof method);
    /* What was peeked is taken now; the rest is dropped while lingering. */
    (void)recv(w->fd, g->buf, peeked, MSG_DONTWAIT);
    status = api_head_refuse(w->fd, verdict, method, w->since_us);
    g->hooks.answered(g->hooks.cls, status, (long)(base_monotonic_us() - w->since_us));
    w->state = LINGER;
    w->deadline_us = base_monotonic_us() + (int64_t)LINGER_MS * 1000;
}

/* The first head has grown, or the client has stopped sending (ended). */
static void head_read(struct api_gate *g, struct waiting *w, bool ended)
{
    ssize_t n = recv(w->fd, g->buf, sizeof g->buf, MSG_PEEK | MSG_DONTWAIT);
    enum api_head_verdict verdict;

    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        return;
    if (n <= 0) {          /* closed before a whole head: nobody to answer */
        drop(g, w);
        return;
    }
    verdict = api_head_scan(g->buf, (size_t)n);
    if (verdict == API_HEAD_BAD_LENGTH || verdict == API_HEAD_HUGE_LENGTH)
        answer(g, w, (size_t)n, verdict);
    else if (verdict == API_HEAD_PASS || (size_t)n == sizeof g->buf)
        hand_over(g, w);   /* a head too large for the gate is too large for
                            * libmicrohttpd too: it answers 431, once */
    else if (ended)
        drop(g, w);        /* the head will never be whole */
}

/* Lingering after the gate's answer: what comes is dropped. */
static void linger_read(struct api_gate *g, struct waiting *w)
{
    for (;;) {
        ssize_t n = recv(w->fd, g->buf, sizeof g->buf, MSG_DONTWAIT);
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0 || (w->drained += (size_t)n) > LINGER_MOST) {
            drop(g, w);
            return;
        }
    }
}

static void accept_some(struct api_gate *g)
{
    for (int i = 0; i < ACCEPT_BURST; i++) {
        struct sockaddr_storage addr;
        socklen_t len = sizeof addr;
        struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP | EPOLLET };
        struct waiting *w;
        bool counted = false;
        int fd = accept(g->listen_fd, (struct sockaddr *)&addr, &len);
        if (fd < 0) {
            if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR &&
                errno != ECONNABORTED)
                base_log(BASE_LOG_WARN, "accept: %s", strerror(errno));
            return;
        }
        if (fcntl(fd, F_SETFD, FD_CLOEXEC) != 0 ||
            fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) != 0 ||
            g->count >= API_CONNECTION_LIMIT ||
            !g->hooks.admit(g->hooks.cls, (const struct sockaddr *)&addr, &counted)) {
            close(fd);
            continue;
        }
        w = calloc(1, sizeof *w);
        if (w == NULL) {
            if (counted)
                g->hooks.release(g->hooks.cls, (const struct sockaddr *)&addr);
            close(fd);
            continue;
        }
        w->fd = fd;
        w->addr = addr;
        w->addr_len = len;
        w->counted = counted;
        w->state = HEAD;
        w->since_us = base_monotonic_us();
        w->deadline_us = w->since_us + g->head_us;
        LIST_INSERT_HEAD(&g->list, w, link);
        g->count++;
        ev.data.ptr = w;
        /* Registered with its bytes already there, it is reported at once. */
        if (epoll_ctl(g->epoll_fd, EPOLL_CTL_ADD, fd, &ev) != 0)
            drop(g, w);
    }
}

static void *gate_run(void *arg)
{
    struct api_gate *g = arg;
    struct epoll_event events[64];
    int64_t next_sweep = 0;

    while (!atomic_load(&g->stopping)) {
        int64_t now;
        int n = epoll_wait(g->epoll_fd, events, 64, API_SWEEP_MS);
        for (int i = 0; i < n; i++) {
            struct waiting *w = events[i].data.ptr;
            if (w == NULL)
                accept_some(g);
            else if (w == (struct waiting *)g)
                ;   /* woken to stop */
            else if (w->state == HEAD)
                head_read(g, w, (events[i].events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR)) != 0);
            else
                linger_read(g, w);
        }
        now = base_monotonic_us();
        if (now < next_sweep)
            continue;
        next_sweep = now + (int64_t)API_SWEEP_MS * 1000;
        for (struct waiting *w = LIST_FIRST(&g->list), *next; w != NULL; w = next) {
            next = LIST_NEXT(w, link);
            if (now > w->deadline_us)
                drop(g, w);   /* a head too slow, or lingering done */
        }
    }
    return NULL;
}

struct api_gate *api_gate_start(int listen_fd, struct MHD_Daemon *daemon, int head_seconds,
                                const struct api_gate_hooks *hooks, struct base_err *err)
{
    struct api_gate *g = calloc(1, sizeof *g);
    struct epoll_event listen_ev = { .events = EPOLLIN, .data.ptr = NULL };
    struct epoll_event wake_ev = { .events = EPOLLIN };

    if (g == NULL) {
        close(listen_fd);
        base_err_set(err, "out of memory");
        return NULL;
    }
    g->listen_fd = listen_fd;
    LIST_INIT(&g->list);
    g->daemon = daemon;
    g->hooks = *hooks;
    /* Without a head deadline, libmicrohttpd's idle timeout is the bound. */
    g->head_us = (int64_t)(head_seconds > 0 ? head_seconds : 60) * 1000000;
    g->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
    g->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    wake_ev.data.ptr = g;
    atomic_init(&g->stopping, false);
    if (g->epoll_fd < 0 || g->wake_fd < 0 ||
        fcntl(listen_fd, F_SETFL, fcntl(listen_fd, F_GETFL) | O_NONBLOCK) != 0 ||
        epoll_ctl(g->epoll_fd, EPOLL_CTL_ADD, listen_fd, &listen_ev) != 0 ||
        epoll_ctl(g->epoll_fd, EPOLL_CTL_ADD, g->wake_fd, &wake_ev) != 0 ||
        pthread_create(&g->thread, NULL, gate_run, g) != 0) {
        base_err_set(err, "cannot start the connection gate: %s", strerror(errno));
        api_gate_free(g);
        return NULL;
    }
    g->running = true;
    return g;
}

void api_gate_stop(struct api_gate *g)
{
    if (g == NULL)
        return;
    if (g->running) {
        uint64_t one = 1;
        atomic_store(&g->stopping, true);
        if (write(g->wake_fd, &one, sizeof one) < 0)
            base_log(BASE_LOG_WARN, "cannot wake the connection gate: %s", strerror(errno));
        pthread_join(g->thread, NULL);
        g->running = false;
    }
    while (!LIST_EMPTY(&g->list))
        drop(g, LIST_FIRST(&g->list));
    if (g->listen_fd >= 0)
        close(g->listen_fd);
    g->listen_fd = -1;
}

void api_gate_free(struct api_gate *g)
{
    if (g == NULL)
        return;
    api_gate_stop(g);
    if (g->epoll_fd >= 0)
        close(g->epoll_fd);
    if (g->wake_fd >= 0)
        close(g->wake_fd);
    free(g);
}
