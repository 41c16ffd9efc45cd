/*
 * dayload.c — the traffic of bench/day.sh: moves and reads arriving as
 * Poisson streams (open loop: a slow server makes requests wait, it does not
 * slow the arrivals), served by WORKERS threads on keep-alive connections.
 *
 * usage: dayload HOST PORT GAMES SEED RATE READS SECONDS WORKERS MOVES-OUT
 *
 * GAMES has one game a line, as bench/day_setup.py writes it:
 * "game_id variant ply white_token black_token bot white_id black_id".
 * Moves arrive at RATE a second: half of them in the bot games (one game in
 * ten; bots move often), the others in any game (correspondence players
 * move about once a day).  A game has at most one move in flight; a game
 * that refuses a move (the sweeper ended it on time) is left alone.  Reads
 * arrive at READS a second, each one of: GET /v1/games/{id},
 * /v1/games/{id}/legal-moves, /v1/games/{id}/pgn, /v1/games?player=ID and
 * /v1/players/{id} (what a player's page asks first), in equal shares.
 * The endless games: Korpalski kings, knights, then the knights shuffle;
 * Glinski's knights c3 and c6 out and back (bench/day_setup.py).
 *
 * Latency counts from the moment a request was due, not when a worker got
 * to it (so that a server falling behind shows in it).  Prints one line per
 * kind: "kind=K n=.. rate=.. p50_ms=.. p90_ms=.. p99_ms=.. max_ms=..
 * errors=..", one such line "kind=reads" for all the reads together, then
 * "totals: ...".  MOVES-OUT gets "game_id ply due_us
 * answer_us status" for every move (CLOCK_REALTIME microseconds), from which
 * day.sh computes the lag of events, webhooks and emails.
 */
#include "loadclient.h"

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum kind { K_MOVE, K_GAME, K_LEGAL, K_PGN, K_LIST, K_PLAYER, K_COUNT };
static const char *const kind_names[K_COUNT] = {
    "move", "game", "legal-moves", "pgn", "games-of-player", "player",
};

struct game {
    char id[32], white[80], black[80], white_id[32], black_id[32];
    bool glinski, bot, busy, over;
    int ply;
};

struct job {
    enum kind kind;
    int game;
    double due;          /* monotonic seconds */
};

struct stats {
    double *lat;
    long n, cap, errors;
};

#define QUEUE_CAP 65536

static struct game *games;
static int ngames, *bots, nbots;
static const char *host;
static int port;
static struct job queue[QUEUE_CAP];
static long q_head, q_tail;
static bool q_done;
static pthread_mutex_t q_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t q_cond = PTHREAD_COND_INITIALIZER;
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;
static FILE *moves_out;
static long skipped_busy, queue_full;

static double real_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t rng_state;
static double uniform(void)   /* xorshift64*, seeded: the same run each time */
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (double)((rng_state * 2685821657736338717ULL) >> 11) / 9007199254740992.0;
}

static const char *move_at(const struct game *g)
{
    static const char *const glinski[] = { "d1c3", "d9c6", "c3d1", "c6d9" };
    static const char *const opening[] = { "K@e1", "K@e8", "N@g1", "N@g8" };
    int p = g->ply;
    if (g->glinski)
        return glinski[p % 4];
    if (p < 4)
        return opening[p];
    if (p % 2 == 0)
        return ((p - 4) / 2) % 2 == 0 ? "g1f3" : "f3g1";
    return ((p - 5) / 2) % 2 == 0 ? "g8f6" : "f6g8";
}

static int read_games(const char *path)
{
    char line[512], variant[16];
    int cap = 0;
    FILE *in = fopen(path, "r");
    if (in == NULL)
        return -1;
    while (fgets(line, sizeof line, in)) {
        if (ngames == cap) {
            cap = cap ? 2 * cap : 4096;
            games = realloc(games, (size_t)cap * sizeof *games);
            bots = realloc(bots, (size_t)cap * sizeof *bots);
            if (games == NULL || bots == NULL)
                return -1;
        }
        struct game *g = &games[ngames];
        int bot = 0;
        memset(g, 0, sizeof *g);
        if (sscanf(line, "%31s %15s %d %79s %79s %d %31s %31s", g->id, variant, &g->ply,
                   g->white, g->black, &bot, g->white_id, g->black_id) != 8)
            continue;
        g->glinski = strcmp(variant, "glinski") == 0;
        g->bot = bot != 0;
        if (g->bot)
            bots[nbots++] = ngames;
        ngames++;
    }
    fclose(in);
    return ngames > 0 && nbots > 0 ? 0 : -1;
}

