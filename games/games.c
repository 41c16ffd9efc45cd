/*
 * games.c — each state change of a game as one transaction (see games.h).
 *
 * A transaction body may run more than once (db_run_tx retries), so each
 * starts by clearing its result.  A refusal returns DB_OK before anything
 * is written (the transaction commits nothing), except that a game found
 * past its deadline is ended on time first.
 */
#include "games.h"

#include "base.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void games_result_clear(struct games_result *r)
{
    db_game_clear(&r->game);
}

static void result_reset(struct games_result *r)
{
    db_game_clear(&r->game);
    memset(r, 0, sizeof *r);
}

static enum db_status refuse(struct games_result *r, enum games_outcome outcome,
                             const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static enum db_status refuse(struct games_result *r, enum games_outcome outcome,
                             const char *fmt, ...)
{
    va_list ap;
    r->outcome = outcome;
    va_start(ap, fmt);
    vsnprintf(r->detail, sizeof r->detail, fmt, ap);
    va_end(ap);
    return DB_OK;
}

const struct rules_variant *games_variant(const struct db_game *g)
{
    return rules_variant_find(g->variant);
}

static const char *color_name(enum rules_color c)
{
    return c == RULES_WHITE ? "white" : "black";
}

/* The colour the player has in the game, or -1 if not a player of it. */
static int color_of(const struct db_game *g, const char *player_id)
{
    if (strcmp(g->white_id, player_id) == 0)
        return RULES_WHITE;
    if (strcmp(g->black_id, player_id) == 0)
        return RULES_BLACK;
    return -1;
}

/* Reads the stored position; a bad one is a hard error (never trusted). */
static enum db_status load(struct db_tx *tx, const struct db_game *g,
                           const struct rules_variant **v, struct rules_position *pos)
{
    struct rules_why why = { 0 };
    *v = games_variant(g);
    if (*v == NULL || (*v)->position_parse(pos, g->fen, &why) != RULES_OK) {
        return db_tx_fail(tx, "game %s: stored position '%s' is unreadable: %s", g->id,
                          g->fen, why.text);
    }
    return DB_OK;
}

static void finish(struct db_game *g, const char *result, const char *termination)
{
    snprintf(g->status, sizeof g->status, "finished");
    snprintf(g->result, sizeof g->result, "%s", result);
    snprintf(g->termination, sizeof g->termination, "%s", termination);
    g->draw_offer[0] = '\0';
}

static enum db_status time_out(struct db_tx *tx, struct db_game *g, void *arg);

/* Locks the game and checks the caller may act on it now. */
static enum db_status lock_for_player(struct db_tx *tx, const char *game_id,
                                      const char *player_id, bool needs_turn, bool with_keys,
                                      struct games_result *r, const struct rules_variant **v,
                                      struct rules_position *pos, int *color)
{
    enum db_status rc = db_game_lock(tx, game_id, with_keys, &r->game);
    if (rc == DB_NOT_FOUND)
        return refuse(r, GAMES_NOT_FOUND, "no game has the id '%s'", game_id);
    if (rc != DB_OK)
        return rc;
    r->ply = r->game.ply;
    if ((*color = color_of(&r->game, player_id)) < 0)
        return refuse(r, GAMES_FORBIDDEN, "you are not a player of this game");
    /* Time is read from one clock: a game past its deadline is over even
     * before the sweeper comes.  It ends here, in this transaction, and
     * the request is refused as for any finished game. */
    if (r->game.overdue && (rc = time_out(tx, &r->game, NULL)) != DB_OK)
        return rc;
    if (strcmp(r->game.status, "active") != 0)
        return refuse(r, GAMES_GAME_OVER, "the game is over (%s%s%s)", r->game.result,
                      r->game.termination[0] ? " by " : "", r->game.termination);
    if ((rc = load(tx, &r->game, v, pos)) != DB_OK)
        return rc;
    if (needs_turn && (*v)->side_to_move(pos) != (enum rules_color)*color)
        return refuse(r, GAMES_NOT_YOUR_TURN, "it is %s's turn, and you play %s",
                      color_name((*v)->side_to_move(pos)), color_name(*color));
    return DB_OK;
}

/*
 * Reads a move.  Glinski players also write Hungarian piece letters, where
 * B is a rook (bastya), not a bishop.  korpd's own SAN (English letters,
 * as /legal-moves and /moves write it) always means what it says; any
 * other text that is a legal move in both readings, differently, is
 * refused as ambiguous rather than guessed (a correspondence move cannot
 * be taken back).
 */
/* Whether text is the move's SAN as korpd writes it (check marks aside). */
static bool is_own_san(const struct rules_variant *v, const struct rules_position *pos,
                       struct rules_move m, const char *text)
{
    char san[RULES_MOVE_TEXT_MAX];
    size_t n = v->move_format(pos, m, RULES_NOTATION_SAN, san, sizeof san);
    while (n > 0 && (san[n - 1] == '+' || san[n - 1] == '#'))
        san[--n] = '\0';
    size_t t = strlen(text);
    while (t > 0 && (text[t - 1] == '+' || text[t - 1] == '#'))
        t--;
    return t == n && strncmp(san, text, n) == 0;
}

static bool read_move(const struct rules_variant *v, const struct rules_position *pos,
                      const char *text, struct rules_move *m, struct games_result *r)
{
    struct rules_why why = { 0 }, other = { 0 };
    struct rules_move hungarian;
    enum rules_error e = v->move_parse(pos, text, RULES_DIALECT_DEFAULT, m, &why);
    bool glinski = strcmp(v->name, "glinski") == 0;
    bool read_hu = glinski &&
                   v->move_parse(pos, text, RULES_DIALECT_HUNGARIAN, &hungarian, &other) == RULES_OK;

    if (e == RULES_OK && read_hu && memcmp(m, &hungarian, sizeof *m) != 0 &&
        !is_own_san(v, pos, *m, text)) {
        char a[RULES_MOVE_TEXT_MAX], b[RULES_MOVE_TEXT_MAX];
        v->move_format(pos, *m, RULES_NOTATION_UCI, a, sizeof a);
        v->move_format(pos, hungarian, RULES_NOTATION_UCI, b, sizeof b);
        r->outcome = GAMES_ILLEGAL;
        r->reason = RULES_REASON_AMBIGUOUS;
        snprintf(r->detail, sizeof r->detail,
                 "'%s' is %s with English piece letters but %s with Hungarian ones "
                 "(B is a rook there); send the move in coordinates", text, a, b);
        return false;
    }
    if (e != RULES_OK && read_hu) {
        *m = hungarian;
        e = RULES_OK;
    }
    if (e == RULES_OK)
        return true;
    r->outcome = GAMES_ILLEGAL;
    r->reason = why.reason;
    snprintf(r->detail, sizeof r->detail, "%s", why.text[0] ? why.text : rules_error_text(e));
    return false;
}

/* Saves a game that has just ended and tells both players. */
static enum db_status save_end(struct db_tx *tx, struct db_game *g)
{
    enum db_status rc = db_game_save(tx, g);
    return rc == DB_OK ? db_game_event(tx, g->id, DB_EVENT_GAME_END, NULL) : rc;
}

/*
 * Plays a legal move on the locked game: the move row, the game's new
 * state (status, keys, draw offer) and the events.  Ends the game when the
 * position does.
 */
static enum db_status play(struct db_tx *tx, const struct rules_variant *v,
                           struct rules_position *pos, struct rules_move m, struct db_game *g)
{
    char san[RULES_MOVE_TEXT_MAX], uci[RULES_MOVE_TEXT_MAX], polish[RULES_MOVE_TEXT_MAX];
    char detail[3 * RULES_MOVE_TEXT_MAX + 48];
    enum rules_color mover = v->side_to_move(pos);
    bool irreversible = v->move_is_irreversible(pos, m);
    struct rules_report report;
    enum db_status rc;

    v->move_format(pos, m, RULES_NOTATION_SAN, san, sizeof san);
    v->move_format(pos, m, RULES_NOTATION_UCI, uci, sizeof uci);
    v->move_format(pos, m, RULES_NOTATION_POLISH_SHORT, polish, sizeof polish);
    if (v->position_apply(pos, m) != RULES_OK)
        return db_tx_fail(tx, "game %s: a parsed move did not apply", g->id);
    v->position_format(pos, g->fen, sizeof g->fen);
    g->ply++;
    /* The key joins the stored ones in SQL; after an irreversible move no
     * earlier position can recur, and keys of another version cannot be
     * compared: the list starts again. */
    g->move_key = v->repetition_key(pos);
    g->reset_keys = irreversible || g->key_version != RULES_KEY_VERSION;
    g->key_version = RULES_KEY_VERSION;
    snprintf(g->move_san, sizeof g->move_san, "%s", san);
    /* An offer lapses when the offering side's opponent moves. */
    if (strcmp(g->draw_offer, color_name(mover == RULES_WHITE ? RULES_BLACK : RULES_WHITE)) == 0)
        g->draw_offer[0] = '\0';
    v->position_report(pos, &report);
    if (report.status != RULES_ONGOING)
        finish(g, rules_result_text(report.result), rules_status_text(report.status));

    /* Korpalski's moves also in the inventor's notation (for emails). */
    if (strcmp(g->variant, "korpalski") == 0)
        snprintf(detail, sizeof detail, "{\"san\":\"%s\",\"uci\":\"%s\",\"polish\":\"%s\"}",
                 san, uci, polish);
    else
        snprintf(detail, sizeof detail, "{\"san\":\"%s\",\"uci\":\"%s\"}", san, uci);
    if ((rc = db_move_insert(tx, g->id, g->ply, san, uci, g->fen)) != DB_OK ||
        (rc = db_game_save(tx, g)) != DB_OK ||
        (rc = db_game_event(tx, g->id, DB_EVENT_MOVE, detail)) != DB_OK)
        return rc;
    if (strcmp(g->status, "active") != 0)
        rc = db_game_event(tx, g->id, DB_EVENT_GAME_END, NULL);
    return rc;
}

/* ---- Moves --------------------------------------------------------------- */

struct move_args {
    const char *player_id, *game_id, *text;
    int ply;
    const struct games_hooks *hooks;
    struct games_result *out;
};

static enum db_status move_checked(struct db_tx *tx, struct move_args *a)
{
    struct games_result *r = a->out;
    const struct rules_variant *v = NULL;
    struct rules_position pos;
    struct rules_move m;
    int color = -1;
    enum db_status rc;

    rc = lock_for_player(tx, a->game_id, a->player_id, true, false, r, &v, &pos, &color);
    if (rc != DB_OK || r->outcome != GAMES_OK)
        return rc;
    if (a->ply >= 0 && a->ply != r->game.ply)
        return refuse(r, GAMES_PLY_MISMATCH,
                      "you sent ply %d, but %d plies have been played; read the game again",
                      a->ply, r->game.ply);
    if (!read_move(v, &pos, a->text, &m, r))
        return DB_OK;
    return play(tx, v, &pos, m, &r->game);
}

static enum db_status move_tx(struct db_tx *tx, void *arg)
{
    struct move_args *a = arg;
    const struct games_hooks *h = a->hooks;
    enum db_status rc = DB_OK;

    result_reset(a->out);
    if (h != NULL && h->before != NULL && (rc = h->before(tx, h->arg)) == DB_CONFLICT) {
        a->out->outcome = GAMES_ANSWERED_BEFORE;
        return DB_OK;
    }
    if (rc == DB_OK)
        rc = move_checked(tx, a);
    if (rc == DB_OK && h != NULL && h->after != NULL)
        rc = h->after(tx, a->out, h->arg);
    return rc;
}

static void run(struct db_pool *pool, db_tx_fn fn, void *arg, struct games_result *r)
{
    enum db_status rc = db_run_tx(pool, fn, arg, r->err, sizeof r->err);
    if (rc != DB_OK) {
        r->outcome = GAMES_DB_ERROR;
        r->db = rc;
    }
}

void games_move(struct db_pool *pool, const char *player_id, const char *game_id,
                const char *move, int ply, const struct games_hooks *hooks,
                struct games_result *out)
{
    struct move_args a = { player_id, game_id, move, ply, hooks, out };
    memset(out, 0, sizeof *out);
    run(pool, move_tx, &a, out);
}

/* ---- Draw claims ---------------------------------------------------------- */

struct claim_args {
    const char *player_id, *game_id, *text;
    enum games_claim kind;
    struct games_result *out;
};

static enum db_status claim_tx(struct db_tx *tx, void *arg)
{
    struct claim_args *a = arg;
    struct games_result *r = a->out;
    const struct rules_variant *v = NULL;
    struct rules_position pos;
    struct rules_move m;
    struct rules_claim claim;
    struct rules_why why = { 0 };
    char detail[64];
    int color = -1;
    bool accepted;
    enum db_status rc;

    result_reset(r);
    rc = lock_for_player(tx, a->game_id, a->player_id, true, true, r, &v, &pos, &color);
    if (rc != DB_OK || r->outcome != GAMES_OK)
        return rc;
    if (a->text != NULL && !read_move(v, &pos, a->text, &m, r))
        return DB_OK;
    if (a->kind == GAMES_CLAIM_FIFTY_MOVE && !r->game.fifty_move_rule) {
        snprintf(r->detail, sizeof r->detail,
                 "this game is played without the fifty-move rule");
        return DB_OK;
    }
    /* Keys of another version cannot be compared: only the position now counts. */
    int keys = r->game.key_version == RULES_KEY_VERSION ? r->game.key_count : 0;
    if (rules_claim_check(v, &pos, r->game.keys, keys, a->text ? &m : NULL, &claim,
                          &why) != RULES_OK) {
        r->outcome = GAMES_ILLEGAL;
        r->reason = why.reason;
        snprintf(r->detail, sizeof r->detail, "%s", why.text);
        return DB_OK;
    }
    accepted = a->kind == GAMES_CLAIM_THREEFOLD ? claim.threefold : claim.fifty_move;
    if (!accepted) {
        if (a->kind == GAMES_CLAIM_THREEFOLD)
            snprintf(r->detail, sizeof r->detail,
                     "the position %s has occurred %d time%s; a threefold claim needs 3",
                     a->text ? "after your move" : "on the board", claim.occurrences,
                     claim.occurrences == 1 ? "" : "s");
        else
            snprintf(r->detail, sizeof r->detail,
                     "%d plies %s without a capture, pawn move or drop; a fifty-move "
                     "claim needs 100", claim.halfmove_clock,
                     a->text ? "would have passed after your move" : "have passed");
        return DB_OK;   /* a move sent with a rejected claim is not played */
    }
    /* By the chess convention (rules files, "Claims"): the move written
     * with a valid claim is not played; the game is drawn as it stands. */
    r->claim_accepted = true;
    if (a->kind == GAMES_CLAIM_THREEFOLD)
        snprintf(r->detail, sizeof r->detail, "the position has occurred %d times",
                 claim.occurrences);
    else
        snprintf(r->detail, sizeof r->detail,
                 "%d plies have passed without a capture, pawn move or drop",
                 claim.halfmove_clock);
    finish(&r->game, "1/2-1/2", a->kind == GAMES_CLAIM_THREEFOLD ? "threefold" : "fifty-move");
    snprintf(detail, sizeof detail, "{\"claim\":\"%s\"}",
             a->kind == GAMES_CLAIM_THREEFOLD ? "threefold" : "fifty-move");
    if ((rc = db_game_save(tx, &r->game)) != DB_OK ||
        (rc = db_game_event(tx, r->game.id, DB_EVENT_CLAIM, detail)) != DB_OK)
        return rc;
    return db_game_event(tx, r->game.id, DB_EVENT_GAME_END, NULL);
}

void games_claim(struct db_pool *pool, const char *player_id, const char *game_id,
                 enum games_claim kind, const char *move, struct games_result *out)
{
    struct claim_args a = { player_id, game_id, move, kind, out };
    memset(out, 0, sizeof *out);
    run(pool, claim_tx, &a, out);
}

/* ---- Draw offers, resignation, abort -------------------------------------- */

/* One thing a player does to an active game, on its locked row. */
typedef enum db_status (*player_step)(struct db_tx *tx, struct games_result *r,
                                      const struct rules_variant *v,
                                      const struct rules_position *pos, int color, int action);

struct step_args {
    const char *player_id, *game_id;
    int action;
    player_step step;
    struct games_result *out;
};

static enum db_status step_tx(struct db_tx *tx, void *arg)
{
    struct step_args *a = arg;
    struct games_result *r = a->out;
    const struct rules_variant *v = NULL;
    struct rules_position pos;
    int color = -1;
    enum db_status rc;

    result_reset(r);
    rc = lock_for_player(tx, a->game_id, a->player_id, false, false, r, &v, &pos, &color);
    if (rc != DB_OK || r->outcome != GAMES_OK)
        return rc;
    return a->step(tx, r, v, &pos, color, a->action);
}

static void run_step(struct db_pool *pool, const char *player_id, const char *game_id,
                     int action, player_step step, struct games_result *out)
{
    struct step_args a = { player_id, game_id, action, step, out };
    memset(out, 0, sizeof *out);
    run(pool, step_tx, &a, out);
}

static enum db_status draw_step(struct db_tx *tx, struct games_result *r,
                                const struct rules_variant *v, const struct rules_position *pos,
                                int color, int action)
{
    const char *mine = color_name(color);
    const char *theirs = color_name(color == RULES_WHITE ? RULES_BLACK : RULES_WHITE);
    struct rules_why why = { 0 };
    enum db_status rc;

    if (action != GAMES_DRAW_DECLINE && !v->draw_agreement_allowed(pos, &why))
        return refuse(r, GAMES_DRAW_NOT_ALLOWED, "%s", why.text);
    if (action == GAMES_DRAW_OFFER && strcmp(r->game.draw_offer, theirs) != 0) {
        if (strcmp(r->game.draw_offer, mine) == 0)
            return DB_OK;   /* offered already: nothing changes */
        snprintf(r->game.draw_offer, sizeof r->game.draw_offer, "%s", mine);
        if ((rc = db_game_save(tx, &r->game)) != DB_OK)
            return rc;
        return db_game_event(tx, r->game.id, DB_EVENT_DRAW_OFFER, NULL);
    }
    if (strcmp(r->game.draw_offer, theirs) != 0)
        return refuse(r, GAMES_CONFLICT, "your opponent has not offered a draw");
    if (action == GAMES_DRAW_DECLINE) {
        r->game.draw_offer[0] = '\0';
        if ((rc = db_game_save(tx, &r->game)) != DB_OK)
            return rc;
        return db_game_event(tx, r->game.id, DB_EVENT_DRAW_OFFER, NULL);
    }
    /* Accepting, or offering back against a standing offer. */
    finish(&r->game, "1/2-1/2", "agreement");
    return save_end(tx, &r->game);
}

void games_draw(struct db_pool *pool, const char *player_id, const char *game_id,
                enum games_draw_action action, struct games_result *out)
{
    run_step(pool, player_id, game_id, (int)action, draw_step, out);
}

static enum db_status resign_step(struct db_tx *tx, struct games_result *r,
                                  const struct rules_variant *v,
                                  const struct rules_position *pos, int color, int action)
{
    (void)v;
    (void)pos;
    (void)action;
    finish(&r->game, color == RULES_WHITE ? "0-1" : "1-0", "resignation");
    return save_end(tx, &r->game);
}

void games_resign(struct db_pool *pool, const char *player_id, const char *game_id,
                  struct games_result *out)
{
    run_step(pool, player_id, game_id, 0, resign_step, out);
}

static enum db_status abort_step(struct db_tx *tx, struct games_result *r,
                                 const struct rules_variant *v,
                                 const struct rules_position *pos, int color, int action)
{
    (void)v;
    (void)pos;
    (void)color;
    (void)action;
    if (r->game.ply >= 2)
        return refuse(r, GAMES_CONFLICT,
                      "a game can be aborted only before each side has made its first move; "
                      "resign instead");
    snprintf(r->game.status, sizeof r->game.status, "aborted");
    r->game.draw_offer[0] = '\0';
    return save_end(tx, &r->game);
}

void games_abort(struct db_pool *pool, const char *player_id, const char *game_id,
                 struct games_result *out)
{
    run_step(pool, player_id, game_id, 0, abort_step, out);
}

/* ---- Adjudication and time ------------------------------------------------ */

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

    result_reset(r);
    rc = db_game_lock(tx, a->game_id, false, &r->game);
    if (rc == DB_NOT_FOUND)
        return refuse(r, GAMES_NOT_FOUND, "no game has the id '%s'", a->game_id);
    if (rc != DB_OK)
        return rc;
    r->ply = r->game.ply;
    if (strcmp(r->game.status, "active") != 0)
        return refuse(r, GAMES_GAME_OVER, "the game is over (%s%s%s)", r->game.result,
                      r->game.termination[0] ? " by " : "", r->game.termination);
    finish(&r->game, rules_result_text(a->result), "adjudication");
    snprintf(r->game.adjudication_reason, sizeof r->game.adjudication_reason, "%s", a->reason);
    return save_end(tx, &r->game);
}

