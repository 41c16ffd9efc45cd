/*
 * api_events.c — GET /v1/events: one Server-Sent Events stream per player
 * (all their games and challenges), or one game's for a spectator.
 *
 * The stream reads the events table from its last id, so a client that
 * reconnects with Last-Event-ID misses nothing and sees nothing twice.
 * An idle stream costs no thread: its connection is suspended, and resumed
 * when the listener hears an event that concerns it (from any korpd, by
 * LISTEN/NOTIFY), when a keep-alive comment is due, or when korpd stops.
 *
 * The NOTIFY comes after the commit, from the committing korpd's waker
 * (db/db_wake.c), so a korpd killed between its commit and its NOTIFY
 * wakes nobody: every stream therefore also reads the table every
 * backstop_ms (KORP_EVENTS_BACKSTOP_MS), which bounds how late such an
 * event can be (docs/operations.md).  The reads are spread over the
 * slots like the keep-alives.  A read the database fails (or an event a
 * format cannot make from it) keeps the stream open and its place: the
 * stream reads again from there.  Once reads keep failing (the database
 * out), those streams take turns to try it, one at a time and at most every
 * PROBE_MS, and the first read that succeeds wakes them all: an outage costs
 * each stream one blocked read, not one at every backstop, and the log one
 * line, not one per stream.
 *
 * A stream remembers the token or session that opened it: when that ends
 * (revoked, signed out, a password change), every korpd hears it on
 * korp_revocations and ends its streams at once.  Streams are capped per
 * player and per client address (api_config's streams_per_*).
 *
 * The same streams serve other formats (api_events_open): one text per
 * event made by the format, an opening text, and a keep-alive of its own
 * at least every API_FAST_KEEPALIVE_MS.
 */
#include "api_int.h"

#include "base.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EVENTS_PER_READ 100
#define DEFAULT_BACKSTOP_MS 15000
/* Reads of the events table in one call of a stream's reader, at most (each
 * after an event heard during the one before). */
#define READS_PER_CALL 4
/* Failed reads in a row (no read between them succeeded) from which the
 * streams take it that the database is out (see reader), and how often one
 * stream whose read failed then tries it again. */
#define OUTAGE_FAILURES 3
#define PROBE_MS 1000
/* Streams are spread over this many keep-alive slots, one slot's turn per
 * 1/KEEPALIVE_SLOTS of the interval, so that thousands of streams do not
 * all wake (and every fourth time read the database) at the same moment. */
#define KEEPALIVE_SLOTS 16
/* The index of streams by whom they follow: a player, or a game for a
 * spectator.  A power of two; chains stay short up to about ten times as
 * many streams. */
#define INDEX_BUCKETS 8192

struct stream {
    struct api_hub *hub;
    struct MHD_Connection *conn;
    char player_id[BASE_ID_SIZE];     /* "" for a spectator */
    char game_id[API_PARAM_MAX + 1]; /* "" for all the player's games */
    char credential[BASE_ID_SIZE + 2];  /* the token or "s-<session>" it was opened with; "" */
    char address[64];                /* the client's */
    long long last_id;
    bool suspended, wake, keepalive_due;
    bool revoked;                    /* its credential ended: the stream ends */
    bool failing;                    /* its last read failed */
    bool recheck;                    /* a revocation may have been missed: ask */
    char *pending;                   /* text to send, from pending_off */
    size_t pending_len, pending_off;
    unsigned bucket, slot;
    const struct api_stream_format *format;  /* NULL: Server-Sent Events */
    void *ctx;                       /* the format's */
    struct stream *next, **prev;     /* its keep-alive slot's list */
    struct stream *bnext, **bprev;   /* its bucket of the index */
    struct stream *anext, **aprev;   /* its bucket of the address index */
};

struct api_hub {
    pthread_mutex_t lock;
    struct stream *slots[KEEPALIVE_SLOTS];
    struct stream *index[INDEX_BUCKETS];
    struct stream *by_address[INDEX_BUCKETS];
    int count;
    unsigned next_slot;
    bool closing;
    struct db_pool *pool;
    struct db_listener *listener;
    struct db_listener *revocations;
    struct base_worker *keepalive;
    int keepalive_ms;
    int fast_ms;                     /* the formats' keep-alives */
    int backstop_ms;                 /* every stream reads at least this often */
    int failed_in_a_row;             /* streams' reads failed since one succeeded */
    bool probing;                    /* a failed stream is trying the database */
    int64_t probe_at_ms;             /* when the next may */
    unsigned long read_failures;     /* all the streams' failed reads */
};

