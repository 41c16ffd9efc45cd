/*
 * api_analyse.c — POST /v1/analyse: the engine's best lines for a position
 * (issue 23), for people reviewing finished games, the study board and
 * arbiters.  Guarded three ways: never for a game the asker is playing
 * (named by id, or by its position pasted as a FEN), at most
 * KORP_ANALYSIS_PER_HOUR analyses per player, and at most
 * KORP_ANALYSIS_CONCURRENT searches at once in this korpd, so that
 * analysis cannot hold every HTTP thread.  Each search has an engine
 * handle (and transposition table) of its own, freed when it ends.
 */
#include "api_int.h"

#include "engine.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ANALYSIS_LINES_MAX 5
#define ANALYSIS_LINES_DEFAULT 3
#define ANALYSIS_MS_MIN 100
#define ANALYSIS_MS_MAX 5000
#define ANALYSIS_MS_DEFAULT 1000
/* The transposition table of one search, in MiB (freed after it). */
#define ANALYSIS_HASH_MB 8
/* Active games of the asker on the same board looked at, at most. */
#define ANALYSIS_CANDIDATES 64

struct api_analysis {
    pthread_mutex_t lock;
    int running;                  /* searches now */
    int most;                     /* ... allowed at once */
    struct api_limits *per_player;
};

struct api_analysis *api_analysis_new(int per_hour, int concurrent)
{
    struct api_analysis *a = calloc(1, sizeof *a);
    if (a == NULL)
        return NULL;
    pthread_mutex_init(&a->lock, NULL);
    a->most = concurrent < 1 ? 1 : concurrent;
    if (per_hour < 1)
        per_hour = 1;
    if ((a->per_player = api_limits_new(per_hour / 3600.0, per_hour)) == NULL) {
        api_analysis_free(a);
        return NULL;
    }
    return a;
}

void api_analysis_free(struct api_analysis *a)
{
    if (a == NULL)
        return;
    api_limits_free(a->per_player);
    pthread_mutex_destroy(&a->lock);
    free(a);
}

/* Takes a search slot; false when all are in use. */
static bool slot_take(struct api_analysis *a)
{
    bool ok;
    pthread_mutex_lock(&a->lock);
    ok = a->running < a->most;
    if (ok)
        a->running++;
    pthread_mutex_unlock(&a->lock);
    return ok;
}

static void slot_give(struct api_analysis *a)
{
    pthread_mutex_lock(&a->lock);
    a->running--;
    pthread_mutex_unlock(&a->lock);
}

static const struct api_field analyse_fields[] = {
    { "variant", API_STRING, true, false, 1, 32 },
    { "fen", API_STRING, true, false, 1, RULES_TEXT_MAX - 1 },
    { "multipv", API_INTEGER, false, false, 1, ANALYSIS_LINES_MAX },
    { "movetime_ms", API_INTEGER, false, false, ANALYSIS_MS_MIN, ANALYSIS_MS_MAX },
    { "game_id", API_STRING, false, true, 1, API_PARAM_MAX },
    { NULL, API_STRING, false, false, 0, 0 },
};

/* A 4xx naming the field at fault (as "field" too, for programs). */
static enum MHD_Result fail_field(struct api_request *req, enum api_problem problem,
                                  const char *field, const char *detail)
{
    cJSON *p = api_problem_new(problem, detail);
    if (p != NULL)
        cJSON_AddStringToObject(p, "field", field);
    return api_reply_problem(req, problem, p);
}

static bool plays(const struct db_caller *c, const struct db_game *g)
{
    return strcmp(g->white_id, c->player_id) == 0 || strcmp(g->black_id, c->player_id) == 0;
}

/*
 * Whether the asker may have pos analysed: not when game_id names a game
 * they play that is still going, nor when pos stands in any of their active
 * games (the same board, side to move, castling and en passant rights:
 * the repetition key, whatever the move counters say).  Arbiters are
 * judged alike: they are refused only for their own games.  Replies
 * itself and returns false otherwise.
 */
static bool allowed(struct api_request *req, const struct rules_variant *v,
                    const struct rules_position *pos, const char *game_id,
                    enum MHD_Result *replied)
{
    struct base_err err = { "" };
    struct db_active_position found[ANALYSIS_CANDIDATES];
    char fen[RULES_TEXT_MAX];
    uint64_t key = v->repetition_key(pos);
    enum db_status st;
    int count = 0;

