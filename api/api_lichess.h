/*
 * api_lichess.h — the routes bots written for lichess use (its Bot and
 * Board API, under /api/), beside korp's own /v1/.  Ids are korp's own;
 * errors are lichess's {"error": "..."} objects, not problems.  Private to
 * api/: api_routes.c names the handlers.
 */
#ifndef KORP_API_LICHESS_H
#define KORP_API_LICHESS_H

#include "api_int.h"

/* ---- Shared by the api_lichess*.c files (api_lichess.c). */

/* Replies {"error": text} with status (400, 401, 404 or 429). */
enum MHD_Result api_lichess_error(struct api_request *req, unsigned status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Replies 200 with body (malloc'd, taken) of that content type. */
enum MHD_Result api_lichess_text(struct api_request *req, char *body, const char *type);
/* Replies {"ok": true}. */
enum MHD_Result api_lichess_ok(struct api_request *req);
/* Whether the request carries a valid token; replies 401 itself otherwise. */
bool api_lichess_caller(struct api_request *req, enum MHD_Result *replied);
/* Replies to a refused state change as lichess would: 404 for what the
 * caller cannot see, 429 past a limit, 400 for the rest; the database's
 * failures as korp's problems (5xx).  Clears the result. */
enum MHD_Result api_lichess_refusal(struct api_request *req, struct games_result *r);
/* Replies {"ok": true} to a state change, or its refusal.  Clears r. */
enum MHD_Result api_lichess_done(struct api_request *req, struct games_result *r);

/* Reads the game of the path into *g (db_game_clear frees it); replies
 * 404 (lichess's) or the database's failure itself otherwise. */
bool api_lichess_game(struct api_request *req, struct db_game *g, enum MHD_Result *replied);

/* A games/ change of the thing in the path by the caller (resign, abort,
 * accept a challenge), answered {"ok": true} or refused; `starts` when it
 * starts a game (counted). */
typedef void (*api_lichess_change_fn)(struct db_pool *pool, const char *player_id,
                                      const char *id, struct games_result *out);
enum MHD_Result api_lichess_change(struct api_request *req, api_lichess_change_fn change,
                                   bool starts);

/* The field `name` of a form (application/x-www-form-urlencoded, as
 * lichess-bot sends) or of a JSON object (as berserk sends), as text: a
 * JSON true is "true", a number its digits.  False when absent (or the
 * body is neither); a longer value is cut to size. */
bool api_lichess_field(const struct api_request *req, const char *name, char *out, size_t size);

/* One game as lichess's nowPlaying and gameStart show it to player_id
 * (one of its players).  NULL with *st set on a database failure. */
cJSON *api_lichess_game_item(struct db_pool *pool, const char *player_id,
                             const struct db_game *g, enum db_status *st, struct base_err *err);
/* The challenge object of lichess's API (api_lichess_challenges.c). */
cJSON *api_lichess_challenge_json(const struct db_challenge *c);

/* ---- Accounts and tokens (api_lichess_account.c). */
enum MHD_Result api_lichess_token_test(struct api_request *req);
enum MHD_Result api_lichess_account(struct api_request *req);
enum MHD_Result api_lichess_upgrade(struct api_request *req);
enum MHD_Result api_lichess_playing(struct api_request *req);
enum MHD_Result api_lichess_user(struct api_request *req);
enum MHD_Result api_lichess_users_status(struct api_request *req);

/* ---- What a player does to a game (api_lichess_games.c). */
enum MHD_Result api_lichess_move(struct api_request *req);
enum MHD_Result api_lichess_resign(struct api_request *req);
enum MHD_Result api_lichess_abort(struct api_request *req);
enum MHD_Result api_lichess_draw(struct api_request *req);
enum MHD_Result api_lichess_claim_draw(struct api_request *req);
enum MHD_Result api_lichess_export(struct api_request *req);

/* ---- The players' chat (api_lichess_chat.c): korp's messages. */
enum MHD_Result api_lichess_chat_send(struct api_request *req);
enum MHD_Result api_lichess_chat_list(struct api_request *req);

/* ---- Challenges (api_lichess_challenges.c). */
enum MHD_Result api_lichess_challenge_create(struct api_request *req);
enum MHD_Result api_lichess_challenge_accept(struct api_request *req);
enum MHD_Result api_lichess_challenge_decline(struct api_request *req);
enum MHD_Result api_lichess_challenge_cancel(struct api_request *req);

/* ---- Streams (api_lichess_streams.c): ndjson over korp's event streams. */
enum MHD_Result api_lichess_event_stream(struct api_request *req);
enum MHD_Result api_lichess_game_stream(struct api_request *req);
enum MHD_Result api_lichess_bots_online(struct api_request *req);
/* How recently a bot's stream must have written its stamp for it to be
 * online (for /api/bot/online and /api/users/status). */
int api_lichess_online_ms(const struct api_config *config);

#endif