/* FNV-1a over a kind letter ('p' player, 'g' game) and an id. */
static unsigned bucket_of(char kind, const char *id)
{
    unsigned h = (2166136261u ^ (unsigned char)kind) * 16777619u;
    for (; *id; id++)
        h = (h ^ (unsigned char)*id) * 16777619u;
    return h & (INDEX_BUCKETS - 1);
}

/* Resumes a suspended stream so that its reader runs (hub locked). */
static void resume(struct stream *s)
{
    if (s->suspended) {
        s->suspended = false;
        MHD_resume_connection(s->conn);
    }
}

static void wake(struct stream *s)
{
    s->wake = true;
    resume(s);
}

/* An event for player_id (and game_id, "" for a challenge's) was committed:
 * the player's own streams, and the game's spectators, read it. */
static void on_event(void *arg, long long id, const char *player_id, const char *game_id)
{
    struct api_hub *hub = arg;
    (void)id;
    pthread_mutex_lock(&hub->lock);
    for (struct stream *s = hub->index[bucket_of('p', player_id)]; s != NULL; s = s->bnext)
        if (s->player_id[0] != '\0' && strcmp(s->player_id, player_id) == 0 &&
            (s->game_id[0] == '\0' || strcmp(s->game_id, game_id) == 0))
            wake(s);
    if (game_id[0] != '\0')
        for (struct stream *s = hub->index[bucket_of('g', game_id)]; s != NULL; s = s->bnext)
            if (s->player_id[0] == '\0' && strcmp(s->game_id, game_id) == 0)
                wake(s);
    pthread_mutex_unlock(&hub->lock);
}

/* Calls visit on every stream, under the hub's lock. */
static void each_stream(struct api_hub *hub, void (*visit)(struct stream *s, const char *arg),
                        const char *arg)
{
    pthread_mutex_lock(&hub->lock);
    for (int k = 0; k < KEEPALIVE_SLOTS; k++)
        for (struct stream *s = hub->slots[k]; s != NULL; s = s->next)
            visit(s, arg);
    pthread_mutex_unlock(&hub->lock);
}

static void wake_any(struct stream *s, const char *arg)
{
    (void)arg;
    wake(s);
}

/* A stream opened with that credential ends. */
static void revoke_if_opened_with(struct stream *s, const char *credential)
{
    if (s->credential[0] != '\0' && strcmp(s->credential, credential) == 0) {
        s->revoked = true;
        resume(s);
    }
}

/* A stream opened with a credential asks whether it still holds. */
static void recheck_credential(struct stream *s, const char *arg)
{
    (void)arg;
    if (s->credential[0] != '\0') {
        s->recheck = true;
        resume(s);
    }
}

/* After the listener lost its connection (or could not tell whom events
 * concerned): every stream reads again, all at once.  With 10 000 streams
 * that held moves up for under a second, once per reconnection
 * (bench/streams.sh LISTENER_KILL=1); reading in paced batches instead
 * delayed the missed events themselves by as much (docs/benchmarks.md). */
static void on_reconnect(void *arg)
{
    each_stream(arg, wake_any, NULL);
}

/* A token or session ended (in any korpd): the streams it opened end. */
static void on_revoked(void *arg, const char *player_id, const char *credential)
{
    (void)player_id;
    /* All streams, not only the player's: one opened with a token may
     * watch a game as a spectator.  Revocations are rare. */
    each_stream(arg, revoke_if_opened_with, credential);
}

/* The revocations listener (re)connected, at start too: what ended
 * meanwhile was not heard, so each stream asks about its credential now. */
static void on_revocations_reconnect(void *arg)
{
    each_stream(arg, recheck_credential, NULL);
}

enum turn { TURN_KEEPALIVE, TURN_BACKSTOP, TURN_FAST_KEEPALIVE, TURNS };