void games_adjudicate(struct db_pool *pool, const char *game_id, enum rules_result result,
                      const char *reason, struct games_result *out)
{
    struct adjudicate_args a = { game_id, reason, result, out };
    memset(out, 0, sizeof *out);
    run(pool, adjudicate_tx, &a, out);
}

static enum db_status time_out(struct db_tx *tx, struct db_game *g, void *arg)
{
    const struct rules_variant *v = NULL;
    struct rules_position pos;
    struct rules_report report;

    (void)arg;
    if (load(tx, g, &v, &pos) != DB_OK) {
        /* One bad row must not stop every sweep: it waits for an arbiter. */
        base_log(BASE_LOG_ERROR, "game %s: stored position '%s' is unreadable; its deadline "
                 "is taken away for an arbiter to rule", g->id, g->fen);
        return db_game_clear_deadline(tx, g->id);
    }
    v->position_report(&pos, &report);
    finish(g, rules_result_text(rules_result_on_time(&report, v->side_to_move(&pos))),
           "timeout");
    base_log(BASE_LOG_INFO, "game %s: %s ran out of time (%s)", g->id,
             color_name(v->side_to_move(&pos)), g->result);
    return save_end(tx, g);
}

int games_sweep(struct db_pool *pool, char *err, size_t errsize)
{
    int ended = 0;
    if (db_games_overdue(pool, 100, time_out, NULL, &ended, err, errsize) != DB_OK)
        return -1;
    return ended;
}

