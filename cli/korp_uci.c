/*
 * korp_uci.c — `korp uci`: the engine over the UCI protocol on stdin and
 * stdout, for GUIs, match runners and bots.
 *
 * The main thread reads commands; `go` starts the search on a second
 * thread, so that `stop` and `isready` are answered while it runs.  Every
 * line written goes through say(), under a lock, flushed.  Bad input never
 * stops the engine: it is reported as "info string ..." and ignored, and a
 * `position` whose moves turn illegal keeps the position of the last legal
 * one.
 */
#include "korp_int.h"
#include "engine.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define KEYS_MAX 1024     /* repetition keys kept: positions since the last
                             irreversible move (a claim needs 100 plies) */
#define TOKENS_MAX 4096

struct uci {
    const struct rules_variant *v;
    struct rules_position pos;
    uint64_t keys[KEYS_MAX];
    int key_count;
    struct engine *engine;
    pthread_mutex_t out;
    bool searching;
    pthread_t thread;
    /* What the search thread works on: copies, untouched while it runs. */
    struct rules_position search_pos;
    uint64_t search_keys[KEYS_MAX];
    int search_key_count;
    struct engine_limits limits;
    int multipv;             /* the MultiPV option: lines per search */
};

static void say(struct uci *u, const char *fmt, ...)
{
    va_list ap;
    pthread_mutex_lock(&u->out);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
    fflush(stdout);
    pthread_mutex_unlock(&u->out);
}

/* ---- the search thread -------------------------------------------------- */

/* Appends the moves of a line from pos in UCI notation to buf. */
static void format_line(const struct rules_variant *v, const struct rules_position *pos,
                        const struct rules_move *moves, int count, char *buf, size_t size)
{
    struct rules_position p = *pos;
    size_t used = strlen(buf);
    for (int i = 0; i < count; i++) {
        char text[RULES_MOVE_TEXT_MAX];
        if (v->move_format(&p, moves[i], RULES_NOTATION_UCI, text, sizeof text) == 0)
            break;
        if (used + strlen(text) + 2 >= size)
            break;
        used += (size_t)snprintf(buf + used, size - used, " %s", text);
        v->move_play(&p, moves[i]);
    }
}

static void score_text(int score, char *buf, size_t size)
{
    int mate = engine_mate_moves(score);
    if (mate != 0)
        snprintf(buf, size, "mate %d", mate);
    else
        snprintf(buf, size, "cp %d", score);
}

static void on_info(void *arg, const struct engine_info *info)
{
    struct uci *u = arg;
    char line[4096], score[32];
    score_text(info->score, score, sizeof score);
    snprintf(line, sizeof line,
             "info depth %d seldepth %d multipv %d score %s nodes %" PRIu64 " nps %" PRIu64
             " time %" PRId64 " pv",
             info->depth, info->seldepth, info->multipv, score, info->nodes, info->nps,
             info->time_ms);
    format_line(u->v, &u->search_pos, info->pv, info->pv_length, line, sizeof line);
    say(u, "%s", line);
}

static void *search_main(void *arg)
{
    struct uci *u = arg;
    struct engine_result r;
    char best[RULES_MOVE_TEXT_MAX] = "(none)", ponder[RULES_MOVE_TEXT_MAX] = "";

    if (engine_search(u->engine, u->v, &u->search_pos, u->search_keys, u->search_key_count,
                      &u->limits, on_info, u, &r) != 0)
        say(u, "info string search failed: out of memory");
    /* `go infinite` answers only after `stop`, even when it has finished. */
    while (u->limits.infinite && !engine_stop_requested(u->engine)) {
        struct timespec ts = { 0, 2000000 };
        nanosleep(&ts, NULL);
    }
    if (r.has_move &&
        u->v->move_format(&u->search_pos, r.best, RULES_NOTATION_UCI, best, sizeof best) > 0 &&
        r.has_ponder) {
        struct rules_position next = u->search_pos;
        u->v->move_play(&next, r.best);
        u->v->move_format(&next, r.ponder, RULES_NOTATION_UCI, ponder, sizeof ponder);
    }
    if (ponder[0])
        say(u, "bestmove %s ponder %s", best, ponder);
    else
        say(u, "bestmove %s", best);
    return NULL;
}

