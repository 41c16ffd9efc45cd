/*
 * streamload.c — the client of bench/streams.sh: holds N idle event streams
 * (GET /v1/events, one per player, two players a game) open on one korpd,
 * then plays moves in those games over HTTP at a modest rate, through one
 * korpd after another, and measures how long each move's event takes to
 * reach the two streams it concerns.
 *
 * usage: streamload HOST GAMES N RATE SECONDS IDLE PORT:PID [PORT:PID ...]
 *
 * GAMES has one game a line, "game_id ply white_token black_token" (as
 * bench/moves_setup.py writes it), all at ply 0; the first N/2 are used.
 * The streams are opened on the first PORT (at most 64 connecting at a
 * time); once all of them have their response headers, the client waits
 * IDLE seconds, then, for each PORT:PID in turn (the first: the streams'
 * own korpd; another: an event that crosses processes through
 * PostgreSQL's NOTIFY), plays RATE moves a second for SECONDS seconds on
 * one keep-alive connection, one move per game in turn (Korpalski: K@e1,
 * K@e8, N@g1, N@g8, then the knights shuffle).  Every answer must be 201.
 *
 * For each move the client has the time it sent the request and the time
 * the answer came back (the commit happened in between) and, for each of
 * the game's two streams, the time the move's event arrived.  It prints,
 * one line each (key=value):
 *   connect: streams, seconds to open them all
 *   rss_<phase>: korpd's VmRSS, VmHWM (kB), threads (/proc/PID/status) and
 *     CPU seconds so far: before the streams, once they are open, after
 *     the idle time, after the moves (and the other korpds' after theirs);
 *   phase: moves, rate, move latency, events expected and received, and
 *     event latency p50/p90/p99/max in ms after the answer (negative: the
 *     event came first) and after the request was sent;
 *   totals: keep-alive comments, streams lost.
 * Exits 1 if a stream was lost, a move failed or an event is missing.
 */
#define _GNU_SOURCE
#include "loadclient.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_TARGETS 4
#define CONNECTING_MAX 64
#define LINE_MAX_LEN 2048

enum state { ST_IDLE, ST_CONNECTING, ST_HEADERS, ST_CHUNK_SIZE, ST_CHUNK_DATA, ST_CHUNK_END,
             ST_RAW, ST_DEAD };

struct stream {
    int fd, index;
    enum state st;
    bool chunked;
    size_t chunk_left;
    char line[LINE_MAX_LEN];
    size_t line_len;
    bool is_move;           /* the current event is a move */
    int ply;                /* its ply, from data */
};

/* Times of one move (index: the game's ply after it), in seconds. */
struct times {
    double sent, answered, got[2];   /* got: White's stream, Black's */
    signed char phase;               /* -1: no move */
};

struct target {
    int port, pid;
};

static const char *host;
static struct load_game *games;
static int ngames, max_plies;
static struct times *times;          /* [game * max_plies + ply] */
static struct target targets[MAX_TARGETS];
static int ntargets;
static double rate, seconds;
static volatile int moves_done;      /* set when the mover has finished */
static long keepalives, lost, unknown_events;

static struct times *times_at(int g, int ply)
{
    return ply >= 1 && ply < max_plies ? &times[(size_t)g * (size_t)max_plies + (size_t)ply]
                                       : NULL;
}

/* korpd's memory and threads (/proc/PID/status), and its CPU time so far
 * (/proc/PID/stat: user and system, in clock ticks). */
