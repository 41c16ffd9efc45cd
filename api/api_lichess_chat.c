/*
 * api_lichess_chat.c — a game's chat as lichess's clients use it: the
 * player room is korp's messages between the two players (GET lists them
 * as lichess's chat lines); korp has no spectator room.
 */
#include "api_lichess.h"

#include <stdlib.h>
#include <string.h>

/* The longest line lichess takes, in characters. */
#define CHAT_CHARS 140

/* UTF-8 characters in text. */
static size_t characters(const char *text)
{
    size_t n = 0;
    for (; *text != '\0'; text++)
        n += ((unsigned char)*text & 0xc0) != 0x80;
    return n;
}

enum MHD_Result api_lichess_chat_send(struct api_request *req)
{
    char room[16] = "", text[4 * CHAT_CHARS + 1] = "", why[160];
    enum MHD_Result replied;
    struct games_result r;
    char *json = NULL;

    if (!api_lichess_caller(req, &replied))
        return replied;
    api_lichess_field(req, "room", room, sizeof room);
    if (strcmp(room, "spectator") == 0)
        return api_lichess_error(req, MHD_HTTP_BAD_REQUEST,
                                 "korp has no spectator room: only the player room");
    if (strcmp(room, "player") != 0)
        return api_lichess_error(req, MHD_HTTP_BAD_REQUEST, "room must be player or spectator");
    if (!api_lichess_field(req, "text", text, sizeof text) || characters(text) > CHAT_CHARS)
        return api_lichess_error(req, MHD_HTTP_BAD_REQUEST,
                                 "text is 1 to %d characters", CHAT_CHARS);
    if (!games_message_valid(text, why, sizeof why))
        return api_lichess_error(req, MHD_HTTP_BAD_REQUEST, "%s", why);
    games_message_send(req->config->pool, req->caller.player_id, req->params[0], text, &json,
                       &r);
    free(json);
    return api_lichess_done(req, &r);
}

enum MHD_Result api_lichess_chat_list(struct api_request *req)
{
    cJSON *messages, *m, *lines;
    char *stored = NULL;
    struct db_game g;
    enum MHD_Result replied;
    enum db_status st;
    struct base_err err = { "" };

    if (!api_lichess_caller(req, &replied))
        return replied;
    if (!api_lichess_game(req, &g, &replied))
        return replied;
    if (strcmp(g.white_id, req->caller.player_id) != 0 &&
        strcmp(g.black_id, req->caller.player_id) != 0) {
        db_game_clear(&g);    /* the player room is its players' */
        return api_lichess_error(req, MHD_HTTP_NOT_FOUND, "No such game");
    }
    st = db_message_list(req->config->pool, g.id, &stored, &err);
    if (st != DB_OK) {
        db_game_clear(&g);
        return api_fail_db(req, st, err.text);
    }
    messages = cJSON_Parse(stored);
    free(stored);
    lines = cJSON_CreateArray();
    cJSON_ArrayForEach(m, cJSON_GetObjectItem(messages, "messages")) {
        const cJSON *from = cJSON_GetObjectItem(m, "from");
        const cJSON *text = cJSON_GetObjectItem(m, "text");
        bool white = cJSON_IsString(from) && strcmp(from->valuestring, "white") == 0;
        cJSON *line = cJSON_CreateObject();
        cJSON_AddStringToObject(line, "text", cJSON_IsString(text) ? text->valuestring : "");
        cJSON_AddStringToObject(line, "user", white ? g.white_name : g.black_name);
        cJSON_AddItemToArray(lines, line);
    }
    cJSON_Delete(messages);
    db_game_clear(&g);
    return api_reply_json(req, MHD_HTTP_OK, lines);
}
