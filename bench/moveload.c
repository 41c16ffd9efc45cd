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
 * and exits 1 if any move failed.  With MOVELOG=<file> in the environment it
 * also writes there one line per move, "game_id ply answered_at" (the
 * CLOCK_MONOTONIC seconds its answer came back; bench/sse_listen.py's
 * times are on the same clock): moves.sh matches them with the events.
 */
#include "loadclient.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

struct worker {
    int index, fd;
    struct load_game **games;
    int ngames;
    double *lat;        /* seconds, one per move */
    double *at;         /* when each answer came (MOVELOG) */
    struct load_game **moved;   /* ... for which game */
    int *ply;                   /* ... and ply */
    long done, errors, reconnects, bytes;
    char buf[1 << 20];
};

static const char *host;
static int port, rounds;

static int dial(void)
{
    int fd = load_dial(host, port, false);
    if (fd < 0)
        perror("moveload: connect");
    return fd;
}

static void *work(void *arg)
{
    struct worker *w = arg;
    char req[1024];

    w->fd = dial();
    for (int r = 0; r < rounds && w->fd >= 0; r++) {
        for (int i = 0; i < w->ngames; i++) {
            struct load_game *g = w->games[i];
            struct load_answer answer;
            int rl = load_move_request(req, sizeof req, host, port, g);
            double t0 = load_now();
            load_exchange(w->fd, req, (size_t)rl, w->buf, sizeof w->buf, &answer);
            w->at[w->done] = load_now();
            w->lat[w->done] = w->at[w->done] - t0;
            w->moved[w->done] = g;
            w->ply[w->done] = g->ply + 1;
            if (answer.status != 201) {
                fprintf(stderr, "moveload: game %s ply %d move %s: status %d: %.300s\n", g->id,
                        g->ply, load_move_at(g->ply), answer.status, answer.body);
                w->errors++;
                close(w->fd);
                w->fd = -1;
                return NULL;
            }
            w->bytes += (long)answer.body_len;
            w->done++;
            g->ply++;
            if (answer.closing) {
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

int main(int argc, char **argv)
{
    struct load_game *games = NULL;
    int ngames, nthreads;
    FILE *out;

    if (argc != 7) {
        fprintf(stderr, "usage: moveload HOST PORT GAMES-IN GAMES-OUT THREADS MOVES-PER-GAME\n");
        return 2;
    }
    host = argv[1];
    port = atoi(argv[2]);
    nthreads = atoi(argv[5]);
    rounds = atoi(argv[6]);
    if ((ngames = load_games_read(argv[3], INT_MAX, &games)) < 0)
        return 2;
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
        size_t n = (size_t)ws[t].ngames * (size_t)rounds + 1;
        ws[t].lat = calloc(n, sizeof *ws[t].lat);
        ws[t].at = calloc(n, sizeof *ws[t].at);
        ws[t].moved = calloc(n, sizeof *ws[t].moved);
        ws[t].ply = calloc(n, sizeof *ws[t].ply);
    }
    struct load_times times = load_threads_run(ws, nthreads, sizeof *ws, work);

    long total = 0, errors = 0, reconnects = 0, bytes = 0;
    struct load_latencies all = { 0 };
    for (int t = 0; t < nthreads; t++) {
        total += ws[t].done;
        errors += ws[t].errors;
        reconnects += ws[t].reconnects;
        bytes += ws[t].bytes;
        if (load_latencies_add(&all, ws[t].lat, ws[t].done) != 0)
            return 2;
    }
    printf("moves=%ld seconds=%.3f rate=%.1f ", total, times.seconds,
           times.seconds > 0 ? (double)total / times.seconds : 0);
    load_latencies_print(stdout, &all, 2);
    printf(" errors=%ld reconnects=%ld client_cpu_s=%.3f bytes_per_answer=%ld\n", errors,
           reconnects, times.cpu_seconds, total ? bytes / total : 0);

    const char *log = getenv("MOVELOG");
    FILE *lf = log != NULL && log[0] != '\0' ? fopen(log, "w") : NULL;
    for (int t = 0; lf != NULL && t < nthreads; t++)
        for (long i = 0; i < ws[t].done; i++)
            fprintf(lf, "%s %d %.6f\n", ws[t].moved[i]->id, ws[t].ply[i], ws[t].at[i]);
    if (lf != NULL)
        fclose(lf);

    if ((out = fopen(argv[4], "w")) == NULL) {
        perror(argv[4]);
        return 2;
    }
    for (int i = 0; i < ngames; i++)
        fprintf(out, "%s %d %s %s\n", games[i].id, games[i].ply, games[i].white, games[i].black);
    fclose(out);
    return errors ? 1 : 0;
}