    if (game_id != NULL) {
        struct db_game g;
        memset(&g, 0, sizeof g);
        if (!api_id_valid(game_id)) {
            *replied = fail_field(req, API_PROBLEM_BAD_REQUEST, "game_id",
                                  "'game_id' is not a game id: ids are letters and digits");
            return false;
        }
        st = db_game_get(req->config->pool, game_id, &g, &err);
        if (st == DB_NOT_FOUND) {
            *replied = fail_field(req, API_PROBLEM_NOT_FOUND, "game_id",
                                  "no game has that 'game_id'");
            return false;
        }
        if (st != DB_OK) {
            *replied = api_fail_db(req, st, err.text);
            return false;
        }
        bool refused = g.status == DB_GAME_ACTIVE && plays(&req->caller, &g);
        db_game_clear(&g);
        if (refused) {
            *replied = api_fail(req, API_PROBLEM_ANALYSIS_OWN_GAME,
                                "you are playing game %s: the engine analyses it for you once "
                                "it is over", game_id);
            return false;
        }
    }
    v->position_format(pos, fen, sizeof fen);
    fen[strcspn(fen, " ")] = '\0';
    st = db_active_positions(req->config->pool, req->caller.player_id, v, fen, found,
                             ANALYSIS_CANDIDATES, &count, &err);
    if (st != DB_OK) {
        *replied = api_fail_db(req, st, err.text);
        return false;
    }
    for (int i = 0; i < count; i++) {
        struct rules_position there;
        struct rules_why why;
        if (found[i].variant != v || v->position_parse(&there, found[i].fen, &why) != RULES_OK)
            continue;
        if (v->repetition_key(&there) == key) {
            *replied = api_fail(req, API_PROBLEM_ANALYSIS_OWN_GAME,
                                "this is the position of game %s, which you are playing: the "
                                "engine analyses it for you once it is over",
                                found[i].game_id);
            return false;
        }
    }
    return true;
}

/* Each line's deepest iteration, from the info callback. */
struct line {
    int length;
    int score;
    struct rules_move pv[ENGINE_MAX_PLY];
};

static void keep_line(void *arg, const struct engine_info *info)
{
    struct line *lines = arg;
    if (info->multipv < 1 || info->multipv > ANALYSIS_LINES_MAX)
        return;
    struct line *l = &lines[info->multipv - 1];
    l->length = info->pv_length;
    l->score = info->score;
    memcpy(l->pv, info->pv, (size_t)info->pv_length * sizeof *info->pv);
}

