/*
 * games_arbiter.c — what goes to an arbiter: a perpetual-check
 * claim (rules 15.6: shown to the arbiter rather than waiting for a
 * repetition), checked here and queued while the game goes on; a player's
 * request for an arbiter; an arbiter's dismissal of an item; and an
 * adjudication resolving its game's items.  Both players are told of every
 * decision (event `arbiter`).  And the arbiter's sanction: an account
 * closed for rated play, its active rated games, challenges and
 * tournaments ended with it, and the check that keeps a closed player out
 * of rated play.  What a named arbiter does is written to the arbiters' log.
 */
#include "games_int.h"

#include "base.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
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
    const char *arbiter_id, *item_id, *reason;   /* arbiter_id NULL: not logged */
    char *log_id;
};

static enum db_status dismiss_tx(struct db_tx *tx, struct games_result *r, void *arg)
{
    struct dismiss_args *a = arg;
    struct db_queue_item item = { 0 };
    char detail[2048], what[256];
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
    if (rc == DB_OK && r->outcome == GAMES_OK && a->arbiter_id != NULL &&
        (rc = games_format(tx, what, sizeof what, "{\"kind\":\"%s\",\"game_id\":\"%s\"}",
                           db_queue_kind_text(item.kind), item.game_id)) == DB_OK) {
        const struct db_arbiter_entry entry = {
            a->arbiter_id, "dismiss", item.player_id[0] ? item.player_id : NULL, item.id,
            a->reason, NULL, what,
        };
        rc = db_arbiter_log_add(tx, &entry, a->log_id);
    }
    db_queue_item_clear(&item);
    return rc;
}

void games_arbiter_dismiss(struct db_pool *pool, const char *item_id, const char *reason,
                           struct games_result *out)
{
    struct dismiss_args a = { NULL, item_id, reason, NULL };
    games_run(pool, dismiss_tx, &a, out);
}