static int request(char *req, size_t size, const struct job *j)
{
    const struct game *g = &games[j->game];
    const char *who = uniform() < 0.5 ? g->white_id : g->black_id;
    if (j->kind == K_MOVE) {
        char body[128];
        int bl = snprintf(body, sizeof body, "{\"move\":\"%s\",\"ply\":%d}", move_at(g), g->ply);
        return snprintf(req, size,
                        "POST /v1/games/%s/moves HTTP/1.1\r\nHost: %s:%d\r\n"
                        "Authorization: Bearer %s\r\nContent-Type: application/json\r\n"
                        "Content-Length: %d\r\n\r\n%s",
                        g->id, host, port, g->ply % 2 == 0 ? g->white : g->black, bl, body);
    }
    static const char *const paths[K_COUNT] = {
        [K_GAME] = "/v1/games/%s", [K_LEGAL] = "/v1/games/%s/legal-moves",
        [K_PGN] = "/v1/games/%s/pgn", [K_LIST] = "/v1/games?player=%s",
        [K_PLAYER] = "/v1/players/%s",
    };
    char path[128];
    snprintf(path, sizeof path, paths[j->kind],
             j->kind == K_LIST || j->kind == K_PLAYER ? who : g->id);
    return snprintf(req, size, "GET %s HTTP/1.1\r\nHost: %s:%d\r\n\r\n", path, host, port);
}

static void add(struct stats *s, double v)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 4096;
        s->lat = realloc(s->lat, (size_t)s->cap * sizeof *s->lat);
        if (s->lat == NULL)
            abort();
    }
    s->lat[s->n++] = v;
}

struct worker {
    pthread_t thread;
    struct stats stats[K_COUNT];
    char buf[4 << 20];
};

static bool take(struct job *j)
{
    pthread_mutex_lock(&q_lock);
    while (q_head == q_tail && !q_done)
        pthread_cond_wait(&q_cond, &q_lock);
    bool got = q_head != q_tail;
    if (got)
        *j = queue[q_head++ % QUEUE_CAP];
    pthread_mutex_unlock(&q_lock);
    return got;
}

static void *work(void *arg)
{
    struct worker *w = arg;
    char req[1024];
    struct job j;
    int fd = -1;
    while (take(&j)) {
        struct load_answer a;
        struct game *g = &games[j.game];
        int len = request(req, sizeof req, &j), status = -1;
        for (int attempt = 0; attempt < 2 && status < 0; attempt++) {
            if (fd < 0 && (fd = load_dial(host, port, false)) < 0)
                break;
            status = load_exchange(fd, req, (size_t)len, w->buf, sizeof w->buf, &a);
            if (status < 0 || a.closing) {
                close(fd);
                fd = -1;
            }
        }
        double done = load_now();
        add(&w->stats[j.kind], done - j.due);
        if (j.kind != K_MOVE) {
            if (status != 200)
                w->stats[j.kind].errors++;
            continue;
        }
        if (status != 201)
            w->stats[K_MOVE].errors++;
        double real = real_now(), due_real = real - (done - j.due);
        pthread_mutex_lock(&out_lock);
        fprintf(moves_out, "%s %d %.0f %.0f %d\n", g->id, g->ply + 1, due_real * 1e6,
                real * 1e6, status);
        pthread_mutex_unlock(&out_lock);
        pthread_mutex_lock(&q_lock);
        if (status == 201)
            g->ply++;
        else
            g->over = true;     /* ended (on time), or refused: left alone */
        g->busy = false;
        pthread_mutex_unlock(&q_lock);
    }
    if (fd >= 0)
        close(fd);
    return NULL;
}

/* A game for the next move (the queue's lock held): not busy, not over. */
static int pick_game(void)
{
    for (int tries = 0; tries < 32; tries++) {
        int i = uniform() < 0.5 ? bots[(int)(uniform() * nbots)] : (int)(uniform() * ngames);
        if (!games[i].busy && !games[i].over) {
            games[i].busy = true;
            return i;
        }
    }
    skipped_busy++;
    return -1;
}

