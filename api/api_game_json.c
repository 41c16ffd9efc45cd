/*
 * api_game_json.c — the game object of the API (a state change's answer is
 * written by api_outcomes.c).
 */
#include "api_int.h"

#include "games.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void add_text_or_null(cJSON *json, const char *name, const char *text)
{
    if (text != NULL && text[0] != '\0')
        cJSON_AddStringToObject(json, name, text);
    else
        cJSON_AddNullToObject(json, name);
}

static cJSON *player_ref(const char *id, const char *name)
{
    cJSON *p = cJSON_CreateObject();
    cJSON_AddStringToObject(p, "id", id);
    cJSON_AddStringToObject(p, "name", name);
    return p;
}

cJSON *api_clock_json(const struct db_clock *c, const struct db_game *g)
{
    cJSON *json, *left;
    if (c->type == DB_CLOCK_NONE)
        return cJSON_CreateNull();
    json = cJSON_CreateObject();
    cJSON_AddStringToObject(json, "type", db_clock_type_text(c->type));
    if (c->type == DB_CLOCK_PER_MOVE) {
        cJSON_AddNumberToObject(json, "days", c->days);
    } else {
        cJSON_AddNumberToObject(json, "initial_days", c->initial_days);
        cJSON_AddNumberToObject(json, "increment_days", c->increment_days);
        cJSON_AddNumberToObject(json, "max_days", c->max_days);
    }
    if (g == NULL)
        return json;
    left = cJSON_AddObjectToObject(json, "remaining");
    cJSON_AddNumberToObject(left, "white", (double)g->remaining_white);
    cJSON_AddNumberToObject(left, "black", (double)g->remaining_black);
    add_text_or_null(json, "paused_until", g->paused_until);
    return json;
}

cJSON *api_game_json(const struct db_game *g)
{
    cJSON *json = cJSON_CreateObject(), *moves;
    bool active = g->status == DB_GAME_ACTIVE;

    cJSON_AddStringToObject(json, "id", g->id);
    cJSON_AddStringToObject(json, "variant", g->variant ? g->variant->name : "");
    cJSON_AddItemToObject(json, "white", player_ref(g->white_id, g->white_name));
    cJSON_AddItemToObject(json, "black", player_ref(g->black_id, g->black_name));
    cJSON_AddStringToObject(json, "status", db_game_status_text(g->status));
    cJSON_AddStringToObject(json, "result", rules_result_text(g->result));
    add_text_or_null(json, "termination", db_termination_text(g->termination));
    add_text_or_null(json, "adjudication_reason",
                     g->termination == DB_END_ADJUDICATION ? g->adjudication_reason : NULL);
    cJSON_AddStringToObject(json, "fen", g->fen);
    cJSON_AddNumberToObject(json, "ply", g->ply);
    /* Both variants start with White and alternate, drops included. */
    cJSON_AddStringToObject(json, "to_move", g->ply % 2 == 0 ? "white" : "black");
    moves = cJSON_AddArrayToObject(json, "moves");
    if (g->sans != NULL) {
        const char *p = g->sans;
        while (*p != '\0') {
            size_t n = strcspn(p, " ");
            char san[RULES_MOVE_TEXT_MAX];
            if (n > 0 && n < sizeof san) {
                memcpy(san, p, n);
                san[n] = '\0';
                cJSON_AddItemToArray(moves, cJSON_CreateString(san));
            }
            p += n;
            while (*p == ' ')
                p++;
        }
    }
    if (g->days_per_move > 0)
        cJSON_AddNumberToObject(json, "days_per_move", g->days_per_move);
    else
        cJSON_AddNullToObject(json, "days_per_move");
    add_text_or_null(json, "deadline", active ? g->deadline : NULL);
    cJSON_AddItemToObject(json, "clock", api_clock_json(&g->clock, g));
    cJSON_AddBoolToObject(json, "leave_allowed", g->clock.leave_allowed);
    add_text_or_null(json, "draw_offer", active ? db_color_text(g->draw_offer) : NULL);
    cJSON_AddBoolToObject(json, "fifty_move_rule", g->fifty_move_rule);
    cJSON_AddStringToObject(json, "created_at", g->created_at);
    cJSON_AddStringToObject(json, "updated_at", g->updated_at);
    api_game_json_ratings(json, g);
    add_text_or_null(json, "tournament_id", g->tournament_id);
    cJSON_AddStringToObject(json, "engines", api_engines_text(g->engines_allowed));
    return json;
}

const char *api_query(struct api_request *req, const char *name)
{
    return MHD_lookup_connection_value(req->conn, MHD_GET_ARGUMENT_KIND, name);
}