/* One slot's turn: keep-alives due (Server-Sent Events' or the other
 * formats'), or backstop reads due. */
static void slot_turn(struct api_hub *hub, unsigned slot, enum turn turn)
{
    pthread_mutex_lock(&hub->lock);
    for (struct stream *s = hub->slots[slot]; s != NULL; s = s->next) {
        if (turn == TURN_BACKSTOP)
            s->wake = true;
        else if ((turn == TURN_FAST_KEEPALIVE) == (s->format != NULL))
            s->keepalive_due = true;
        else
            continue;
        resume(s);
    }
    pthread_mutex_unlock(&hub->lock);
}

/* Three schedules over the same slots: the keep-alives, one slot every
 * keepalive_ms / KEEPALIVE_SLOTS, the backstop reads, one slot every
 * backstop_ms / KEEPALIVE_SLOTS, and the other formats' keep-alives,
 * one slot every fast_ms / KEEPALIVE_SLOTS. */
static void keepalive(struct base_worker *w, void *arg)
{
    struct api_hub *hub = arg;
    int period[TURNS] = { hub->keepalive_ms, hub->backstop_ms, hub->fast_ms };
    int tick[TURNS];
    int64_t next[TURNS];
    unsigned slot[TURNS] = { 0, KEEPALIVE_SLOTS / 2, KEEPALIVE_SLOTS / 4 };

    for (int k = 0; k < TURNS; k++) {
        tick[k] = period[k] >= KEEPALIVE_SLOTS ? period[k] / KEEPALIVE_SLOTS : 1;
        next[k] = base_monotonic_ms() + tick[k];
    }
    for (;;) {
        int64_t now = base_monotonic_ms();
        int k = 0;
        for (int j = 1; j < TURNS; j++)
            if (next[j] < next[k])
                k = j;
        int64_t left = next[k] - now;
        if (left < -period[k]) {
            /* Far behind (the process was stopped): no burst of catching up. */
            next[k] = now;
            left = 0;
        }
        if (left > 0) {
            if (!base_worker_sleep(w, (int)left))
                return;
            continue;
        }
        slot_turn(hub, slot[k], (enum turn)k);
        slot[k] = (slot[k] + 1) % KEEPALIVE_SLOTS;
        next[k] += tick[k];
    }
}

struct api_hub *api_hub_new(struct db_pool *pool, int keepalive_seconds, int backstop_ms,
                            struct base_err *err)
{
    struct api_hub *hub = calloc(1, sizeof *hub);
    if (hub == NULL) {
        base_err_set(err, "out of memory");
        return NULL;
    }
    pthread_mutex_init(&hub->lock, NULL);
    hub->pool = pool;
    hub->keepalive_ms = (keepalive_seconds > 0 ? keepalive_seconds : 15) * 1000;
    hub->backstop_ms = backstop_ms > 0 ? backstop_ms : DEFAULT_BACKSTOP_MS;
    hub->fast_ms = hub->keepalive_ms < API_FAST_KEEPALIVE_MS ? hub->keepalive_ms
                                                             : API_FAST_KEEPALIVE_MS;
    hub->listener = db_listener_start(pool, on_event, on_reconnect, hub, err);
    hub->revocations = hub->listener ? db_revocations_start(pool, on_revoked,
                                                            on_revocations_reconnect, hub, err)
                                     : NULL;
    hub->keepalive = hub->revocations ? base_worker_start("keep-alive", keepalive, hub, err)
                                      : NULL;
    if (hub->keepalive == NULL) {
        api_hub_free(hub);
        return NULL;
    }
    return hub;
}

void api_hub_close(struct api_hub *hub)
{
    if (hub == NULL)
        return;
    /* First nothing else may resume a connection, then every stream ends. */
    db_listener_stop(hub->listener);
    db_listener_stop(hub->revocations);
    base_worker_stop(hub->keepalive);
    hub->listener = NULL;
    hub->revocations = NULL;
    hub->keepalive = NULL;
    pthread_mutex_lock(&hub->lock);
    hub->closing = true;
    for (int k = 0; k < KEEPALIVE_SLOTS; k++)
        for (struct stream *s = hub->slots[k]; s != NULL; s = s->next)
            resume(s);
    pthread_mutex_unlock(&hub->lock);
}

