/*
 * api_give_time.c — a player gives their opponent, who is to move, days
 * more: on the deadline, or on a Fischer clock's time.
 */
#include "api_int.h"

#include "games.h"

static const struct api_field give_time_fields[] = {
    { "days", API_INTEGER, true, false, 1, 7 },
    { NULL, API_STRING, false, false, 0, 0 },
};

enum MHD_Result api_game_give_time(struct api_request *req)
{
    enum MHD_Result replied;
    struct games_result r;

    if (!api_body_check(req, give_time_fields, &replied))
        return replied;
    games_give_time(req->config->pool, req->caller.player_id, req->params[0],
                    (int)api_body_integer(req, "days", 1, NULL), &r);
    return api_reply_outcome(req, &r, MHD_HTTP_OK, NULL);
}
