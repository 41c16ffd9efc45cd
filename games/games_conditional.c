/*
 * games_conditional.c — conditional moves: a player sets lines
 * of "if they play this, I reply that" while the opponent is to move; when
 * the opponent's move is committed, the reply it calls for is played in
 * the same transaction, as any move of theirs (move row, events,
 * notifications, clock), and the lines move on or are dropped.
 *
 * Lines are stored in UCI as korpd writes it (one notation, so that a
 * move compares equal whatever notation it was sent in), a line per row
 * of text, moves separated by spaces.
 */
#include "games_int.h"

#include "base.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Lines in UCI, parsed from their stored text (or to be stored). */
struct uci_lines {
    int count;
    int length[GAMES_LINES_MAX];
    char move[GAMES_LINES_MAX][GAMES_LINE_MOVES_MAX][RULES_MOVE_TEXT_MAX];
};

/* Reads stored text; false if it is not lines korpd wrote. */
static bool lines_parse(const char *text, struct uci_lines *out)
{
    memset(out, 0, sizeof *out);
    while (*text != '\0') {
        size_t line_len = strcspn(text, "\n");
        const char *end = text + line_len, *p = text;
        if (line_len > 0) {
            if (out->count == GAMES_LINES_MAX)
                return false;
            while (p < end) {
                size_t n = strcspn(p, " \n");
                int *len = &out->length[out->count];
                if (n == 0 || n >= RULES_MOVE_TEXT_MAX || *len == GAMES_LINE_MOVES_MAX)
                    return false;
                memcpy(out->move[out->count][*len], p, n);
                out->move[out->count][(*len)++][n] = '\0';
                p += n;
                while (p < end && *p == ' ')
                    p++;
            }
            out->count++;
        }
        text = *end == '\n' ? end + 1 : end;
    }
    return true;
}

/* The text to store (malloc'd), or NULL for no memory. */
static char *lines_format(const struct uci_lines *l)
{
    struct base_text t = { 0 };
    for (int i = 0; i < l->count; i++)
        for (int k = 0; k < l->length[i]; k++)
            base_text_put(&t, "%s%s", l->move[i][k], k + 1 < l->length[i] ? " " : "\n");
    return base_text_take(&t);
}

/*
 * Checks every line move by move from pos, into uci (korpd's own UCI) and
 * lines (SAN); the first bad move refuses the whole set.
 */
static bool lines_read(const struct rules_variant *v, const struct rules_position *pos,
                       struct games_lines *lines, struct uci_lines *uci, struct games_result *r)
{
    memset(uci, 0, sizeof *uci);
    for (int i = 0; i < lines->count; i++) {
        struct rules_position at = *pos;
        for (int k = 0; k < lines->length[i]; k++) {
            struct rules_move m;
            char detail[sizeof r->detail + 64];
            if (!games_read_move(v, &at, lines->move[i][k], &m, r)) {
                lines->bad_line = i;
                lines->bad_index = k;
                snprintf(detail, sizeof detail, "line %d, move %d ('%s'): %s", i, k,
                         lines->move[i][k], r->detail);
                snprintf(r->detail, sizeof r->detail, "%.*s", (int)sizeof r->detail - 1, detail);
                return false;
            }
            v->move_format(&at, m, RULES_NOTATION_UCI, uci->move[i][k], RULES_MOVE_TEXT_MAX);
            v->move_format(&at, m, RULES_NOTATION_SAN, lines->move[i][k], RULES_MOVE_TEXT_MAX);
            if (v->position_apply(&at, m) != RULES_OK) {
                lines->bad_line = i;
                lines->bad_index = k;
                r->outcome = GAMES_ILLEGAL;
                snprintf(r->detail, sizeof r->detail, "line %d, move %d does not apply", i, k);
                return false;
            }
        }
        uci->length[i] = lines->length[i];
    }
    uci->count = lines->count;
    return true;
}

/* Whether two lines that agree up to the opponent's move at k (even)
 * answer it differently: their first such point, or -1. */
static int disagreement(const struct uci_lines *u, int a, int b)
{
    for (int k = 0; k + 1 < u->length[a] && k + 1 < u->length[b]; k += 2) {
        if (strcmp(u->move[a][k], u->move[b][k]) != 0)
            return -1;
        if (strcmp(u->move[a][k + 1], u->move[b][k + 1]) != 0)
            return k + 1;
    }
    return -1;
}

static bool lines_agree(const struct uci_lines *u, struct games_lines *lines,
                        struct games_result *r)
{
    for (int b = 1; b < u->count; b++)
        for (int a = 0; a < b; a++) {
            int k = disagreement(u, a, b);
            if (k < 0)
                continue;
            lines->conflict = true;
            lines->bad_line = b;
            lines->bad_index = k;
            r->outcome = GAMES_LINES_DISAGREE;
            snprintf(r->detail, sizeof r->detail,
                     "line %d answers %s with %s, but line %d with %s: lines that share "
                     "moves must give the same reply", b, lines->move[b][k - 1],
                     lines->move[b][k], a, lines->move[a][k]);
            return false;
        }
    return true;
}