/* ---- Challenges ----------------------------------------------------------- */

struct accept_args {
    const char *player_id, *challenge_id;
    struct games_result *out;
};

static enum db_status accept_tx(struct db_tx *tx, void *arg)
{
    struct accept_args *a = arg;
    struct games_result *r = a->out;
    struct db_challenge c;
    struct db_game *g = &r->game;
    const struct rules_variant *v;
    struct rules_position pos;
    bool challenger_white;
    enum db_status rc;
    char coin[2];

    result_reset(r);
    rc = db_challenge_lock(tx, a->challenge_id, &c);
    if (rc == DB_NOT_FOUND)
        return refuse(r, GAMES_NOT_FOUND, "no challenge has the id '%s'", a->challenge_id);
    if (rc != DB_OK)
        return rc;
    /* Not open any more (another took an open challenge first) is 409. */
    if (strcmp(c.status, "open") != 0)
        return refuse(r, GAMES_CONFLICT, "the challenge is %s, not open", c.status);
    if (c.opponent_id[0] == '\0' && strcmp(c.challenger_id, a->player_id) == 0)
        return refuse(r, GAMES_FORBIDDEN, "you cannot accept your own open challenge");
    if (c.opponent_id[0] != '\0' && strcmp(c.opponent_id, a->player_id) != 0)
        return refuse(r, GAMES_FORBIDDEN, "only the challenged player may accept a challenge");
    /* An open challenge: the first to accept it is the opponent. */
    if (c.opponent_id[0] == '\0' && (rc = db_challenge_take(tx, &c, a->player_id)) != DB_OK)
        return rc;
    v = rules_variant_find(c.variant);
    if (v == NULL || v->position_parse(&pos, v->start_text, NULL) != RULES_OK)
        return db_tx_fail(tx, "challenge %s: no start position for '%s'", c.id, c.variant);
    if (strcmp(c.color, "random") == 0) {
        if (!base_random_text(coin, 1))
            return db_tx_fail(tx, "the random generator failed");
        challenger_white = (coin[0] & 1) == 0;
    } else {
        challenger_white = strcmp(c.color, "white") == 0;
    }
    snprintf(g->variant, sizeof g->variant, "%s", c.variant);
    snprintf(g->white_id, sizeof g->white_id, "%s", challenger_white ? c.challenger_id : c.opponent_id);
    snprintf(g->white_name, sizeof g->white_name, "%s", challenger_white ? c.challenger_name : c.opponent_name);
    snprintf(g->black_id, sizeof g->black_id, "%s", challenger_white ? c.opponent_id : c.challenger_id);
    snprintf(g->black_name, sizeof g->black_name, "%s", challenger_white ? c.opponent_name : c.challenger_name);
    snprintf(g->fen, sizeof g->fen, "%s", v->start_text);
    snprintf(g->status, sizeof g->status, "active");
    snprintf(g->result, sizeof g->result, "*");
    g->days_per_move = c.days_per_move;
    g->fifty_move_rule = c.fifty_move_rule;
    g->key_version = RULES_KEY_VERSION;
    g->keys = malloc(sizeof *g->keys);
    if (g->keys == NULL)
        return db_tx_fail(tx, "out of memory");
    g->keys[0] = v->repetition_key(&pos);
    g->key_count = 1;
    g->sans = strdup("");
    if ((rc = db_game_insert(tx, g, c.id)) != DB_OK ||
        (rc = db_challenge_set_status(tx, c.id, "accepted", g->id)) != DB_OK)
        return rc;
    return db_game_event(tx, g->id, DB_EVENT_GAME_START, NULL);
}

