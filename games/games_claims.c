/*
 * games_claims.c — draw claims (threefold repetition, the fifty-move rule),
 * with or without the move that would bring them about, and draw offers.
 */
#include "games_int.h"

#include <stdio.h>
#include <string.h>

static const char *claim_name(enum games_claim kind)
{
    return db_termination_text(kind == GAMES_CLAIM_THREEFOLD ? DB_END_THREEFOLD
                                                             : DB_END_FIFTY_MOVE);
}

struct claim_args {
    enum games_claim kind;
    const char *text;   /* the move sent with the claim, or NULL */
};

/* Words for a claim that does not hold; nothing changes. */
static void say_rejected(struct games_result *r, const struct claim_args *a,
                         const struct rules_claim *claim)
{
    r->code = a->kind == GAMES_CLAIM_THREEFOLD ? "threefold-short" : "fifty-move-short";
    if (a->kind == GAMES_CLAIM_THREEFOLD)
        snprintf(r->detail, sizeof r->detail,
                 "the position %s has occurred %d time%s; a threefold claim needs 3",
                 a->text ? "after your move" : "on the board", claim->occurrences,
                 claim->occurrences == 1 ? "" : "s");
    else
        snprintf(r->detail, sizeof r->detail,
                 "%d plies %s without a capture, pawn move or drop; a fifty-move "
                 "claim needs 100", claim->halfmove_clock,
                 a->text ? "would have passed after your move" : "have passed");
}

static enum db_status claim_step(struct db_tx *tx, struct games_result *r,
                                 const struct rules_position *pos, enum rules_color color,
                                 const void *arg)
{
    const struct claim_args *a = arg;
    struct rules_move m;
    struct rules_claim claim;
    struct rules_why why = { 0 };
    char detail[64];
    enum db_status rc;

    (void)color;
    if (a->text != NULL && !games_read_move(r->game.variant, pos, a->text, &m, r))
        return DB_OK;
    if (a->kind == GAMES_CLAIM_FIFTY_MOVE && !r->game.fifty_move_rule) {
        r->code = "no-fifty-move-rule";
        snprintf(r->detail, sizeof r->detail,
                 "this game is played without the fifty-move rule");
        return DB_OK;
    }
    /* Keys of another version cannot be compared: only the position now counts. */
    int keys = r->game.key_version == RULES_KEY_VERSION ? r->game.key_count : 0;
    if (rules_claim_check(r->game.variant, pos, r->game.keys, keys, a->text ? &m : NULL,
                          &claim, &why) != RULES_OK) {
        r->outcome = GAMES_ILLEGAL;
        r->reason = why.reason;
        snprintf(r->detail, sizeof r->detail, "%s", why.text);
        return DB_OK;
    }
    if (!(a->kind == GAMES_CLAIM_THREEFOLD ? claim.threefold : claim.fifty_move)) {
        say_rejected(r, a, &claim);
        return DB_OK;   /* a move sent with a rejected claim is not played */
    }
    /* By the chess convention (rules files, "Claims"): the move written
     * with a valid claim is not played; the game is drawn as it stands. */
    r->claim_accepted = true;
    r->code = a->kind == GAMES_CLAIM_THREEFOLD ? "threefold-holds" : "fifty-move-holds";
    if (a->kind == GAMES_CLAIM_THREEFOLD)
        snprintf(r->detail, sizeof r->detail, "the position has occurred %d times",
                 claim.occurrences);
    else
        snprintf(r->detail, sizeof r->detail,
                 "%d plies have passed without a capture, pawn move or drop",
                 claim.halfmove_clock);
    games_finish(&r->game, RULES_RESULT_DRAW,
                 a->kind == GAMES_CLAIM_THREEFOLD ? DB_END_THREEFOLD : DB_END_FIFTY_MOVE);
    if ((rc = games_format(tx, detail, sizeof detail, "{\"claim\":\"%s\"}",
                           claim_name(a->kind))) != DB_OK ||
        (rc = db_game_save(tx, &r->game)) != DB_OK ||
        (rc = db_game_event(tx, r->game.id, DB_EVENT_CLAIM, detail)) != DB_OK)
        return rc;
    return games_announce_end(tx, &r->game);
}

void games_claim(struct db_pool *pool, const char *player_id, const char *game_id,
                 enum games_claim kind, const char *move, struct games_result *out)
{
    static const struct games_step step = { true, true, claim_step };
    struct claim_args a = { kind, move };
    games_run_step(pool, player_id, game_id, &step, &a, out);
}

/* ---- Draw offers ---------------------------------------------------------- */

static enum db_status draw_step(struct db_tx *tx, struct games_result *r,
                                const struct rules_position *pos, enum rules_color color,
                                const void *arg)
{
    enum games_draw_action action = *(const enum games_draw_action *)arg;
    struct rules_why why = { 0 };
    enum db_status rc;
    enum db_color mine = db_color_of(color);
    enum db_color theirs = db_color_of(color == RULES_WHITE ? RULES_BLACK : RULES_WHITE);
    if (action != GAMES_DRAW_DECLINE && !r->game.variant->draw_agreement_allowed(pos, &why))
    {
        r->code = rules_reason_slug(why.reason);
        return games_refuse(r, GAMES_DRAW_NOT_ALLOWED, "%s", why.text);
    }
    if (action == GAMES_DRAW_OFFER && r->game.draw_offer != theirs) {
        if (r->game.draw_offer == mine)
            return DB_OK;   /* offered already: nothing changes */
        r->game.draw_offer = mine;
        if ((rc = db_game_save(tx, &r->game)) != DB_OK)
            return rc;
        return db_game_event(tx, r->game.id, DB_EVENT_DRAW_OFFER, NULL);
    }
    if (r->game.draw_offer != theirs)
        return games_refuse(r, GAMES_CONFLICT, "your opponent has not offered a draw");
    if (action == GAMES_DRAW_DECLINE) {
        r->game.draw_offer = DB_COLOR_NONE;
        if ((rc = db_game_save(tx, &r->game)) != DB_OK)
            return rc;
        return db_game_event(tx, r->game.id, DB_EVENT_DRAW_OFFER, NULL);
    }
    /* Accepting, or offering back against a standing offer. */
    games_finish(&r->game, RULES_RESULT_DRAW, DB_END_AGREEMENT);
    return games_save_end(tx, &r->game);
}

void games_draw(struct db_pool *pool, const char *player_id, const char *game_id,
                enum games_draw_action action, struct games_result *out)
{
    static const struct games_step step = { false, false, draw_step };
    games_run_step(pool, player_id, game_id, &step, &action, out);
}