/* ---- Setting, reading and removing ------------------------------------ */

/* A player's conditional moves are theirs alone: one who does not play
 * the game is answered as if there were none. */
static enum db_status not_yours(struct games_result *r, const char *game_id)
{
    return games_refuse(r, GAMES_NOT_YOURS, "no game with the id '%s' that you play", game_id);
}

static enum db_status put_step(struct db_tx *tx, struct games_result *r,
                               const struct rules_position *pos, enum rules_color color,
                               const void *arg)
{
    struct games_lines *lines = (struct games_lines *)arg;
    const struct rules_variant *v = r->game.variant;
    const char *me = color == RULES_WHITE ? r->game.white_id : r->game.black_id;
    struct uci_lines *uci;
    char *text;
    enum db_status rc;

    if (lines->expect_ply >= 0 && lines->expect_ply != r->game.ply)
        return games_refuse(r, GAMES_PLY_MISMATCH,
                            "you sent ply %d, but %d plies have been played; read the game "
                            "again", lines->expect_ply, r->game.ply);
    if (v->side_to_move(pos) == color) {
        r->code = "conditional-on-your-turn";
        return games_refuse(r, GAMES_CONFLICT,
                            "it is your turn: conditional moves are set while your opponent is "
                            "to move; play your move first");
    }
    lines->ply = r->game.ply;
    if (lines->count == 0)
        return db_conditional_delete(tx, r->game.id, me);
    uci = malloc(sizeof *uci);
    if (uci == NULL)
        return db_tx_fail(tx, "out of memory");
    rc = DB_OK;
    if (lines_read(v, pos, lines, uci, r) && lines_agree(uci, lines, r)) {
        text = lines_format(uci);
        rc = text != NULL ? db_conditional_put(tx, r->game.id, me, r->game.ply, text)
                          : db_tx_fail(tx, "out of memory");
        free(text);
    }
    free(uci);
    return rc;
}

void games_conditional_put(struct db_pool *pool, const char *player_id, const char *game_id,
                           struct games_lines *lines, struct games_result *out)
{
    /* A run rewrites the lines in korpd's SAN, which a retry reads the same. */
    static const struct games_step step = { false, false, put_step };
    games_run_step(pool, player_id, game_id, &step, lines, out);
    /* One who does not play the game is not told whether it exists. */
    if (out->outcome == GAMES_NOT_FOUND || out->outcome == GAMES_FORBIDDEN)
        not_yours(out, game_id);
}

/* The player's stored lines, if they hold in the game's current position
 * (a stale row, of a game that ended otherwise, is none); NULL if none. */
static enum db_status current_lines(struct db_tx *tx, const struct db_game *g,
                                    const char *player_id, struct uci_lines **out)
{
    char *text = NULL;
    int ply = -1;
    enum db_status rc = db_conditional_get(tx, g->id, player_id, &ply, &text);

    *out = NULL;
    if (rc == DB_NOT_FOUND)
        return DB_OK;
    if (rc == DB_OK && ply == g->ply && g->status == DB_GAME_ACTIVE) {
        *out = malloc(sizeof **out);
        if (*out == NULL)
            rc = db_tx_fail(tx, "out of memory");
        else if (!lines_parse(text, *out))
            rc = db_tx_fail(tx, "game %s: stored conditional moves are unreadable", g->id);
    }
    free(text);
    return rc;
}

static enum db_status get_step(struct db_tx *tx, struct games_result *r,
                               const struct rules_position *pos, enum rules_color color,
                               const void *arg)
{
    struct games_lines *lines = (struct games_lines *)arg;
    const struct rules_variant *v = r->game.variant;
    const char *me = color == RULES_WHITE ? r->game.white_id : r->game.black_id;
    struct uci_lines *uci = NULL;
    enum db_status rc = current_lines(tx, &r->game, me, &uci);

    lines->count = 0;
    lines->ply = r->game.ply;
    for (int i = 0; rc == DB_OK && uci != NULL && i < uci->count; i++) {
        struct rules_position at = *pos;
        for (int k = 0; k < uci->length[i]; k++) {
            struct rules_move m;
            if (v->move_parse(&at, uci->move[i][k], RULES_DIALECT_DEFAULT, &m, NULL) != RULES_OK) {
                rc = db_tx_fail(tx, "game %s: a stored conditional move does not replay",
                                r->game.id);
                break;
            }
            v->move_format(&at, m, RULES_NOTATION_SAN, lines->move[i][k], RULES_MOVE_TEXT_MAX);
            v->position_apply(&at, m);
        }
        lines->length[i] = uci->length[i];
        lines->count = i + 1;
    }
    free(uci);
    return rc;
}

/* Reads a game for a player of it, active or not: the lines are the
 * player's own, none once it is over. */
struct read_call {
    const char *player_id, *game_id;
    struct games_lines *lines;
    bool remove;
};

