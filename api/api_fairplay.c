/*
 * api_fairplay.c — the engine policy of challenges, games and tournaments
 * ("engines": "forbidden" or "allowed"), GET /v1/games/{id}/fairplay (an
 * arbiter's view of a game's fair-play analysis), GET /v1/arbiter/fairplay
 * (the players whose figures stand out most), an arbiter's warning in
 * answer to a fair-play review, an account closed for rated play (POST
 * /v1/arbiter/closures) and reopened (POST /v1/arbiter/reopenings), the arbiters' log (GET /v1/arbiter/log) and
 * a player's warnings (GET /v1/players/me/warnings), and the workers that
 * make that analysis: each takes a queued game (db_fairplay_analyse_next),
 * searches every position counted with korp's engine at a fixed node
 * budget, and stores per player the share of moves that were the engine's
 * first choice and within its first three, the average centipawn loss and
 * the thinking times' median, spread and share under a minute
 * (docs/fairplay.md).
 */
#include "api_int.h"

#include "engine.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Each side's first moves are book more often than thought: left out. */
#define FAIRPLAY_OPENING_MOVES 4
/* The lines of the second search: a move among them is "within three". */
#define FAIRPLAY_LINES 3
/* A loss is counted at most this much, and mate scores as this much. */
#define FAIRPLAY_LOSS_CAP 1000
/* The transposition table of one search, in MiB (cleared for each). */
#define FAIRPLAY_HASH_MB 4
/* A move made in less than this many seconds is a quick one. */
#define FAIRPLAY_QUICK_SECONDS 60
/* How long an idle worker waits before looking at the queue again. */
#define FAIRPLAY_IDLE_MS 1000
/* While requests come in, the worker rests after each position for as
 * long as its searches took times the requests begun meanwhile, at most
 * this many times (a busy server lends it a tenth of a core) and at most
 * FAIRPLAY_REST_MAX_MS (well within the lease it renews between positions). */
#define FAIRPLAY_GIVE_WAY_MAX 9
#define FAIRPLAY_REST_MAX_MS 5000
#define FAIRPLAY_WORKERS_MAX 16
/* Players GET /v1/arbiter/fairplay lists at most. */
#define FAIRPLAY_PLAYERS_MAX 100

const char *api_engines_text(bool allowed)
{
    return allowed ? "allowed" : "forbidden";
}

bool api_engines_read(struct api_request *req, bool rated, bool *allowed,
                      enum MHD_Result *replied)
{
    const char *word = api_body_string(req, "engines");

    *allowed = !rated;
    if (word == NULL)
        return true;
    if (strcmp(word, "allowed") == 0 || strcmp(word, "forbidden") == 0) {
        *allowed = word[0] == 'a';
        return true;
    }
    *replied = api_fail(req, API_PROBLEM_BAD_REQUEST,
                        "'engines' must be \"forbidden\" or \"allowed\", not \"%.16s\"", word);
    return false;
}

static cJSON *side_json(const struct db_fairplay_side *s)
{
    const struct { const char *name; double value; } figures[] = {
        { "moves", s->moves }, { "top1", s->top1 }, { "top3", s->top3 },
        { "acpl", s->acpl }, { "median_seconds", s->median_seconds },
        { "spread_seconds", s->spread_seconds }, { "under_minute", s->under_minute },
    };
    cJSON *json = cJSON_CreateObject();
    for (size_t i = 0; i < sizeof figures / sizeof *figures; i++)
        cJSON_AddNumberToObject(json, figures[i].name, figures[i].value);
    return json;
}

enum MHD_Result api_game_fairplay(struct api_request *req)
{
    struct base_err err = { "" };
    struct db_fairplay f;
    enum db_status st = db_fairplay_get(req->config->pool, req->params[0], &f, &err);
    cJSON *json, *judged;

    if (st != DB_OK || (!f.done && !f.queued && !f.failed)) {
        db_fairplay_clear(&f);
        if (st == DB_NOT_FOUND)
            return api_fail(req, API_PROBLEM_NOT_FOUND, "no game has the id '%s'",
                            req->params[0]);
        if (st != DB_OK)
            return api_fail_db(req, st, err.text);
        return api_fail(req, API_PROBLEM_NOT_FOUND,
                        "game %s has no fair-play analysis: only rated games played with "
                        "engines forbidden are analysed, once they are over", req->params[0]);
    }
    json = cJSON_CreateObject();
    cJSON_AddStringToObject(json, "status", f.done ? "done" : f.failed ? "failed" : "pending");
    if (f.done) {
        cJSON_AddNumberToObject(json, "nodes", (double)f.nodes);
        cJSON_AddItemToObject(json, "white", side_json(&f.side[0]));
        cJSON_AddItemToObject(json, "black", side_json(&f.side[1]));
        judged = cJSON_Parse(f.judged_json ? f.judged_json : "[]");
        cJSON_AddItemToObject(json, "moves", judged ? judged : cJSON_CreateArray());
    }
    db_fairplay_clear(&f);
    return api_reply_json(req, MHD_HTTP_OK, json);
}

