/*
 * games_challenges.c — a challenge made (within its challenger's limits),
 * accepted (the game made, colours drawn for "random"), declined by its
 * opponent or cancelled by its challenger.
 */
#include "games_int.h"

#include "base.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void copy_player(char *id, size_t id_size, char *name, size_t name_size,
                        const char *from_id, const char *from_name)
{
    snprintf(id, id_size, "%s", from_id);
    snprintf(name, name_size, "%s", from_name);
}

/* "your challenge ... is still open" */
static enum db_status refuse_duplicate(struct games_result *r, const char *existing_id)
{
    r->code = "challenge-open-already";
    return games_refuse(r, GAMES_CONFLICT, "your challenge %s to this player is still open: one "
                        "at a time to each player; wait for their answer or cancel it first",
                        existing_id);
}

/* ---- made ---------------------------------------------------------------- */

struct create_args {
    const struct db_challenge *want;
    int per_day;
    struct db_challenge *c;
};

/* One challenge at a time to each opponent, at most GAMES_OPEN_CHALLENGES_MAX
 * to anyone, and per_day in 24 hours: checked under a lock on the
 * challenger's challenges, so that two at once cannot both pass. */
static enum db_status create_tx(struct db_tx *tx, struct games_result *r, void *arg)
{
    struct create_args *a = arg;
    struct db_challenge_guard guard;
    enum db_status rc;

    *a->c = *a->want;
    if ((rc = db_challenger_lock(tx, a->c->challenger_id)) != DB_OK ||
        (rc = db_challenge_guard(tx, a->c->challenger_id, a->c->opponent_id, &guard)) != DB_OK)
        return rc;
    if (guard.existing_id[0] != '\0')
        return refuse_duplicate(r, guard.existing_id);
    if (a->per_day > 0 && guard.last_day >= a->per_day) {
        r->retry_after = guard.wait > 0 ? guard.wait : 1;
        return games_refuse(r, GAMES_DAILY_LIMIT, "you have made %d challenges in the last 24 "
                            "hours, the most allowed; try again in %d s", a->per_day,
                            r->retry_after);
    }
    if (a->c->opponent_id[0] == '\0' && guard.open_to_anyone >= GAMES_OPEN_CHALLENGES_MAX) {
        r->code = "open-challenges-limit";
        return games_refuse(r, GAMES_CONFLICT, "you have %d open challenges waiting already: "
                            "cancel one first", GAMES_OPEN_CHALLENGES_MAX);
    }
    if (a->c->rated) {
        const char *ids[2] = { a->c->challenger_id, a->c->opponent_id };
        rc = games_rated_play_check(tx, ids, a->c->opponent_id[0] != '\0' ? 2 : 1, r);
        if (rc != DB_OK || r->outcome != GAMES_OK)
            return rc;
    }
    rc = db_challenge_insert(tx, a->c);
    if (rc == DB_NOT_FOUND)
        return games_refuse(r, GAMES_NOT_FOUND, "no player has the id '%.64s'",
                            a->c->opponent_id);
    if (rc == DB_OK)
        rc = db_challenge_event(tx, a->c->id, DB_EVENT_CHALLENGE);
    return rc == DB_OK ? db_challenge_lock(tx, a->c->id, a->c) : rc;
}

void games_challenge_create(struct db_pool *pool, struct db_challenge *c, int per_day,
                            struct games_result *out)
{
    struct db_challenge want = *c;
    struct create_args a = { &want, per_day, c };
    games_run(pool, create_tx, &a, out);
    /* The unique index: one open to that opponent, made since the guard read. */
    if (out->outcome == GAMES_DB_ERROR && out->db == DB_CONFLICT) {
        memset(out, 0, sizeof *out);
        refuse_duplicate(out, "");
    }
}

/* ---- accepted, declined, cancelled ------------------------------------------ */

/* The game a challenge makes, at its variant's start position. */
static enum db_status game_of(struct db_tx *tx, const struct db_challenge *c,
                              bool challenger_white, struct db_game *g)
{
    const struct rules_variant *v = c->variant;
    struct rules_position pos;

    if (v == NULL || v->position_parse(&pos, v->start_text, NULL) != RULES_OK)
        return db_tx_fail(tx, "challenge %s: no start position for its variant", c->id);
    g->variant = v;
    copy_player(g->white_id, sizeof g->white_id, g->white_name, sizeof g->white_name,
                challenger_white ? c->challenger_id : c->opponent_id,
                challenger_white ? c->challenger_name : c->opponent_name);
    copy_player(g->black_id, sizeof g->black_id, g->black_name, sizeof g->black_name,
                challenger_white ? c->opponent_id : c->challenger_id,
                challenger_white ? c->opponent_name : c->challenger_name);
    snprintf(g->fen, sizeof g->fen, "%s", v->start_text);
    g->status = DB_GAME_ACTIVE;
    g->result = RULES_RESULT_NONE;
    g->days_per_move = c->days_per_move;
    g->clock = c->clock;
    g->fifty_move_rule = c->fifty_move_rule;
    g->rated = c->rated;
    g->engines_allowed = c->engines_allowed;
    g->key_version = RULES_KEY_VERSION;
    g->keys = malloc(sizeof *g->keys);
    g->sans = strdup("");
    if (g->keys == NULL || g->sans == NULL)
        return db_tx_fail(tx, "out of memory");
    g->keys[0] = v->repetition_key(&pos);
    g->key_count = 1;
    return DB_OK;
}

