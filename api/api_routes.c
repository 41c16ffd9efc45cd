/*
 * api_routes.c — the route table: method, path pattern, needs, handler.
 * A pattern segment "{name}" captures one path segment into req->params,
 * in order.  No match is 404; a path that matches under other methods
 * only is 405 with an Allow header.
 */
#include "api_int.h"
#include "api_lichess.h"

#include <stdio.h>
#include <string.h>

struct route {
    const char *method;
    const char *pattern;
    unsigned needs;          /* API_JSON_BODY … */
    api_handler handler;
};

static const struct route routes[] = {
    /* The web board: its page at every address people open, its files. */
    { "GET", "/", API_UNLIMITED, api_web_page },
    { "GET", "/games/{id}", API_UNLIMITED, api_web_page },
    { "GET", "/players/{id}", API_UNLIMITED, api_web_page },
    { "GET", "/challenges/{id}", API_UNLIMITED, api_web_page },
    { "GET", "/settings", API_UNLIMITED, api_web_page },
    { "GET", "/login", API_UNLIMITED, api_web_page },
    { "GET", "/signup", API_UNLIMITED, api_web_page },
    { "GET", "/new", API_UNLIMITED, api_web_page },
    { "GET", "/study", API_UNLIMITED, api_web_page },
    { "GET", "/learn/{id}", API_UNLIMITED, api_web_page },
    { "GET", "/tournaments", API_UNLIMITED, api_web_page },
    { "GET", "/tournaments/{id}", API_UNLIMITED, api_web_page },
    { "GET", "/leaderboard/{variant}", API_UNLIMITED, api_web_page },
    { "GET", "/arbiter", API_UNLIMITED, api_web_page },
    { "GET", "/assets/{path*}", API_UNLIMITED | API_FILE_PATH, api_web_asset },
    { "GET", "/favicon.ico", API_UNLIMITED, api_web_icon },
    { "GET", "/manifest.webmanifest", API_UNLIMITED, api_web_root_file },
    { "GET", "/sw.js", API_UNLIMITED, api_web_root_file },
    { "GET", "/healthz", API_UNLIMITED, api_health },
    /* Answered by the GET row above (HEAD of an unlimited GET); this row
     * only makes a 405 on /healthz list HEAD in its Allow header. */
    { "HEAD", "/healthz", API_UNLIMITED, api_health },
    { "POST", "/v1/players", API_JSON_BODY, api_player_create },
    { "GET", "/v1/players/me", API_TOKEN, api_player_me },
    { "POST", "/v1/players/me/tokens", API_TOKEN, api_token_create },
    { "GET", "/v1/players/me/tokens", API_TOKEN, api_token_list },
    { "DELETE", "/v1/players/me/tokens/{id}", API_TOKEN, api_token_revoke },
    { "PUT", "/v1/players/me/password", API_TOKEN | API_JSON_BODY, api_password_change },
    { "GET", "/v1/players/me/sessions", API_TOKEN, api_session_list },
    { "GET", "/v1/players/me/warnings", API_TOKEN, api_player_warnings },
    { "DELETE", "/v1/players/me/sessions", API_TOKEN, api_sessions_end },
    { "GET", "/v1/players/{id}", 0, api_player_get },
    { "GET", "/v1/players", 0, api_player_search },
    { "POST", "/v1/session", API_JSON_BODY, api_session_create },
    { "GET", "/v1/session", 0, api_session_get },
    { "DELETE", "/v1/session", API_TOKEN, api_session_delete },
    { "POST", "/v1/challenges", API_TOKEN | API_JSON_BODY, api_challenge_create },
    { "GET", "/v1/challenges", API_TOKEN, api_challenge_list },
    { "GET", "/v1/challenges/open", 0, api_challenge_open },
    { "GET", "/v1/challenges/{id}", 0, api_challenge_get },
    { "POST", "/v1/challenges/{id}/accept", API_TOKEN, api_challenge_accept },
    { "POST", "/v1/challenges/{id}/decline", API_TOKEN, api_challenge_decline },
    { "POST", "/v1/challenges/{id}/cancel", API_TOKEN, api_challenge_cancel },
    { "GET", "/v1/games", 0, api_game_list },
    { "GET", "/v1/games/{id}", API_QUICK, api_game_get },
    { "GET", "/v1/games/{id}/moves", 0, api_game_moves },
    { "POST", "/v1/games/{id}/moves", API_TOKEN | API_JSON_BODY, api_game_move },
    { "GET", "/v1/games/{id}/legal-moves", API_QUICK, api_game_legal_moves },
    { "GET", "/v1/games/{id}/pgn", API_QUICK, api_game_pgn },
    { "GET", "/v1/games/{id}/analysis", 0, api_game_analysis },
    { "POST", "/v1/games/{id}/claims", API_TOKEN | API_JSON_BODY, api_game_claim },
    { "POST", "/v1/games/{id}/draw", API_TOKEN | API_JSON_BODY, api_game_draw },
    { "POST", "/v1/games/{id}/resign", API_TOKEN, api_game_resign },
    { "POST", "/v1/games/{id}/abort", API_TOKEN, api_game_abort },
    { "POST", "/v1/games/{id}/adjudication", API_TOKEN | API_ARBITER | API_JSON_BODY,
      api_game_adjudicate },
    { "GET", "/v1/events", 0, api_events },
    { "GET", "/v1/players/me/notifications", API_TOKEN, api_notifications_get },
    { "PUT", "/v1/players/me/notifications", API_TOKEN | API_JSON_BODY, api_notifications_put },
    { "GET", "/v1/unsubscribe", 0, api_unsubscribe },
    { "POST", "/v1/unsubscribe", 0, api_unsubscribe },
    { "GET", "/v1/email/confirm", 0, api_email_confirm },
    { "POST", "/v1/email/confirm", 0, api_email_confirm },
    { "POST", "/v1/players/me/email/confirmation", API_TOKEN, api_email_confirm_resend },
    { "GET", "/v1/push/key", 0, api_push_key },
    { "POST", "/v1/players/me/push-subscriptions", API_TOKEN | API_JSON_BODY,
      api_push_subscribe },
    { "GET", "/v1/players/me/push-subscriptions", API_TOKEN, api_push_subscription_list },
    { "DELETE", "/v1/players/me/push-subscriptions/{id}", API_TOKEN,
      api_push_subscription_delete },
    { "POST", "/v1/replay", API_JSON_BODY, api_replay },
    { "POST", "/v1/webhooks", API_TOKEN | API_JSON_BODY, api_webhook_create },
    { "GET", "/v1/webhooks", API_TOKEN, api_webhook_list },
    { "GET", "/v1/webhooks/{id}", API_TOKEN, api_webhook_get },
    { "DELETE", "/v1/webhooks/{id}", API_TOKEN, api_webhook_delete },
    { "POST", "/v1/webhooks/{id}/rotate-secret", API_TOKEN, api_webhook_rotate },
    { "POST", "/v1/webhooks/{id}/enable", API_TOKEN, api_webhook_enable },
    { "GET", "/v1/webhooks/{id}/deliveries", API_TOKEN, api_webhook_deliveries },
    { "POST", "/v1/webhooks/{id}/deliveries/{delivery}/retry", API_TOKEN, api_webhook_retry },
    /* Conditional moves, notes and messages. */
    { "PUT", "/v1/games/{id}/conditional-moves", API_TOKEN | API_JSON_BODY, api_conditional_put },
    { "GET", "/v1/games/{id}/conditional-moves", API_TOKEN, api_conditional_get },
    { "DELETE", "/v1/games/{id}/conditional-moves", API_TOKEN, api_conditional_delete },
    { "PUT", "/v1/games/{id}/notes", API_TOKEN | API_JSON_BODY, api_note_put },
    { "GET", "/v1/games/{id}/notes", API_TOKEN, api_note_get },
    { "POST", "/v1/games/{id}/messages", API_TOKEN | API_JSON_BODY, api_message_send },
    { "GET", "/v1/games/{id}/messages", 0, api_message_list },
    /* Ratings. */
    { "GET", "/v1/players/{id}/rating-history", 0, api_player_rating_history },
    { "GET", "/v1/leaderboard/{variant}", 0, api_leaderboard },
    { "POST", "/v1/games/{id}/arbiter-request", API_TOKEN | API_JSON_BODY,
      api_game_arbiter_request },
    { "GET", "/v1/arbiter/queue", API_TOKEN | API_ARBITER, api_arbiter_queue },
    { "GET", "/v1/games/{id}/fairplay", API_TOKEN | API_ARBITER, api_game_fairplay },
    { "GET", "/v1/arbiter/fairplay", API_TOKEN | API_ARBITER, api_arbiter_fairplay },
    { "POST", "/v1/arbiter/queue/{id}/dismiss", API_TOKEN | API_ARBITER | API_JSON_BODY,
      api_arbiter_dismiss },
    { "POST", "/v1/arbiter/queue/{id}/warn", API_TOKEN | API_ARBITER | API_JSON_BODY,
      api_arbiter_warn },
    { "POST", "/v1/arbiter/closures", API_TOKEN | API_ARBITER | API_JSON_BODY,
      api_arbiter_close },
    { "POST", "/v1/arbiter/reopenings", API_TOKEN | API_ARBITER | API_JSON_BODY,
      api_arbiter_reopen },
    { "GET", "/v1/arbiter/log", API_TOKEN | API_ARBITER, api_arbiter_log },
    { "POST", "/v1/tournaments", API_TOKEN | API_JSON_BODY, api_tournament_create },
    { "GET", "/v1/tournaments", 0, api_tournament_list },
    { "GET", "/v1/tournaments/{id}", 0, api_tournament_get },
    { "POST", "/v1/tournaments/{id}/join", API_TOKEN, api_tournament_join },
    { "POST", "/v1/tournaments/{id}/withdraw", API_TOKEN, api_tournament_withdraw },
    { "POST", "/v1/tournaments/{id}/start", API_TOKEN, api_tournament_start },
    { "GET", "/v1/tournaments/{id}/pgn", 0, api_tournament_pgn },
    { "GET", "/metrics", API_UNLIMITED, api_metrics_reply },
    { "POST", "/v1/admin/clock", API_TEST_CLOCK | API_TOKEN | API_ARBITER | API_JSON_BODY,
      api_admin_clock },
    /* Clocks and leave. */
    { "POST", "/v1/players/me/leave", API_TOKEN | API_JSON_BODY, api_leave_book },
    { "GET", "/v1/players/me/leave", API_TOKEN, api_leave_list },
    { "DELETE", "/v1/players/me/leave/{id}", API_TOKEN, api_leave_cancel },
    { "POST", "/v1/games/{id}/give-time", API_TOKEN | API_JSON_BODY, api_game_give_time },
    /* Engine analysis. */
    { "POST", "/v1/analyse", API_TOKEN | API_JSON_BODY, api_analyse },
    /* Bots written for lichess: its Bot and Board API (api_lichess*.c).  The
     * handlers check the token themselves, to answer lichess's errors; a
     * move's parameter is any text (a drop is "N@f3"). */
    { "POST", "/api/token/test", 0, api_lichess_token_test },
    { "GET", "/api/account", 0, api_lichess_account },
    { "GET", "/api/account/playing", 0, api_lichess_playing },
    { "GET", "/api/stream/event", 0, api_lichess_event_stream },
    { "GET", "/api/bot/game/stream/{id}", 0, api_lichess_game_stream },
    { "GET", "/api/board/game/stream/{id}", 0, api_lichess_game_stream },
    { "POST", "/api/bot/account/upgrade", 0, api_lichess_upgrade },
    { "GET", "/api/bot/online", 0, api_lichess_bots_online },
    { "POST", "/api/bot/game/{id}/move/{move}", API_FILE_PATH, api_lichess_move },
    { "POST", "/api/bot/game/{id}/resign", 0, api_lichess_resign },
    { "POST", "/api/bot/game/{id}/abort", 0, api_lichess_abort },
    { "POST", "/api/bot/game/{id}/draw/{accept}", 0, api_lichess_draw },
    { "POST", "/api/board/game/{id}/move/{move}", API_FILE_PATH, api_lichess_move },
    { "POST", "/api/board/game/{id}/resign", 0, api_lichess_resign },
    { "POST", "/api/board/game/{id}/abort", 0, api_lichess_abort },
    { "POST", "/api/board/game/{id}/draw/{accept}", 0, api_lichess_draw },
    { "POST", "/api/board/game/{id}/claim-draw", 0, api_lichess_claim_draw },
    { "POST", "/api/bot/game/{id}/chat", 0, api_lichess_chat_send },
    { "GET", "/api/bot/game/{id}/chat", 0, api_lichess_chat_list },
    { "POST", "/api/board/game/{id}/chat", 0, api_lichess_chat_send },
    { "GET", "/api/board/game/{id}/chat", 0, api_lichess_chat_list },
    { "POST", "/api/challenge/{username}", 0, api_lichess_challenge_create },
    { "POST", "/api/challenge/{id}/accept", 0, api_lichess_challenge_accept },
    { "POST", "/api/challenge/{id}/decline", 0, api_lichess_challenge_decline },
    { "POST", "/api/challenge/{id}/cancel", 0, api_lichess_challenge_cancel },
    { "GET", "/api/user/{username}", 0, api_lichess_user },
    { "GET", "/api/users/status", 0, api_lichess_users_status },
    { "GET", "/game/export/{id}", 0, api_lichess_export },
    { NULL, NULL, 0, NULL },
};

