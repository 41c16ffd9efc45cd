/*
 * api_lichess_games.c — what a bot (or a person through the Board API)
 * does to a game it plays, as lichess's routes spell it: a move (with a
 * draw offer), resignation, abort, a draw offered, accepted or declined,
 * and korp's draw claims.  Each is one games/ change, answered with
 * {"ok": true} or lichess's error object.
 */
#include "api_lichess.h"

#include <stdlib.h>
#include <string.h>

/* The game's id from the path: the move routes take any text as their
 * parameters (a drop is "N@f3"), so the id is checked here. */
static bool game_id_valid(struct api_request *req, enum MHD_Result *replied)
{
    if (api_id_valid(req->params[0]))
        return true;
    *replied = api_lichess_error(req, MHD_HTTP_NOT_FOUND, "No such game");
    return false;
}

enum MHD_Result api_lichess_move(struct api_request *req)
{
    const char *offering = api_query(req, "offeringDraw");
    enum MHD_Result replied;
    struct games_result r;

    if (!api_lichess_caller(req, &replied) || !game_id_valid(req, &replied))
        return replied;
    if (offering != NULL && strcmp(offering, "true") != 0 && strcmp(offering, "false") != 0)
        return api_lichess_error(req, MHD_HTTP_BAD_REQUEST,
                                 "offeringDraw must be true or false");
    games_move(req->config->pool, req->caller.player_id, req->params[0], req->params[1], -1,
               NULL, NULL, &r);
    api_metrics_move(req->metrics, &r);
    if (r.outcome != GAMES_OK || offering == NULL || strcmp(offering, "true") != 0 ||
        r.game.status != DB_GAME_ACTIVE)
        return api_lichess_done(req, &r);
    /* The move stands; the offer goes with it, as a change of its own,
     * and, as on lichess, an offer the game does not allow is dropped. */
    games_result_clear(&r);
    games_draw(req->config->pool, req->caller.player_id, req->params[0], GAMES_DRAW_OFFER, &r);
    if (r.outcome != GAMES_DB_ERROR)
        r.outcome = GAMES_OK;
    return api_lichess_done(req, &r);
}

enum MHD_Result api_lichess_resign(struct api_request *req)
{
    return api_lichess_change(req, games_resign, false);
}

enum MHD_Result api_lichess_abort(struct api_request *req)
{
    return api_lichess_change(req, games_abort, false);
}

/* "yes" accepts the opponent's offer, or offers one; "no" declines it. */
enum MHD_Result api_lichess_draw(struct api_request *req)
{
    const char *answer = req->params[1];
    enum games_draw_action action = GAMES_DRAW_DECLINE;
    enum MHD_Result replied;
    struct games_result r;
    struct db_game g;

    if (!api_lichess_caller(req, &replied))
        return replied;
    if (strcmp(answer, "yes") != 0 && strcmp(answer, "no") != 0)
        return api_lichess_error(req, MHD_HTTP_BAD_REQUEST, "the answer is yes or no");
    if (strcmp(answer, "yes") == 0) {
        if (!api_lichess_game(req, &g, &replied))
            return replied;
        /* An offer standing from the side that is not the caller's is the opponent's. */
        action = g.draw_offer != DB_COLOR_NONE &&
                         (g.draw_offer == DB_COLOR_WHITE) !=
                             (strcmp(g.white_id, req->caller.player_id) == 0)
                     ? GAMES_DRAW_ACCEPT
                     : GAMES_DRAW_OFFER;
        db_game_clear(&g);
    }
    games_draw(req->config->pool, req->caller.player_id, req->params[0], action, &r);
    return api_lichess_done(req, &r);
}

/* korp's claims: threefold repetition, else the fifty-move rule. */
enum MHD_Result api_lichess_claim_draw(struct api_request *req)
{
    static const enum games_claim claims[] = { GAMES_CLAIM_THREEFOLD, GAMES_CLAIM_FIFTY_MOVE };
    enum MHD_Result replied;
    struct games_result r;

    if (!api_lichess_caller(req, &replied))
        return replied;
    for (size_t i = 0; i < sizeof claims / sizeof *claims; i++) {
        games_claim(req->config->pool, req->caller.player_id, req->params[0], claims[i], NULL,
                    &r);
        if (r.outcome != GAMES_OK || r.claim_accepted)
            return api_lichess_done(req, &r);
        if (i + 1 < sizeof claims / sizeof *claims)
            games_result_clear(&r);
    }
    r.outcome = GAMES_CONFLICT;
    return api_lichess_refusal(req, &r);
}

/* The game's PGN, as lichess's export gives it (anyone may read it). */
enum MHD_Result api_lichess_export(struct api_request *req)
{
    enum MHD_Result rc;
    struct db_game g;
    char *pgn;

    if (!api_lichess_game(req, &g, &rc))
        return rc;
    pgn = api_game_pgn_text(req, &g, &rc);
    db_game_clear(&g);
    if (pgn == NULL)
        return rc;
    return api_lichess_text(req, pgn, "application/x-chess-pgn");
}