static void push(enum kind k, double due)
{
    pthread_mutex_lock(&q_lock);
    int game = k == K_MOVE ? pick_game() : (int)(uniform() * ngames);
    if (game >= 0 && q_tail - q_head < QUEUE_CAP) {
        queue[q_tail++ % QUEUE_CAP] = (struct job){ k, game, due };
        pthread_cond_signal(&q_cond);
    } else if (game >= 0) {
        games[game].busy = false;
        queue_full++;
    }
    pthread_mutex_unlock(&q_lock);
}

static double exp_gap(double rate)
{
    return -log(1.0 - uniform()) / rate;
}

int main(int argc, char **argv)
{
    if (argc != 10) {
        fprintf(stderr, "usage: dayload HOST PORT GAMES SEED RATE READS SECONDS WORKERS MOVES-OUT\n");
        return 2;
    }
    host = argv[1];
    port = atoi(argv[2]);
    rng_state = strtoull(argv[4], NULL, 10) * 0x9E3779B97F4A7C15ULL + 1;
    double rate = atof(argv[5]), reads = atof(argv[6]), seconds = atof(argv[7]);
    int nworkers = atoi(argv[8]);
    if (read_games(argv[3]) != 0 || rate <= 0 || seconds <= 0 || nworkers < 1 ||
        (moves_out = fopen(argv[9], "w")) == NULL) {
        fprintf(stderr, "dayload: bad arguments or games file %s\n", argv[3]);
        return 2;
    }
    struct worker *w = calloc((size_t)nworkers, sizeof *w);
    for (int i = 0; i < nworkers; i++)
        pthread_create(&w[i].thread, NULL, work, &w[i]);

    double start = load_now(), next_move = start + exp_gap(rate);
    double next_read = reads > 0 ? start + exp_gap(reads) : INFINITY;
    for (;;) {
        double due = next_move < next_read ? next_move : next_read;
        if (due - start >= seconds)
            break;
        double now = load_now();
        if (due > now) {
            struct timespec ts = { (time_t)(due - now), (long)(fmod(due - now, 1.0) * 1e9) };
            nanosleep(&ts, NULL);   /* the arrival's time: the load's schedule */
        }
        if (next_move <= next_read) {
            push(K_MOVE, next_move);
            next_move += exp_gap(rate);
        } else {
            push((enum kind)(K_GAME + (int)(uniform() * (K_COUNT - K_GAME))), next_read);
            next_read += exp_gap(reads);
        }
    }
    pthread_mutex_lock(&q_lock);
    q_done = true;
    pthread_cond_broadcast(&q_cond);
    pthread_mutex_unlock(&q_lock);
    for (int i = 0; i < nworkers; i++)
        pthread_join(w[i].thread, NULL);
    double elapsed = load_now() - start;
    fclose(moves_out);

    long total = 0, errors = 0, read_errors = 0;
    struct load_latencies reads_all = { 0 };   /* every read, whatever its kind */
    for (int k = 0; k < K_COUNT; k++) {
        struct load_latencies all = { 0 };
        long kind_errors = 0;
        for (int i = 0; i < nworkers; i++) {
            if (load_latencies_add(&all, w[i].stats[k].lat, w[i].stats[k].n) != 0)
                abort();
            kind_errors += w[i].stats[k].errors;
            free(w[i].stats[k].lat);
        }
        if (k != K_MOVE) {
            if (load_latencies_add(&reads_all, all.v, all.n) != 0)
                abort();
            read_errors += kind_errors;
        }
        printf("kind=%s n=%ld rate=%.1f ", kind_names[k], all.n, (double)all.n / elapsed);
        load_latencies_print(stdout, &all, 1);
        printf(" errors=%ld\n", kind_errors);
        total += all.n;
        errors += kind_errors;
        free(all.v);
    }
    printf("kind=reads n=%ld rate=%.1f ", reads_all.n, (double)reads_all.n / elapsed);
    load_latencies_print(stdout, &reads_all, 1);
    printf(" errors=%ld\n", read_errors);
    free(reads_all.v);
    printf("totals: requests=%ld seconds=%.1f errors=%ld skipped_busy=%ld queue_full=%ld\n",
           total, elapsed, errors, skipped_busy, queue_full);
    free(w);
    free(games);
    free(bots);
    return 0;
}