/*
 * Finds the caller from "Authorization: Bearer <token>"; replies 401 (or
 * 503) itself and returns false when there is none.
 */
bool api_authenticate(struct api_request *req, enum MHD_Result *replied)
{
    const char *auth = MHD_lookup_connection_value(req->conn, MHD_HEADER_KIND,
                                                   MHD_HTTP_HEADER_AUTHORIZATION);
    const char *token = base_bearer_token(auth);
    struct base_err err = { "" };
    enum db_status st;
    bool refused = false;

    /* People on the web board: the session cookie instead of a token. */
    if (auth == NULL && api_session_caller(req, &refused, replied))
        return true;
    if (refused)
        return false;
    if (token == NULL) {
        *replied = api_fail(req, API_PROBLEM_UNAUTHORIZED,
                            "this request needs a token: send Authorization: Bearer <token> "
                            "(POST /v1/players gives one)");
        return false;
    }
    if (strlen(token) > 128) {
        *replied = api_fail(req, API_PROBLEM_UNAUTHORIZED, "the token is unknown or revoked");
        return false;
    }
    st = db_caller_find(req->config->pool, token, &req->caller, &err);
    if (st == DB_NOT_FOUND) {
        *replied = api_fail(req, API_PROBLEM_UNAUTHORIZED, "the token is unknown or revoked");
        return false;
    }
    if (st != DB_OK) {
        *replied = api_fail_db(req, st, err.text);
        return false;
    }
    req->authenticated = true;
    return true;
}