void api_hub_free(struct api_hub *hub)
{
    if (hub == NULL)
        return;
    db_listener_stop(hub->listener);
    db_listener_stop(hub->revocations);
    base_worker_stop(hub->keepalive);
    pthread_mutex_destroy(&hub->lock);
    free(hub);
}

/* Makes text (n bytes, malloc'd) what s sends next (hub not locked). */
static void set_pending(struct stream *s, char *text, size_t n)
{
    pthread_mutex_lock(&s->hub->lock);
    free(s->pending);
    s->pending = text;
    s->pending_len = n;
    s->pending_off = 0;
    pthread_mutex_unlock(&s->hub->lock);
}

/* What a read of the events table came to. */
enum fetched {
    FETCHED,        /* the events read are pending (none, perhaps) */
    FETCH_LATER,    /* the database failed: what came before is pending, the
                       rest is read again later (see reader) */
    FETCH_FAILED    /* out of memory: the stream ends */
};

/* The rows as s's format writes them, made what s sends next, up to the
 * first the format could not make; frees rows. */
static enum fetched fetch_formatted(struct stream *s, struct db_event_row *rows, int count,
                                    bool *more, struct base_err *err)
{
    struct base_text all = { 0 };
    enum db_status st = DB_OK;
    int i;

    for (i = 0; i < count; i++) {
        char *one = NULL;
        if ((st = s->format->event(s->ctx, s->hub->pool, &rows[i], &one, err)) != DB_OK)
            break;
        if (one != NULL)
            base_text_put(&all, "%s", one);
        free(one);
        s->last_id = rows[i].id;
    }
    *more = i == EVENTS_PER_READ;
    db_event_rows_free(rows, count);
    if (all.len > 0) {
        size_t n = all.len;
        char *text = base_text_take(&all);
        if (text == NULL)
            return FETCH_FAILED;
        set_pending(s, text, n);
    }
    return st == DB_OK ? FETCHED : FETCH_LATER;
}

/* Makes the events after s->last_id what s sends next (hub not locked). */
static enum fetched fetch(struct stream *s, bool *more, struct base_err *err)
{
    struct db_event_row *rows = NULL;
    int count = 0;
    enum db_status st;
    size_t need = 0;
    char *text;

    if (s->format != NULL && s->format->reading != NULL)
        s->format->reading(s->ctx, s->hub->pool);
    st = db_events_since(s->hub->pool, s->player_id[0] ? s->player_id : NULL,
                         s->game_id[0] ? s->game_id : NULL, s->last_id, EVENTS_PER_READ, &rows,
                         &count, err);
    *more = false;
    if (st != DB_OK)
        return FETCH_LATER;
    if (s->format != NULL)
        return fetch_formatted(s, rows, count, more, err);
    for (int i = 0; i < count; i++)
        need += strlen(rows[i].payload) + strlen(rows[i].type) + 64;
    text = count > 0 ? malloc(need + 1) : NULL;
    if (text != NULL) {
        size_t n = 0;
        for (int i = 0; i < count; i++) {
            n += (size_t)snprintf(text + n, need + 1 - n, "id: %lld\nevent: %s\ndata: %s\n\n",
                                  rows[i].id, rows[i].type, rows[i].payload);
            s->last_id = rows[i].id;
        }
        set_pending(s, text, n);
    }
    *more = count == EVENTS_PER_READ;
    db_event_rows_free(rows, count);
    return count == 0 || text != NULL ? FETCHED : FETCH_FAILED;
}

/* Copies what is pending into buf (hub locked); 0 when nothing is. */
static ssize_t take(struct stream *s, char *buf, size_t max)
{
    size_t n = s->pending_len - s->pending_off;
    if (s->pending == NULL || n == 0)
        return 0;
    if (n > max)
        n = max;
    memcpy(buf, s->pending + s->pending_off, n);
    s->pending_off += n;
    return (ssize_t)n;
}

/* Whether a stream whose last read failed may read now (hub locked): always
 * while other streams' reads succeed; once OUTAGE_FAILURES reads in a row
 * have failed, only as the one probe at a time, at most every PROBE_MS, so
 * that an outage blocks libmicrohttpd's threads about once per stream, not
 * at every stream's every backstop read. */