static enum db_status read_tx(struct db_tx *tx, struct games_result *r, void *arg)
{
    struct read_call *c = arg;
    struct rules_position pos;
    enum db_status rc;

    rc = games_lock_game(tx, c->game_id, false, r);
    if (rc != DB_OK)
        return rc;
    if (r->outcome != GAMES_OK || !games_is_player(&r->game, c->player_id))
        return not_yours(r, c->game_id);
    if (c->remove)
        return db_conditional_delete(tx, r->game.id, c->player_id);
    if (r->game.status != DB_GAME_ACTIVE) {
        c->lines->count = 0;
        c->lines->ply = r->game.ply;
        return DB_OK;
    }
    if ((rc = games_load(tx, &r->game, &pos)) != DB_OK)
        return rc;
    return get_step(tx, r, &pos,
                    strcmp(r->game.white_id, c->player_id) == 0 ? RULES_WHITE : RULES_BLACK,
                    c->lines);
}

void games_conditional_get(struct db_pool *pool, const char *player_id, const char *game_id,
                           struct games_lines *lines, struct games_result *out)
{
    struct read_call c = { player_id, game_id, lines, false };
    games_run(pool, read_tx, &c, out);
}

void games_conditional_delete(struct db_pool *pool, const char *player_id, const char *game_id,
                              struct games_result *out)
{
    struct read_call c = { player_id, game_id, NULL, true };
    games_run(pool, read_tx, &c, out);
}

/* ---- The reply -------------------------------------------------------- */

/*
 * Keeps the lines that begin with the move played (`played`, UCI), each
 * without it and its reply, into kept; returns the reply, or NULL when no
 * line begins with it.
 */
static const char *follow(const struct uci_lines *u, const char *played, struct uci_lines *kept)
{
    const char *reply = NULL;
    memset(kept, 0, sizeof *kept);
    for (int i = 0; i < u->count; i++) {
        if (u->length[i] < 2 || strcmp(u->move[i][0], played) != 0)
            continue;
        reply = u->move[i][1];
        if (u->length[i] == 2)
            continue;
        memcpy(kept->move[kept->count], u->move[i][2],
               (size_t)(u->length[i] - 2) * sizeof u->move[i][0]);
        kept->length[kept->count++] = u->length[i] - 2;
    }
    return reply;
}

enum db_status games_conditional_answer(struct db_tx *tx, const struct rules_position *before,
                                        struct rules_move m, struct rules_position *pos,
                                        struct db_game *g)
{
    const struct rules_variant *v = g->variant;
    const char *owner = g->ply % 2 == 0 ? g->white_id : g->black_id;
    struct uci_lines *lines = NULL, *kept = NULL;
    char played[RULES_MOVE_TEXT_MAX], reply_text[RULES_MOVE_TEXT_MAX], *text = NULL;
    const char *reply;
    struct rules_move r;
    enum db_status rc;

    /* A move that ends the game answers nothing: every line goes. */
    if (g->status != DB_GAME_ACTIVE)
        return db_conditional_delete(tx, g->id, NULL);
    /* The owner's lines hold at the ply before this move. */
    g->ply--;
    rc = current_lines(tx, g, owner, &lines);
    g->ply++;
    if (rc != DB_OK || lines == NULL)
        goto done;
    v->move_format(before, m, RULES_NOTATION_UCI, played, sizeof played);
    kept = malloc(sizeof *kept);
    if (kept == NULL) {
        rc = db_tx_fail(tx, "out of memory");
        goto done;
    }
    reply = follow(lines, played, kept);
    if (reply == NULL) {
        rc = db_conditional_delete(tx, g->id, owner);
        goto done;
    }
    snprintf(reply_text, sizeof reply_text, "%s", reply);
    if (v->move_parse(pos, reply_text, RULES_DIALECT_DEFAULT, &r, NULL) != RULES_OK) {
        /* Checked when set, from this very position: never expected. */
        base_log(BASE_LOG_ERROR, "game %s: conditional reply %s is not legal; dropped", g->id,
                 reply_text);
        rc = db_conditional_delete(tx, g->id, owner);
        goto done;
    }
    /* Played as the owner's move; the move they answer is no longer theirs
     * to make, so its notice to them gives way to the reply's. */
    g->move_conditional = true;
    rc = games_play(tx, pos, r, g);
    g->move_conditional = false;
    if (rc == DB_OK)
        rc = db_move_mark_conditional(tx, g->id, g->ply);
    if (rc == DB_OK)
        rc = db_move_notice_drop(tx, g->id, owner, g->ply - 1);
    if (rc != DB_OK)
        goto done;
    if (kept->count == 0 || g->status != DB_GAME_ACTIVE) {
        rc = db_conditional_delete(tx, g->id, NULL);
        goto done;
    }
    text = lines_format(kept);
    rc = text != NULL ? db_conditional_put(tx, g->id, owner, g->ply, text)
                      : db_tx_fail(tx, "out of memory");
done:
    free(text);
    free(kept);
    free(lines);
    return rc;
}