/*
 * On a public route, a valid token still names its caller, so that the
 * request is charged to the token's rate limit rather than to its address
 * (a bot's /legal-moves and /analysis calls).  A bad or unknown token is
 * ignored there, as the route needs none.
 */
static void identify_quietly(struct api_request *req)
{
    const char *token = base_bearer_token(MHD_lookup_connection_value(
        req->conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION));
    struct base_err err = { "" };

    if (token == NULL || strlen(token) > 128)
        return;
    if (db_caller_find(req->config->pool, token, &req->caller, &err) == DB_OK)
        req->authenticated = true;
    else
        memset(&req->caller, 0, sizeof req->caller);
}

/* Whether path matches pattern; fills params with the captures. */
static bool match(const char *pattern, const char *path,
                  char params[API_MAX_PARAMS][API_PARAM_MAX + 1])
{
    int captured = 0;
    while (*pattern != '\0' && *path != '\0') {
        if (*pattern == '{') {
            const char *close = strchr(pattern, '}');
            /* "{name*}" takes the rest of the path, slashes and all. */
            size_t len = close != NULL && close[-1] == '*' ? strlen(path) : strcspn(path, "/");
            if (close == NULL || len == 0 || len > API_PARAM_MAX || captured == API_MAX_PARAMS)
                return false;
            memcpy(params[captured], path, len);
            params[captured++][len] = '\0';
            pattern = close + 1;
            path += len;
        } else if (*pattern++ != *path++) {
            return false;
        }
    }
    return *pattern == '\0' && *path == '\0';
}