static bool may_try(struct api_hub *hub, bool *probe)
{
    if (hub->failed_in_a_row < OUTAGE_FAILURES)
        return true;
    if (hub->probing || base_monotonic_ms() < hub->probe_at_ms)
        return false;
    hub->probing = *probe = true;
    return true;
}

static ssize_t reader(void *cls, uint64_t pos, char *buf, size_t max)
{
    static const char comment[] = ": keep-alive\n\n";
    struct stream *s = cls;
    const char *idle = s->format != NULL ? s->format->keepalive : comment;
    size_t idle_len = strlen(idle);
    struct api_hub *hub = s->hub;
    struct base_err err = { "" };
    enum fetched got;
    ssize_t n;

    (void)pos;
    pthread_mutex_lock(&hub->lock);
    /* Until there is something to send, or the stream sleeps: a reader that
     * returns nothing without suspending its connection is not called
     * again until libmicrohttpd's thread wakes for something else, and an
     * event heard during the read (its wake-up finding the stream not
     * suspended) would wait for that. */
    for (int round = 0;; round++) {
        bool probe = false, more = false;
        if (hub->closing || s->revoked) {
            pthread_mutex_unlock(&hub->lock);
            return MHD_CONTENT_READER_END_OF_STREAM;
        }
        if (s->recheck) {
            bool live = true;
            s->recheck = false;
            pthread_mutex_unlock(&hub->lock);
            /* A failed question keeps the stream (live stays true): the
             * listener asks again after its next reconnection. */
            db_credential_live(hub->pool, s->credential, &live, &err);
            if (!live)
                return MHD_CONTENT_READER_END_OF_STREAM;
            pthread_mutex_lock(&hub->lock);
        }
        if ((n = take(s, buf, max)) > 0 || !s->wake || round == READS_PER_CALL ||
            (s->failing && !may_try(hub, &probe))) {
            /* Something to say; or nothing, or (the database out) not this
             * stream's turn to try it: a keep-alive if one is due, else
             * sleep until an event, a keep-alive, the end, or its turn (its
             * wake kept: a stream that read READS_PER_CALL times in a row
             * reads on when it is resumed). */
            if (n == 0 && s->keepalive_due && max >= idle_len) {
                s->keepalive_due = false;
                memcpy(buf, idle, idle_len);
                n = (ssize_t)idle_len;
            } else if (n == 0) {
                s->suspended = true;
                MHD_suspend_connection(s->conn);
            }
            pthread_mutex_unlock(&hub->lock);
            return n;
        }
        s->wake = false;
        pthread_mutex_unlock(&hub->lock);

        /* The database is read without the hub's lock held. */
        got = fetch(s, &more, &err);
        pthread_mutex_lock(&hub->lock);
        if (probe) {
            hub->probing = false;
            hub->probe_at_ms = base_monotonic_ms() + PROBE_MS;
        }
        if (got == FETCH_FAILED) {
            pthread_mutex_unlock(&hub->lock);
            return MHD_CONTENT_READER_END_WITH_ERROR;
        }
        s->failing = got == FETCH_LATER;
        if (s->failing) {
            hub->read_failures++;
            base_log(BASE_LOG_DEBUG, "event stream: read again later: %s", err.text);
            if (++hub->failed_in_a_row == OUTAGE_FAILURES)
                base_log(BASE_LOG_WARN, "event stream: %s; the streams whose reads failed try "
                         "the database again one at a time until it answers", err.text);
        } else {
            if (hub->failed_in_a_row >= OUTAGE_FAILURES) {
                /* It answers again: every stream it failed reads now. */
                base_log(BASE_LOG_INFO, "event streams: the database answers again");
                for (int k = 0; k < KEEPALIVE_SLOTS; k++)
                    for (struct stream *t = hub->slots[k]; t != NULL; t = t->next)
                        if (t->failing)
                            wake(t);
            }
            hub->failed_in_a_row = 0;
        }
        if (more)
            s->wake = true;
    }
}