static void print_rss(const char *phase, int pid)
{
    char path[64], line[256];
    long rss = -1, hwm = -1, threads = -1;
    unsigned long utime = 0, stime = 0;
    FILE *f;
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    if ((f = fopen(path, "r")) != NULL) {
        char stat[1024];
        size_t n = fread(stat, 1, sizeof stat - 1, f);
        stat[n] = '\0';
        char *p = strrchr(stat, ')');
        if (p == NULL || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu",
                                &utime, &stime) != 2)
            utime = stime = 0;
        fclose(f);
    }
    snprintf(path, sizeof path, "/proc/%d/status", pid);
    if ((f = fopen(path, "r")) != NULL) {
        while (fgets(line, sizeof line, f)) {
            sscanf(line, "VmRSS: %ld", &rss);
            sscanf(line, "VmHWM: %ld", &hwm);
            sscanf(line, "Threads: %ld", &threads);
        }
        fclose(f);
    }
    printf("rss_%s: pid=%d vmrss_kb=%ld vmhwm_kb=%ld threads=%ld cpu_s=%.2f t=%.2f\n", phase,
           pid, rss, hwm, threads, (double)(utime + stime) / (double)sysconf(_SC_CLK_TCK),
           load_now());
    fflush(stdout);
}

/* ---- The mover: one keep-alive connection, blocking --------------------- */

struct mover {
    pthread_t thread;
    long moves, failures;
    double *answer_lat[MAX_TARGETS];
    long count[MAX_TARGETS];
    double began[MAX_TARGETS], ended[MAX_TARGETS];
};

static void *mover_run(void *arg)
{
    struct mover *m = arg;
    static char buf[1 << 16];
    char req[1024];
    int next_game = 0;

    for (int t = 0; t < ntargets; t++) {
        int fd = load_dial(host, targets[t].port, false);
        long planned = (long)(rate * seconds);
        double t0 = load_now();
        m->answer_lat[t] = calloc((size_t)planned + 1, sizeof(double));
        m->began[t] = t0;
        for (long k = 0; k < planned && fd >= 0; k++) {
            double due = t0 + (double)k / rate, wait = due - load_now();
            struct load_game *g = &games[next_game];
            struct times *tm = times_at(next_game, g->ply + 1);
            struct load_answer answer;
            if (wait > 0)
                nanosleep(&(struct timespec){ (time_t)wait,
                                              (long)((wait - (double)(time_t)wait) * 1e9) },
                          NULL);
            if (tm == NULL) {
                fprintf(stderr, "streamload: game %s has no room for ply %d\n", g->id, g->ply + 1);
                m->failures++;
                break;
            }
            int rl = load_move_request(req, sizeof req, host, targets[t].port, g);
            tm->phase = (signed char)t;
            tm->sent = load_now();
            int status = load_exchange(fd, req, (size_t)rl, buf, sizeof buf, &answer);
            tm->answered = load_now();
            if (status != 201) {
                fprintf(stderr, "streamload: move %s in game %s: status %d\n", load_move_at(g->ply),
                        g->id, status);
                tm->phase = -1;
                m->failures++;
                break;
            }
            m->answer_lat[t][m->count[t]++] = tm->answered - tm->sent;
            m->moves++;
            g->ply++;
            next_game = (next_game + 1) % ngames;
            if (answer.closing) {
                close(fd);
                fd = load_dial(host, targets[t].port, false);
            }
        }
        m->ended[t] = load_now();
        if (fd >= 0)
            close(fd);
        else
            m->failures++;
        /* Events still on their way are awaited before the next phase. */
        sleep(2);
    }
    __atomic_store_n(&moves_done, 1, __ATOMIC_RELEASE);
    return NULL;
}

/* ---- The streams: one epoll loop ---------------------------------------- */

static struct stream *streams;
static int nstreams, epfd;

static void stream_lost(struct stream *s, const char *why)
{
    if (s->st == ST_DEAD)
        return;
    if (lost++ < 5)
        fprintf(stderr, "streamload: stream %d lost: %s\n", s->index, why);
    epoll_ctl(epfd, EPOLL_CTL_DEL, s->fd, NULL);
    close(s->fd);
    s->st = ST_DEAD;
}

