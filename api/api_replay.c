/*
 * api_replay.c — POST /v1/replay: a game record (PGN, or a start and a
 * list of moves in any notation korp reads) replayed by the rules, every
 * ply with its SAN, UCI, Polish notation (Korpalski) and FEN.  Public: the
 * study board and bots use it; nothing is stored.
 */
#include "api_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Plies answered at most (a record of 64 KiB holds fewer moves anyway). */
#define REPLAY_MAX_PLIES 4000

static const struct api_field replay_fields[] = {
    { "variant", API_STRING, true, false, 1, 32 },
    { "pgn", API_STRING, false, false, 1, API_BODY_LIMIT },
    { "fen", API_STRING, false, true, 1, RULES_TEXT_MAX - 1 },
    { "moves", API_LIST, false, false, 0, REPLAY_MAX_PLIES },
    { "legal", API_BOOLEAN, false, false, 0, 0 },
    { NULL, API_STRING, false, false, 0, 0 },
};

void api_moves_add(cJSON *list, const struct rules_variant *v, const struct rules_position *pos,
                   const struct rules_move *moves, int n)
{
    for (int i = 0; i < n; i++) {
        char uci[RULES_MOVE_TEXT_MAX], san[RULES_MOVE_TEXT_MAX];
        cJSON *m = cJSON_CreateObject();
        v->move_format(pos, moves[i], RULES_NOTATION_UCI, uci, sizeof uci);
        v->move_format(pos, moves[i], RULES_NOTATION_SAN, san, sizeof san);
        cJSON_AddStringToObject(m, "uci", uci);
        cJSON_AddStringToObject(m, "san", san);
        cJSON_AddItemToArray(list, m);
    }
}

struct replay_out {
    const struct rules_variant *v;
    cJSON *plies;
    char start[RULES_TEXT_MAX];   /* the position before the first move */
};

static void add_ply(void *arg, const struct rules_replay_step *step)
{
    struct replay_out *out = arg;
    const struct rules_variant *v = out->v;
    struct rules_report report;
    char text[RULES_TEXT_MAX];
    cJSON *ply = cJSON_CreateObject();

    if (step->ply == 1)
        v->position_format(&step->before, out->start, sizeof out->start);
    cJSON_AddNumberToObject(ply, "ply", step->ply);
    v->move_format(&step->before, step->move, RULES_NOTATION_SAN, text, sizeof text);
    cJSON_AddStringToObject(ply, "san", text);
    v->move_format(&step->before, step->move, RULES_NOTATION_UCI, text, sizeof text);
    cJSON_AddStringToObject(ply, "uci", text);
    if (v->polish_notation) {
        v->move_format(&step->before, step->move, RULES_NOTATION_POLISH_SHORT, text,
                       sizeof text);
        cJSON_AddStringToObject(ply, "polish", text);
    }
    v->position_format(step->after, text, sizeof text);
    cJSON_AddStringToObject(ply, "fen", text);
    v->position_report(step->after, &report);
    cJSON_AddStringToObject(ply, "status", rules_status_text(report.status));
    cJSON_AddBoolToObject(ply, "check", report.in_check);
    cJSON_AddItemToArray(out->plies, ply);
}

/* The moves of the body as movetext ("e4 e5 ..."), or NULL with why. */
static char *movetext_of(const cJSON *moves, char *why, size_t size)
{
    struct base_text t = { 0 };
    const cJSON *m;
    int i = 0;

    cJSON_ArrayForEach(m, moves) {
        const char *s = m->valuestring;
        i++;
        /* One token each: what the record reader would split or skip is
         * not a move. */
        if (s[0] == '\0' || strpbrk(s, " \t\r\n{}()[];%$.") != NULL) {
            snprintf(why, size, "'moves' item %d, \"%.32s\", is not one move: write each "
                     "move alone, like \"Nf3\", \"K@e1\" or \"e2e4\"", i, s);
            free(t.buf);
            return NULL;
        }
        base_text_put(&t, "%s%s", i > 1 ? " " : "", s);
    }
    if (t.failed) {
        free(t.buf);
        snprintf(why, size, "out of memory");
        return NULL;
    }
    return t.buf ? t.buf : strdup("");
}