void games_challenge_accept(struct db_pool *pool, const char *player_id,
                            const char *challenge_id, struct games_result *out)
{
    struct accept_args a = { player_id, challenge_id, out };
    memset(out, 0, sizeof *out);
    run(pool, accept_tx, &a, out);
}

struct close_args {
    const char *player_id, *challenge_id;
    bool decline;
    struct db_challenge *c;
    struct games_result *out;
};

static enum db_status close_tx(struct db_tx *tx, void *arg)
{
    struct close_args *a = arg;
    struct games_result *r = a->out;
    const char *status = a->decline ? "declined" : "cancelled";
    enum db_status rc;

    result_reset(r);
    rc = db_challenge_lock(tx, a->challenge_id, a->c);
    if (rc == DB_NOT_FOUND)
        return refuse(r, GAMES_NOT_FOUND, "no challenge has the id '%s'", a->challenge_id);
    if (rc != DB_OK)
        return rc;
    if (strcmp(a->decline ? a->c->opponent_id : a->c->challenger_id, a->player_id) != 0)
        return refuse(r, GAMES_FORBIDDEN, "only the %s may %s a challenge",
                      a->decline ? "challenged player" : "challenger",
                      a->decline ? "decline" : "cancel");
    if (strcmp(a->c->status, "open") != 0)
        return refuse(r, GAMES_CONFLICT, "the challenge is %s, not open", a->c->status);
    if ((rc = db_challenge_set_status(tx, a->c->id, status, NULL)) != DB_OK)
        return rc;
    snprintf(a->c->status, sizeof a->c->status, "%s", status);
    return db_challenge_event(tx, a->c->id, a->decline ? DB_EVENT_CHALLENGE_DECLINED
                                                       : DB_EVENT_CHALLENGE_CANCELED);
}

