/*
 * games_core.c — the frame every state change runs in (see games_int.h):
 * a result cleared for each run of its transaction, refusals that write
 * nothing, the stored position read, the game locked for a player, and a
 * game ended and announced.
 */
#include "games_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void games_result_clear(struct games_result *r)
{
    db_game_clear(&r->game);
}

/* Clears a result for a transaction body's (re)run: it may run more than
 * once (db_run_tx retries), so nothing of an earlier run may remain. */
static void result_reset(struct games_result *r)
{
    db_game_clear(&r->game);
    memset(r, 0, sizeof *r);
}

enum db_status games_refuse(struct games_result *r, enum games_outcome outcome,
                            const char *fmt, ...)
{
    va_list ap;
    r->outcome = outcome;
    va_start(ap, fmt);
    vsnprintf(r->detail, sizeof r->detail, fmt, ap);
    va_end(ap);
    return DB_OK;
}

enum db_status games_format(struct db_tx *tx, char *out, size_t size, const char *fmt, ...)
{
    va_list ap;
    int n;
    va_start(ap, fmt);
    n = vsnprintf(out, size, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= size)
        return db_tx_fail(tx, "a detail of %d bytes does not fit in %zu", n, size);
    return DB_OK;
}

struct run_call {
    games_body *fn;
    void *arg;
    struct games_result *r;
};

static enum db_status run_tx(struct db_tx *tx, void *arg)
{
    struct run_call *c = arg;
    result_reset(c->r);
    return c->fn(tx, c->r, c->arg);
}

void games_run(struct db_pool *pool, games_body *fn, void *arg, struct games_result *r)
{
    struct run_call c = { fn, arg, r };
    enum db_status rc;
    memset(r, 0, sizeof *r);
    rc = db_run_tx(pool, run_tx, &c, &r->err);
    if (rc != DB_OK) {
        r->outcome = GAMES_DB_ERROR;
        r->db = rc;
    }
}

const char *games_color_name(enum rules_color c)
{
    return db_color_text(db_color_of(c));
}

bool games_is_player(const struct db_game *g, const char *player_id)
{
    return strcmp(g->white_id, player_id) == 0 || strcmp(g->black_id, player_id) == 0;
}

/* The colour the player has in the game; false if not a player of it. */
static bool color_of(const struct db_game *g, const char *player_id, enum rules_color *color)
{
    if (strcmp(g->white_id, player_id) == 0)
        *color = RULES_WHITE;
    else if (strcmp(g->black_id, player_id) == 0)
        *color = RULES_BLACK;
    else
        return false;
    return true;
}

enum db_status games_load(struct db_tx *tx, const struct db_game *g,
                          struct rules_position *pos)
{
    struct rules_why why = { 0 };
    if (g->variant == NULL || g->variant->position_parse(pos, g->fen, &why) != RULES_OK)
        return db_tx_fail(tx, "game %s: stored position '%s' is unreadable: %s", g->id,
                          g->fen, why.text);
    return DB_OK;
}

/* "the game is over (1-0 by resignation)" */
static enum db_status refuse_over(struct games_result *r)
{
    const char *how = db_termination_text(r->game.termination);
    return games_refuse(r, GAMES_GAME_OVER, "the game is over (%s%s%s)",
                        rules_result_text(r->game.result), how[0] ? " by " : "", how);
}

enum db_status games_lock_game(struct db_tx *tx, const char *game_id, bool with_keys,
                               struct games_result *r)
{
    enum db_status rc = db_game_lock(tx, game_id, with_keys, &r->game);
    if (rc == DB_NOT_FOUND)
        return games_refuse(r, GAMES_NOT_FOUND, "no game has the id '%s'", game_id);
    r->ply = r->game.ply;
    return rc;
}

enum db_status games_lock_for_player(struct db_tx *tx, const char *game_id,
                                     const char *player_id, bool needs_turn, bool with_keys,
                                     struct games_result *r, struct rules_position *pos,
                                     enum rules_color *color)
{
    enum db_status rc = games_lock_game(tx, game_id, with_keys, r);
    if (rc != DB_OK || r->outcome != GAMES_OK)
        return rc;
    if (!color_of(&r->game, player_id, color))
        return games_refuse(r, GAMES_FORBIDDEN, "you are not a player of this game");
    /* Time is read from one clock: a game past its deadline is over even
     * before the sweeper comes.  It ends here, in this transaction, and
     * the request is refused as for any finished game. */
    if (r->game.overdue && (rc = games_time_out(tx, &r->game, NULL)) != DB_OK)
        return rc;
    if (r->game.status != DB_GAME_ACTIVE)
        return refuse_over(r);
    if ((rc = games_load(tx, &r->game, pos)) != DB_OK)
        return rc;
    enum rules_color to_move = r->game.variant->side_to_move(pos);
    if (needs_turn && to_move != *color)
        return games_refuse(r, GAMES_NOT_YOUR_TURN, "it is %s's turn, and you play %s",
                            games_color_name(to_move), games_color_name(*color));
    return DB_OK;
}

enum db_status games_lock_active(struct db_tx *tx, const char *game_id,
                                 struct games_result *r)
{
    enum db_status rc = games_lock_game(tx, game_id, false, r);
    if (rc != DB_OK || r->outcome != GAMES_OK)
        return rc;
    return r->game.status == DB_GAME_ACTIVE ? DB_OK : refuse_over(r);
}

struct step_call {
    const char *player_id, *game_id;
    const struct games_step *step;
    const void *arg;
};

static enum db_status step_tx(struct db_tx *tx, struct games_result *r, void *arg)
{
    struct step_call *c = arg;
    struct rules_position pos;
    enum rules_color color = RULES_WHITE;
    enum db_status rc;

    rc = games_lock_for_player(tx, c->game_id, c->player_id, c->step->needs_turn,
                               c->step->with_keys, r, &pos, &color);
    if (rc != DB_OK || r->outcome != GAMES_OK)
        return rc;
    return c->step->run(tx, r, &pos, color, c->arg);
}

void games_run_step(struct db_pool *pool, const char *player_id, const char *game_id,
                    const struct games_step *step, const void *arg, struct games_result *out)
{
    struct step_call c = { player_id, game_id, step, arg };
    games_run(pool, step_tx, &c, out);
}

void games_finish(struct db_game *g, enum rules_result result, enum db_termination termination)
{
    g->status = DB_GAME_FINISHED;
    g->result = result;
    g->termination = termination;
    g->draw_offer = DB_COLOR_NONE;
}

enum db_status games_announce_end(struct db_tx *tx, struct db_game *g)
{
    enum db_status rc = games_ratings_game_over(tx, g);
    if (rc == DB_OK)
        rc = games_arbiter_game_over(tx, g);
    if (rc == DB_OK)
        rc = games_tournament_game_over(tx, g);
    if (rc == DB_OK)
        rc = games_fairplay_game_over(tx, g);
    return rc == DB_OK ? db_game_event(tx, g->id, DB_EVENT_GAME_END, NULL) : rc;
}

enum db_status games_save_end(struct db_tx *tx, struct db_game *g)
{
    enum db_status rc = db_game_save(tx, g);
    return rc == DB_OK ? games_announce_end(tx, g) : rc;
}
