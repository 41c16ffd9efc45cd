/*
 * api_session.c — people signing in on the web board: a name and password
 * give a session cookie (HttpOnly, SameSite=Strict, Secure behind https)
 * and a CSRF token that the page sends back (X-CSRF-Token) with every
 * change.  Bots keep their bearer tokens.  A player sees their sessions
 * and may end all but the one in use; a session lasts 30 days from its
 * last use and at most KORP_SESSION_MAX_DAYS from its sign-in.
 */
#include "api_int.h"

#include "base.h"
#include "notify.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#define SESSION_SECONDS (30 * 24 * 3600)

static const struct api_field login_fields[] = {
    { "name", API_STRING, true, false, 1, 64 },
    { "password", API_STRING, true, false, 1, 200 },
    { NULL, API_STRING, false, false, 0, 0 },
};

/* Whether korpd is reached over https (KORP_PUBLIC_URL): cookies are Secure. */
static bool secure(const struct api_request *req)
{
    const struct notify_config *n = req->config->notify;
    return n != NULL && n->public_url != NULL && strncmp(n->public_url, "https://", 8) == 0;
}

/* The cookie's name: with https, "__Host-" makes browsers refuse one set
 * by another host (a sibling subdomain) or for a narrower path. */
static const char *cookie_name(const struct api_request *req)
{
    return secure(req) ? "__Host-" API_SESSION_COOKIE : API_SESSION_COOKIE;
}

const char *api_session_cookie(struct api_request *req)
{
    const char *v = MHD_lookup_connection_value(req->conn, MHD_COOKIE_KIND, cookie_name(req));
    return v != NULL && v[0] != '\0' && strlen(v) <= 128 ? v : NULL;
}

static void set_cookie(struct MHD_Response *resp, const struct api_request *req,
                       const char *value, int max_age)
{
    char cookie[256];
    snprintf(cookie, sizeof cookie, "%s=%s; Path=/; HttpOnly; SameSite=Strict; Max-Age=%d%s",
             cookie_name(req), value, max_age, secure(req) ? "; Secure" : "");
    MHD_add_response_header(resp, MHD_HTTP_HEADER_SET_COOKIE, cookie);
}

static cJSON *session_json(const char *player_id, const char *name, const char *csrf)
{
    cJSON *json = cJSON_CreateObject(), *player = cJSON_AddObjectToObject(json, "player");
    cJSON_AddStringToObject(player, "id", player_id);
    cJSON_AddStringToObject(player, "name", name);
    cJSON_AddStringToObject(json, "csrf_token", csrf);
    return json;
}

/* Replies with a session's JSON, setting (or renewing) its cookie. */
static enum MHD_Result reply_session(struct api_request *req, const char *player_id,
                                     const char *name, const char *csrf, const char *cookie)
{
    cJSON *json = session_json(player_id, name, csrf);
    char *text = cJSON_PrintUnformatted(json);
    struct MHD_Response *resp;

    cJSON_Delete(json);
    if (text == NULL)
        return api_fail_oom(req);
    resp = MHD_create_response_from_buffer(strlen(text), text, MHD_RESPMEM_MUST_FREE);
    if (resp != NULL) {
        MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, "application/json");
        MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
        set_cookie(resp, req, cookie, SESSION_SECONDS);
    }
    return api_reply(req, MHD_HTTP_OK, resp);
}


enum MHD_Result api_session_create(struct api_request *req)
{
    enum MHD_Result replied;
    const char *name, *password;
    char id[BASE_ID_SIZE] = "", canonical[DB_NAME_SIZE] = "", hash[BASE_PASSWORD_HASH_SIZE] = "";
    char address[64], cookie[BASE_TOKEN_LEN + 1], csrf[BASE_TOKEN_LEN + 1];
    struct base_err err = { "" };
    int retry = 0;
    enum db_status st;
    bool good;

    if (!api_body_check(req, login_fields, &replied))
        return replied;
    name = api_body_string(req, "name");
    password = api_body_string(req, "password");
    if (!db_player_name_valid(name))
        return api_fail(req, API_PROBLEM_UNAUTHORIZED, "the name or the password is wrong");
    api_client_address(req, address, sizeof address);
    if (!api_login_allowed(name, address, &retry)) {
        req->retry_after = retry;
        return api_fail(req, API_PROBLEM_TOO_MANY_REQUESTS,
                        "too many wrong passwords from here; try again in %d s", retry);
    }
    st = db_login_find(req->config->pool, name, id, canonical, hash, sizeof hash, &err);
    if (st != DB_OK && st != DB_NOT_FOUND)
        return api_fail_db(req, st, err.text);
    if (!api_hash_begin()) {
        req->retry_after = 1;
        return api_fail(req, API_PROBLEM_UNAVAILABLE,
                        "korpd is checking other passwords; try again in a second");
    }
    /* An unknown name costs a hash as long as a known one's check, so that
     * the time taken does not tell which names exist. */
    if (st != DB_OK || hash[0] == '\0') {
        char wasted[BASE_PASSWORD_HASH_SIZE];
        base_password_hash(password, wasted, sizeof wasted);
        good = false;
    } else {
        good = base_password_verify(hash, password);
    }
    api_hash_end();
    if (!good) {
        api_login_failed(name, address);
        return api_fail(req, API_PROBLEM_UNAUTHORIZED, "the name or the password is wrong");
    }
    if (!base_token_new(cookie) || !base_token_new(csrf))
        return api_fail_db(req, DB_HARD_ERROR, "the random generator failed");
    st = db_session_create(req->config->pool, id, cookie, csrf, req->config->session_max_days,
                           &err);
    if (st != DB_OK)
        return api_fail_db(req, st, err.text);
    return reply_session(req, id, canonical, csrf, cookie);
}