/* One line of the event stream (without its newline). */
static void sse_line(struct stream *s, const char *line, size_t n, double t)
{
    if (n == 0) {                                   /* the event ends */
        if (s->is_move) {
            struct times *tm = times_at(s->index / 2, s->ply);
            if (tm == NULL || tm->phase < 0)
                unknown_events++;
            else if (tm->got[s->index % 2] != 0)
                unknown_events++;                   /* twice */
            else
                tm->got[s->index % 2] = t;
        }
        s->is_move = false;
        s->ply = 0;
        return;
    }
    if (line[0] == ':') {
        keepalives++;
        return;
    }
    if (n >= 7 && strncmp(line, "event: ", 7) == 0)
        s->is_move = n == 11 && strncmp(line + 7, "move", 4) == 0;
    else if (n >= 6 && strncmp(line, "data: ", 6) == 0) {
        const char *p = memmem(line, n, "\"ply\":", 6);
        if (p != NULL)
            s->ply = atoi(p + 6);
    }
}

/* Body bytes after de-chunking. */
static void sse_bytes(struct stream *s, const char *p, size_t n, double t)
{
    for (size_t i = 0; i < n; i++) {
        if (p[i] == '\n') {
            sse_line(s, s->line, s->line_len, t);
            s->line_len = 0;
        } else if (s->line_len < sizeof s->line - 1) {
            s->line[s->line_len++] = p[i];
        }
    }
}

static void body_bytes(struct stream *s, const char *p, size_t n, double t)
{
    while (n > 0 && s->st != ST_DEAD) {
        if (s->st == ST_RAW) {
            sse_bytes(s, p, n, t);
            return;
        }
        if (s->st == ST_CHUNK_DATA) {
            size_t k = n < s->chunk_left ? n : s->chunk_left;
            sse_bytes(s, p, k, t);
            p += k;
            n -= k;
            if ((s->chunk_left -= k) == 0)
                s->st = ST_CHUNK_END;
            continue;
        }
        /* Chunk-size lines and the CRLF after a chunk, byte by byte. */
        char c = *p++;
        n--;
        if (s->st == ST_CHUNK_END) {
            if (c == '\n')
                s->st = ST_CHUNK_SIZE;
            continue;
        }
        if (c == '\n') {
            s->line[s->line_len] = '\0';
            s->chunk_left = strtoul(s->line, NULL, 16);
            s->line_len = 0;
            if (s->chunk_left == 0) {
                stream_lost(s, "the server ended the stream");
                return;
            }
            s->st = ST_CHUNK_DATA;
        } else if (c != '\r' && s->line_len < 30) {
            s->line[s->line_len++] = c;
        }
    }
}