/* ?min_games=: 1 to 100 (1 when absent); replies 400 and returns false
 * otherwise. */
static bool min_games_read(struct api_request *req, int *out, enum MHD_Result *replied)
{
    const char *text = api_query(req, "min_games");
    char *end = NULL;
    long n = text ? strtol(text, &end, 10) : 1;

    *out = (int)n;
    if (text == NULL || (text[0] >= '0' && text[0] <= '9' && *end == '\0' && n >= 1 && n <= 100))
        return true;
    *replied = api_fail(req, API_PROBLEM_BAD_REQUEST,
                        "'min_games' must be a whole number from 1 to 100");
    return false;
}

/* Moves the members of the JSON object text into item (none when it does
 * not parse). */
static void merge_object(cJSON *item, const char *text)
{
    cJSON *from = cJSON_Parse(text ? text : "{}"), *member;
    while (from != NULL && (member = from->child) != NULL)
        cJSON_AddItemToObject(item, member->string, cJSON_DetachItemViaPointer(from, member));
    cJSON_Delete(from);
}

/* The players listed, as JSON; frees each one's recent and windows. */
static cJSON *players_json(struct db_fairplay_player *players, int count)
{
    cJSON *json = cJSON_CreateObject(), *list = cJSON_AddArrayToObject(json, "players");

    for (int i = 0; i < count; i++) {
        struct db_fairplay_player *p = &players[i];
        cJSON *item = cJSON_CreateObject(), *who = cJSON_AddObjectToObject(item, "player");
        cJSON *recent = cJSON_Parse(p->recent ? p->recent : "[]");
        const struct { const char *name; double value; } figures[] = {
            { "games", p->games }, { "moves", (double)p->moves }, { "top1", p->top1 },
            { "top3", p->top3 }, { "acpl", p->acpl }, { "top1_percentile", p->top1_percentile },
            { "acpl_percentile", p->acpl_percentile }, { "rating", p->rating },
            { "similar_players", p->similar_players },
        };
        cJSON_AddStringToObject(who, "id", p->id);
        cJSON_AddStringToObject(who, "name", p->name);
        for (size_t k = 0; k < sizeof figures / sizeof *figures; k++)
            cJSON_AddNumberToObject(item, figures[k].name, figures[k].value);
        /* Among players of a similar rating: none to compare with is null. */
        for (int k = 0; k < 2; k++) {
            const char *name = k == 0 ? "top1_percentile_similar" : "acpl_percentile_similar";
            if (p->similar_players > 0)
                cJSON_AddNumberToObject(item, name, k == 0 ? p->top1_similar : p->acpl_similar);
            else
                cJSON_AddNullToObject(item, name);
        }
        merge_object(item, p->windows);
        cJSON_AddItemToObject(item, "recent", recent ? recent : cJSON_CreateArray());
        cJSON_AddItemToArray(list, item);
        free(p->recent);
        free(p->windows);
        p->recent = p->windows = NULL;
    }
    return json;
}

enum MHD_Result api_arbiter_fairplay(struct api_request *req)
{
    const char *variant = api_query(req, "variant");
    const struct rules_variant *v = variant ? db_variant_parse(variant) : NULL;
    struct db_fairplay_player *players;
    struct base_err err = { "" };
    enum MHD_Result replied;
    int min_games, count = 0;
    enum db_status st;
    cJSON *json = NULL;

    if (v == NULL)
        return api_fail(req, API_PROBLEM_BAD_REQUEST,
                        "'variant' must be korpalski or glinski");
    if (!min_games_read(req, &min_games, &replied))
        return replied;
    if ((players = calloc(FAIRPLAY_PLAYERS_MAX, sizeof *players)) == NULL)
        return api_fail_oom(req);
    st = db_fairplay_players(req->config->pool, v, min_games, players, FAIRPLAY_PLAYERS_MAX,
                             &count, &err);
    if (st == DB_OK)
        json = players_json(players, count);
    for (int i = 0; i < FAIRPLAY_PLAYERS_MAX; i++) {
        free(players[i].recent);      /* those read before a failure */
        free(players[i].windows);
    }
    free(players);
    return st == DB_OK ? api_reply_json(req, MHD_HTTP_OK, json) : api_fail_db(req, st, err.text);
}

