/*
 * api_players.c — players and their tokens: sign-up, who am I, a public
 * profile, and the tokens a player (or their bot) holds.
 */
#include "api_int.h"

#include "base.h"

#include <stdio.h>
#include <string.h>

#define MAX_TOKENS_LISTED 100

/* The public record of a player: what GET /v1/players/{id} shows. */
static cJSON *player_json(const struct db_player *p, bool private_view)
{
    cJSON *json = cJSON_CreateObject();
    cJSON_AddStringToObject(json, "id", p->id);
    cJSON_AddStringToObject(json, "name", p->name);
    if (private_view) {
        if (p->email[0] != '\0')
            cJSON_AddStringToObject(json, "email", p->email);
        else
            cJSON_AddNullToObject(json, "email");
        cJSON_AddStringToObject(json, "created_at", p->created_at);
    }
    cJSON_AddStringToObject(json, "role", p->arbiter ? "arbiter" : "player");
    cJSON_AddNumberToObject(json, "played", p->played);
    cJSON_AddNumberToObject(json, "won", p->won);
    cJSON_AddNumberToObject(json, "drawn", p->drawn);
    cJSON_AddNumberToObject(json, "lost", p->lost);
    cJSON_AddNumberToObject(json, "points", p->quarter_points / 4.0);
    return json;
}

static const struct api_field player_fields[] = {
    { "name", API_STRING, true, false, 0, 64 },
    { "email", API_STRING, false, true, 3, 254 },
    { "password", API_STRING, false, false, 8, 200 },
    { NULL, API_STRING, false, false, 0, 0 },
};

enum MHD_Result api_player_create(struct api_request *req)
{
    enum MHD_Result replied;
    const char *name, *email, *password;
    char token[BASE_TOKEN_LEN + 1], hash[BASE_PASSWORD_HASH_SIZE];
    struct base_err err = { "" };
    struct db_player p;
    enum db_status st;
    cJSON *json;

    if (!api_body_check(req, player_fields, &replied))
        return replied;
    name = api_body_string(req, "name");
    email = api_body_string(req, "email");
    if (!db_player_name_valid(name))
        return api_fail(req, API_PROBLEM_BAD_REQUEST,
                        "a name is 2 to 30 letters, digits, '_' or '-', like 'anna_k'");
    if (email != NULL && !base_email_valid(email))
        return api_fail(req, API_PROBLEM_BAD_REQUEST,
                        "'email' must be one address like anna@example.org");
    password = api_body_string(req, "password");
    if (password != NULL) {
        bool hashed;
        if (!api_hash_begin())
            return api_fail(req, API_PROBLEM_UNAVAILABLE,
                            "korpd is hashing other passwords; try again in a second");
        hashed = base_password_hash(password, hash, sizeof hash);
        api_hash_end();
        if (!hashed)
            return api_fail_db(req, DB_HARD_ERROR, "cannot hash the password");
    }
    if (!base_token_new(token))
        return api_fail_db(req, DB_HARD_ERROR, "the random generator failed");
    st = db_player_create(req->config->pool, name, email, password ? hash : NULL, false, token,
                          &p, &err);
    if (st == DB_CONFLICT)
        return api_fail(req, API_PROBLEM_CONFLICT,
                        "the name '%s' is taken (names are unique regardless of case); "
                        "choose another", name);
    if (st != DB_OK)
        return api_fail_db(req, st, err.text);
    json = cJSON_CreateObject();
    cJSON_AddStringToObject(json, "id", p.id);
    cJSON_AddStringToObject(json, "name", p.name);
    cJSON_AddStringToObject(json, "token", token);
    return api_reply_json(req, MHD_HTTP_CREATED, json);
}

static enum MHD_Result reply_player(struct api_request *req, const char *id, bool private_view)
{
    struct base_err err = { "" };
    struct db_player p;
    enum db_status st = db_player_get(req->config->pool, id, &p, &err);
    if (st == DB_NOT_FOUND)
        return api_fail(req, API_PROBLEM_NOT_FOUND, "no player has the id '%s'", id);
    if (st != DB_OK)
        return api_fail_db(req, st, err.text);
    return api_reply_json(req, MHD_HTTP_OK, player_json(&p, private_view));
}