enum MHD_Result api_session_get(struct api_request *req)
{
    const char *cookie = api_session_cookie(req);
    char csrf[64] = "";
    struct base_err err = { "" };
    struct db_caller caller;
    enum db_status st;

    if (cookie == NULL)
        return api_fail(req, API_PROBLEM_UNAUTHORIZED, "you are not signed in");
    st = db_session_find(req->config->pool, cookie, req->config->session_max_days, &caller, csrf,
                         &err);
    if (st == DB_NOT_FOUND)
        return api_fail(req, API_PROBLEM_UNAUTHORIZED,
                        "your session has ended: sign in again");
    if (st != DB_OK)
        return api_fail_db(req, st, err.text);
    /* The cookie lasts 30 days from the last visit, as the session does. */
    return reply_session(req, caller.player_id, caller.name, csrf, cookie);
}

enum MHD_Result api_session_delete(struct api_request *req)
{
    const char *cookie = api_session_cookie(req);
    struct base_err err = { "" };
    struct MHD_Response *resp;
    enum db_status st;

    if (!req->caller.by_session || cookie == NULL)
        return api_fail(req, API_PROBLEM_BAD_REQUEST,
                        "only a web session signs out (a bot revokes its token instead: "
                        "DELETE /v1/players/me/tokens/{id})");
    st = db_session_delete(req->config->pool, cookie, &err);
    if (st != DB_OK && st != DB_NOT_FOUND)
        return api_fail_db(req, st, err.text);
    resp = MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT);
    if (resp != NULL)
        set_cookie(resp, req, "", 0);
    return api_reply(req, MHD_HTTP_NO_CONTENT, resp);
}

/*
 * The caller of a request without a bearer token, from the session cookie;
 * false when there is none (not a reply).  A change (any method but GET
 * and HEAD) must also carry the session's CSRF token, or it is refused
 * (*refused set, 403 sent).
 */
bool api_session_caller(struct api_request *req, bool *refused, enum MHD_Result *replied)
{
    const char *cookie = api_session_cookie(req);
    const char *sent = MHD_lookup_connection_value(req->conn, MHD_HEADER_KIND, "X-CSRF-Token");
    struct base_err err = { "" };
    enum db_status st;

    *refused = false;
    if (cookie == NULL)
        return false;
    st = db_session_find(req->config->pool, cookie, req->config->session_max_days, &req->caller,
                         req->csrf, &err);
    if (st != DB_OK) {
        memset(&req->caller, 0, sizeof req->caller);
        if (st != DB_NOT_FOUND) {
            *refused = true;
            *replied = api_fail_db(req, st, err.text);
        }
        return false;
    }
    if (strcmp(req->method, "GET") != 0 && strcmp(req->method, "HEAD") != 0 &&
        (sent == NULL || !base_secret_equal(sent, req->csrf))) {
        *refused = true;
        *replied = api_fail(req, API_PROBLEM_FORBIDDEN,
                            "a change made with the session cookie needs the X-CSRF-Token "
                            "header (the csrf_token of POST or GET /v1/session)");
        return false;
    }
    req->authenticated = true;
    return true;
}

#define MAX_SESSIONS_LISTED 100

/* GET /v1/players/me/sessions: the player's live web sessions, oldest
 * first, the one making the request marked current. */
enum MHD_Result api_session_list(struct api_request *req)
{
    struct db_session_info sessions[MAX_SESSIONS_LISTED];
    struct base_err err = { "" };
    int count = 0;
    enum db_status st = db_session_list(req->config->pool, req->caller.player_id,
                                        req->config->session_max_days, sessions,
                                        MAX_SESSIONS_LISTED, &count, &err);
    const char *current = req->caller.by_session ? req->caller.token_id + 2 : "";
    cJSON *json, *list;

    if (st != DB_OK)
        return api_fail_db(req, st, err.text);
    json = cJSON_CreateObject();
    list = cJSON_AddArrayToObject(json, "sessions");
    for (int i = 0; i < count; i++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "id", sessions[i].id);
        cJSON_AddStringToObject(o, "created_at", sessions[i].created_at);
        cJSON_AddStringToObject(o, "last_seen_at", sessions[i].last_seen_at);
        cJSON_AddStringToObject(o, "expires_at", sessions[i].expires_at);
        cJSON_AddBoolToObject(o, "current", strcmp(sessions[i].id, current) == 0);
        cJSON_AddItemToArray(list, o);
    }
    return api_reply_json(req, MHD_HTTP_OK, json);
}

/* DELETE /v1/players/me/sessions: signs out everywhere but here (with a
 * token: everywhere).  Event streams opened by those sessions end. */
enum MHD_Result api_sessions_end(struct api_request *req)
{
    struct base_err err = { "" };
    int ended = 0;
    enum db_status st = db_sessions_end(req->config->pool, req->caller.player_id,
                                        req->caller.by_session ? req->caller.token_id + 2 : NULL,
                                        &ended, &err);
    cJSON *json;

    if (st != DB_OK)
        return api_fail_db(req, st, err.text);
    json = cJSON_CreateObject();
    cJSON_AddNumberToObject(json, "ended", ended);
    return api_reply_json(req, MHD_HTTP_OK, json);
}