static void stream_free(void *cls)
{
    struct stream *s = cls;
    struct api_hub *hub = s->hub;
    pthread_mutex_lock(&hub->lock);
    if (s->prev != NULL) {
        if ((*s->prev = s->next) != NULL)
            s->next->prev = s->prev;
        if ((*s->bprev = s->bnext) != NULL)
            s->bnext->bprev = s->bprev;
        if ((*s->aprev = s->anext) != NULL)
            s->anext->aprev = s->aprev;
        hub->count--;
        if (hub->count == 0)
            hub->failed_in_a_row = 0;   /* no stream left to learn otherwise */
    }
    pthread_mutex_unlock(&hub->lock);
    if (s->format != NULL && s->format->ctx_free != NULL)
        s->format->ctx_free(s->ctx);
    free(s->pending);
    free(s);
}

/* Whether one more stream for s's player and address stays within the
 * caps of config (0: none); otherwise *whose says which it would pass and
 * *cap its size.  Hub locked. */
static bool within_caps(struct api_hub *hub, const struct stream *s,
                        const struct api_config *config, const char **whose, int *cap)
{
    int player = 0, address = 0;
    if (config->streams_per_player > 0 && s->player_id[0] != '\0')
        for (const struct stream *o = hub->index[s->bucket]; o != NULL; o = o->bnext)
            if (strcmp(o->player_id, s->player_id) == 0 &&
                ++player >= config->streams_per_player) {
                *whose = "you have";
                *cap = config->streams_per_player;
                return false;
            }
    if (config->streams_per_address > 0)
        for (const struct stream *o = hub->by_address[bucket_of('a', s->address)]; o != NULL;
             o = o->anext)
            if (strcmp(o->address, s->address) == 0 &&
                ++address >= config->streams_per_address) {
                *whose = "your address has";
                *cap = config->streams_per_address;
                return false;
            }
    return true;
}

int api_hub_streams(struct api_hub *hub, unsigned long *read_failures)
{
    int n;
    pthread_mutex_lock(&hub->lock);
    n = hub->count;
    *read_failures = hub->read_failures;
    pthread_mutex_unlock(&hub->lock);
    return n;
}

enum MHD_Result api_events(struct api_request *req)
{
    const char *game = api_query(req, "game");
    const char *last = MHD_lookup_connection_value(req->conn, MHD_HEADER_KIND,
                                                   "Last-Event-ID");
    struct api_hub *hub = req->hub;
    struct base_err err = { "" };
    enum MHD_Result replied;
    long long last_id = 0;

    if (last == NULL)
        last = api_query(req, "last_event_id");
    if (game != NULL && !api_id_valid(game))
        return api_fail(req, API_PROBLEM_BAD_REQUEST,
                        "'game' is a game id: letters and digits, like aZ3kP9qwX2");
    if (last != NULL) {
        char *end = NULL;
        last_id = strtoll(last, &end, 10);
        if (last[0] < '0' || last[0] > '9' || *end != '\0' || last_id < 0)
            return api_fail(req, API_PROBLEM_BAD_REQUEST,
                            "Last-Event-ID is the id of the last event received, a number");
        if (!api_events_kept(req, last_id, &replied))
            return replied;
    }
    /* A player's own stream needs their token; one game's is public. */
    if (game == NULL && !api_authenticate(req, &replied))
        return replied;
    if (game != NULL && MHD_lookup_connection_value(req->conn, MHD_HEADER_KIND,
                                                    MHD_HTTP_HEADER_AUTHORIZATION) != NULL &&
        !api_authenticate(req, &replied))
        return replied;
    bool own_view = req->authenticated;
    if (game != NULL) {
        struct db_game g;
        enum db_status st;
        memset(&g, 0, sizeof g);
        st = db_game_get(hub->pool, game, &g, &err);
        if (st == DB_NOT_FOUND)
            return api_fail(req, API_PROBLEM_NOT_FOUND, "no game has the id '%s'", game);
        if (st != DB_OK)
            return api_fail_db(req, st, err.text);
        /* Someone signed in who does not play the game watches it as anyone. */
        own_view = req->authenticated && (strcmp(g.white_id, req->caller.player_id) == 0 ||
                                          strcmp(g.black_id, req->caller.player_id) == 0);
        db_game_clear(&g);
    }
    struct api_stream_spec spec = { own_view ? req->caller.player_id : "",
                                    game != NULL ? game : "", last != NULL ? last_id : -1,
                                    NULL, NULL, NULL };
    return api_events_open(req, &spec);
}