bool api_route_info(int i, const char **method, const char **pattern)
{
    if (i < 0 || i >= (int)(sizeof routes / sizeof *routes) - 1)
        return false;
    *method = routes[i].method;
    *pattern = routes[i].pattern;
    return true;
}

bool api_id_valid(const char *text)
{
    size_t n = strlen(text);
    if (n == 0 || n > API_PARAM_MAX)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = text[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-'))
            return false;
    }
    return true;
}

/* Appends a method to the Allow list unless it does not fit. */
static void allow_add(char *allow, size_t size, const char *method)
{
    size_t used = strlen(allow);
    size_t need = strlen(method) + (used ? 2 : 0);
    const char *seen = strstr(allow, method);
    /* Once each (two patterns may match one path: /players/me, /players/{id}). */
    while (seen != NULL) {
        size_t n = strlen(method);
        if ((seen == allow || seen[-1] == ' ') && (seen[n] == '\0' || seen[n] == ','))
            return;
        seen = strstr(seen + 1, method);
    }
    if (used + need + 1 > size)
        return;
    if (used > 0) {
        memcpy(allow + used, ", ", 2);
        used += 2;
    }
    memcpy(allow + used, method, strlen(method) + 1);
}

bool api_route_inline(const struct api_request *req)
{
    return strncmp(req->path, "/assets/", 8) == 0 || strcmp(req->path, "/favicon.ico") == 0;
}