/* ---- The arbiter's actions and their log */

static const struct api_field warn_fields[] = {
    { "reason", API_LINES, true, false, 1, 500 },
    { "message", API_LINES, true, false, 1, 2000 },
    { NULL, API_STRING, false, false, 0, 0 },
};

enum MHD_Result api_arbiter_acted(struct api_request *req, struct games_result *r,
                                  unsigned status, const char *const (*reply)[2], size_t count,
                                  const char *details)
{
    cJSON *json;

    if (r->outcome != GAMES_OK)
        return api_reply_outcome(req, r, status, NULL);
    games_result_clear(r);
    json = cJSON_CreateObject();
    for (size_t i = 0; i < count; i++)
        cJSON_AddStringToObject(json, reply[i][0], reply[i][1]);
    merge_object(json, details);
    return api_reply_json(req, status, json);
}

enum MHD_Result api_arbiter_warn(struct api_request *req)
{
    char log_id[BASE_ID_SIZE] = "";
    enum MHD_Result replied;
    struct games_result r;

    if (!api_body_check(req, warn_fields, &replied))
        return replied;
    games_fairplay_warn(req->config->pool, req->caller.player_id, req->params[0],
                        api_body_string(req, "reason"), api_body_string(req, "message"), log_id,
                        &r);
    const char *const reply[][2] = {
        { "id", req->params[0] }, { "status", "resolved" }, { "log_id", log_id },
    };
    return api_arbiter_acted(req, &r, MHD_HTTP_OK, reply, 3, NULL);
}

static const struct api_field close_fields[] = {
    { "player_id", API_STRING, true, false, 1, BASE_ID_SIZE - 1 },
    { "reason", API_LINES, true, false, 1, 500 },
    { "message", API_LINES, true, false, 1, 2000 },
    { "games", API_STRING, false, false, 1, 16 },
    { "item_id", API_STRING, false, false, 1, BASE_ID_SIZE - 1 },
    { NULL, API_STRING, false, false, 0, 0 },
};

enum MHD_Result api_arbiter_close(struct api_request *req)
{
    const char *games = api_body_string(req, "games");
    struct games_closure c = {
        .arbiter_id = req->caller.player_id, .player_id = api_body_string(req, "player_id"),
        .item_id = api_body_string(req, "item_id"), .reason = api_body_string(req, "reason"),
        .message = api_body_string(req, "message"), .games = GAMES_CLOSURE_FORFEIT,
    };
    char log_id[BASE_ID_SIZE] = "", *details = NULL;
    enum MHD_Result replied;
    struct games_result r;

    if (!api_body_check(req, close_fields, &replied))
        return replied;
    if (games != NULL && strcmp(games, "adjudicate") == 0)
        c.games = GAMES_CLOSURE_ADJUDICATE;
    else if (games != NULL && strcmp(games, "forfeit") != 0)
        return api_fail(req, API_PROBLEM_BAD_REQUEST,
                        "'games' must be \"forfeit\" or \"adjudicate\", not \"%.16s\"", games);
    games_rated_close(req->config->pool, &c, log_id, &details, &r);
    const char *const reply[][2] = {
        { "player_id", c.player_id }, { "status", "closed" }, { "log_id", log_id },
    };
    replied = api_arbiter_acted(req, &r, MHD_HTTP_CREATED, reply, 3, details);
    free(details);
    return replied;
}

static const struct api_field reopen_fields[] = {
    { "player_id", API_STRING, true, false, 1, BASE_ID_SIZE - 1 },
    { "reason", API_LINES, true, false, 1, 500 },
    { "message", API_LINES, false, false, 1, 2000 },
    { NULL, API_STRING, false, false, 0, 0 },
};

enum MHD_Result api_arbiter_reopen(struct api_request *req)
{
    const char *player = api_body_string(req, "player_id");
    char log_id[BASE_ID_SIZE] = "";
    enum MHD_Result replied;
    struct games_result r;