enum MHD_Result api_replay(struct api_request *req)
{
    const cJSON *moves = cJSON_GetObjectItemCaseSensitive(req->json, "moves");
    const char *variant, *pgn, *fen;
    const struct rules_variant *v;
    struct replay_out out;
    struct rules_replay_failure failed;
    struct rules_position end;
    struct rules_report report;
    enum rules_error e;
    enum MHD_Result replied;
    char why[256], *text;
    cJSON *json;

    if (!api_body_check(req, replay_fields, &replied))
        return replied;
    variant = api_body_string(req, "variant");
    pgn = api_body_string(req, "pgn");
    fen = api_body_string(req, "fen");
    if ((v = db_variant_parse(variant)) == NULL)
        return api_fail(req, API_PROBLEM_BAD_REQUEST,
                        "'variant' must be \"korpalski\" or \"glinski\", not \"%.32s\"", variant);
    if ((pgn == NULL) == (moves == NULL))
        return api_fail(req, API_PROBLEM_BAD_REQUEST,
                        "give either 'pgn' (a game record) or 'moves' (a list of moves, with "
                        "an optional 'fen' to start from), not %s",
                        pgn ? "both" : "neither");
    if (pgn != NULL && fen != NULL)
        return api_fail(req, API_PROBLEM_BAD_REQUEST,
                        "'fen' goes with 'moves'; a PGN gives its start in its FEN tag");
    text = pgn ? strdup(pgn) : movetext_of(moves, why, sizeof why);
    if (text == NULL)
        return pgn ? api_fail_oom(req)
                   : api_fail(req, API_PROBLEM_BAD_REQUEST, "%s", why);
    out.v = v;
    out.start[0] = '\0';
    json = cJSON_CreateObject();
    out.plies = cJSON_AddArrayToObject(json, "plies");
    e = rules_replay(v, text, strlen(text), fen, REPLAY_MAX_PLIES, add_ply, &out, &end, &failed);
    free(text);
    if (e != RULES_OK) {
        cJSON *problem;
        cJSON_Delete(json);
        if (failed.ply == 0)
            return api_fail(req, API_PROBLEM_INVALID_VALUE, "the start position is not valid: %s",
                            failed.why.text);
        snprintf(why, sizeof why, "ply %d, %.40s: %s", failed.ply, failed.move, failed.why.text);
        problem = api_problem_new(API_PROBLEM_ILLEGAL_MOVE, why);
        cJSON_AddNumberToObject(problem, "ply", failed.ply);
        cJSON_AddStringToObject(problem, "move", failed.move);
        api_problem_move_reason(problem, failed.why.reason, v);
        return api_reply_problem(req, API_PROBLEM_ILLEGAL_MOVE, problem);
    }
    v->position_report(&end, &report);
    if (out.start[0] == '\0')   /* no move: the start is the end */
        v->position_format(&end, out.start, sizeof out.start);
    cJSON_AddStringToObject(json, "start", out.start);
    if (api_body_boolean(req, "legal", false)) {
        /* The end position as the board needs it: its FEN and legal moves. */
        struct rules_move legal[RULES_MAX_MOVES];
        char fen_end[RULES_TEXT_MAX];
        int n = report.status == RULES_ONGOING ? v->moves_legal(&end, legal) : 0;
        v->position_format(&end, fen_end, sizeof fen_end);
        cJSON_AddStringToObject(json, "fen", fen_end);
        api_moves_add(cJSON_AddArrayToObject(json, "legal"), v, &end, legal, n);
    }
    cJSON_AddStringToObject(json, "variant", v->name);
    cJSON_AddStringToObject(json, "result", rules_result_text(report.result));
    if (report.status != RULES_ONGOING)
        cJSON_AddStringToObject(json, "termination", rules_status_text(report.status));
    else
        cJSON_AddNullToObject(json, "termination");
    return api_reply_json(req, MHD_HTTP_OK, json);
}
