/*
 * games_arbiter.c — what goes to an arbiter: a perpetual-check
 * claim (rules 15.6: shown to the arbiter rather than waiting for a
 * repetition), checked here and queued while the game goes on; a player's
 * request for an arbiter; an arbiter's dismissal of an item; and an
 * adjudication resolving its game's items.  Both players are told of every
 * decision (event `arbiter`).
 */
#include "games_int.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* The longest line read, in moves. */
#define LINE_MAX_MOVES 64

/* A token's move, after any move number ("12.", "12...", "12.Qh5+"). */
static const char *without_number(const char *token)
{
    const char *p = token;
    while (isdigit((unsigned char)*p))
        p++;
    if (p == token || *p != '.')
        return token;
    while (*p == '.')
        p++;
    return p;
}

struct perpetual_args {
    const char *player_id, *game_id, *line;
    bool *not_check;
    char *claim_id;
};

/* Refuses a move of the line: says which one and why (code: the reason code). */
static enum db_status line_refused(struct games_result *r, int number, const char *text,
                                   const char *code, const char *why)
{
    char copy[sizeof r->detail];
    memcpy(copy, why, strnlen(why, sizeof copy - 1));
    copy[strnlen(why, sizeof copy - 1)] = '\0';
    snprintf(r->detail, sizeof r->detail, "move %d of the line, '%.32s': %.180s", number, text,
             copy);
    r->outcome = GAMES_CLAIM_LINE_REFUSED;
    r->code = code;
    return DB_OK;
}

static enum db_status perpetual_tx(struct db_tx *tx, struct games_result *r, void *arg)
{
    struct perpetual_args *a = arg;
    struct rules_position pos;
    enum rules_color color;
    char words[1024], line[1024] = "", details[1400];
    char *save = NULL;
    int count = 0;
    enum db_status rc;

    *a->not_check = false;
    rc = games_lock_for_player(tx, a->game_id, a->player_id, true, false, r, &pos, &color);
    if (rc != DB_OK || r->outcome != GAMES_OK)
        return rc;
    const struct rules_variant *v = r->game.variant;
    snprintf(words, sizeof words, "%s", a->line);
    for (char *tok = strtok_r(words, " \t\r\n", &save); tok != NULL;
         tok = strtok_r(NULL, " \t\r\n", &save)) {
        const char *text = without_number(tok);
        struct rules_move m;
        struct rules_report report;
        char san[RULES_MOVE_TEXT_MAX];
        if (text[0] == '\0')
            continue;
        if (++count > LINE_MAX_MOVES) {
            r->code = "line-too-long";
            return games_refuse(r, GAMES_CLAIM_LINE_REFUSED, "the line is longer than %d moves",
                                LINE_MAX_MOVES);
        }
        v->position_report(&pos, &report);
        if (report.status != RULES_ONGOING)
            return line_refused(r, count, text, "line-past-the-end", "the game is over before it");
        if (!games_read_move(v, &pos, text, &m, r))
            return line_refused(r, count, text, "line-move-refused", r->detail);
        v->move_format(&pos, m, RULES_NOTATION_SAN, san, sizeof san);
        if (v->position_apply(&pos, m) != RULES_OK)
            return db_tx_fail(tx, "game %s: a parsed move did not apply", r->game.id);
        v->position_report(&pos, &report);
        /* The claimant's moves are the odd ones: each must give check. */
        if (count % 2 == 1 && !report.in_check) {
            *a->not_check = true;
            return line_refused(r, count, text, "line-not-check",
                                "it does not give check; in a perpetual-check claim every "
                                "move of the claimant gives check");
        }
        size_t used = strlen(line);
        if ((rc = games_format(tx, line + used, sizeof line - used, "%s%s",
                               count > 1 ? " " : "", san)) != DB_OK)
            return rc;
    }
    if (count == 0) {
        r->code = "line-empty";
        return games_refuse(r, GAMES_CLAIM_LINE_REFUSED, "the line has no move: write the "
                            "moves to come, yours first, like \"Qh5+ Kg8 Qe8+ Kh7 Qh5+\"");
    }
    /* The line is rebuilt from korpd's own SAN: no quote or backslash. */
    rc = games_format(tx, details, sizeof details,
                      "{\"claimant\":\"%s\",\"color\":\"%s\",\"ply\":%d,\"line\":\"%s\"}",
                      a->player_id, games_color_name(color), r->game.ply, line);
    if (rc != DB_OK)
        return rc;
    return db_queue_add(tx, DB_QUEUE_PERPETUAL, r->game.id, a->player_id, details, NULL,
                        a->claim_id);
}