struct accept_args {
    const char *player_id, *challenge_id;
};

static enum db_status accept_tx(struct db_tx *tx, struct games_result *r, void *arg)
{
    struct accept_args *a = arg;
    struct db_challenge c;
    bool challenger_white;
    enum db_status rc;
    char coin[2];

    rc = db_challenge_lock(tx, a->challenge_id, &c);
    if (rc == DB_NOT_FOUND)
        return games_refuse(r, GAMES_NOT_FOUND, "no challenge has the id '%s'",
                            a->challenge_id);
    if (rc != DB_OK)
        return rc;
    /* Not open any more (another took an open challenge first) is 409. */
    if (c.status != DB_CHALLENGE_OPEN) {
        r->code = "challenge-not-open";
        return games_refuse(r, GAMES_CONFLICT, "the challenge is %s, not open",
                            db_challenge_status_text(c.status));
    }
    if (c.opponent_id[0] == '\0' && strcmp(c.challenger_id, a->player_id) == 0)
        return games_refuse(r, GAMES_FORBIDDEN, "you cannot accept your own open challenge");
    if (c.opponent_id[0] != '\0' && strcmp(c.opponent_id, a->player_id) != 0)
        return games_refuse(r, GAMES_FORBIDDEN,
                            "only the challenged player may accept a challenge");
    if (c.rated) {
        const char *ids[2] = { c.challenger_id, a->player_id };
        if ((rc = games_rated_play_check(tx, ids, 2, r)) != DB_OK || r->outcome != GAMES_OK)
            return rc;
    }
    /* An open challenge: the first to accept it is the opponent. */
    if (c.opponent_id[0] == '\0' && (rc = db_challenge_take(tx, &c, a->player_id)) != DB_OK)
        return rc;
    if (c.color == DB_COLOR_RANDOM) {
        if (!base_random_text(coin, 1))
            return db_tx_fail(tx, "the random generator failed");
        challenger_white = (coin[0] & 1) == 0;
    } else {
        challenger_white = c.color == DB_COLOR_WHITE;
    }
    /* The game takes the challenge's id: clients written for lichess
     * wait for the game of the challenge they made by its id. */
    snprintf(r->game.id, sizeof r->game.id, "%s", c.id);
    if ((rc = game_of(tx, &c, challenger_white, &r->game)) != DB_OK ||
        (rc = db_game_insert(tx, &r->game, c.id)) != DB_OK ||
        (rc = db_challenge_set_status(tx, c.id, DB_CHALLENGE_ACCEPTED, r->game.id)) != DB_OK)
        return rc;
    return db_game_event(tx, r->game.id, DB_EVENT_GAME_START, NULL);
}

void games_challenge_accept(struct db_pool *pool, const char *player_id,
                            const char *challenge_id, struct games_result *out)
{
    struct accept_args a = { player_id, challenge_id };
    games_run(pool, accept_tx, &a, out);
}

struct close_args {
    const char *player_id, *challenge_id;
    bool decline;
    struct db_challenge *c;
    const char *reason;     /* why it is declined, kept; NULL: none */
};

static enum db_status close_tx(struct db_tx *tx, struct games_result *r, void *arg)
{
    struct close_args *a = arg;
    enum db_challenge_status status = a->decline ? DB_CHALLENGE_DECLINED
                                                 : DB_CHALLENGE_CANCELLED;
    enum db_status rc;

    rc = db_challenge_lock(tx, a->challenge_id, a->c);
    if (rc == DB_NOT_FOUND)
        return games_refuse(r, GAMES_NOT_FOUND, "no challenge has the id '%s'",
                            a->challenge_id);
    if (rc != DB_OK)
        return rc;
    if (strcmp(a->decline ? a->c->opponent_id : a->c->challenger_id, a->player_id) != 0)
        return games_refuse(r, GAMES_FORBIDDEN, "only the %s may %s a challenge",
                            a->decline ? "challenged player" : "challenger",
                            a->decline ? "decline" : "cancel");
    if (a->c->status != DB_CHALLENGE_OPEN) {
        r->code = "challenge-not-open";
        return games_refuse(r, GAMES_CONFLICT, "the challenge is %s, not open",
                            db_challenge_status_text(a->c->status));
    }
    if ((rc = db_challenge_set_status(tx, a->c->id, status, NULL)) != DB_OK ||
        (a->reason != NULL &&
         (rc = db_challenge_set_decline_reason(tx, a->c->id, a->reason)) != DB_OK))
        return rc;
    a->c->status = status;
    return db_challenge_event(tx, a->c->id, a->decline ? DB_EVENT_CHALLENGE_DECLINED
                                                       : DB_EVENT_CHALLENGE_CANCELED);
}

void games_challenge_close(struct db_pool *pool, const char *player_id,
                           const char *challenge_id, bool decline, struct db_challenge *c,
                           struct games_result *out)
{
    struct close_args a = { player_id, challenge_id, decline, c, NULL };
    games_run(pool, close_tx, &a, out);
}

void games_challenge_decline(struct db_pool *pool, const char *player_id,
                             const char *challenge_id, const char *reason,
                             struct db_challenge *c, struct games_result *out)
{
    struct close_args a = { player_id, challenge_id, true, c, reason };
    games_run(pool, close_tx, &a, out);
}
