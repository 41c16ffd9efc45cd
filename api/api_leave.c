/*
 * api_leave.c — a player's leave: book whole UTC days within the
 * yearly allowance (KORP_LEAVE_DAYS_PER_YEAR), list this year's, cancel or
 * end one.  While a player is on leave no time runs in their games.
 */
#include "api_int.h"

#include "games.h"

#include <stdio.h>
#include <string.h>

#define MAX_LEAVE_LISTED 100

static cJSON *leave_json(const struct db_leave *l)
{
    cJSON *json = cJSON_CreateObject();
    cJSON_AddStringToObject(json, "id", l->id);
    cJSON_AddStringToObject(json, "start", l->start);
    cJSON_AddStringToObject(json, "end", l->end);
    cJSON_AddNumberToObject(json, "days", l->days);
    return json;
}

/* Whether text is a calendar day written YYYY-MM-DD. */
static bool day_valid(const char *text)
{
    static const int month_days[12] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
    int y, m, d;
    char end;
    if (strlen(text) != 10 || text[4] != '-' || text[7] != '-' ||
        sscanf(text, "%4d-%2d-%2d%c", &y, &m, &d, &end) != 3)
        return false;
    for (int i = 0; i < 10; i++)
        if (i != 4 && i != 7 && (text[i] < '0' || text[i] > '9'))
            return false;
    if (y < 1970 || m < 1 || m > 12 || d < 1 || d > month_days[m - 1])
        return false;
    return m != 2 || d < 29 || (y % 4 == 0 && (y % 100 != 0 || y % 400 == 0));
}

/* 422 /problems/leave-exceeded, with the year and the days left in it. */
static enum MHD_Result exceeded(struct api_request *req, const struct games_result *r,
                                const struct games_leave *l)
{
    enum api_problem p = api_outcome_problem(r->outcome);
    cJSON *json = api_problem_new(p, r->detail);
    if (json == NULL || cJSON_AddNumberToObject(json, "year", l->year) == NULL ||
        cJSON_AddNumberToObject(json, "remaining", l->left) == NULL) {
        cJSON_Delete(json);
        return api_fail_oom(req);
    }
    return api_reply_problem(req, p, json);
}

static enum MHD_Result leave_refused(struct api_request *req, const struct games_result *r,
                                     const struct games_leave *l)
{
    if (r->outcome == GAMES_LEAVE_EXCEEDED)
        return exceeded(req, r, l);
    return api_reply_refused(req, r);
}

static const struct api_field leave_fields[] = {
    { "start", API_STRING, true, false, 10, 10 },
    { "days", API_INTEGER, true, false, 1, 366 },
    { NULL, API_STRING, false, false, 0, 0 },
};

enum MHD_Result api_leave_book(struct api_request *req)
{
    enum MHD_Result replied;
    struct games_leave l;
    struct games_result r;
    const char *start;

    if (!api_body_check(req, leave_fields, &replied))
        return replied;
    start = api_body_string(req, "start");
    if (!day_valid(start))
        return api_fail(req, API_PROBLEM_BAD_REQUEST,
                        "'start' must be a day written YYYY-MM-DD, like \"2026-12-24\"");
    games_leave_book(req->config->pool, req->caller.player_id, start,
                     (int)api_body_integer(req, "days", 1, NULL),
                     req->config->leave_days_per_year, &l, &r);
    if (r.outcome != GAMES_OK)
        return leave_refused(req, &r, &l);
    return api_reply_json(req, MHD_HTTP_CREATED, leave_json(&l.booking));
}

enum MHD_Result api_leave_list(struct api_request *req)
{
    struct db_leave list[MAX_LEAVE_LISTED];
    struct base_err err = { "" };
    int count = 0, used = 0, allowance = req->config->leave_days_per_year;
    enum db_status st = db_leave_list(req->config->pool, req->caller.player_id, list,
                                      MAX_LEAVE_LISTED, &count, &used, &err);
    cJSON *json, *bookings;

    if (st != DB_OK)
        return api_fail_db(req, st, err.text);
    json = cJSON_CreateObject();
    cJSON_AddNumberToObject(json, "allowance", allowance);
    cJSON_AddNumberToObject(json, "used", used);
    cJSON_AddNumberToObject(json, "remaining", used < allowance ? allowance - used : 0);
    bookings = cJSON_AddArrayToObject(json, "bookings");
    for (int i = 0; i < count; i++)
        cJSON_AddItemToArray(bookings, leave_json(&list[i]));
    return api_reply_json(req, MHD_HTTP_OK, json);
}

enum MHD_Result api_leave_cancel(struct api_request *req)
{
    struct games_result r;
    games_leave_cancel(req->config->pool, req->caller.player_id, req->params[0], &r);
    if (r.outcome != GAMES_OK)
        return leave_refused(req, &r, NULL);
    return api_reply(req, MHD_HTTP_NO_CONTENT,
                     MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT));
}
