/*
 * api_outcomes.c — what games/ answers, as HTTP: one row per
 * games_outcome, naming the problem (and so the status, type and title of
 * api_reply.c's table) a refusal becomes, and its `reason` code when the
 * problem's type is wider than the refusal (a page says the reason in its
 * language); games/ may name a finer one (games_result.code).  tests/contract/test_outcomes.py
 * fails when an outcome has no row.
 */
#include "api_int.h"

#include "games.h"

#include <stdlib.h>

/* How an outcome is answered. */
enum answer {
    ANSWER_PROBLEM = 0,   /* the problem of the row, with games/'s detail */
    ANSWER_SUCCESS,       /* the handler's own answer */
    ANSWER_STORED,        /* the answer stored under the Idempotency-Key */
    ANSWER_DATABASE       /* api_fail_db: 503 or 500 by the database's status */
};

static const struct {
    enum answer answer;
    enum api_problem problem;
} outcomes[GAMES_OUTCOME_COUNT] = {
    [GAMES_OK] = { ANSWER_SUCCESS, API_PROBLEM_INTERNAL },
    [GAMES_NOT_FOUND] = { ANSWER_PROBLEM, API_PROBLEM_NOT_FOUND },
    [GAMES_NOT_YOURS] = { ANSWER_PROBLEM, API_PROBLEM_NOT_FOUND },
    [GAMES_FORBIDDEN] = { ANSWER_PROBLEM, API_PROBLEM_FORBIDDEN },
    [GAMES_CONFLICT] = { ANSWER_PROBLEM, API_PROBLEM_CONFLICT },
    [GAMES_NOT_YOUR_TURN] = { ANSWER_PROBLEM, API_PROBLEM_NOT_YOUR_TURN },
    [GAMES_GAME_OVER] = { ANSWER_PROBLEM, API_PROBLEM_GAME_OVER },
    [GAMES_PLY_MISMATCH] = { ANSWER_PROBLEM, API_PROBLEM_PLY_MISMATCH },
    [GAMES_ILLEGAL] = { ANSWER_PROBLEM, API_PROBLEM_ILLEGAL_MOVE },
    [GAMES_DRAW_NOT_ALLOWED] = { ANSWER_PROBLEM, API_PROBLEM_DRAW_NOT_ALLOWED },
    [GAMES_LINES_DISAGREE] = { ANSWER_PROBLEM, API_PROBLEM_CONDITIONAL_CONFLICT },
    [GAMES_CLAIM_LINE_REFUSED] = { ANSWER_PROBLEM, API_PROBLEM_INVALID_VALUE },
    [GAMES_ENTRY_REFUSED] = { ANSWER_PROBLEM, API_PROBLEM_INVALID_VALUE },
    [GAMES_DAILY_LIMIT] = { ANSWER_PROBLEM, API_PROBLEM_TOO_MANY_REQUESTS },
    [GAMES_DAY_OUT_OF_RANGE] = { ANSWER_PROBLEM, API_PROBLEM_BAD_REQUEST },
    [GAMES_LEAVE_EXCEEDED] = { ANSWER_PROBLEM, API_PROBLEM_LEAVE_EXCEEDED },
    [GAMES_OWN_GAME_IN_PLAY] = { ANSWER_PROBLEM, API_PROBLEM_ANALYSIS_OWN_GAME },
    [GAMES_KEY_REUSED] = { ANSWER_PROBLEM, API_PROBLEM_BAD_REQUEST },
    [GAMES_ANSWERED_BEFORE] = { ANSWER_STORED, API_PROBLEM_INTERNAL },
    [GAMES_DB_ERROR] = { ANSWER_DATABASE, API_PROBLEM_INTERNAL },
};

/* The reason code of the outcomes whose problem type is wider (NULL: the type). */
static const char *const reasons[GAMES_OUTCOME_COUNT] = {
    [GAMES_CLAIM_LINE_REFUSED] = "line-refused",
    [GAMES_ENTRY_REFUSED] = "entry-refused",
    [GAMES_DAILY_LIMIT] = "daily-limit",
    [GAMES_DAY_OUT_OF_RANGE] = "day-out-of-range",
};

