/*
 * games_endings.c — games ended by a person: resignation, abort before
 * each side has moved, and an arbiter's adjudication.
 */
#include "games_int.h"

#include <stdio.h>
#include <string.h>

static enum db_status resign_step(struct db_tx *tx, struct games_result *r,
                                  const struct rules_position *pos, enum rules_color color,
                                  const void *arg)
{
    (void)pos;
    (void)arg;
    games_finish(&r->game,
                 color == RULES_WHITE ? RULES_RESULT_BLACK_WINS : RULES_RESULT_WHITE_WINS,
                 DB_END_RESIGNATION);
    return games_save_end(tx, &r->game);
}

void games_resign(struct db_pool *pool, const char *player_id, const char *game_id,
                  struct games_result *out)
{
    static const struct games_step step = { false, false, resign_step };
    games_run_step(pool, player_id, game_id, &step, NULL, out);
}

static enum db_status abort_step(struct db_tx *tx, struct games_result *r,
                                 const struct rules_position *pos, enum rules_color color,
                                 const void *arg)
{
    (void)pos;
    (void)color;
    (void)arg;
    if (r->game.ply >= 2)
        return games_refuse(r, GAMES_CONFLICT,
                            "a game can be aborted only before each side has made its "
                            "first move; resign instead");
    r->game.status = DB_GAME_ABORTED;
    r->game.draw_offer = DB_COLOR_NONE;
    return games_save_end(tx, &r->game);
}

void games_abort(struct db_pool *pool, const char *player_id, const char *game_id,
                 struct games_result *out)
{
    static const struct games_step step = { false, false, abort_step };
    games_run_step(pool, player_id, game_id, &step, NULL, out);
}

struct adjudicate_args {
    const char *game_id, *reason;
    enum rules_result result;
};

static enum db_status adjudicate_tx(struct db_tx *tx, struct games_result *r, void *arg)
{
    struct adjudicate_args *a = arg;
    enum db_status rc;

    if ((rc = games_lock_active(tx, a->game_id, r)) != DB_OK || r->outcome != GAMES_OK)
        return rc;
    games_finish(&r->game, a->result, DB_END_ADJUDICATION);
    snprintf(r->game.adjudication_reason, sizeof r->game.adjudication_reason, "%s", a->reason);
    return games_save_end(tx, &r->game);
}

void games_adjudicate(struct db_pool *pool, const char *game_id, enum rules_result result,
                      const char *reason, struct games_result *out)
{
    struct adjudicate_args a = { game_id, reason, result };
    games_run(pool, adjudicate_tx, &a, out);
}
