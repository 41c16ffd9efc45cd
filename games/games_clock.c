/*
 * games_clock.c — time: a game whose deadline has passed is lost by the
 * side to move (drawn when the opponent cannot mate), whether the sweeper
 * finds it or a request touches it first.
 */
#include "games_int.h"

#include "base.h"

#include <stdio.h>

enum db_status games_time_out(struct db_tx *tx, struct db_game *g, void *arg)
{
    struct rules_position pos;
    struct rules_report report;

    (void)arg;
    if (games_load(tx, g, &pos) != DB_OK) {
        /* One bad row must not stop every sweep: it waits for an arbiter. */
        base_log(BASE_LOG_ERROR, "game %s: stored position '%s' is unreadable; its deadline "
                 "is taken away for an arbiter to rule", g->id, g->fen);
        return db_game_clear_deadline(tx, g->id);
    }
    enum rules_color flagged = g->variant->side_to_move(&pos);
    g->variant->position_report(&pos, &report);
    games_finish(g, rules_result_on_time(&report, flagged), DB_END_TIMEOUT);
    base_log(BASE_LOG_INFO, "game %s: %s ran out of time (%s)", g->id,
             games_color_name(flagged), rules_result_text(g->result));
    return games_save_end(tx, g);
}

int games_sweep(struct db_pool *pool, struct base_err *err)
{
    int ended = 0;
    if (db_games_overdue(pool, 100, games_time_out, NULL, &ended, err) != DB_OK)
        return -1;
    return ended;
}

/* Give-time: days more for the opponent, on their turn. */
static enum db_status give_time(struct db_tx *tx, struct games_result *r,
                                const struct rules_position *pos, enum rules_color color,
                                const void *arg)
{
    const int *days = arg;

    if (r->game.variant->side_to_move(pos) == color) {
        r->code = "give-time-on-your-turn";
        return games_refuse(r, GAMES_CONFLICT, "it is your turn: you may give time only "
                            "while your opponent is to move");
    }
    if (r->game.clock.type == DB_CLOCK_NONE) {
        r->code = "no-time-limit";
        return games_refuse(r, GAMES_CONFLICT, "this game has no time limit: there is no "
                            "time to give");
    }
    return db_game_give_time(tx, &r->game, (long long)*days * 86400);
}

void games_give_time(struct db_pool *pool, const char *player_id, const char *game_id,
                     int days, struct games_result *out)
{
    static const struct games_step step = { false, false, give_time };
    games_run_step(pool, player_id, game_id, &step, &days, out);
}