    if (!api_body_check(req, reopen_fields, &replied))
        return replied;
    games_rated_reopen(req->config->pool, req->caller.player_id, player,
                       api_body_string(req, "reason"), api_body_string(req, "message"), log_id,
                       &r);
    const char *const reply[][2] = {
        { "player_id", player }, { "status", "open" }, { "log_id", log_id },
    };
    return api_arbiter_acted(req, &r, MHD_HTTP_CREATED, reply, 3, NULL);
}

/* Replies {name: the JSON array of db_arbiter_log}. */
static enum MHD_Result log_reply(struct api_request *req, const char *name,
                                 const char *player_id, bool warnings)
{
    struct base_err err = { "" };
    char *text = NULL;
    enum db_status st = db_arbiter_log(req->config->pool, player_id, warnings, &text, &err);
    cJSON *json, *list;

    if (st != DB_OK) {
        free(text);
        return api_fail_db(req, st, err.text);
    }
    list = cJSON_Parse(text ? text : "[]");
    free(text);
    json = cJSON_CreateObject();
    cJSON_AddItemToObject(json, name, list ? list : cJSON_CreateArray());
    return api_reply_json(req, MHD_HTTP_OK, json);
}

enum MHD_Result api_arbiter_log(struct api_request *req)
{
    const char *player = api_query(req, "player");
    size_t length = player ? strlen(player) : 0;

    for (size_t i = 0; i < length; i++)
        if (!isalnum((unsigned char)player[i]))
            length = 0;
    if (player != NULL && (length == 0 || length >= BASE_ID_SIZE))
        return api_fail(req, API_PROBLEM_BAD_REQUEST, "'player' must be a player's id");
    return log_reply(req, "entries", player, false);
}

enum MHD_Result api_player_warnings(struct api_request *req)
{
    return log_reply(req, "warnings", req->caller.player_id, true);
}

/* ---- The workers */

struct fairplay_worker {
    struct base_worker *handle;   /* as base_worker_start answered */
    struct base_worker *self;     /* the same, as the thread was handed it */
    struct db_pool *pool;
    uint64_t nodes;
    struct db_fairplay_review review;
    struct engine *engine;
};

static struct fairplay_worker workers[FAIRPLAY_WORKERS_MAX];
static int worker_count;

/* What one side's counted moves add up to. */
struct tally {
    int moves, top1, top3;
    double loss;
    double *seconds;              /* every move's thinking time, counted or not */
    int timed;
};

/* A score capped to ±FAIRPLAY_LOSS_CAP, mates included. */
static int capped(int score)
{
    return score > FAIRPLAY_LOSS_CAP ? FAIRPLAY_LOSS_CAP
         : score < -FAIRPLAY_LOSS_CAP ? -FAIRPLAY_LOSS_CAP : score;
}

/* The lines of a MultiPV search, kept from its last iteration. */
struct lines {
    int count;
    struct rules_move move[FAIRPLAY_LINES];
    int score[FAIRPLAY_LINES];
};

static void keep_line(void *arg, const struct engine_info *info)
{
    struct lines *l = arg;
    if (info->multipv < 1 || info->multipv > FAIRPLAY_LINES || info->pv_length < 1)
        return;
    l->move[info->multipv - 1] = info->pv[0];
    l->score[info->multipv - 1] = info->score;
    if (info->multipv > l->count)
        l->count = info->multipv;
}

/* One search of pos alone (a cleared table, no earlier position) at the
 * budget, as `korp uci` searches "ucinewgame", "position fen" and "go
 * nodes" with the same hash size. */
static int search(struct fairplay_worker *w, const struct rules_variant *v,
                  const struct rules_position *pos, int lines, struct lines *kept,
                  struct engine_result *out)
{
    struct engine_limits limits = { .nodes = w->nodes, .multipv = lines };
    uint64_t key = v->repetition_key(pos);
    engine_clear(w->engine);
    engine_stop_reset(w->engine);
    return engine_search(w->engine, v, pos, &key, 1, &limits, kept ? keep_line : NULL, kept,
                         out);
}

/* Scores the move played in `before` (the legal move `played`) into t, and
 * what the engine chose and the move lost into m. */
static int judge(struct fairplay_worker *w, const struct rules_variant *v,
                 const struct rules_position *before, struct rules_move played, struct tally *t,
                 struct db_fairplay_judged *m)
{
    struct engine_result best, reply;
    struct lines three = { 0 };
    int played_score;