/* Stops a running search and waits for its bestmove. */
static void finish_search(struct uci *u)
{
    if (!u->searching)
        return;
    engine_stop(u->engine);
    pthread_join(u->thread, NULL);
    u->searching = false;
}

/* ---- commands ----------------------------------------------------------- */

static void set_start(struct uci *u)
{
    u->v->position_parse(&u->pos, u->v->start_text, NULL);
    u->key_count = 1;
    u->keys[0] = u->v->repetition_key(&u->pos);
}

static int cmd_uci(struct uci *u, char **tok, int n)
{
    (void)tok;
    (void)n;
    say(u, "id name korp");
    say(u, "id author the korp developers");
    say(u, "option name UCI_Variant type combo default korpalski var korpalski var glinski");
    say(u, "option name Hash type spin default %d min 1 max %d", ENGINE_HASH_DEFAULT_MB,
        ENGINE_HASH_MAX_MB);
    say(u, "option name MultiPV type spin default 1 min 1 max %d", ENGINE_MULTIPV_MAX);
    say(u, "uciok");
    return 0;
}

static int cmd_isready(struct uci *u, char **tok, int n)
{
    (void)tok;
    (void)n;
    say(u, "readyok");
    return 0;
}

static int cmd_ucinewgame(struct uci *u, char **tok, int n)
{
    (void)tok;
    (void)n;
    finish_search(u);
    engine_clear(u->engine);
    set_start(u);
    return 0;
}

/* setoption name <id...> [value <x...>] */
static int cmd_setoption(struct uci *u, char **tok, int n)
{
    char name[64] = "", value[64] = "";
    int i = 1;
    if (i < n && strcmp(tok[i], "name") == 0)
        i++;
    for (; i < n && strcmp(tok[i], "value") != 0; i++)
        snprintf(name + strlen(name), sizeof name - strlen(name), "%s%s",
                 name[0] ? " " : "", tok[i]);
    if (i < n)
        i++;
    for (; i < n; i++)
        snprintf(value + strlen(value), sizeof value - strlen(value), "%s%s",
                 value[0] ? " " : "", tok[i]);
    finish_search(u);
    if (strcasecmp(name, "UCI_Variant") == 0) {
        const struct rules_variant *v = rules_variant_find(value);
        if (v == NULL) {
            say(u, "info string unknown variant '%s': korpalski or glinski", value);
            return 0;
        }
        u->v = v;
        set_start(u);
        say(u, "info string variant %s", v->name);
    } else if (strcasecmp(name, "Hash") == 0) {
        long mb;
        if (!korp_number(value, 1, ENGINE_HASH_MAX_MB, &mb))
            say(u, "info string Hash must be a number of MiB from 1 to %d, not '%s'",
                ENGINE_HASH_MAX_MB, value);
        else if (engine_hash_resize(u->engine, (size_t)mb) != 0)
            say(u, "info string cannot allocate %ld MiB for Hash: keeping the old table", mb);
    } else if (strcasecmp(name, "MultiPV") == 0) {
        long lines;
        if (!korp_number(value, 1, ENGINE_MULTIPV_MAX, &lines))
            say(u, "info string MultiPV must be a number of lines from 1 to %d, not '%s'",
                ENGINE_MULTIPV_MAX, value);
        else
            u->multipv = (int)lines;
    } else {
        say(u, "info string unknown option '%s'", name);
    }
    return 0;
}

static void push_key(struct uci *u, bool irreversible)
{
    if (irreversible)
        u->key_count = 0;
    if (u->key_count == KEYS_MAX) {
        memmove(u->keys, u->keys + KEYS_MAX / 2, (KEYS_MAX / 2) * sizeof *u->keys);
        u->key_count = KEYS_MAX / 2;
    }
    u->keys[u->key_count++] = u->v->repetition_key(&u->pos);
}

