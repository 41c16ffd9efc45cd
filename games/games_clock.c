/*
 * games_clock.c — time: a game whose deadline has passed is lost by the
 * side to move (drawn when the opponent cannot mate), whether the sweeper
 * finds it or a request touches it first.
 */
#include "games_int.h"

#include "base.h"

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