enum MHD_Result api_player_me(struct api_request *req)
{
    return reply_player(req, req->caller.player_id, true);
}

enum MHD_Result api_player_get(struct api_request *req)
{
    return reply_player(req, req->params[0], false);
}

static const struct api_field no_fields[] = {
    { NULL, API_STRING, false, false, 0, 0 },
};

enum MHD_Result api_token_create(struct api_request *req)
{
    char token[BASE_TOKEN_LEN + 1];
    struct base_err err = { "" };
    struct db_token t;
    enum db_status st;
    enum MHD_Result replied;
    cJSON *json;

    /* No body, or an empty JSON object. */
    if (req->body_len > 0 &&
        (!api_body_parse(req, &replied) || !api_body_check(req, no_fields, &replied)))
        return replied;

    if (!base_token_new(token))
        return api_fail_db(req, DB_HARD_ERROR, "the random generator failed");
    st = db_token_create(req->config->pool, req->caller.player_id, token, &t, &err);
    if (st != DB_OK)
        return api_fail_db(req, st, err.text);
    json = cJSON_CreateObject();
    cJSON_AddStringToObject(json, "id", t.id);
    cJSON_AddStringToObject(json, "token", token);
    cJSON_AddStringToObject(json, "created_at", t.created_at);
    return api_reply_json(req, MHD_HTTP_CREATED, json);
}

enum MHD_Result api_token_list(struct api_request *req)
{
    struct db_token tokens[MAX_TOKENS_LISTED];
    struct base_err err = { "" };
    int count = 0;
    enum db_status st = db_token_list(req->config->pool, req->caller.player_id, tokens,
                                      MAX_TOKENS_LISTED, &count, &err);
    cJSON *json, *list;

    if (st != DB_OK)
        return api_fail_db(req, st, err.text);
    json = cJSON_CreateObject();
    list = cJSON_AddArrayToObject(json, "tokens");
    for (int i = 0; i < count; i++) {
        cJSON *t = cJSON_CreateObject();
        cJSON_AddStringToObject(t, "id", tokens[i].id);
        cJSON_AddStringToObject(t, "created_at", tokens[i].created_at);
        if (tokens[i].last_used_at[0] != '\0')
            cJSON_AddStringToObject(t, "last_used_at", tokens[i].last_used_at);
        else
            cJSON_AddNullToObject(t, "last_used_at");
        cJSON_AddItemToArray(list, t);
    }
    return api_reply_json(req, MHD_HTTP_OK, json);
}

enum MHD_Result api_token_revoke(struct api_request *req)
{
    struct base_err err = { "" };
    enum db_status st = db_token_revoke(req->config->pool, req->caller.player_id,
                                        req->params[0], &err);
    if (st == DB_NOT_FOUND)
        return api_fail(req, API_PROBLEM_NOT_FOUND, "you hold no token with the id '%s'",
                        req->params[0]);
    if (st != DB_OK)
        return api_fail_db(req, st, err.text);
    return api_reply(req, MHD_HTTP_NO_CONTENT,
                     MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT));
}

/* Players whose name starts with ?name= (case-insensitively), to find an
 * opponent: at most 20, by name. */
enum MHD_Result api_player_search(struct api_request *req)
{
    const char *prefix = api_query(req, "name");
    char *json = NULL;
    struct base_err err = { "" };
    enum db_status st;

    if (prefix == NULL || prefix[0] == '\0' || strlen(prefix) > 30)
        return api_fail(req, API_PROBLEM_BAD_REQUEST,
                        "give the start of a name: /v1/players?name=an (1 to 30 characters)");
    if (strspn(prefix, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") !=
        strlen(prefix))
        return api_fail(req, API_PROBLEM_BAD_REQUEST,
                        "names hold only letters, digits, '_' and '-'");
    st = db_player_search(req->config->pool, prefix, 20, &json, &err);
    return api_reply_answer(req, st, json, err.text, 200, "no players");
}