/* position startpos|fen <fields...> [moves <m>...] */
static int cmd_position(struct uci *u, char **tok, int n)
{
    char fen[RULES_TEXT_MAX * 2] = "";
    struct rules_position pos;
    struct rules_why why;
    int i = 1;

    finish_search(u);
    if (i < n && strcmp(tok[i], "startpos") == 0) {
        snprintf(fen, sizeof fen, "%s", u->v->start_text);
        i++;
    } else if (i < n && strcmp(tok[i], "fen") == 0) {
        for (i++; i < n && strcmp(tok[i], "moves") != 0; i++)
            snprintf(fen + strlen(fen), sizeof fen - strlen(fen), "%s%s",
                     fen[0] ? " " : "", tok[i]);
    } else {
        say(u, "info string position needs 'startpos' or 'fen <position>'");
        return 0;
    }
    if (u->v->position_parse(&pos, fen, &why) != RULES_OK) {
        say(u, "info string bad position for %s: %s; position unchanged", u->v->name,
            why.text);
        return 0;
    }
    u->pos = pos;
    u->key_count = 0;
    push_key(u, false);
    if (i < n && strcmp(tok[i], "moves") == 0)
        i++;
    for (int ply = 1; i < n; i++, ply++) {
        struct rules_move m;
        if (u->v->move_parse(&u->pos, tok[i], RULES_DIALECT_DEFAULT, &m, &why) != RULES_OK) {
            say(u, "info string move %d '%s' refused: %s; position left after move %d", ply,
                tok[i], why.text, ply - 1);
            break;
        }
        bool irreversible = u->v->move_is_irreversible(&u->pos, m);
        u->v->position_apply(&u->pos, m);
        push_key(u, irreversible);
    }
    return 0;
}

static bool read_number(char **tok, int n, int *i, int64_t *out)
{
    char *end = NULL;
    if (*i + 1 >= n)
        return false;
    long long v = strtoll(tok[*i + 1], &end, 10);
    if (*end != '\0' || end == tok[*i + 1])
        return false;
    (*i)++;
    *out = v < 0 ? 0 : v;
    return true;
}

/* The `go` parameters: each names a field of the limits. */
enum go_field { GO_DEPTH, GO_NODES, GO_MOVETIME, GO_WTIME, GO_BTIME, GO_WINC, GO_BINC,
                GO_MOVESTOGO, GO_MATE, GO_INFINITE, GO_PONDER };
static const struct {
    const char *word;
    enum go_field field;
    bool number;
} go_words[] = {
    { "depth", GO_DEPTH, true },     { "nodes", GO_NODES, true },
    { "movetime", GO_MOVETIME, true }, { "wtime", GO_WTIME, true },
    { "btime", GO_BTIME, true },     { "winc", GO_WINC, true },
    { "binc", GO_BINC, true },       { "movestogo", GO_MOVESTOGO, true },
    { "mate", GO_MATE, true },       { "infinite", GO_INFINITE, false },
    { "ponder", GO_PONDER, false },  { NULL, GO_DEPTH, false },
};

static int cmd_go(struct uci *u, char **tok, int n)
{
    struct engine_limits l = { 0 };
    finish_search(u);
    for (int i = 1; i < n; i++) {
        int w = 0;
        int64_t x = 0;
        while (go_words[w].word && strcmp(go_words[w].word, tok[i]) != 0)
            w++;
        if (go_words[w].word == NULL) {
            say(u, "info string go: unknown word '%s' ignored", tok[i]);
            continue;
        }
        if (go_words[w].number && !read_number(tok, n, &i, &x)) {
            say(u, "info string go: '%s' needs a number", tok[i]);
            continue;
        }
        if (x > INT32_MAX)
            x = INT32_MAX;
        switch (go_words[w].field) {
        case GO_DEPTH: l.depth = (int)x; break;
        case GO_NODES: l.nodes = (uint64_t)x; break;
        case GO_MOVETIME: l.movetime_ms = x; break;
        case GO_WTIME: l.time_ms[RULES_WHITE] = x; break;
        case GO_BTIME: l.time_ms[RULES_BLACK] = x; break;
        case GO_WINC: l.inc_ms[RULES_WHITE] = x; break;
        case GO_BINC: l.inc_ms[RULES_BLACK] = x; break;
        case GO_MOVESTOGO: l.movestogo = (int)x; break;
        case GO_MATE: l.mate = (int)x; break;
        case GO_INFINITE:
        case GO_PONDER: l.infinite = true; break;
        }
    }
    /* A clock of 0 ms is still a clock: play at once. */
    int side = u->v->side_to_move(&u->pos);
    if (!l.infinite && !l.depth && !l.nodes && !l.movetime_ms && !l.mate &&
        l.time_ms[side] <= 0 && (l.time_ms[side ^ 1] > 0 || l.inc_ms[side] > 0))
        l.movetime_ms = l.inc_ms[side] > 0 ? l.inc_ms[side] / 2 + 1 : 1;
    l.multipv = u->multipv;
    u->limits = l;
    u->search_pos = u->pos;
    memcpy(u->search_keys, u->keys, (size_t)u->key_count * sizeof *u->keys);
    u->search_key_count = u->key_count;
    engine_stop_reset(u->engine);
    if (pthread_create(&u->thread, NULL, search_main, u) != 0) {
        say(u, "info string cannot start the search thread");
        say(u, "bestmove (none)");
        return 0;
    }
    u->searching = true;
    return 0;
}