static void on_readable(struct stream *s, int *connected, int *connecting)
{
    char buf[16384];
    double t = load_now();
    ssize_t r = recv(s->fd, buf, sizeof buf, 0);
    if (r < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    if (r <= 0) {
        if (s->st == ST_HEADERS)
            (*connecting)--;
        stream_lost(s, r == 0 ? "closed by the server" : strerror(errno));
        return;
    }
    if (s->st != ST_HEADERS) {
        body_bytes(s, buf, (size_t)r, t);
        return;
    }
    /* Headers: gathered in line[] until the blank line. */
    size_t take = (size_t)r, room = sizeof s->line - 1 - s->line_len;
    if (take > room)
        take = room;
    memcpy(s->line + s->line_len, buf, take);
    s->line_len += take;
    s->line[s->line_len] = '\0';
    char *end = strstr(s->line, "\r\n\r\n");
    if (end == NULL) {
        if (room == 0) {
            (*connecting)--;
            stream_lost(s, "headers too long");
        }
        return;
    }
    int status = 0;
    sscanf(s->line, "HTTP/1.%*d %d", &status);
    (*connecting)--;
    if (status != 200) {
        stream_lost(s, "the answer was not 200");
        return;
    }
    char *te = strcasestr(s->line, "\r\ntransfer-encoding: chunked");
    s->chunked = te != NULL && te < end;
    size_t head = (size_t)(end - s->line) + 4, rest = s->line_len - head;
    char after[LINE_MAX_LEN];
    memcpy(after, s->line + head, rest);
    s->line_len = 0;
    s->st = s->chunked ? ST_CHUNK_SIZE : ST_RAW;
    (*connected)++;
    body_bytes(s, after, rest, t);
    if (take < (size_t)r)
        body_bytes(s, buf + take, (size_t)r - take, t);
}

static bool start_stream(struct stream *s)
{
    struct epoll_event ev = { .events = EPOLLOUT, .data.ptr = s };
    s->fd = load_dial(host, targets[0].port, true);
    if (s->fd < 0 || epoll_ctl(epfd, EPOLL_CTL_ADD, s->fd, &ev) != 0) {
        perror("streamload: connect");
        return false;
    }
    s->st = ST_CONNECTING;
    return true;
}

static void on_writable(struct stream *s)
{
    char req[512];
    int err = 0;
    socklen_t len = sizeof err;
    struct load_game *g = &games[s->index / 2];
    struct epoll_event ev = { .events = EPOLLIN, .data.ptr = s };

    getsockopt(s->fd, SOL_SOCKET, SO_ERROR, &err, &len);
    int n = snprintf(req, sizeof req,
                     "GET /v1/events HTTP/1.1\r\nHost: %s:%d\r\nAccept: text/event-stream\r\n"
                     "Authorization: Bearer %s\r\n\r\n",
                     host, targets[0].port, s->index % 2 == 0 ? g->white : g->black);
    if (err != 0 || load_send_all(s->fd, req, (size_t)n) != 0 ||
        epoll_ctl(epfd, EPOLL_CTL_MOD, s->fd, &ev) != 0) {
        s->st = ST_HEADERS;
        return;   /* reported when the socket reads as closed */
    }
    s->st = ST_HEADERS;
}

int main(int argc, char **argv)
{
    int connected = 0, connecting = 0, next = 0;
    struct mover mover;
    double idle;

    if (argc < 8) {
        fprintf(stderr,
                "usage: streamload HOST GAMES N RATE SECONDS IDLE PORT:PID [PORT:PID ...]\n");
        return 2;
    }
    host = argv[1];
    nstreams = atoi(argv[3]);
    rate = atof(argv[4]);
    seconds = atof(argv[5]);
    idle = atof(argv[6]);
    for (int i = 7; i < argc && ntargets < MAX_TARGETS; i++, ntargets++)
        if (sscanf(argv[i], "%d:%d", &targets[ntargets].port, &targets[ntargets].pid) != 2) {
            fprintf(stderr, "streamload: '%s' is not PORT:PID\n", argv[i]);
            return 2;
        }
    if (nstreams < 2 || nstreams % 2 != 0 || rate <= 0 || seconds <= 0) {
        fprintf(stderr, "streamload: N must be even and at least 2, RATE and SECONDS positive\n");
        return 2;
    }
    if ((ngames = load_games_read(argv[2], nstreams / 2, &games)) < 0)
        return 2;
    if (ngames < nstreams / 2) {
        fprintf(stderr, "streamload: %s has %d games, %d needed\n", argv[2], ngames, nstreams / 2);
        return 2;
    }
    /* Room for every move a game may get, from its current ply. */
    max_plies = 2;
    for (int i = 0; i < ngames; i++)
        if (games[i].ply + 2 > max_plies)
            max_plies = games[i].ply + 2;
    max_plies += (int)(rate * seconds * ntargets / ngames) + 2;
    times = calloc((size_t)ngames * (size_t)max_plies, sizeof *times);
    streams = calloc((size_t)nstreams, sizeof *streams);
    if (times == NULL || streams == NULL || (epfd = epoll_create1(0)) < 0)
        return 2;
    for (size_t i = 0; i < (size_t)ngames * (size_t)max_plies; i++)
        times[i].phase = -1;

    print_rss("before", targets[0].pid);
    double t0 = load_now(), last_progress = t0;
    struct epoll_event evs[1024];
    while (connected + (int)lost < nstreams) {
        while (next < nstreams && connecting < CONNECTING_MAX) {
            streams[next].index = next;
            if (!start_stream(&streams[next]))
                return 1;
            next++;
            connecting++;
        }
        int n = epoll_wait(epfd, evs, 1024, 1000);
        for (int i = 0; i < n; i++) {
            struct stream *s = evs[i].data.ptr;
            if (s->st == ST_CONNECTING && (evs[i].events & (EPOLLOUT | EPOLLERR | EPOLLHUP)))
                on_writable(s);
            else if (evs[i].events & (EPOLLIN | EPOLLERR | EPOLLHUP))
                on_readable(s, &connected, &connecting);
        }
        if (load_now() - last_progress > 30) {
            fprintf(stderr, "streamload: %d of %d streams open after %.0f s\n", connected,
                    nstreams, load_now() - t0);
            last_progress = load_now();
        }
        if (load_now() - t0 > 600) {
            fprintf(stderr, "streamload: streams not all open after 600 s\n");
            return 1;
        }
    }
    printf("connect: streams=%d seconds=%.2f lost=%ld\n", connected, load_now() - t0, lost);
    fflush(stdout);
    if (lost > 0)
        return 1;
    print_rss("open", targets[0].pid);

    /* Idle: only keep-alives. */
    for (double end = load_now() + idle; load_now() < end;) {
        int n = epoll_wait(epfd, evs, 1024, 200);
        for (int i = 0; i < n; i++)
            on_readable(evs[i].data.ptr, &connected, &connecting);
    }
    print_rss("idle", targets[0].pid);

    memset(&mover, 0, sizeof mover);
    pthread_create(&mover.thread, NULL, mover_run, &mover);
    while (!__atomic_load_n(&moves_done, __ATOMIC_ACQUIRE)) {
        int n = epoll_wait(epfd, evs, 1024, 100);
        for (int i = 0; i < n; i++)
            on_readable(evs[i].data.ptr, &connected, &connecting);
    }
    pthread_join(mover.thread, NULL);
    print_rss("after", targets[0].pid);
    for (int t = 1; t < ntargets; t++)
        print_rss("after_other", targets[t].pid);

    /* Per phase: every move's two events. */
    int bad = mover.failures > 0 || lost > 0;
    size_t cells = (size_t)ngames * (size_t)max_plies;
    double *after_answer = calloc(2 * cells + 1, sizeof(double));
    double *after_send = calloc(2 * cells + 1, sizeof(double));
    for (int t = 0; t < ntargets; t++) {
        long n = 0, missing = 0, early = 0, moves = mover.count[t];
        for (size_t i = 0; i < cells; i++) {
            if (times[i].phase != t)
                continue;
            for (int c = 0; c < 2; c++) {
                if (times[i].got[c] == 0) {
                    missing++;
                    continue;
                }
                after_answer[n] = times[i].got[c] - times[i].answered;
                after_send[n] = times[i].got[c] - times[i].sent;
                early += after_answer[n] < 0;
                n++;
            }
        }
        load_sort(after_answer, n);
        load_sort(after_send, n);
        load_sort(mover.answer_lat[t], moves);
        double span = mover.ended[t] - mover.began[t];
        printf("phase=%d port=%d: moves=%ld rate=%.1f move_p50_ms=%.2f move_p99_ms=%.2f "
               "move_max_ms=%.2f "
               "events=%ld missing=%ld before_answer=%ld "
               "after_answer_p50_ms=%.2f after_answer_p90_ms=%.2f after_answer_p99_ms=%.2f "
               "after_answer_max_ms=%.2f after_send_p50_ms=%.2f after_send_p99_ms=%.2f\n",
               t, targets[t].port, moves, span > 0 ? (double)moves / span : 0,
               load_pct(mover.answer_lat[t], moves, 0.5), load_pct(mover.answer_lat[t], moves, 0.99),
               moves ? mover.answer_lat[t][moves - 1] * 1e3 : 0, n,
               missing, early, load_pct(after_answer, n, 0.5), load_pct(after_answer, n, 0.9),
               load_pct(after_answer, n, 0.99), n ? after_answer[n - 1] * 1e3 : 0,
               load_pct(after_send, n, 0.5), load_pct(after_send, n, 0.99));
        bad |= missing > 0;
    }
    printf("totals: streams=%d keepalives=%ld lost=%ld unknown_events=%ld "
           "move_failures=%ld\n",
           nstreams, keepalives, lost, unknown_events, mover.failures);
    return bad ? 1 : 0;
}
