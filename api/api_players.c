/*
 * api_players.c — players and their tokens: sign-up, who am I, a public
 * profile, the tokens a player (or their bot) holds, and passwords: the
 * policy (NIST SP 800-63B) and changing one.
 */
#include "api_int.h"

#include "base.h"

#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* Live tokens a player may hold at once (the sign-up's first included). */
#define TOKENS_PER_PLAYER 20
#define MAX_TOKENS_LISTED 100
/* A password's length in Unicode code points (SP 800-63B 5.1.1.2). */
#define PASSWORD_MIN 8
#define PASSWORD_MAX 128
/* Common passwords refused, embedded with the web board (web/data/README.md). */
#define COMMON_PASSWORDS "data/common-passwords.txt"

/*
 * Sign-ups hashing now.  Sign-ups take at most one of api_hash_begin's
 * slots, so that a flood of them (each a ~50 ms Argon2id) always leaves a
 * slot for people signing in.
 */
static atomic_int signups_hashing;

static bool signup_hash_begin(void)
{
    if (atomic_fetch_add(&signups_hashing, 1) >= 1 || !api_hash_begin()) {
        atomic_fetch_sub(&signups_hashing, 1);
        return false;
    }
    return true;
}

static void signup_hash_end(void)
{
    api_hash_end();
    atomic_fetch_sub(&signups_hashing, 1);
}

/* Whether password is, ignoring case, a line of the common passwords. */
static bool common_password(const char *password)
{
    size_t n = strlen(password);
    for (const struct api_web_file *f = api_web_files; f->path != NULL; f++) {
        if (strcmp(f->path, COMMON_PASSWORDS) != 0)
            continue;
        const char *line = (const char *)f->data, *end = line + f->size;
        while (line < end) {
            const char *eol = memchr(line, '\n', (size_t)(end - line));
            size_t len = (size_t)((eol != NULL ? eol : end) - line);
            if (len == n && strncasecmp(line, password, n) == 0)
                return true;
            line += len + 1;
        }
    }
    return false;
}

/* Why a password is refused, as a reason code (with words in why), or NULL. */
static const char *password_refusal(const char *password, const char *name, char *why,
                                    size_t size)
{
    size_t points = 0;
    /* The body is valid UTF-8: every byte but a continuation starts a code point. */
    for (const unsigned char *c = (const unsigned char *)password; *c; c++)
        points += (*c & 0xC0) != 0x80;
    if (points < PASSWORD_MIN || points > PASSWORD_MAX) {
        snprintf(why, size, "a password is %d to %d characters (this one has %zu); a few "
                 "words make a good one", PASSWORD_MIN, PASSWORD_MAX, points);
        return "password-length";
    }
    if (name != NULL && strcasecmp(password, name) == 0) {
        snprintf(why, size, "a password must not be the player's name");
        return "password-is-name";
    }
    if (common_password(password)) {
        snprintf(why, size, "this password is one of the most common ones, tried first by "
                 "anyone guessing; choose another (a few unrelated words make a good one)");
        return "password-common";
    }
    return NULL;
}

bool api_password_acceptable(const char *password, const char *name, char *why, size_t size)
{
    return password_refusal(password, name, why, size) == NULL;
}

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
        cJSON_AddBoolToObject(json, "email_confirmed", p->email_confirmed);
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
    /* 30 letters, sent decomposed at worst: a base letter and a 2-byte mark each. */
    { "name", API_STRING, true, false, 0, 96 },
    { "email", API_STRING, false, true, 3, 254 },
    /* Up to 128 code points of up to 4 bytes; api_password_acceptable counts. */
    { "password", API_STRING, false, false, 1, 4 * PASSWORD_MAX },
    { NULL, API_STRING, false, false, 0, 0 },
};

static enum MHD_Result name_taken(struct api_request *req, const char *name)
{
    return api_fail_reason(req, API_PROBLEM_CONFLICT, "name-taken",
                    "the name '%s' is taken (names are unique regardless of case and accents); "
                    "choose another", name);
}

enum MHD_Result api_player_create(struct api_request *req)
{
    enum MHD_Result replied;
    const char *name, *email, *password, *refusal;
    char token[BASE_TOKEN_LEN + 1], hash[BASE_PASSWORD_HASH_SIZE], why[256];
    char name_nfc[DB_NAME_SIZE];
    struct base_err err = { "" };
    struct db_player p;
    int letters;
    enum db_status st;
    cJSON *json;