void games_challenge_close(struct db_pool *pool, const char *player_id,
                           const char *challenge_id, bool decline, struct db_challenge *c,
                           struct games_result *out)
{
    struct close_args a = { player_id, challenge_id, decline, c, out };
    memset(out, 0, sizeof *out);
    run(pool, close_tx, &a, out);
}

/* ---- Analysis ------------------------------------------------------------- */

bool games_analyse(const struct db_game *g, struct games_analysis *out)
{
    const struct rules_variant *v = games_variant(g);
    struct rules_position pos;
    struct rules_claim claim;

    memset(out, 0, sizeof *out);
    if (v == NULL || v->position_parse(&pos, g->fen, NULL) != RULES_OK)
        return false;
    v->position_report(&pos, &out->report);
    out->to_move = v->side_to_move(&pos);
    int count = g->key_version == RULES_KEY_VERSION ? g->key_count : 0;
    if (rules_claim_check(v, &pos, g->keys, count, NULL, &claim, NULL) != RULES_OK)
        return false;
    /* Every occurrence (the claim keeps only the first few): keys run
     * oldest first and end with the current position, at ply. */
    out->earlier = malloc((size_t)(g->key_count + 1) * sizeof *out->earlier);
    if (out->earlier == NULL)
        return false;
    int n = rules_repetition_count(g->keys, count, claim.key, out->earlier, count);
    for (int i = 0; i < n; i++)
        if (out->earlier[i] < count - 1)
            out->earlier[out->earlier_count++] = g->ply - (count - 1 - out->earlier[i]);
    out->threefold_claimable = claim.threefold;
    out->fifty_move_claimable = g->fifty_move_rule && claim.fifty_move;
    return true;
}

void games_analysis_clear(struct games_analysis *a)
{
    free(a->earlier);
    a->earlier = NULL;
    a->earlier_count = 0;
}
