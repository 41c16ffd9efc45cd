/*
 * readload.c — the load client of bench/reads.sh: reads through korpd's
 * API (GETs) over keep-alive HTTP/1.1 connections, one connection and one
 * thread per client, and reports operations/s and latency percentiles.
 *
 * usage: readload HOST PORT OPS-FILE THREADS OPS-PER-THREAD SEED
 *
 * OPS-FILE has one operation a line, tab-separated: the status every answer
 * must have (200 or 304), the If-None-Match value to send ("-": none), then
 * the paths the operation GETs one after the other (a page that needs three
 * reads is one operation of three).  Each thread picks OPS-PER-THREAD lines
 * at random (xorshift seeded with SEED and its index: the same picks on
 * every run) and times each operation as a whole.
 *
 * Prints one line:
 *   ops=N requests=R seconds=S rate=R p50_ms=.. p90_ms=.. p99_ms=.. max_ms=..
 *   errors=E reconnects=C client_cpu_s=U bytes_per_op=B
 * and exits 1 if any answer had another status.
 */
#include "loadclient.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define OPS_MAX 4096
#define PATHS_MAX 4

struct op {
    int status;
    char inm[80];
    int npaths;
    char paths[PATHS_MAX][256];
};

struct worker {
    int index, fd;
    uint64_t rng;
    double *lat;        /* seconds, one per operation */
    long done, requests, errors, reconnects, bytes;
    char buf[1 << 20];
};

static const char *host;
static int port, nops;
static long per_thread;
static struct op ops[OPS_MAX];

static uint64_t next_random(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static int dial(void)
{
    int fd = load_dial(host, port, false);
    if (fd < 0)
        perror("readload: connect");
    return fd;
}

/* One GET of an operation; false (reported) when it failed. */
static bool get(struct worker *w, const struct op *o, const char *path)
{
    char req[1024];
    struct load_answer answer;
    int rl = snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: %s:%d\r\n%s%s%s\r\n", path,
                      host, port, o->inm[0] ? "If-None-Match: " : "", o->inm,
                      o->inm[0] ? "\r\n" : "");
    load_exchange(w->fd, req, (size_t)rl, w->buf, sizeof w->buf, &answer);
    w->requests++;
    if (answer.status != o->status) {
        fprintf(stderr, "readload: GET %s: status %d (not %d): %.300s\n", path, answer.status,
                o->status, answer.body);
        w->errors++;
        return false;
    }
    w->bytes += (long)answer.body_len;
    if (answer.closing) {
        close(w->fd);
        w->reconnects++;
        w->fd = dial();
    }
    return w->fd >= 0;
}

static void *work(void *arg)
{
    struct worker *w = arg;

    w->fd = dial();
    for (long n = 0; n < per_thread && w->fd >= 0; n++) {
        const struct op *o = &ops[next_random(&w->rng) % (uint64_t)nops];
        double t0 = load_now();
        for (int p = 0; p < o->npaths; p++) {
            if (!get(w, o, o->paths[p])) {
                if (w->fd >= 0)
                    close(w->fd);
                w->fd = -1;
                return NULL;
            }
        }
        w->lat[w->done++] = load_now() - t0;
    }
    if (w->fd >= 0)
        close(w->fd);
    return NULL;
}

static int read_ops(const char *path)
{
    char line[2048];
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        perror(path);
        return -1;
    }
    while (nops < OPS_MAX && fgets(line, sizeof line, f) != NULL) {
        struct op *o = &ops[nops];
        char *save = NULL, *field = strtok_r(line, "\t\n", &save);
        if (field == NULL)
            continue;
        o->status = atoi(field);
        if ((field = strtok_r(NULL, "\t\n", &save)) == NULL)
            break;
        snprintf(o->inm, sizeof o->inm, "%s", strcmp(field, "-") == 0 ? "" : field);
        while (o->npaths < PATHS_MAX && (field = strtok_r(NULL, "\t\n", &save)) != NULL)
            snprintf(o->paths[o->npaths++], sizeof o->paths[0], "%s", field);
        if (o->npaths > 0)
            nops++;
    }
    fclose(f);
    if (nops == 0)
        fprintf(stderr, "readload: no operations in %s\n", path);
    return nops > 0 ? nops : -1;
}

int main(int argc, char **argv)
{
    int nthreads;
    unsigned long seed;

    if (argc != 7) {
        fprintf(stderr, "usage: readload HOST PORT OPS-FILE THREADS OPS-PER-THREAD SEED\n");
        return 2;
    }
    host = argv[1];
    port = atoi(argv[2]);
    nthreads = atoi(argv[4]);
    per_thread = atol(argv[5]);
    seed = strtoul(argv[6], NULL, 10);
    if (read_ops(argv[3]) < 0)
        return 2;
    if (nthreads < 1 || per_thread < 1) {
        fprintf(stderr, "readload: need THREADS >= 1 and OPS-PER-THREAD >= 1\n");
        return 2;
    }

    struct worker *ws = calloc((size_t)nthreads, sizeof *ws);
    for (int t = 0; t < nthreads; t++) {
        ws[t].index = t;
        ws[t].rng = (seed + 1) * 0x9E3779B97F4A7C15ull + (uint64_t)t * 0xBF58476D1CE4E5B9ull;
        if (ws[t].rng == 0)
            ws[t].rng = 1;
        ws[t].lat = calloc((size_t)per_thread + 1, sizeof *ws[t].lat);
    }
    struct load_times times = load_threads_run(ws, nthreads, sizeof *ws, work);

    long total = 0, requests = 0, errors = 0, reconnects = 0, bytes = 0;
    struct load_latencies all = { 0 };
    for (int t = 0; t < nthreads; t++) {
        total += ws[t].done;
        requests += ws[t].requests;
        errors += ws[t].errors;
        reconnects += ws[t].reconnects;
        bytes += ws[t].bytes;
        if (load_latencies_add(&all, ws[t].lat, ws[t].done) != 0)
            return 2;
    }
    printf("ops=%ld requests=%ld seconds=%.3f rate=%.1f ", total, requests, times.seconds,
           times.seconds > 0 ? (double)total / times.seconds : 0);
    load_latencies_print(stdout, &all, 2);
    printf(" errors=%ld reconnects=%ld client_cpu_s=%.3f bytes_per_op=%ld\n", errors, reconnects,
           times.cpu_seconds, total ? bytes / total : 0);
    return errors || total < per_thread * nthreads ? 1 : 0;
}