static int cmd_stop(struct uci *u, char **tok, int n)
{
    (void)tok;
    (void)n;
    finish_search(u);
    return 0;
}

static int cmd_ponderhit(struct uci *u, char **tok, int n)
{
    /* Pondering searches without limit; on a hit the GUI's clock now runs,
     * and the simplest sound answer is the move found so far. */
    return cmd_stop(u, tok, n);
}

static int cmd_quit(struct uci *u, char **tok, int n)
{
    cmd_stop(u, tok, n);
    return 1;
}

static int cmd_debug(struct uci *u, char **tok, int n)
{
    (void)u;
    (void)tok;
    (void)n;
    return 0;
}

static const struct {
    const char *name;
    int (*run)(struct uci *u, char **tok, int n);   /* non-zero: quit */
} uci_commands[] = {
    { "uci", cmd_uci },
    { "isready", cmd_isready },
    { "ucinewgame", cmd_ucinewgame },
    { "setoption", cmd_setoption },
    { "position", cmd_position },
    { "go", cmd_go },
    { "stop", cmd_stop },
    { "ponderhit", cmd_ponderhit },
    { "debug", cmd_debug },
    { "quit", cmd_quit },
    { NULL, NULL },
};

/* Splits line into blank-separated words, in place. */
static int split(char *line, char **tok, int max)
{
    int n = 0;
    for (char *p = line; *p;) {
        while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
            *p++ = '\0';
        if (!*p)
            break;
        if (n == max)
            break;
        tok[n++] = p;
        while (*p && *p != ' ' && *p != '\t' && *p != '\r' && *p != '\n')
            p++;
    }
    return n;
}

int korp_uci(const struct korp_args *args)
{
    struct uci *u = calloc(1, sizeof *u);
    char **tok = calloc(TOKENS_MAX, sizeof *tok);
    char *line = NULL;
    size_t cap = 0;
    int rc = 2;

    if (u == NULL || tok == NULL)
        goto done;
    u->v = args->variant ? args->variant : rules_variant_find("korpalski");
    u->engine = engine_new(ENGINE_HASH_DEFAULT_MB);
    if (u->engine == NULL) {
        fprintf(stderr, "korp: cannot allocate the engine's table\n");
        goto done;
    }
    pthread_mutex_init(&u->out, NULL);
    set_start(u);
    rc = 0;
    while (getline(&line, &cap, stdin) >= 0) {
        int n = split(line, tok, TOKENS_MAX), c = 0;
        if (n == 0)
            continue;
        while (uci_commands[c].name && strcmp(uci_commands[c].name, tok[0]) != 0)
            c++;
        if (uci_commands[c].name == NULL) {
            say(u, "info string unknown command '%.64s'", tok[0]);
            continue;
        }
        if (uci_commands[c].run(u, tok, n) != 0)
            break;
    }
    /* At the end of input a search with limits finishes first, so that
     * `printf 'position ...\ngo depth 8\n' | korp uci` works in scripts;
     * `quit` and an infinite search stop at once. */
    if (u->searching && !u->limits.infinite) {
        pthread_join(u->thread, NULL);
        u->searching = false;
    }
    finish_search(u);
    pthread_mutex_destroy(&u->out);
done:
    if (u != NULL)
        engine_free(u->engine);
    free(line);
    free(tok);
    free(u);
    return rc;
}
