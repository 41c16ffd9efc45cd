/*
 * games_moves.c — a move: read in any notation the variant reads, played
 * on the locked game, the move row, the game's new state and the events
 * written in one transaction, with the request's Idempotency-Key claimed
 * and its answer stored in the same one.
 */
#include "games_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/*
 * Players of a variant with Hungarian letters also write them, where B is
 * a rook (bastya), not a bishop.  korpd's own SAN (English letters, as
 * /legal-moves and /moves write it) always means what it says; any other
 * text that is a legal move in both readings, differently, is refused as
 * ambiguous rather than guessed (a correspondence move cannot be taken
 * back).
 */
bool games_read_move(const struct rules_variant *v, const struct rules_position *pos,
                     const char *text, struct rules_move *m, struct games_result *r)
{
    struct rules_why why = { 0 }, other = { 0 };
    struct rules_move hungarian;
    enum rules_error e = v->move_parse(pos, text, RULES_DIALECT_DEFAULT, m, &why);
    bool read_hu = v->hungarian_letters &&
                   v->move_parse(pos, text, RULES_DIALECT_HUNGARIAN, &hungarian, &other) == RULES_OK;

    if (e == RULES_OK && read_hu && !rules_move_equal(*m, hungarian) &&
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

/*
 * What a move event adds to the game's snapshot: the move in SAN and UCI,
 * the inventor's notation too where the variant has one (for emails), and
 * in a game with a clock each side's time once the move is charged (the
 * turn email tells a Fischer clock's time).
 */
static enum db_status move_detail(struct db_tx *tx, const struct db_game *g, const char *san,
                                  const char *uci, const char *polish, char *out, size_t size)
{
    char clock[96] = "", inventor[RULES_MOVE_TEXT_MAX + 16] = "";
    const char *conditional = g->move_conditional ? ",\"conditional\":true" : "";
    enum db_status rc = DB_OK;
    if (g->clock.type != DB_CLOCK_NONE)
        rc = games_format(tx, clock, sizeof clock,
                          ",\"clock\":{\"type\":\"%s\",\"white\":%lld,\"black\":%lld}",
                          db_clock_type_text(g->clock.type), g->remaining_white,
                          g->remaining_black);
    if (rc == DB_OK && polish != NULL)
        rc = games_format(tx, inventor, sizeof inventor, ",\"polish\":\"%s\"", polish);
    if (rc == DB_OK)
        rc = games_format(tx, out, size, "{\"san\":\"%s\",\"uci\":\"%s\"%s%s%s}", san, uci,
                          inventor, clock, conditional);
    return rc;
}

/*
 * Plays a legal move on the locked game: the move row, the game's new
 * state (status, keys, draw offer, clocks) and the events.  Ends the game
 * when the position does.
 */
static enum db_status play(struct db_tx *tx, struct rules_position *pos, struct rules_move m,
                           struct db_game *g)
{
    const struct rules_variant *v = g->variant;
    char san[RULES_MOVE_TEXT_MAX], uci[RULES_MOVE_TEXT_MAX], polish[RULES_MOVE_TEXT_MAX];
    char detail[3 * RULES_MOVE_TEXT_MAX + 192];
    enum rules_color mover = v->side_to_move(pos);
    bool irreversible = v->move_is_irreversible(pos, m);
    struct rules_report report;
    enum db_status rc;

    v->move_format(pos, m, RULES_NOTATION_SAN, san, sizeof san);
    v->move_format(pos, m, RULES_NOTATION_UCI, uci, sizeof uci);
    if (v->polish_notation)
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
    snprintf(g->move_uci, sizeof g->move_uci, "%s", uci);
    /* An offer lapses when the offering side's opponent moves. */
    if (g->draw_offer != DB_COLOR_NONE && db_color_rules(g->draw_offer) != mover)
        g->draw_offer = DB_COLOR_NONE;
    v->position_report(pos, &report);
    if (report.status != RULES_ONGOING)
        games_finish(g, report.result, db_termination_of(report.status));

    if ((rc = db_game_save(tx, g)) != DB_OK)
        return rc;
    /* After the save: the clocks have charged the move. */
    if ((rc = move_detail(tx, g, san, uci, v->polish_notation ? polish : NULL, detail,
                          sizeof detail)) != DB_OK ||
        (rc = db_game_event(tx, g->id, DB_EVENT_MOVE, detail)) != DB_OK)
        return rc;
    if (g->status != DB_GAME_ACTIVE)
        rc = games_announce_end(tx, g);
    return rc;
}

struct move_args {
    const char *player_id, *game_id, *text;
    int ply;
    const char *message;
    struct games_key *key;
};

static enum db_status move_checked(struct db_tx *tx, struct games_result *r,
                                   const struct move_args *a)
{
    struct rules_position pos, before;
    struct rules_move m;
    enum rules_color color = RULES_WHITE;
    enum db_status rc;

    rc = games_lock_for_player(tx, a->game_id, a->player_id, true, false, r, &pos, &color);
    if (rc != DB_OK || r->outcome != GAMES_OK)
        return rc;
    if (a->ply >= 0 && a->ply != r->game.ply)
        return games_refuse(r, GAMES_PLY_MISMATCH,
                            "you sent ply %d, but %d plies have been played; read the game again",
                            a->ply, r->game.ply);
    if (!games_read_move(r->game.variant, &pos, a->text, &m, r))
        return DB_OK;
    before = pos;
    if ((rc = play(tx, &pos, m, &r->game)) != DB_OK)
        return rc;
    /* The reply the player to move now set for this move, in this transaction. */
    return games_conditional_answer(tx, &before, m, &pos, &r->game);
}

enum db_status games_play(struct db_tx *tx, struct rules_position *pos, struct rules_move m,
                          struct db_game *g)
{
    return play(tx, pos, m, g);
}

/* Claims the key: GAMES_ANSWERED_BEFORE (its answer in key) or
 * GAMES_KEY_REUSED when it was used before. */
static enum db_status key_claim(struct db_tx *tx, struct games_key *k, struct games_result *r)
{
    enum db_idempotency found = DB_KEY_NEW;
    enum db_status rc = db_idempotency_claim(tx, k->token_id, k->key, k->method, k->path,
                                             &found, &k->status, &k->body);
    if (rc != DB_OK || found == DB_KEY_NEW)
        return rc;
    if (found == DB_KEY_OTHER_REQUEST) {
        free(k->body);
        k->body = NULL;
        return games_refuse(r, GAMES_KEY_REUSED,
                            "this Idempotency-Key was used for another request (another game or "
                            "route); use a new key for each request");
    }
    r->outcome = GAMES_ANSWERED_BEFORE;
    return DB_OK;
}

/* Stores the answer to the request under its key, with the move. */
static enum db_status key_store(struct db_tx *tx, struct games_key *k,
                                const struct games_result *r)
{
    if ((k->body = k->render(r, k->render_arg, &k->status)) == NULL)
        return db_tx_fail(tx, "out of memory writing the answer to keep");
    return db_idempotency_store(tx, k->token_id, k->key, k->status, k->body);
}

static enum db_status move_tx(struct db_tx *tx, struct games_result *r, void *arg)
{
    struct move_args *a = arg;
    struct games_key *k = a->key;
    enum db_status rc = DB_OK;

    if (k != NULL) {
        free(k->body);      /* an earlier run's */
        k->body = NULL;
        rc = key_claim(tx, k, r);
        if (rc != DB_OK || r->outcome != GAMES_OK)
            return rc;
    }
    if ((rc = move_checked(tx, r, a)) != DB_OK)
        return rc;
    /* A message with the move is stored at the move's ply, with it.  One
     * over the daily limit (checked before, raced since) is dropped. */
    if (a->message != NULL && r->outcome == GAMES_OK) {
        rc = games_message_with_move(tx, a->player_id, r->game.id, r->ply + 1, a->message);
        if (rc != DB_OK && rc != DB_CONFLICT)
            return rc;
    }
    return k != NULL ? key_store(tx, k, r) : DB_OK;
}

void games_move(struct db_pool *pool, const char *player_id, const char *game_id,
                const char *move, int ply, const char *message, struct games_key *key,
                struct games_result *out)
{
    struct move_args a = { player_id, game_id, move, ply, message, key };
    if (key != NULL)
        key->body = NULL;
    games_run(pool, move_tx, &a, out);
    if (key != NULL && (out->outcome == GAMES_DB_ERROR || out->outcome == GAMES_KEY_REUSED)) {
        free(key->body);
        key->body = NULL;
    }
}
