/*
 * api_conditional.c — a player's conditional moves in a game:
 * PUT replaces them, GET shows them (to their owner only), DELETE removes
 * them.  Only the game's players reach them; for anyone else the game's
 * conditional moves do not exist (404).
 */
#include "api_int.h"

#include "games.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool api_legal_after(struct api_request *req, const struct rules_variant *v,
                     struct rules_position *pos, enum MHD_Result *replied)
{
    const char *after = api_query(req, "after");
    int index = 0;

    if (after == NULL)
        return true;
    if (after[0] == '\0') {
        *replied = api_fail(req, API_PROBLEM_BAD_REQUEST,
                            "'after' is 1 to %d moves separated by commas", GAMES_LINE_MOVES_MAX);
        return false;
    }
    for (const char *p = after; *p != '\0'; index++) {
        size_t n = strcspn(p, ",");
        char text[RULES_MOVE_TEXT_MAX];
        struct rules_why why = { 0 };
        struct rules_move m;
        cJSON *json;

        if (index == GAMES_LINE_MOVES_MAX || n == 0 || n >= sizeof text) {
            *replied = api_fail(req, API_PROBLEM_BAD_REQUEST,
                                "'after' is 1 to %d moves separated by commas",
                                GAMES_LINE_MOVES_MAX);
            return false;
        }
        memcpy(text, p, n);
        text[n] = '\0';
        if (v->move_parse(pos, text, RULES_DIALECT_DEFAULT, &m, &why) != RULES_OK ||
            v->position_apply(pos, m) != RULES_OK) {
            json = api_problem_new(API_PROBLEM_ILLEGAL_MOVE, why.text[0] ? why.text
                                                                         : "the move is not legal");
            cJSON_AddNumberToObject(json, "index", index);
            cJSON_AddStringToObject(json, "move", text);
            api_problem_move_reason(json, why.reason, v);
            *replied = api_reply_problem(req, API_PROBLEM_ILLEGAL_MOVE, json);
            return false;
        }
        p += n;
        if (*p == ',' && *++p == '\0') {
            *replied = api_fail(req, API_PROBLEM_BAD_REQUEST, "'after' ends with a comma");
            return false;
        }
    }
    return true;
}

/* {"ply", "lines"} of lines in SAN. */
static cJSON *lines_json(const struct games_lines *l)
{
    cJSON *json = cJSON_CreateObject(), *list;
    cJSON_AddNumberToObject(json, "ply", l->ply);
    list = cJSON_AddArrayToObject(json, "lines");
    for (int i = 0; i < l->count; i++) {
        cJSON *line = cJSON_CreateArray();
        for (int k = 0; k < l->length[i]; k++)
            cJSON_AddItemToArray(line, cJSON_CreateString(l->move[i][k]));
        cJSON_AddItemToArray(list, line);
    }
    return json;
}

/* Reads {"lines": [[...], ...], "ply": n} into l: NULL, else why not as a reason code
 * (and in words in why). */
static const char *lines_read(const cJSON *body, struct games_lines *l, char *why, size_t size)
{
    const cJSON *member, *lines = NULL, *ply = NULL, *line;

    cJSON_ArrayForEach(member, body) {
        const cJSON **slot = strcmp(member->string, "lines") == 0 ? &lines
                             : strcmp(member->string, "ply") == 0 ? &ply : NULL;
        if (slot == NULL || *slot != NULL) {
            snprintf(why, size, "unknown or repeated field '%.64s'; this request takes "
                     "'lines' and 'ply'", member->string);
            return "bad-request";
        }
        *slot = member;
    }
    if (!cJSON_IsArray(lines)) {
        snprintf(why, size, "'lines' is required: a list of lines, each a list of moves");
        return "bad-request";
    }
    if (ply != NULL && (!cJSON_IsNumber(ply) || ply->valuedouble != (double)(int)ply->valuedouble ||
                        ply->valuedouble < 0 || ply->valuedouble > 1000000)) {
        snprintf(why, size, "'ply' must be a whole number from 0 to 1000000");
        return "bad-request";
    }
    memset(l, 0, sizeof *l);
    l->expect_ply = ply != NULL ? (int)ply->valuedouble : -1;
    cJSON_ArrayForEach(line, lines) {
        const cJSON *move;
        int n = 0;
        if (l->count == GAMES_LINES_MAX) {
            snprintf(why, size, "at most %d lines", GAMES_LINES_MAX);
            return "lines-too-many";
        }
        if (!cJSON_IsArray(line)) {
            snprintf(why, size, "line %d is not a list of moves", l->count);
            return "bad-request";
        }
        cJSON_ArrayForEach(move, line) {
            if (!cJSON_IsString(move) || move->valuestring[0] == '\0' ||
                strlen(move->valuestring) >= RULES_MOVE_TEXT_MAX) {
                snprintf(why, size, "line %d, move %d must be a move of 1 to %d characters",
                         l->count, n, RULES_MOVE_TEXT_MAX - 1);
                return "line-move-length";
            }
            if (n == GAMES_LINE_MOVES_MAX)
                break;
            memcpy(l->move[l->count][n++], move->valuestring, strlen(move->valuestring) + 1);
        }
        if (cJSON_GetArraySize(line) != n || n < 2 || n % 2 != 0) {
            snprintf(why, size, "line %d has %d moves: a line is an even number of moves, 2 to "
                     "%d (their move, your reply, ...)", l->count, cJSON_GetArraySize(line),
                     GAMES_LINE_MOVES_MAX);
            return "line-length-odd";
        }
        l->length[l->count++] = n;
    }
    return NULL;
}

