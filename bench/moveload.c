/*
 * moveload.c — the load client of bench/moves.sh: plays moves through
 * korpd's API (POST /v1/games/{id}/moves) over keep-alive HTTP/1.1
 * connections, one connection and one thread per client, and reports
 * moves/s and latency percentiles.
 *
 * usage: moveload HOST PORT GAMES-IN GAMES-OUT THREADS MOVES-PER-GAME
 *
 * GAMES-IN has one game a line: "game_id ply white_token black_token".
 * Thread t plays the games t, t+THREADS, ...; it makes one move in each of
 * its games in turn, MOVES-PER-GAME rounds, so no two threads touch the
 * same game (no lock waits between clients).  The moves go on for ever
 * without ending the game (Korpalski): K@e1, K@e8, N@g1, N@g8, then the
 * knights shuffle g1-f3-g1 and g8-f6-g8.  Every answer must be 201.
 * GAMES-OUT gets the games with their new plies.
 *
 * Prints one line:
 *   moves=N seconds=S rate=R p50_ms=.. p90_ms=.. p99_ms=.. max_ms=.. errors=E
 *   reconnects=C client_cpu_s=U bytes_per_answer=B
 * and exits 1 if any move failed.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

struct game {
    char id[32], white[64], black[64];
    int ply;
};

struct worker {
    pthread_t thread;
    int index, fd;
    struct game **games;
    int ngames;
    double *lat;        /* seconds, one per move */
    long done, errors, reconnects, bytes;
    char buf[1 << 20];
};

static const char *host;
static int port, rounds;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The move at ply p of the endless game. */
static const char *move_at(int p)
{
    static const char *const opening[] = { "K@e1", "K@e8", "N@g1", "N@g8" };
    if (p < 4)
        return opening[p];
    if (p % 2 == 0)
        return ((p - 4) / 2) % 2 == 0 ? "g1f3" : "f3g1";
    return ((p - 5) / 2) % 2 == 0 ? "g8f6" : "f6g8";
}

static int dial(void)
{
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((unsigned short)port) };
    int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    if (fd < 0 || inet_pton(AF_INET, host, &a.sin_addr) != 1 ||
        connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        perror("moveload: connect");
        if (fd >= 0)
            close(fd);
        return -1;
    }
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

static int send_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* One request and its answer; returns the HTTP status, or -1. Sets
 * *close_after when the server will close the connection. */