    if (!api_body_check(req, player_fields, &replied))
        return replied;
    email = api_body_string(req, "email");
    switch (db_player_name_normalize(api_body_string(req, "name"), name_nfc, &letters)) {
    case DB_NAME_OK:
        break;
    case DB_NAME_NOT_LATIN:
        return api_fail_reason(req, API_PROBLEM_BAD_REQUEST, "name-not-latin",
                               "a name is written in Latin letters (with their accents, like "
                               "'Łucja' or 'Győző'), so that no two names look alike");
    default:
        return api_fail_reason(req, API_PROBLEM_BAD_REQUEST, "name-invalid",
                               "a name is 2 to 30 letters, digits, '_' or '-', like 'anna_k' "
                               "or 'Łucja'");
    }
    name = name_nfc;
    if (email != NULL && !base_email_valid(email))
        return api_fail_reason(req, API_PROBLEM_BAD_REQUEST, "email-invalid",
                        "'email' must be one address like anna@example.org");
    password = api_body_string(req, "password");
    if (password != NULL && (refusal = password_refusal(password, name, why, sizeof why)))
        return api_fail_reason(req, API_PROBLEM_BAD_REQUEST, refusal, "%s", why);
    /* Each attempt from an address counts, whatever becomes of it. */
    if (req->config->signup_limit > 0) {
        char address[64];
        bool allowed = true;
        int wait = 0;
        api_client_address(req, address, sizeof address);
        st = db_signup_count(req->config->pool, address, req->config->signup_limit, &allowed,
                             &wait, &err);
        if (st != DB_OK)
            return api_fail_db(req, st, err.text);
        if (!allowed) {
            req->retry_after = wait > 0 ? wait : 1;
            return api_fail_reason(req, API_PROBLEM_TOO_MANY_REQUESTS, "signup-limit",
                            "%d players were signed up from this address in the last hour, "
                            "the most allowed; try again in %d s",
                            req->config->signup_limit, req->retry_after);
        }
    }
    /* A taken name is answered before any hashing: the hash is the cost. */
    {
        char id[BASE_ID_SIZE], canonical[DB_NAME_SIZE], stored[BASE_PASSWORD_HASH_SIZE];
        st = db_login_find(req->config->pool, name, id, canonical, stored, sizeof stored,
                           &err);
        if (st == DB_OK)
            return name_taken(req, name);
        if (st != DB_NOT_FOUND)
            return api_fail_db(req, st, err.text);
    }
    if (password != NULL) {
        bool hashed;
        if (!signup_hash_begin()) {
            req->retry_after = 1;
            return api_fail(req, API_PROBLEM_UNAVAILABLE,
                            "korpd is hashing other passwords; try again in a second");
        }
        hashed = base_password_hash(password, hash, sizeof hash);
        signup_hash_end();
        if (!hashed)
            return api_fail_db(req, DB_HARD_ERROR, "cannot hash the password");
    }
    if (!base_token_new(token))
        return api_fail_db(req, DB_HARD_ERROR, "the random generator failed");
    st = db_player_create_in(req->config->pool, name, email, !req->config->email_confirmation,
                             password ? hash : NULL, false, token,
                             api_language_accepted(req), &p, &err);
    if (st == DB_CONFLICT)
        return name_taken(req, name);
    if (st != DB_OK)
        return api_fail_db(req, st, err.text);
    json = cJSON_CreateObject();
    cJSON_AddStringToObject(json, "id", p.id);
    cJSON_AddStringToObject(json, "name", p.name);
    cJSON_AddStringToObject(json, "token", token);
    cJSON_AddBoolToObject(json, "email_confirmed", p.email_confirmed);
    return api_reply_json(req, MHD_HTTP_CREATED, json);
}

static enum MHD_Result reply_player(struct api_request *req, const char *id, bool private_view)
{
    struct base_err err = { "" };
    struct db_player p;
    char until[DB_TIME_SIZE];
    enum db_status st = db_player_get(req->config->pool, id, &p, &err);
    cJSON *json;
    if (st == DB_NOT_FOUND)
        return api_fail(req, API_PROBLEM_NOT_FOUND, "no player has the id '%s'", id);
    if (st == DB_OK)
        st = db_leave_until(req->config->pool, id, until, &err);
    if (st != DB_OK)
        return api_fail_db(req, st, err.text);
    json = player_json(&p, private_view);
    /* Leave: the end of a leave in force, so opponents know. */
    if (until[0] != '\0')
        cJSON_AddStringToObject(json, "on_leave_until", until);
    else
        cJSON_AddNullToObject(json, "on_leave_until");
    /* Ratings and stats. */
    if ((st = api_player_json_ratings(req, json, p.id, &err)) != DB_OK) {
        cJSON_Delete(json);
        return api_fail_db(req, st, err.text);
    }
    return api_reply_json(req, MHD_HTTP_OK, json);
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
    st = db_token_create(req->config->pool, req->caller.player_id, token, TOKENS_PER_PLAYER,
                         &t, &err);
    if (st == DB_CONFLICT)
        return api_fail_reason(req, API_PROBLEM_CONFLICT, "token-limit",
                        "you hold %d tokens, the most a player may; revoke one you no longer "
                        "use (GET /v1/players/me/tokens lists them, DELETE "
                        "/v1/players/me/tokens/{id} revokes one), then ask again",
                        TOKENS_PER_PLAYER);
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
    char *json = NULL, start[DB_NAME_SIZE];
    struct base_err err = { "" };
    enum db_status st;
    enum db_name_check check = DB_NAME_LENGTH;
    int letters = 0;