void games_perpetual_claim(struct db_pool *pool, const char *player_id, const char *game_id,
                           const char *line, bool *not_check, char claim_id[BASE_ID_SIZE],
                           struct games_result *out)
{
    struct perpetual_args a = { player_id, game_id, line, not_check, claim_id };
    games_run(pool, perpetual_tx, &a, out);
}

struct request_args {
    const char *player_id, *game_id, *text;
    char *request_id;
};

/* One open request per player per game, GAMES_ARBITER_REQUESTS_PER_DAY
 * per player in 24 hours: counted under a lock on the player's requests,
 * so that two at once cannot both pass. */
static enum db_status request_tx(struct db_tx *tx, struct games_result *r, void *arg)
{
    struct request_args *a = arg;
    struct db_queue_request_guard guard;
    char details[128];
    enum db_status rc;

    rc = games_lock_game(tx, a->game_id, false, r);
    if (rc != DB_OK || r->outcome != GAMES_OK)
        return rc;
    if (!games_is_player(&r->game, a->player_id))
        return games_refuse(r, GAMES_FORBIDDEN, "you are not a player of this game");
    if ((rc = db_queue_request_guard(tx, a->player_id, r->game.id, &guard)) != DB_OK)
        return rc;
    if (guard.open_id[0] != '\0')
        return games_refuse(r, GAMES_CONFLICT, "your request %s about this game is still open: "
                            "one at a time; an arbiter answers or dismisses it first",
                            guard.open_id);
    if (guard.last_day >= GAMES_ARBITER_REQUESTS_PER_DAY) {
        r->retry_after = guard.wait > 0 ? guard.wait : 1;
        return games_refuse(r, GAMES_DAILY_LIMIT, "you have asked for an arbiter %d times in "
                            "the last 24 hours, the most allowed; try again in %d s",
                            GAMES_ARBITER_REQUESTS_PER_DAY, r->retry_after);
    }
    rc = games_format(tx, details, sizeof details, "{\"player\":\"%s\",\"ply\":%d}",
                      a->player_id, r->game.ply);
    if (rc != DB_OK)
        return rc;
    return db_queue_add(tx, DB_QUEUE_REQUEST, r->game.id, a->player_id, details, a->text,
                        a->request_id);
}

void games_arbiter_request(struct db_pool *pool, const char *player_id, const char *game_id,
                           const char *text, char request_id[BASE_ID_SIZE],
                           struct games_result *out)
{
    struct request_args a = { player_id, game_id, text, request_id };
    games_run(pool, request_tx, &a, out);
}

struct dismiss_args {
    const char *item_id, *reason;
};

static enum db_status dismiss_tx(struct db_tx *tx, struct games_result *r, void *arg)
{
    struct dismiss_args *a = arg;
    struct db_queue_item item = { 0 };
    char detail[2048];
    enum db_status rc;

    rc = db_queue_lock(tx, a->item_id, &item);
    if (rc == DB_NOT_FOUND)
        return games_refuse(r, GAMES_NOT_FOUND, "no item of the arbiter's queue has the id '%s'",
                            a->item_id);
    if (rc == DB_OK && !item.open)
        rc = games_refuse(r, GAMES_CONFLICT, "the item is no longer open: it was dismissed, "
                          "or resolved by an adjudication of its game");
    else if (rc == DB_OK && (rc = db_queue_dismiss(tx, item.id, a->reason, detail,
                                                   sizeof detail)) == DB_OK)
        rc = db_game_event(tx, item.game_id, DB_EVENT_ARBITER, detail);
    db_queue_item_clear(&item);
    return rc;
}

void games_arbiter_dismiss(struct db_pool *pool, const char *item_id, const char *reason,
                           struct games_result *out)
{
    struct dismiss_args a = { item_id, reason };
    games_run(pool, dismiss_tx, &a, out);
}

enum db_status games_arbiter_game_over(struct db_tx *tx, struct db_game *g)
{
    char detail[2048];
    int count = 0;
    enum db_status rc;

    if (g->termination != DB_END_ADJUDICATION)
        return DB_OK;
    rc = db_queue_resolve_game(tx, g->id, g->adjudication_reason, &count, detail,
                               sizeof detail);
    if (rc != DB_OK || count == 0)
        return rc;
    return db_game_event(tx, g->id, DB_EVENT_ARBITER, detail);
}
