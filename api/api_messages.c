/*
 * api_messages.c — a player's private notes on a game and the messages of
 * its players.  Notes are their author's alone (404 for anyone
 * else); messages are the players' (and arbiters') while the game runs,
 * and everyone's once it is over.
 */
#include "api_int.h"

#include "base.h"
#include "games.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOTE_CHARS 20000

/* The caller of a route that needs no token: the bearer token (already
 * read), else the web board's session; false when there is none. */
static bool caller_known(struct api_request *req, enum MHD_Result *replied, bool *failed)
{
    bool refused = false;
    *failed = false;
    if (req->authenticated)
        return true;
    if (api_session_caller(req, &refused, replied))
        return true;
    *failed = refused;
    return false;
}

static size_t utf8_chars(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xc0) != 0x80;
    return n;
}

static cJSON *note_json(const char *text, const char *updated_at)
{
    cJSON *json = cJSON_CreateObject();
    cJSON_AddStringToObject(json, "text", text != NULL ? text : "");
    if (updated_at[0] != '\0')
        cJSON_AddStringToObject(json, "updated_at", updated_at);
    else
        cJSON_AddNullToObject(json, "updated_at");
    return json;
}

static enum MHD_Result not_yours(struct api_request *req)
{
    return api_fail(req, API_PROBLEM_NOT_FOUND, "no game with the id '%s' that you play",
                    req->params[0]);
}

enum MHD_Result api_note_get(struct api_request *req)
{
    char *text = NULL, updated_at[DB_TIME_SIZE];
    struct base_err err = { "" };
    enum db_status st = db_note_get(req->config->pool, req->params[0], req->caller.player_id,
                                    &text, updated_at, &err);
    enum MHD_Result rc;

    if (st == DB_NOT_FOUND)
        return not_yours(req);
    if (st != DB_OK)
        return api_fail_db(req, st, err.text);
    rc = api_reply_json(req, MHD_HTTP_OK, note_json(text, updated_at));
    free(text);
    return rc;
}

static const struct api_field note_fields[] = {
    { "text", API_STRING, true, false, 0, API_BODY_LIMIT },
    { NULL, API_STRING, false, false, 0, 0 },
};

enum MHD_Result api_note_put(struct api_request *req)
{
    char updated_at[DB_TIME_SIZE];
    struct games_result r;
    enum MHD_Result replied;
    const char *text;

    if (!api_body_check(req, note_fields, &replied))
        return replied;
    text = api_body_string(req, "text");
    if (utf8_chars(text) > NOTE_CHARS)
        return api_fail(req, API_PROBLEM_BAD_REQUEST, "a note is at most %d characters, not %zu",
                        NOTE_CHARS, utf8_chars(text));
    games_note_put(req->config->pool, req->caller.player_id, req->params[0], text, updated_at,
                   &r);
    if (r.outcome != GAMES_OK)
        return api_reply_refusal(req, r.outcome, r.detail, r.db, r.err.text);
    return api_reply_json(req, MHD_HTTP_OK, note_json(text, updated_at));
}

/* Whether a PGN comment may hold the text: '}' would end it. */
static void comment_mend(char *text)
{
    for (char *p = text; *p; p++)
        if (*p == '}')
            *p = ')';
}

bool api_pgn_notes(struct api_request *req, const char *game_id, char **pgn,
                   enum MHD_Result *replied)
{
    const char *notes = api_query(req, "notes");
    char *text = NULL, updated_at[DB_TIME_SIZE], *with = NULL, *movetext;
    struct base_err err = { "" };
    enum db_status st;
    bool failed;
    size_t head;

    if (notes == NULL || strcmp(notes, "false") == 0)
        return true;
    if (strcmp(notes, "true") != 0) {
        *replied = api_fail(req, API_PROBLEM_BAD_REQUEST, "'notes' must be true or false");
        return false;
    }
    if (!caller_known(req, replied, &failed)) {
        if (!failed)
            *replied = api_fail(req, API_PROBLEM_UNAUTHORIZED,
                                "notes are their author's: send your token with notes=true");
        return false;
    }
    st = db_note_get(req->config->pool, game_id, req->caller.player_id, &text, updated_at, &err);
    if (st == DB_NOT_FOUND || (st == DB_OK && (text == NULL || text[0] == '\0'))) {
        free(text);
        return true;    /* no notes of the caller's: the game as anyone reads it */
    }
    if (st != DB_OK) {
        *replied = api_fail_db(req, st, err.text);
        return false;
    }
    comment_mend(text);
    /* The comment opens the movetext, after the tags' blank line. */
    movetext = strstr(*pgn, "\n\n");
    head = movetext != NULL ? (size_t)(movetext - *pgn) + 2 : 0;
    {
        struct base_text t = { 0 };
        base_text_add(&t, *pgn, head);
        base_text_put(&t, "{%s}\n", text);
        base_text_str(&t, *pgn + head);
        with = base_text_take(&t);
    }
    free(text);
    if (with == NULL) {
        *replied = MHD_NO;
        return false;
    }
    free(*pgn);
    *pgn = with;
    return true;
}