void games_arbiter_dismiss_logged(struct db_pool *pool, const char *arbiter_id,
                                  const char *item_id, const char *reason,
                                  char log_id[BASE_ID_SIZE], struct games_result *out)
{
    struct dismiss_args a = { arbiter_id, item_id, reason, log_id };
    log_id[0] = '\0';
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

/* ---- Closed for rated play */

/* What a closure ends in one pass, of each kind; it passes again until
 * nothing is left, at most CLOSURE_PASSES times. */
#define CLOSURE_BATCH 64
#define CLOSURE_PASSES 64

struct closure_args {
    const struct games_closure *c;
    char *log_id;
    struct base_text details;     /* what it does, as JSON: a run starts it anew */
    char *done;                   /* the same once written (malloc'd) */
};

/* Ends one active rated game of the closed player as their loss. */
static enum db_status closure_game(struct db_tx *tx, const struct games_closure *c,
                                   const char *game_id)
{
    struct db_game g;
    enum db_status rc;

    memset(&g, 0, sizeof g);
    rc = db_game_lock(tx, game_id, false, &g);
    if (rc == DB_OK && g.status == DB_GAME_ACTIVE) {
        enum rules_result lost = strcmp(g.white_id, c->player_id) == 0
                                     ? RULES_RESULT_BLACK_WINS : RULES_RESULT_WHITE_WINS;
        if (c->games == GAMES_CLOSURE_FORFEIT) {
            games_finish(&g, lost, DB_END_FORFEIT);
            g.rated = false;
            rc = db_game_unrate(tx, g.id);
        } else {
            games_finish(&g, lost, DB_END_ADJUDICATION);
            snprintf(g.adjudication_reason, sizeof g.adjudication_reason, "%s", c->reason);
        }
        if (rc == DB_OK)
            rc = games_save_end(tx, &g);
    }
    db_game_clear(&g);
    return rc;
}

/* Ends one of what the closure ends: a game, a challenge, a tournament's entry. */
static enum db_status closure_end(struct db_tx *tx, const struct games_closure *c,
                                  enum db_rated_kind kind, const char *id, bool started)
{
    enum db_status rc;

    switch (kind) {
    case DB_RATED_GAMES:
        return closure_game(tx, c, id);
    case DB_RATED_CHALLENGES:
        rc = db_challenge_set_status(tx, id, DB_CHALLENGE_CANCELLED, NULL);
        return rc == DB_OK ? db_challenge_event(tx, id, DB_EVENT_CHALLENGE_CANCELED) : rc;
    case DB_RATED_TOURNAMENTS:
        /* Its games ended above, as a withdrawal forfeits them. */
        rc = db_tournament_leave(tx, id, c->player_id, started);
        return rc == DB_NOT_FOUND ? DB_OK : rc;
    }
    return DB_OK;
}

/* Ends every one of a kind, their ids appended to a->details as a JSON list. */
static enum db_status closure_all(struct db_tx *tx, struct closure_args *a,
                                  enum db_rated_kind kind)
{
    static const char *const kinds[] = { "games", "challenges", "tournaments" };
    char ids[CLOSURE_BATCH][BASE_ID_SIZE];
    bool started[CLOSURE_BATCH];
    int count = CLOSURE_BATCH, listed = 0;

    base_text_put(&a->details, ",\"%s\":[", kinds[kind]);
    /* A full batch may leave more behind: another pass. */
    for (int pass = 0; pass < CLOSURE_PASSES && count == CLOSURE_BATCH; pass++) {
        enum db_status rc = db_player_rated(tx, kind, a->c->player_id, ids, started,
                                            CLOSURE_BATCH, &count);
        for (int i = 0; i < count && rc == DB_OK; i++) {
            base_text_put(&a->details, "%s\"%s\"", listed++ > 0 ? "," : "", ids[i]);
            rc = closure_end(tx, a->c, kind, ids[i], started[i]);
        }
        if (rc != DB_OK)
            return rc;
    }
    if (count == CLOSURE_BATCH)
        return db_tx_fail(tx, "player %s: more %s than a closure ends (%d)", a->c->player_id,
                          kinds[kind], CLOSURE_BATCH * CLOSURE_PASSES);
    base_text_str(&a->details, "]");
    return DB_OK;
}

static enum db_status closure_tx(struct db_tx *tx, struct games_result *r, void *arg)
{
    struct closure_args *a = arg;
    const struct games_closure *c = a->c;
    struct db_queue_item item = { 0 };
    bool before = false;
    enum db_status rc = DB_OK;

    free(base_text_take(&a->details));
    free(a->done);
    a->done = NULL;
    a->log_id[0] = '\0';
    if (c->item_id != NULL) {
        rc = db_queue_lock(tx, c->item_id, &item);
        db_queue_item_clear(&item);
        if (rc == DB_NOT_FOUND)
            return games_refuse(r, GAMES_NOT_FOUND,
                                "no item of the arbiter's queue has the id '%s'", c->item_id);
        if (rc == DB_OK && !item.open)
            return games_refuse(r, GAMES_CONFLICT, "the item %s is no longer open: it was "
                                "dismissed or resolved", c->item_id);
    }
    if (rc == DB_OK)
        rc = db_player_rated_close(tx, c->player_id, true, &before);
    if (rc == DB_NOT_FOUND)
        return games_refuse(r, GAMES_NOT_FOUND, "no player has the id '%s'", c->player_id);
    if (rc == DB_OK && before)
        return games_refuse(r, GAMES_CONFLICT, "the account of %s is closed for rated play "
                            "already", c->player_id);
    base_text_put(&a->details, "{\"ended_by\":\"%s\"",
                  c->games == GAMES_CLOSURE_FORFEIT ? "forfeit" : "adjudication");
    /* The games first: a tournament is left once its games are over. */
    if (rc == DB_OK && (rc = closure_all(tx, a, DB_RATED_GAMES)) == DB_OK &&
        (rc = closure_all(tx, a, DB_RATED_CHALLENGES)) == DB_OK)
        rc = closure_all(tx, a, DB_RATED_TOURNAMENTS);
    base_text_str(&a->details, "}");
    if (rc == DB_OK && c->item_id != NULL)
        rc = db_queue_resolve(tx, c->item_id, c->reason);
    if (rc == DB_OK && (a->done = base_text_take(&a->details)) == NULL)
        rc = db_tx_fail(tx, "out of memory");
    if (rc == DB_OK) {
        const struct db_arbiter_entry entry = {
            c->arbiter_id, "close", c->player_id, c->item_id, c->reason, c->message, a->done,
        };
        rc = db_arbiter_log_add(tx, &entry, a->log_id);
    }
    return rc;
}

void games_rated_close(struct db_pool *pool, const struct games_closure *c,
                       char log_id[BASE_ID_SIZE], char **details, struct games_result *out)
{
    struct closure_args a = { c, log_id, { 0 }, NULL };
    games_run(pool, closure_tx, &a, out);
    free(base_text_take(&a.details));
    *details = NULL;
    if (out->outcome == GAMES_OK)
        *details = a.done;
    else
        free(a.done);
}

struct reopen_args {
    const char *arbiter_id, *player_id, *reason, *message;
    char *log_id;
};

static enum db_status reopen_tx(struct db_tx *tx, struct games_result *r, void *arg)
{
    struct reopen_args *a = arg;
    bool before = false;
    enum db_status rc = db_player_rated_close(tx, a->player_id, false, &before);

    a->log_id[0] = '\0';
    if (rc == DB_NOT_FOUND)
        return games_refuse(r, GAMES_NOT_FOUND, "no player has the id '%s'", a->player_id);
    if (rc == DB_OK && !before)
        return games_refuse(r, GAMES_CONFLICT, "the account of %s is not closed for rated play",
                            a->player_id);
    if (rc == DB_OK) {
        const struct db_arbiter_entry entry = {
            a->arbiter_id, "reopen", a->player_id, NULL, a->reason, a->message, NULL,
        };
        rc = db_arbiter_log_add(tx, &entry, a->log_id);
    }
    return rc;
}

void games_rated_reopen(struct db_pool *pool, const char *arbiter_id, const char *player_id,
                        const char *reason, const char *message, char log_id[BASE_ID_SIZE],
                        struct games_result *out)
{
    struct reopen_args a = { arbiter_id, player_id, reason, message, log_id };
    games_run(pool, reopen_tx, &a, out);
}

enum db_status games_rated_play_check(struct db_tx *tx, const char *const *ids, int count,
                                      struct games_result *r)
{
    char names[256];
    enum db_status rc = db_rated_play_closed(tx, ids, count, names, sizeof names);

    if (rc != DB_OK || names[0] == '\0')
        return rc;
    r->code = "rated-play-closed";
    return games_refuse(r, GAMES_CONFLICT, "the account of %s is closed for rated play by "
                        "an arbiter: unrated games only", names);
}