    if (prefix != NULL)
        check = db_player_name_normalize(prefix, start, &letters);
    /* One letter is a start too. */
    if (prefix == NULL || (check == DB_NAME_LENGTH && letters != 1))
        return api_fail(req, API_PROBLEM_BAD_REQUEST,
                        "give the start of a name: /v1/players?name=an (1 to 30 characters)");
    if (check != DB_NAME_OK && check != DB_NAME_LENGTH)
        return api_fail(req, API_PROBLEM_BAD_REQUEST,
                        "names hold only Latin letters, digits, '_' and '-'");
    st = db_player_search(req->config->pool, start, 20, &json, &err);
    return api_reply_answer(req, st, json, err.text, 200, "no players");
}

static const struct api_field password_fields[] = {
    { "current_password", API_STRING, true, false, 1, 4 * PASSWORD_MAX },
    { "new_password", API_STRING, true, false, 1, 4 * PASSWORD_MAX },
    { NULL, API_STRING, false, false, 0, 0 },
};

/*
 * PUT /v1/players/me/password: the current password, checked (and
 * throttled) as a sign-in is, and a new one under the policy.  The
 * player's other web sessions end (this one stays, when it is one); their
 * tokens stay, as bots hold them.
 */
enum MHD_Result api_password_change(struct api_request *req)
{
    enum MHD_Result replied;
    const char *current, *fresh, *refusal;
    char id[BASE_ID_SIZE], canonical[DB_NAME_SIZE], stored[BASE_PASSWORD_HASH_SIZE] = "";
    char hash[BASE_PASSWORD_HASH_SIZE], address[64], why[256];
    struct base_err err = { "" };
    enum db_status st;
    int retry = 0;
    bool verified, hashed;

    if (!api_body_check(req, password_fields, &replied))
        return replied;
    current = api_body_string(req, "current_password");
    fresh = api_body_string(req, "new_password");
    if ((refusal = password_refusal(fresh, req->caller.name, why, sizeof why)) != NULL)
        return api_fail_reason(req, API_PROBLEM_BAD_REQUEST, refusal, "'new_password': %s", why);
    api_client_address(req, address, sizeof address);
    if (!api_login_allowed(req->caller.name, address, &retry)) {
        req->retry_after = retry;
        return api_fail(req, API_PROBLEM_TOO_MANY_REQUESTS,
                        "too many wrong passwords from here; try again in %d s", retry);
    }
    st = db_login_find(req->config->pool, req->caller.name, id, canonical, stored,
                       sizeof stored, &err);
    if (st != DB_OK && st != DB_NOT_FOUND)
        return api_fail_db(req, st, err.text);
    if (!api_hash_begin()) {
        req->retry_after = 1;
        return api_fail(req, API_PROBLEM_UNAVAILABLE,
                        "korpd is checking other passwords; try again in a second");
    }
    verified = st == DB_OK && stored[0] != '\0' && base_password_verify(stored, current);
    hashed = verified && base_password_hash(fresh, hash, sizeof hash);
    api_hash_end();
    if (st == DB_OK && stored[0] == '\0')
        return api_fail_reason(req, API_PROBLEM_CONFLICT, "no-password",
                        "this player has no password to change (a bot's account signs in "
                        "with tokens only)");
    if (!verified) {
        api_login_failed(req->caller.name, address);
        return api_fail_reason(req, API_PROBLEM_FORBIDDEN, "password-wrong",
                               "'current_password' is wrong");
    }
    if (!hashed)
        return api_fail_db(req, DB_HARD_ERROR, "cannot hash the password");
    /* This session stays ("s-<id>"); a token's request ends them all. */
    st = db_password_change(req->config->pool, req->caller.player_id, hash,
                            req->caller.by_session ? req->caller.token_id + 2 : NULL, &err);
    if (st != DB_OK)
        return api_fail_db(req, st, err.text);
    return api_reply(req, MHD_HTTP_NO_CONTENT,
                     MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT));
}