enum api_problem api_outcome_problem(enum games_outcome o)
{
    if ((unsigned)o >= GAMES_OUTCOME_COUNT || outcomes[o].answer != ANSWER_PROBLEM)
        return API_PROBLEM_INTERNAL;
    return outcomes[o].problem;
}

void api_problem_move_reason(cJSON *problem, enum rules_reason reason,
                             const struct rules_variant *v)
{
    cJSON *names;

    api_problem_reason(problem, rules_reason_slug(reason));
    if (reason != RULES_REASON_SYNTAX || v == NULL ||
        (names = cJSON_AddArrayToObject(problem, "notations")) == NULL)
        return;
    cJSON_AddItemToArray(names, cJSON_CreateString("san"));
    cJSON_AddItemToArray(names, cJSON_CreateString("uci"));
    if (v->polish_notation)
        cJSON_AddItemToArray(names, cJSON_CreateString("polish"));
    if (v->hungarian_letters)
        cJSON_AddItemToArray(names, cJSON_CreateString("hungarian"));
}

/* Whether the problem of a move's refusal says which ply and move. */
static bool names_the_move(enum games_outcome o)
{
    return o == GAMES_ILLEGAL || o == GAMES_NOT_YOUR_TURN || o == GAMES_GAME_OVER ||
           o == GAMES_PLY_MISMATCH;
}

cJSON *api_outcome_json(const struct games_result *r, unsigned ok_status, const char *move,
                        unsigned *status)
{
    enum api_problem p;
    cJSON *json;

    if (r->outcome == GAMES_OK) {
        *status = ok_status;
        return api_game_json(&r->game);
    }
    p = api_outcome_problem(r->outcome);
    json = api_problem_new(p, r->detail);
    *status = api_problem_status(p);
    if (json == NULL)
        return NULL;
    if (move != NULL && names_the_move(r->outcome) &&
        (cJSON_AddNumberToObject(json, "ply", r->ply) == NULL ||
         cJSON_AddStringToObject(json, "move", move) == NULL)) {
        cJSON_Delete(json);
        return NULL;
    }
    if (r->outcome == GAMES_ILLEGAL)
        api_problem_move_reason(json, r->reason, r->game.variant);
    else if (r->code != NULL || reasons[r->outcome] != NULL)
        api_problem_reason(json, r->code != NULL ? r->code : reasons[r->outcome]);
    return json;
}

enum MHD_Result api_reply_outcome(struct api_request *req, struct games_result *r,
                                  unsigned ok_status, const char *move)
{
    enum MHD_Result rc;
    unsigned status;

    if (r->outcome == GAMES_DB_ERROR) {
        rc = api_fail_db(req, r->db, r->err.text);
    } else {
        cJSON *json = api_outcome_json(r, ok_status, move, &status);
        char *body = json ? cJSON_PrintUnformatted(json) : NULL;
        cJSON_Delete(json);
        rc = body != NULL ? api_reply_stored(req, status, body) : api_fail_oom(req);
    }
    games_result_clear(r);
    return rc;
}

static enum MHD_Result refuse(struct api_request *req, enum games_outcome outcome,
                              const char *code, const char *detail, enum db_status db,
                              const char *err)
{
    enum api_problem p = api_outcome_problem(outcome);

    if (outcome == GAMES_DB_ERROR)
        return api_fail_db(req, db, err);
    if (code == NULL && (unsigned)outcome < GAMES_OUTCOME_COUNT)
        code = reasons[outcome];
    return api_fail_reason(req, p, code, "%s", detail);
}

enum MHD_Result api_reply_refusal(struct api_request *req, enum games_outcome outcome,
                                  const char *detail, enum db_status db, const char *err)
{
    return refuse(req, outcome, NULL, detail, db, err);
}

enum MHD_Result api_reply_refused(struct api_request *req, const struct games_result *r)
{
    return refuse(req, r->outcome, r->code, r->detail, r->db, r->err.text);
}
