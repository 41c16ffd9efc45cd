/*
 * loadclient.h — what bench's load clients (moveload.c, readload.c,
 * dayload.c, streamload.c) share: the games file, the endless Korpalski
 * game they play, a keep-alive HTTP/1.1 exchange with korpd, threads timed
 * with their CPU, and latency percentiles.
 */
#ifndef KORP_BENCH_LOADCLIENT_H
#define KORP_BENCH_LOADCLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* One game of the file bench/moves_setup.py writes: a line
 * "game_id ply white_token black_token". */
struct load_game {
    char id[32], white[80], black[80];
    int ply;                /* plies played */
};

/* One answer read by load_exchange. */
struct load_answer {
    int status;             /* the HTTP status, -1 on failure */
    bool closing;           /* the server closes the connection after it */
    const char *body;       /* in the caller's buffer */
    size_t body_len;
};

/* Monotonic seconds. */
double load_now(void);

/* Reads at most MAX games from PATH into *GAMES (malloc'd); the number read,
 * or -1 (reported on stderr) when the file cannot be read. */
int load_games_read(const char *path, int max, struct load_game **games);

/* The move at ply P of the endless game: K@e1, K@e8, N@g1, N@g8, then the
 * knights shuffle g1-f3-g1 and g8-f6-g8. */
const char *load_move_at(int p);

/* Writes the request that plays G's next move (the player to move's token)
 * into REQ; its length. */
int load_move_request(char *req, size_t size, const char *host, int port,
                      const struct load_game *g);

/* A TCP connection to HOST:PORT (TCP_NODELAY), or -1 with errno set. */
int load_dial(const char *host, int port, bool nonblocking);

/* Sends all of P; 0, or -1 when the connection failed. */
int load_send_all(int fd, const char *p, size_t n);

/* Sends REQ and reads its whole answer (korpd always sends a
 * Content-Length) into BUF; the HTTP status, or -1. */
int load_exchange(int fd, const char *req, size_t len, char *buf, size_t size,
                  struct load_answer *answer);

struct rusage;
/* The CPU seconds (user and system) between two getrusage readings. */
double load_cpu_seconds(const struct rusage *from, const struct rusage *to);

/* What a run of threads took: wall-clock seconds, and the CPU seconds
 * (user and system) of this whole process meanwhile. */
struct load_times {
    double seconds, cpu_seconds;
};

/* Runs WORK on each of the N workers (worker i at (char *)WORKERS + i * SIZE),
 * each in a thread of its own, and waits for them all. */
struct load_times load_threads_run(void *workers, int n, size_t size, void *(*work)(void *));

/* Latencies in seconds gathered from several threads (V malloc'd). */
struct load_latencies {
    double *v;
    long n;
};

/* Appends the N latencies of V to ALL; 0, or -1 when out of memory. */
int load_latencies_add(struct load_latencies *all, const double *v, long n);

/* Sorts ALL and writes "p50_ms=.. p90_ms=.. p99_ms=.. max_ms=.." to OUT,
 * with DIGITS decimals (0 for each when ALL is empty). */
void load_latencies_print(FILE *out, struct load_latencies *all, int digits);

/* Sorts N latencies (seconds) in place. */
void load_sort(double *v, long n);

/* The P-quantile of N sorted latencies, in milliseconds (0 when N is 0). */
double load_pct(const double *v, long n, double p);

#endif