static bool same_move(struct rules_move a, struct rules_move b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/*
 * Puts the search's answer first: when a stopped iteration changed the best
 * move, the first line is that move alone (with the answer's score), and an
 * older line starting with it is dropped, so first moves stay distinct.
 */
static int lines_settle(struct line *lines, int wanted, const struct engine_result *res)
{
    int n = 0;
    while (n < wanted && lines[n].length > 0)
        n++;
    if (n > 0 && same_move(lines[0].pv[0], res->best))
        return n;
    for (int i = 1; i < n; i++)
        if (same_move(lines[i].pv[0], res->best)) {
            memmove(&lines[i], &lines[i + 1], (size_t)(n - i - 1) * sizeof *lines);
            n--;
            break;
        }
    if (n == wanted)
        n--;
    memmove(&lines[1], &lines[0], (size_t)n * sizeof *lines);
    lines[0].length = 1;
    lines[0].pv[0] = res->best;
    lines[0].score = res->score;
    return n + 1;
}

/* One line as {"cp"|"mate", "pv_uci", "pv_san"}, the score for the side to move. */
static cJSON *line_json(const struct rules_variant *v, const struct rules_position *pos,
                        const struct line *l)
{
    cJSON *o = cJSON_CreateObject();
    cJSON *uci = cJSON_CreateArray(), *san = cJSON_CreateArray();
    struct rules_position p = *pos;
    char text[RULES_MOVE_TEXT_MAX];

    if (engine_mate_moves(l->score) != 0)
        cJSON_AddNumberToObject(o, "mate", engine_mate_moves(l->score));
    else
        cJSON_AddNumberToObject(o, "cp", l->score);
    for (int i = 0; i < l->length; i++) {
        v->move_format(&p, l->pv[i], RULES_NOTATION_UCI, text, sizeof text);
        cJSON_AddItemToArray(uci, cJSON_CreateString(text));
        v->move_format(&p, l->pv[i], RULES_NOTATION_SAN, text, sizeof text);
        cJSON_AddItemToArray(san, cJSON_CreateString(text));
        v->move_play(&p, l->pv[i]);
    }
    cJSON_AddItemToObject(o, "pv_uci", uci);
    cJSON_AddItemToObject(o, "pv_san", san);
    return o;
}

/* The search itself, on a slot already taken; replies. */
static enum MHD_Result search(struct api_request *req, const struct rules_variant *v,
                              const struct rules_position *pos, int wanted, long movetime)
{
    struct line *lines = calloc(ANALYSIS_LINES_MAX, sizeof *lines);
    struct engine *e = engine_new(ANALYSIS_HASH_MB);
    struct engine_limits limits = { 0 };
    struct engine_result res;
    uint64_t key = v->repetition_key(pos);
    cJSON *json = NULL, *list;
    int n = 0;

    if (lines == NULL || e == NULL) {
        free(lines);
        engine_free(e);
        return api_fail(req, API_PROBLEM_UNAVAILABLE, "out of memory for a search; retry later");
    }
    limits.movetime_ms = movetime;
    limits.multipv = wanted;
    engine_stop_reset(e);
    if (engine_search(e, v, pos, &key, 1, &limits, keep_line, lines, &res) != 0) {
        free(lines);
        engine_free(e);
        return api_fail(req, API_PROBLEM_UNAVAILABLE, "out of memory for a search; retry later");
    }
    engine_free(e);
    if (res.has_move)
        n = lines_settle(lines, wanted, &res);
    json = cJSON_CreateObject();
    cJSON_AddNumberToObject(json, "depth", res.has_move ? res.depth : 0);
    cJSON_AddNumberToObject(json, "nodes", (double)res.nodes);
    list = cJSON_AddArrayToObject(json, "lines");
    for (int i = 0; i < n; i++)
        cJSON_AddItemToArray(list, line_json(v, pos, &lines[i]));
    free(lines);
    return api_reply_json(req, MHD_HTTP_OK, json);
}

enum MHD_Result api_analyse(struct api_request *req)
{
    struct rules_position pos;
    struct rules_why why;
    const struct rules_variant *v;
    const char *variant, *fen, *game_id;
    enum MHD_Result replied;
    char detail[320];
    long wanted, movetime;
    bool is_null;
    int retry = 1;

    if (!api_body_check(req, analyse_fields, &replied))
        return replied;
    variant = api_body_string(req, "variant");
    fen = api_body_string(req, "fen");
    game_id = api_body_string(req, "game_id");
    wanted = api_body_integer(req, "multipv", ANALYSIS_LINES_DEFAULT, &is_null);
    movetime = api_body_integer(req, "movetime_ms", ANALYSIS_MS_DEFAULT, &is_null);
    if ((v = db_variant_parse(variant)) == NULL) {
        snprintf(detail, sizeof detail,
                 "'variant' must be \"korpalski\" or \"glinski\", not \"%.32s\"", variant);
        return fail_field(req, API_PROBLEM_INVALID_VALUE, "variant", detail);
    }
    memset(&why, 0, sizeof why);
    if (v->position_parse(&pos, fen, &why) != RULES_OK) {
        snprintf(detail, sizeof detail, "'fen' is not a %s position: %.200s", v->name,
                 why.text);
        return fail_field(req, API_PROBLEM_INVALID_VALUE, "fen", detail);
    }
    if (!allowed(req, v, &pos, game_id, &replied))
        return replied;
    if (!slot_take(req->analysis))
        return api_fail(req, API_PROBLEM_UNAVAILABLE,
                        "the engine is busy with other analyses; retry in a few seconds");
    if (!api_limits_take(req->analysis->per_player, req->caller.player_id, &retry)) {
        slot_give(req->analysis);
        req->retry_after = retry;
        return api_fail(req, API_PROBLEM_TOO_MANY_REQUESTS,
                        "a player may ask for %d engine analyses an hour and you have used "
                        "them; retry in %d s",
                        req->config->analysis_per_hour, retry);
    }
    replied = search(req, v, &pos, (int)wanted, movetime);
    slot_give(req->analysis);
    return replied;
}