/* Frees what a spec hands over when no stream takes it. */
static void spec_drop(const struct api_stream_spec *spec)
{
    if (spec->format != NULL && spec->format->ctx_free != NULL)
        spec->format->ctx_free(spec->ctx);
    free(spec->opening);
}

enum MHD_Result api_events_open(struct api_request *req, const struct api_stream_spec *spec)
{
    struct api_hub *hub = req->hub;
    struct MHD_Response *resp;
    struct stream *s;
    struct base_err err = { "" };

    if ((s = calloc(1, sizeof *s)) == NULL) {
        spec_drop(spec);
        return api_fail_oom(req);
    }
    s->hub = hub;
    s->conn = req->conn;
    s->wake = true;
    snprintf(s->player_id, sizeof s->player_id, "%s", spec->player_id);
    if (req->authenticated) {
        snprintf(s->credential, sizeof s->credential, "%s", req->caller.token_id);
        /* Asked again once the stream is in the hub: a revocation heard
         * between the authentication and then would otherwise be missed. */
        s->recheck = true;
    }
    api_client_address(req, s->address, sizeof s->address);
    snprintf(s->game_id, sizeof s->game_id, "%s", spec->game_id);
    if (spec->last_id >= 0) {
        s->last_id = spec->last_id;
    } else {
        enum db_status st = db_events_last(hub->pool, s->player_id[0] ? s->player_id : NULL,
                                           s->game_id[0] ? s->game_id : NULL, &s->last_id,
                                           &err);
        if (st != DB_OK) {
            free(s);
            spec_drop(spec);
            return api_fail_db(req, st, err.text);
        }
    }
    s->bucket = s->player_id[0] != '\0' ? bucket_of('p', s->player_id)
                                         : bucket_of('g', s->game_id);
    pthread_mutex_lock(&hub->lock);
    const char *whose = "";
    int cap = 0;
    if (!within_caps(hub, s, req->config, &whose, &cap)) {
        pthread_mutex_unlock(&hub->lock);
        free(s);
        spec_drop(spec);
        /* 429, not 409: the cap is on streams at once, and the usual way to
         * reach it is a client reconnecting while its old stream is still
         * held here (a client that left is noticed at the next keep-alive).
         * Retry-After is that interval: by then such a stream is gone. */
        req->retry_after = hub->keepalive_ms / 1000;
        return api_fail(req, API_PROBLEM_TOO_MANY_REQUESTS,
                        "%s %d event streams open, the most allowed; close one (one stream "
                        "carries all of a player's games) or retry in %d s",
                        whose, cap, req->retry_after);
    }
    /* Counted now, so that streams opened at once cannot pass the caps. */
    s->slot = hub->next_slot++ % KEEPALIVE_SLOTS;
    if ((s->next = hub->slots[s->slot]) != NULL)
        s->next->prev = &s->next;
    s->prev = &hub->slots[s->slot];
    hub->slots[s->slot] = s;
    if ((s->bnext = hub->index[s->bucket]) != NULL)
        s->bnext->bprev = &s->bnext;
    s->bprev = &hub->index[s->bucket];
    hub->index[s->bucket] = s;
    unsigned a = bucket_of('a', s->address);
    if ((s->anext = hub->by_address[a]) != NULL)
        s->anext->aprev = &s->anext;
    s->aprev = &hub->by_address[a];
    hub->by_address[a] = s;
    hub->count++;
    s->format = spec->format;
    s->ctx = spec->ctx;
    if (spec->opening != NULL) {
        s->pending = spec->opening;
        s->pending_len = strlen(spec->opening);
    }
    pthread_mutex_unlock(&hub->lock);
    resp = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 512, reader, s, stream_free);
    if (resp == NULL) {
        stream_free(s);
        return api_fail_oom(req);
    }
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE,
                            s->format != NULL ? s->format->content_type : "text/event-stream");
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    MHD_add_response_header(resp, "X-Accel-Buffering", "no");
    return api_reply(req, MHD_HTTP_OK, resp);
}