/* ---- Messages ------------------------------------------------------------ */

enum MHD_Result api_message_list(struct api_request *req)
{
    struct base_err err = { "" };
    enum MHD_Result replied;
    struct db_game g;
    char *json = NULL;
    enum db_status st;
    bool failed, allowed;

    memset(&g, 0, sizeof g);
    st = db_game_get(req->config->pool, req->params[0], &g, &err);
    if (st == DB_NOT_FOUND)
        return api_fail(req, API_PROBLEM_NOT_FOUND, "no game has the id '%s'", req->params[0]);
    if (st != DB_OK)
        return api_fail_db(req, st, err.text);
    allowed = g.status != DB_GAME_ACTIVE;
    if (!allowed && caller_known(req, &replied, &failed))
        allowed = req->caller.arbiter || strcmp(req->caller.player_id, g.white_id) == 0 ||
                  strcmp(req->caller.player_id, g.black_id) == 0;
    else if (!allowed && failed) {
        db_game_clear(&g);
        return replied;
    }
    db_game_clear(&g);
    if (!allowed)
        return api_fail(req, API_PROBLEM_FORBIDDEN,
                        "the players' messages are shown to others once the game is over");
    st = db_message_list(req->config->pool, req->params[0], &json, &err);
    if (st != DB_OK)
        return api_fail_db(req, st, err.text);
    return api_reply_stored(req, MHD_HTTP_OK, json);
}

bool api_message_allowed(struct api_request *req, const char *text, enum MHD_Result *replied)
{
    char why[160];
    struct base_err err = { "" };
    int count = 0, wait = 1;
    enum db_status st;

    if (!games_message_valid(text, why, sizeof why)) {
        *replied = api_fail(req, API_PROBLEM_BAD_REQUEST, "'message': %s", why);
        return false;
    }
    st = db_message_count(req->config->pool, req->params[0], req->caller.player_id, &count,
                          &wait, &err);
    if (st != DB_OK) {
        *replied = api_fail_db(req, st, err.text);
        return false;
    }
    if (count < GAMES_MESSAGES_PER_DAY)
        return true;
    req->retry_after = wait > 0 ? wait : 1;
    *replied = api_fail(req, API_PROBLEM_TOO_MANY_REQUESTS,
                        "you have sent %d messages in this game today (UTC), the most a day "
                        "allows; more from 00:00 UTC", GAMES_MESSAGES_PER_DAY);
    return false;
}

static const struct api_field message_fields[] = {
    { "text", API_STRING, true, false, 1, 4 * GAMES_MESSAGE_CHARS },
    { NULL, API_STRING, false, false, 0, 0 },
};

enum MHD_Result api_message_send(struct api_request *req)
{
    enum MHD_Result replied;
    struct games_result r;
    const char *text;
    char *json = NULL, why[160];
    int count = 0, wait = 1;
    struct base_err err = { "" };

    if (!api_body_check(req, message_fields, &replied))
        return replied;
    text = api_body_string(req, "text");
    if (!games_message_valid(text, why, sizeof why))
        return api_fail(req, API_PROBLEM_BAD_REQUEST, "'text': %s", why);
    games_message_send(req->config->pool, req->caller.player_id, req->params[0], text, &json, &r);
    if (r.outcome == GAMES_DAILY_LIMIT) {
        if (db_message_count(req->config->pool, req->params[0], req->caller.player_id, &count,
                             &wait, &err) == DB_OK)
            req->retry_after = wait > 0 ? wait : 1;
        replied = api_reply_refusal(req, r.outcome, r.detail, r.db, r.err.text);
        games_result_clear(&r);
        return replied;
    }
    if (r.outcome != GAMES_OK)
        return api_reply_outcome(req, &r, MHD_HTTP_CREATED, NULL);
    games_result_clear(&r);
    return api_reply_stored(req, MHD_HTTP_CREATED, json);
}