/* Whether route r answers req's method: its own, or HEAD of an
 * API_UNLIMITED GET route (the pages, files, /healthz, /metrics: uptime and
 * link checkers; as for GET, libmicrohttpd sends no body). */
static bool method_fits(const struct route *r, const struct api_request *req)
{
    return strcmp(r->method, req->method) == 0 ||
           (strcmp(req->method, "HEAD") == 0 && strcmp(r->method, "GET") == 0 &&
            (r->needs & API_UNLIMITED));
}

/* The first route of req's method and path, its parameters in params; NULL
 * for none. */
static const struct route *route_find(const struct api_request *req,
                                      char params[API_MAX_PARAMS][API_PARAM_MAX + 1])
{
    for (const struct route *r = routes; r->pattern != NULL; r++) {
        if (((r->needs & API_TEST_CLOCK) && !req->config->test_clock) || !method_fits(r, req))
            continue;
        memset(params, 0, API_MAX_PARAMS * (API_PARAM_MAX + 1));
        if (match(r->pattern, req->path, params))
            return r;
    }
    return NULL;
}

/* The methods of the routes of req's path (none of which is req's), for a
 * 405's Allow. */
static void allowed_methods(const struct api_request *req, char *allow, size_t size)
{
    char scratch[API_MAX_PARAMS][API_PARAM_MAX + 1];
    for (const struct route *r = routes; r->pattern != NULL; r++)
        if (!((r->needs & API_TEST_CLOCK) && !req->config->test_clock) &&
            match(r->pattern, req->path, scratch))
            allow_add(allow, size, r->method);
}

/* req's route, found once (the quick test and the dispatch share it): its
 * index, pattern and parameters kept in req; NULL for none. */
static const struct route *route_of(struct api_request *req)
{
    char scratch[API_MAX_PARAMS][API_PARAM_MAX + 1];
    const struct route *r;

    if (req->route_index >= 0)
        return &routes[req->route_index];
    if ((r = route_find(req, scratch)) == NULL)
        return NULL;
    memcpy(req->params, scratch, sizeof scratch);
    req->route = r->pattern;
    req->route_index = (int)(r - routes);
    return r;
}

bool api_route_quick(struct api_request *req)
{
    const struct route *r = route_of(req);
    return r != NULL && (r->needs & API_QUICK);
}

enum MHD_Result api_route(struct api_request *req)
{
    char allow[128] = "";
    const struct route *r;

    if (req->body_too_large)
        return api_fail(req, API_PROBLEM_BODY_TOO_LARGE,
                        "the request body is larger than %d KiB", API_BODY_LIMIT / 1024);
    if ((r = route_of(req)) != NULL) {
        for (int i = 0; i < API_MAX_PARAMS && req->params[i][0] != '\0'; i++)
            if (!(r->needs & API_FILE_PATH) && !api_id_valid(req->params[i]))
                return api_fail(req, API_PROBLEM_NOT_FOUND,
                                "nothing has that id: ids are letters and digits, like "
                                "aZ3kP9qwX2");
        enum MHD_Result replied;
        if ((r->needs & API_TOKEN) && !api_authenticate(req, &replied))
            return replied;
        if (!(r->needs & (API_TOKEN | API_UNLIMITED)))
            identify_quietly(req);
        /* The token's, address's and player's buckets, at the route's cost. */
        if (!(r->needs & API_UNLIMITED) && !api_limits_check(req, &replied))
            return replied;
        if ((r->needs & API_ARBITER) && !req->caller.arbiter)
            return api_fail(req, API_PROBLEM_FORBIDDEN, "only an arbiter may do this");
        if ((r->needs & API_JSON_BODY) && !api_body_parse(req, &replied))
            return replied;
        api_json_watch();
        return r->handler(req);
    }
    allowed_methods(req, allow, sizeof allow);
    if (allow[0] == '\0')
        return api_fail(req, API_PROBLEM_NOT_FOUND, "no resource at %.200s", req->path);
    {
        char detail[256];
        unsigned status;
        struct MHD_Response *resp;
        snprintf(detail, sizeof detail, "%s is not allowed here; use %s", req->method, allow);
        resp = api_problem_response(API_PROBLEM_METHOD_NOT_ALLOWED, detail, &status);
        if (resp != NULL)
            MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, allow);
        return api_reply(req, status, resp);
    }
}