    if (search(w, v, before, 1, NULL, &best) != 0 ||
        search(w, v, before, FAIRPLAY_LINES, &three, &reply) != 0 || !best.has_move)
        return -1;
    t->moves++;
    v->move_format(before, best.best, RULES_NOTATION_UCI, m->engine, sizeof m->engine);
    m->top3 = true;
    m->loss = 0;
    played_score = best.score;
    if (!rules_move_equal(best.best, played)) {
        struct rules_position after = *before;
        bool listed = false;
        for (int i = 0; i < three.count && !listed; i++)
            if (rules_move_equal(three.move[i], played)) {
                listed = true;
                played_score = three.score[i];
            }
        if (!listed) {
            if (v->position_apply(&after, played) != RULES_OK ||
                search(w, v, &after, 1, NULL, &reply) != 0)
                return -1;
            played_score = reply.has_move ? -reply.score : best.score;
        }
        m->loss = capped(best.score) - capped(played_score) > 0
                      ? capped(best.score) - capped(played_score) : 0;
        m->top3 = listed;
        t->loss += m->loss;
        t->top3 += listed;
    } else {
        t->top1++;
        t->top3++;
    }
    return 0;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The value below which a share q (0..1) of the n sorted values lie,
 * interpolated between the two nearest. */
static double quantile(const double *sorted, int n, double q)
{
    double at = q * (n - 1);
    int below = (int)at;
    if (n == 0)
        return 0;
    if (below + 1 >= n)
        return sorted[n - 1];
    return sorted[below] + (at - below) * (sorted[below + 1] - sorted[below]);
}

static void side_figures(struct tally *t, struct db_fairplay_side *s)
{
    int quick = 0;

    s->moves = t->moves;
    s->top1 = t->moves ? (double)t->top1 / t->moves : 0;
    s->top3 = t->moves ? (double)t->top3 / t->moves : 0;
    s->acpl = t->moves ? t->loss / t->moves : 0;
    qsort(t->seconds, (size_t)t->timed, sizeof *t->seconds, by_value);
    s->median_seconds = quantile(t->seconds, t->timed, 0.5);
    s->spread_seconds = quantile(t->seconds, t->timed, 0.75) -
                        quantile(t->seconds, t->timed, 0.25);
    for (int i = 0; i < t->timed; i++)
        quick += t->seconds[i] < FAIRPLAY_QUICK_SECONDS;
    s->under_minute = t->timed ? (double)quick / t->timed : 0;
}

/* Moves and reads come first: after a position searched for `took_us`
 * while `requests` requests began, the worker rests (see
 * FAIRPLAY_GIVE_WAY_MAX). */
static void give_way(struct fairplay_worker *w, int64_t took_us, unsigned long requests)
{
    int64_t rest_ms = took_us / 1000 *
                      (int64_t)(requests < FAIRPLAY_GIVE_WAY_MAX ? requests
                                                                 : FAIRPLAY_GIVE_WAY_MAX);
    if (rest_ms > FAIRPLAY_REST_MAX_MS)
        rest_ms = FAIRPLAY_REST_MAX_MS;
    if (rest_ms > 0)
        base_worker_sleep(w->self, (int)rest_ms);
}

/* db_fairplay_fn: every position of the game replayed from the stored
 * moves, each side's counted moves judged. */
static enum db_status analyse(struct db_fairplay_lease *lease, const char *game_id,
                              const struct rules_variant *v,
                              const struct db_fairplay_move *moves, int count,
                              struct db_fairplay *out, void *arg, struct base_err *err)
{
    struct fairplay_worker *w = arg;
    struct tally t[2] = { { 0 }, { 0 } };
    struct rules_position pos;
    struct rules_why why = { 0 };
    enum db_status rc = DB_OK;