/* Replies to a refusal; a refused line says which line and move. */
static enum MHD_Result refused(struct api_request *req, struct games_result *r,
                               const struct games_lines *l)
{
    enum api_problem p = api_outcome_problem(r->outcome);
    bool illegal = r->outcome == GAMES_ILLEGAL;
    cJSON *json;

    if (r->outcome == GAMES_NOT_YOURS) {
        enum MHD_Result rc = api_reply_refusal(req, r->outcome, r->detail, r->db, "");
        games_result_clear(r);
        return rc;
    }
    if (l == NULL || (!illegal && r->outcome != GAMES_LINES_DISAGREE))
        return api_reply_outcome(req, r, MHD_HTTP_OK, NULL);
    json = api_problem_new(p, r->detail);
    if (json == NULL || cJSON_AddNumberToObject(json, "line", l->bad_line) == NULL ||
        cJSON_AddNumberToObject(json, "index", l->bad_index) == NULL ||
        (illegal && cJSON_AddStringToObject(json, "move", l->move[l->bad_line][l->bad_index]) ==
                        NULL)) {
        cJSON_Delete(json);
        games_result_clear(r);
        return api_fail_oom(req);
    }
    if (illegal)
        api_problem_move_reason(json, r->reason, r->game.variant);
    games_result_clear(r);
    return api_reply_problem(req, p, json);
}

/* Replies with the lines, or the refusal (naming the line refused when
 * they were sent); frees l. */
static enum MHD_Result reply_lines(struct api_request *req, struct games_result *r,
                                   struct games_lines *l, bool sent)
{
    enum MHD_Result rc;
    if (r->outcome == GAMES_OK) {
        games_result_clear(r);
        rc = api_reply_json(req, MHD_HTTP_OK, lines_json(l));
    } else {
        rc = refused(req, r, sent ? l : NULL);
    }
    free(l);
    return rc;
}

enum MHD_Result api_conditional_put(struct api_request *req)
{
    struct games_lines *l = malloc(sizeof *l);
    struct games_result r;
    char why[256];
    const char *refusal;

    if (l == NULL)
        return api_fail_oom(req);
    if ((refusal = lines_read(req->json, l, why, sizeof why)) != NULL) {
        free(l);
        return api_fail_reason(req, API_PROBLEM_BAD_REQUEST, refusal, "%s", why);
    }
    games_conditional_put(req->config->pool, req->caller.player_id, req->params[0], l, &r);
    return reply_lines(req, &r, l, true);
}

enum MHD_Result api_conditional_get(struct api_request *req)
{
    struct games_lines *l = malloc(sizeof *l);
    struct games_result r;

    if (l == NULL)
        return api_fail_oom(req);
    memset(l, 0, sizeof *l);
    games_conditional_get(req->config->pool, req->caller.player_id, req->params[0], l, &r);
    return reply_lines(req, &r, l, false);
}

enum MHD_Result api_conditional_delete(struct api_request *req)
{
    struct games_result r;
    games_conditional_delete(req->config->pool, req->caller.player_id, req->params[0], &r);
    if (r.outcome != GAMES_OK)
        return refused(req, &r, NULL);
    games_result_clear(&r);
    return api_reply(req, MHD_HTTP_NO_CONTENT,
                     MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT));
}
