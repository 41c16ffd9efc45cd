/* loadclient.c — what bench's load clients share (loadclient.h). */
#define _GNU_SOURCE
#include "loadclient.h"

#include <sys/resource.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

double load_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int load_games_read(const char *path, int max, struct load_game **games)
{
    char line[512];
    int n = 0, cap = 0;
    FILE *in = fopen(path, "r");
    if (in == NULL) {
        perror(path);
        return -1;
    }
    *games = NULL;
    while (n < max && fgets(line, sizeof line, in)) {
        if (n == cap) {
            struct load_game *more;
            cap = cap ? 2 * cap : 1024;
            if ((more = realloc(*games, (size_t)cap * sizeof *more)) == NULL) {
                fclose(in);
                return -1;
            }
            *games = more;
        }
        struct load_game *g = &(*games)[n];
        if (sscanf(line, "%31s %d %79s %79s", g->id, &g->ply, g->white, g->black) == 4)
            n++;
    }
    fclose(in);
    return n;
}

const char *load_move_at(int p)
{
    static const char *const opening[] = { "K@e1", "K@e8", "N@g1", "N@g8" };
    if (p < 4)
        return opening[p];
    if (p % 2 == 0)
        return ((p - 4) / 2) % 2 == 0 ? "g1f3" : "f3g1";
    return ((p - 5) / 2) % 2 == 0 ? "g8f6" : "f6g8";
}

int load_move_request(char *req, size_t size, const char *host, int port,
                      const struct load_game *g)
{
    char body[96];
    int bl = snprintf(body, sizeof body, "{\"move\":\"%s\",\"ply\":%d}", load_move_at(g->ply),
                      g->ply);
    return snprintf(req, size,
                    "POST /v1/games/%s/moves HTTP/1.1\r\nHost: %s:%d\r\n"
                    "Authorization: Bearer %s\r\nContent-Type: application/json\r\n"
                    "Content-Length: %d\r\n\r\n%s",
                    g->id, host, port, g->ply % 2 == 0 ? g->white : g->black, bl, body);
}

int load_dial(const char *host, int port, bool nonblocking)
{
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((unsigned short)port) };
    int fd = socket(AF_INET, SOCK_STREAM | (nonblocking ? SOCK_NONBLOCK : 0), 0), one = 1;
    if (fd < 0)
        return -1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (inet_pton(AF_INET, host, &a.sin_addr) != 1) {
        close(fd);
        errno = EINVAL;
        return -1;
    }
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0 && errno != EINPROGRESS) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

int load_send_all(int fd, const char *p, size_t n)
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

int load_exchange(int fd, const char *req, size_t len, char *buf, size_t size,
                  struct load_answer *answer)
{
    size_t have = 0, head = 0, clen = 0;
    *answer = (struct load_answer){ .status = -1, .body = "" };
    if (load_send_all(fd, req, len) != 0)
        return -1;
    for (;;) {
        ssize_t r = recv(fd, buf + have, size - 1 - have, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        have += (size_t)r;
        buf[have] = '\0';
        char *end;
        if (head == 0 && (end = strstr(buf, "\r\n\r\n")) != NULL) {
            char *cl = strcasestr(buf, "\r\ncontent-length:");
            char *conn = strcasestr(buf, "\r\nconnection: close");
            if (cl == NULL || cl > end)
                return -1;
            head = (size_t)(end - buf) + 4;
            clen = strtoul(cl + 17, NULL, 10);
            answer->closing = conn != NULL && conn < end;
        }
        if (head != 0 && have >= head + clen)
            break;
        if (have >= size - 1)
            return -1;
    }
    if (sscanf(buf, "HTTP/1.%*d %d", &answer->status) != 1)
        return answer->status = -1;
    answer->body = buf + head;
    answer->body_len = clen;
    return answer->status;
}

double load_cpu_seconds(const struct rusage *from, const struct rusage *to)
{
    return (double)(to->ru_utime.tv_sec - from->ru_utime.tv_sec) +
           (double)(to->ru_utime.tv_usec - from->ru_utime.tv_usec) / 1e6 +
           (double)(to->ru_stime.tv_sec - from->ru_stime.tv_sec) +
           (double)(to->ru_stime.tv_usec - from->ru_stime.tv_usec) / 1e6;
}

struct load_times load_threads_run(void *workers, int n, size_t size, void *(*work)(void *))
{
    struct load_times times = { 0 };
    struct rusage ru0, ru1;
    pthread_t *threads = calloc((size_t)n, sizeof *threads);
    if (threads == NULL) {
        perror("load_threads_run");
        exit(2);
    }
    getrusage(RUSAGE_SELF, &ru0);
    double t0 = load_now();
    for (int t = 0; t < n; t++)
        pthread_create(&threads[t], NULL, work, (char *)workers + (size_t)t * size);
    for (int t = 0; t < n; t++)
        pthread_join(threads[t], NULL);
    times.seconds = load_now() - t0;
    getrusage(RUSAGE_SELF, &ru1);
    times.cpu_seconds = load_cpu_seconds(&ru0, &ru1);
    free(threads);
    return times;
}

int load_latencies_add(struct load_latencies *all, const double *v, long n)
{
    double *more = realloc(all->v, (size_t)(all->n + n + 1) * sizeof *more);
    if (more == NULL)
        return -1;
    all->v = more;
    memcpy(all->v + all->n, v, (size_t)n * sizeof *v);
    all->n += n;
    return 0;
}

void load_latencies_print(FILE *out, struct load_latencies *all, int digits)
{
    long n = all->n;
    load_sort(all->v, n);
    fprintf(out, "p50_ms=%.*f p90_ms=%.*f p99_ms=%.*f max_ms=%.*f", digits, load_pct(all->v, n, 0.50),
            digits, load_pct(all->v, n, 0.90), digits, load_pct(all->v, n, 0.99), digits,
            load_pct(all->v, n, 1.0));
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

void load_sort(double *v, long n)
{
    qsort(v, (size_t)n, sizeof *v, cmp);
}

double load_pct(const double *v, long n, double p)
{
    return n > 0 ? v[(long)(p * (double)(n - 1) + 0.5)] * 1e3 : 0;
}
