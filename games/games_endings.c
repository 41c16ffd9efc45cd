/*
 * games_endings.c — games ended by a person: resignation, abort before
 * each side has moved, and an arbiter's adjudication.
 */
#include "games_int.h"

#include <stdio.h>
#include <string.h>

enum ending { ENDING_RESIGN, ENDING_ABORT };

struct ending_args {
    const char *player_id, *game_id;
    enum ending ending;
    struct games_result *out;
};

static enum db_status ending_tx(struct db_tx *tx, void *arg)
{
    struct ending_args *a = arg;
    struct games_result *r = a->out;
    struct rules_position pos;
    enum rules_color color;
    enum db_status rc;

    games_result_reset(r);
    rc = games_lock_for_player(tx, a->game_id, a->player_id, false, false, r, &pos, &color);
    if (rc != DB_OK || r->outcome != GAMES_OK)
        return rc;
    if (a->ending == ENDING_RESIGN) {
        games_finish(&r->game,
                     color == RULES_WHITE ? RULES_RESULT_BLACK_WINS : RULES_RESULT_WHITE_WINS,
                     DB_END_RESIGNATION);
    } else {
        if (r->game.ply >= 2)
            return games_refuse(r, GAMES_CONFLICT,
                                "a game can be aborted only before each side has made its "
                                "first move; resign instead");
        r->game.status = DB_GAME_ABORTED;
        r->game.draw_offer = DB_COLOR_NONE;
    }
    return games_save_end(tx, &r->game);
}

static void run_ending(struct db_pool *pool, const char *player_id, const char *game_id,
                       enum ending ending, struct games_result *out)
{
    struct ending_args a = { player_id, game_id, ending, out };
    memset(out, 0, sizeof *out);
    games_run(pool, ending_tx, &a, out);
}

void games_resign(struct db_pool *pool, const char *player_id, const char *game_id,
                  struct games_result *out)
{
    run_ending(pool, player_id, game_id, ENDING_RESIGN, out);
}

void games_abort(struct db_pool *pool, const char *player_id, const char *game_id,
                 struct games_result *out)
{
    run_ending(pool, player_id, game_id, ENDING_ABORT, out);
}

struct adjudicate_args {
    const char *game_id, *reason;
    enum rules_result result;
    struct games_result *out;
};

static enum db_status adjudicate_tx(struct db_tx *tx, void *arg)
{
    struct adjudicate_args *a = arg;
    struct games_result *r = a->out;
    enum db_status rc;

    games_result_reset(r);
    if ((rc = games_lock_active(tx, a->game_id, r)) != DB_OK || r->outcome != GAMES_OK)
        return rc;
    games_finish(&r->game, a->result, DB_END_ADJUDICATION);
    snprintf(r->game.adjudication_reason, sizeof r->game.adjudication_reason, "%s", a->reason);
    return games_save_end(tx, &r->game);
}

void games_adjudicate(struct db_pool *pool, const char *game_id, enum rules_result result,
                      const char *reason, struct games_result *out)
{
    struct adjudicate_args a = { game_id, reason, result, out };
    memset(out, 0, sizeof *out);
    games_run(pool, adjudicate_tx, &a, out);
}