    base_log(BASE_LOG_INFO, "fair play: analysing game %s (%d moves)", game_id, count);
    t[0].seconds = calloc((size_t)count + 1, sizeof(double));
    t[1].seconds = calloc((size_t)count + 1, sizeof(double));
    out->judged = calloc((size_t)count + 1, sizeof *out->judged);
    if (t[0].seconds == NULL || t[1].seconds == NULL || out->judged == NULL) {
        base_err_set(err, "out of memory");
        rc = DB_HARD_ERROR;
        goto done;
    }
    if (v->position_parse(&pos, v->start_text, &why) != RULES_OK) {
        snprintf(out->failure, sizeof out->failure, "the start position is unreadable: %s",
                 why.text);
        base_err_set(err, "%s", out->failure);
        rc = DB_HARD_ERROR;
        goto done;
    }
    for (int i = 0; i < count; i++) {
        struct rules_move legal[RULES_MAX_MOVES], played;
        int side = v->side_to_move(&pos) == RULES_WHITE ? 0 : 1;
        if (base_worker_stopping(w->self)) {
            base_err_set(err, "stopping: the game goes back to the queue");
            rc = DB_HARD_ERROR;
            goto done;
        }
        if ((rc = db_fairplay_hold(lease, err)) != DB_OK)
            goto done;
        if (v->move_parse(&pos, moves[i].uci, 0, &played, &why) != RULES_OK ||
            !v->move_is_legal(&pos, played)) {
            snprintf(out->failure, sizeof out->failure, "move %d '%s' does not replay: %s",
                     moves[i].ply, moves[i].uci, why.text);
            base_err_set(err, "%s", out->failure);
            rc = DB_HARD_ERROR;
            goto done;
        }
        t[side].seconds[t[side].timed++] = moves[i].seconds;
        /* A side's first moves, and a move that was the only one, say
         * nothing of who chose them. */
        if (i / 2 >= FAIRPLAY_OPENING_MOVES && v->moves_legal(&pos, legal) > 1) {
            struct db_fairplay_judged *m = &out->judged[out->judged_count];
            unsigned long requests = api_requests_begun();
            int64_t began = base_monotonic_us();
            if (judge(w, v, &pos, played, &t[side], m) != 0) {
                base_err_set(err, "the engine failed at move %d", moves[i].ply);
                rc = DB_HARD_ERROR;
                goto done;
            }
            m->ply = moves[i].ply;
            m->black = side == 1;
            snprintf(m->played, sizeof m->played, "%s", moves[i].uci);
            out->judged_count++;
            give_way(w, base_monotonic_us() - began, api_requests_begun() - requests);
        }
        (void)v->position_apply(&pos, played);
    }
    out->nodes = (long long)w->nodes;
    side_figures(&t[0], &out->side[0]);
    side_figures(&t[1], &out->side[1]);
done:
    free(t[0].seconds);
    free(t[1].seconds);
    return rc;
}

/* db_fairplay_stored_fn: the players who now pass review go to the
 * arbiter. */
static enum db_status stored(struct db_tx *tx, const char *game_id, void *arg)
{
    struct fairplay_worker *w = arg;
    return games_fairplay_review(tx, game_id, &w->review);
}

static void work(struct base_worker *handle, void *arg)
{
    struct fairplay_worker *w = arg;
    struct base_err err = { "" };
    char game_id[BASE_ID_SIZE];

    w->self = handle;
    /* Moves and reads come first: this thread runs at the lowest priority
     * (Linux sets a thread's niceness by its id). */
    if (setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 19) != 0)
        base_log(BASE_LOG_WARN, "fair play: cannot lower the worker's priority");
    while (!base_worker_stopping(handle)) {
        enum db_status st = db_fairplay_analyse_next(w->pool, analyse, stored, w, game_id,
                                                     &err);
        /* (A game that cannot be replayed was set aside: it would be
         * taken again and again, ahead of every other.) */
        if (st != DB_OK && !base_worker_stopping(handle))
            base_log(BASE_LOG_WARN, "fair play: game %s not analysed: %s", game_id, err.text);
        else if (st == DB_OK && game_id[0] != '\0')
            base_log(BASE_LOG_INFO, "fair play: game %s analysed", game_id);
        if (st != DB_OK || game_id[0] == '\0')
            base_worker_sleep(handle, FAIRPLAY_IDLE_MS);
    }
}

bool api_fairplay_start(struct db_pool *pool, int count, long long nodes,
                        const struct db_fairplay_review *review, struct base_err *err)
{
    worker_count = 0;
    for (int i = 0; i < count && i < FAIRPLAY_WORKERS_MAX; i++) {
        struct fairplay_worker *w = &workers[i];
        memset(w, 0, sizeof *w);
        w->pool = pool;
        w->nodes = (uint64_t)nodes;
        w->review = *review;
        if ((w->engine = engine_new(FAIRPLAY_HASH_MB)) == NULL) {
            base_err_set(err, "fair play: out of memory for the engine");
            return false;
        }
        worker_count++;
        if ((w->handle = base_worker_start("fairplay", work, w, err)) == NULL)
            return false;
    }
    return true;
}

void api_fairplay_stop(void)
{
    for (int i = 0; i < worker_count; i++)
        base_worker_ask_stop(workers[i].handle);
    for (int i = 0; i < worker_count; i++) {
        base_worker_stop(workers[i].handle);
        engine_free(workers[i].engine);
        memset(&workers[i], 0, sizeof workers[i]);
    }
    worker_count = 0;
}