static int exchange(struct worker *w, const char *req, size_t reqlen, int *close_after,
                    const char **body)
{
    size_t have = 0, head = 0, clen = 0;
    char *end;
    int status;

    if (send_all(w->fd, req, reqlen) != 0)
        return -1;
    for (;;) {
        ssize_t r = recv(w->fd, w->buf + have, sizeof w->buf - 1 - have, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        have += (size_t)r;
        w->buf[have] = '\0';
        if (head == 0 && (end = strstr(w->buf, "\r\n\r\n")) != NULL) {
            char *cl = strcasestr(w->buf, "\r\ncontent-length:");
            char *conn = strcasestr(w->buf, "\r\nconnection: close");
            head = (size_t)(end - w->buf) + 4;
            if (cl == NULL || cl > end)
                return -1;   /* korpd always sends a Content-Length */
            clen = strtoul(cl + 17, NULL, 10);
            *close_after = conn != NULL && conn < end;
        }
        if (head != 0 && have >= head + clen)
            break;
        if (have >= sizeof w->buf - 1)
            return -1;
    }
    if (sscanf(w->buf, "HTTP/1.%*d %d", &status) != 1)
        return -1;
    w->bytes += (long)clen;
    *body = w->buf + head;
    return status;
}

static void *work(void *arg)
{
    struct worker *w = arg;
    char req[1024], body[128];

    w->fd = dial();
    for (int r = 0; r < rounds && w->fd >= 0; r++) {
        for (int i = 0; i < w->ngames; i++) {
            struct game *g = w->games[i];
            const char *answer = "";
            int close_after = 0, status;
            int bl = snprintf(body, sizeof body, "{\"move\":\"%s\",\"ply\":%d}", move_at(g->ply),
                              g->ply);
            int rl = snprintf(req, sizeof req,
                              "POST /v1/games/%s/moves HTTP/1.1\r\nHost: %s:%d\r\n"
                              "Authorization: Bearer %s\r\nContent-Type: application/json\r\n"
                              "Content-Length: %d\r\n\r\n%s",
                              g->id, host, port, g->ply % 2 == 0 ? g->white : g->black, bl,
                              body);
            double t0 = now();
            status = exchange(w, req, (size_t)rl, &close_after, &answer);
            w->lat[w->done] = now() - t0;
            if (status != 201) {
                fprintf(stderr, "moveload: game %s ply %d move %s: status %d: %.300s\n", g->id,
                        g->ply, move_at(g->ply), status, answer);
                w->errors++;
                close(w->fd);
                w->fd = -1;
                return NULL;
            }
            w->done++;
            g->ply++;
            if (close_after) {
                close(w->fd);
                w->reconnects++;
                if ((w->fd = dial()) < 0)
                    return NULL;
            }
        }
    }
    if (w->fd >= 0)
        close(w->fd);
    return NULL;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double pct(const double *v, long n, double p)
{
    long i = (long)(p * (double)(n - 1) + 0.5);
    return n ? v[i] * 1e3 : 0;
}

int main(int argc, char **argv)
{
    struct game *games = NULL;
    int ngames = 0, cap = 0, nthreads;
    FILE *in, *out;
    char line[512];

    if (argc != 7) {
        fprintf(stderr, "usage: moveload HOST PORT GAMES-IN GAMES-OUT THREADS MOVES-PER-GAME\n");
        return 2;
    }
    host = argv[1];
    port = atoi(argv[2]);
    nthreads = atoi(argv[5]);
    rounds = atoi(argv[6]);
    if ((in = fopen(argv[3], "r")) == NULL) {
        perror(argv[3]);
        return 2;
    }
    while (fgets(line, sizeof line, in)) {
        if (ngames == cap && (games = realloc(games, (size_t)(cap = cap ? 2 * cap : 64) *
                                                         sizeof *games)) == NULL)
            return 2;
        struct game *g = &games[ngames];
        if (sscanf(line, "%31s %d %63s %63s", g->id, &g->ply, g->white, g->black) == 4)
            ngames++;
    }
    fclose(in);
    if (nthreads < 1 || nthreads > ngames || rounds < 1) {
        fprintf(stderr, "moveload: need 1 <= THREADS <= games (%d) and MOVES-PER-GAME >= 1\n",
                ngames);
        return 2;
    }

    struct worker *ws = calloc((size_t)nthreads, sizeof *ws);
    for (int t = 0; t < nthreads; t++) {
        ws[t].index = t;
        ws[t].games = calloc((size_t)ngames, sizeof *ws[t].games);
        for (int i = t; i < ngames; i += nthreads)
            ws[t].games[ws[t].ngames++] = &games[i];
        ws[t].lat = calloc((size_t)ws[t].ngames * (size_t)rounds + 1, sizeof *ws[t].lat);
    }
    struct rusage ru0, ru1;
    getrusage(RUSAGE_SELF, &ru0);
    double t0 = now();
    for (int t = 0; t < nthreads; t++)
        pthread_create(&ws[t].thread, NULL, work, &ws[t]);
    for (int t = 0; t < nthreads; t++)
        pthread_join(ws[t].thread, NULL);
    double secs = now() - t0;
    getrusage(RUSAGE_SELF, &ru1);

    long total = 0, errors = 0, reconnects = 0, bytes = 0;
    for (int t = 0; t < nthreads; t++) {
        total += ws[t].done;
        errors += ws[t].errors;
        reconnects += ws[t].reconnects;
        bytes += ws[t].bytes;
    }
    double *all = calloc((size_t)total + 1, sizeof *all);
    long k = 0;
    for (int t = 0; t < nthreads; t++)
        for (long i = 0; i < ws[t].done; i++)
            all[k++] = ws[t].lat[i];
    qsort(all, (size_t)total, sizeof *all, cmp);
    double cpu = (double)(ru1.ru_utime.tv_sec - ru0.ru_utime.tv_sec) +
                 (double)(ru1.ru_utime.tv_usec - ru0.ru_utime.tv_usec) / 1e6 +
                 (double)(ru1.ru_stime.tv_sec - ru0.ru_stime.tv_sec) +
                 (double)(ru1.ru_stime.tv_usec - ru0.ru_stime.tv_usec) / 1e6;
    printf("moves=%ld seconds=%.3f rate=%.1f p50_ms=%.2f p90_ms=%.2f p99_ms=%.2f max_ms=%.2f "
           "errors=%ld reconnects=%ld client_cpu_s=%.3f bytes_per_answer=%ld\n",
           total, secs, secs > 0 ? (double)total / secs : 0, pct(all, total, 0.50),
           pct(all, total, 0.90), pct(all, total, 0.99), total ? all[total - 1] * 1e3 : 0,
           errors, reconnects, cpu, total ? bytes / total : 0);

    if ((out = fopen(argv[4], "w")) == NULL) {
        perror(argv[4]);
        return 2;
    }
    for (int i = 0; i < ngames; i++)
        fprintf(out, "%s %d %s %s\n", games[i].id, games[i].ply, games[i].white, games[i].black);
    fclose(out);
    return errors ? 1 : 0;
}
