/*
 * api_analyse.c — POST /v1/analyse: the engine's best lines for a
 * position, for people reviewing finished games, the study board and
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

/* Whether the asker may have pos analysed (games_analysis_allowed);
 * replies itself and returns false otherwise. */
static bool allowed(struct api_request *req, const struct rules_variant *v,
                    const struct rules_position *pos, const char *game_id,
                    enum MHD_Result *replied)
{
    struct games_result r;

    if (game_id != NULL && !api_id_valid(game_id)) {
        *replied = fail_field(req, API_PROBLEM_BAD_REQUEST, "game_id",
                              "'game_id' is not a game id: ids are letters and digits");
        return false;
    }
    games_analysis_allowed(req->config->pool, req->caller.player_id, v, pos, game_id, &r);
    if (r.outcome == GAMES_NOT_FOUND)
        *replied = fail_field(req, api_outcome_problem(r.outcome), "game_id", r.detail);
    else if (r.outcome != GAMES_OK)
        *replied = api_reply_refusal(req, r.outcome, r.detail, r.db, r.err.text);
    games_result_clear(&r);
    return r.outcome == GAMES_OK;
}

/* One line of the search: its score and moves. */
struct line {
    int length;
    int score;
    struct rules_move pv[ENGINE_MAX_PLY];
};

/*
 * The lines as the info callback hears them: the engine reports an
 * iteration's lines one by one, best first, so a search stopped in the
 * middle of one has only its first lines new.  `done` keeps the last
 * iteration heard whole (`expected` lines), `current` the one under way.
 */
struct lines_kept {
    int expected;
    int depth, count;                       /* current's iteration and lines */
    int done_depth, done_count;
    struct line current[ANALYSIS_LINES_MAX];
    struct line done[ANALYSIS_LINES_MAX];
};

static void keep_line(void *arg, const struct engine_info *info)
{
    struct lines_kept *k = arg;
    if (info->multipv < 1 || info->multipv > k->expected)
        return;
    if (info->depth != k->depth) {
        k->depth = info->depth;
        k->count = 0;
    }
    if (info->multipv != k->count + 1)
        return;
    struct line *l = &k->current[k->count++];
    l->length = info->pv_length;
    l->score = info->score;
    memcpy(l->pv, info->pv, (size_t)info->pv_length * sizeof *info->pv);
    if (k->count == k->expected) {
        memcpy(k->done, k->current, (size_t)k->count * sizeof *k->current);
        k->done_count = k->count;
        k->done_depth = k->depth;
    }
}

static bool same_move(struct rules_move a, struct rules_move b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/*
 * The lines to answer, into out (at most k->expected): the search's answer
 * first (its line from the deepest iteration that has it, or the move
 * alone), then the last whole iteration's other lines, each first move once.
 */
static int lines_settle(const struct lines_kept *k, const struct engine_result *res,
                        struct line *out)
{
    int n = 0;
    if (k->count > 0 && k->depth > k->done_depth && same_move(k->current[0].pv[0], res->best))
        out[n++] = k->current[0];
    else if (k->done_count > 0 && same_move(k->done[0].pv[0], res->best))
        out[n++] = k->done[0];
    else {
        out[0].length = 1;
        out[0].pv[0] = res->best;
        out[0].score = res->score;
        n = 1;
    }
    for (int i = 0; i < k->done_count && n < k->expected; i++) {
        bool seen = false;
        for (int j = 0; j < n; j++)
            seen = seen || same_move(out[j].pv[0], k->done[i].pv[0]);
        if (!seen && k->done[i].length > 0)
            out[n++] = k->done[i];
    }
    return n;
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
    struct lines_kept *kept = calloc(1, sizeof *kept);
    struct line *lines = calloc(ANALYSIS_LINES_MAX, sizeof *lines);
    struct rules_move legal[RULES_MAX_MOVES];
    struct engine *e = engine_new(ANALYSIS_HASH_MB);
    struct engine_limits limits = { 0 };
    struct engine_result res;
    uint64_t key = v->repetition_key(pos);
    cJSON *json = NULL, *list;
    int n = 0, legal_count = v->moves_legal(pos, legal);

    if (kept == NULL || lines == NULL || e == NULL) {
        free(kept);
        free(lines);
        engine_free(e);
        return api_fail_oom(req);
    }
    kept->expected = wanted < legal_count ? wanted : legal_count;
    limits.movetime_ms = movetime;
    limits.multipv = wanted;
    engine_stop_reset(e);
    if (engine_search(e, v, pos, &key, 1, &limits, keep_line, kept, &res) != 0) {
        free(kept);
        free(lines);
        engine_free(e);
        return api_fail_oom(req);
    }
    engine_free(e);
    if (res.has_move && kept->expected > 0)
        n = lines_settle(kept, &res, lines);
    free(kept);
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
