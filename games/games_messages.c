/*
 * games_messages.c — messages between the players of a game:
 * stored at the plies played when sent (the move they came with included),
 * told to the opponent as the event "message", at most
 * GAMES_MESSAGES_PER_DAY per player per game per UTC day.
 */
#include "games_int.h"

#include "base.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool games_message_valid(const char *text, char *why, size_t size)
{
    size_t chars = 0;

    if (!base_text_fit(text, BASE_TEXT_LINES, &chars, why, size))
        return false;
    if (chars < 1 || chars > GAMES_MESSAGE_CHARS) {
        snprintf(why, size, "a message is 1 to %d characters, not %zu", GAMES_MESSAGE_CHARS,
                 chars);
        return false;
    }
    return true;
}

/* Stores the message and tells both streams (the opponent is notified). */
static enum db_status send(struct db_tx *tx, const char *player_id, const char *game_id,
                           int ply, const char *text, char **json)
{
    struct base_text detail = { 0 };
    char *d;
    enum db_status rc = db_message_insert(tx, game_id, player_id, ply, text,
                                          GAMES_MESSAGES_PER_DAY, json);
    if (rc != DB_OK)
        return rc;
    base_text_put(&detail, "{\"message\":%s}", *json);
    d = base_text_take(&detail);
    if (d == NULL)
        return db_tx_fail(tx, "out of memory");
    rc = db_game_event(tx, game_id, DB_EVENT_MESSAGE, d);
    free(d);
    return rc;
}

enum db_status games_message_with_move(struct db_tx *tx, const char *player_id,
                                       const char *game_id, int ply, const char *text)
{
    char *json = NULL;
    enum db_status rc = send(tx, player_id, game_id, ply, text, &json);
    free(json);
    return rc;
}

struct send_call {
    const char *player_id, *game_id, *text;
    char **json;
};

static enum db_status send_tx(struct db_tx *tx, struct games_result *r, void *arg)
{
    struct send_call *c = arg;
    enum db_status rc;

    free(*c->json);
    *c->json = NULL;
    /* The game row, locked, orders a player's messages and their count. */
    rc = games_lock_game(tx, c->game_id, false, r);
    if (rc != DB_OK || r->outcome != GAMES_OK)
        return rc;
    if (!games_is_player(&r->game, c->player_id))
        return games_refuse(r, GAMES_FORBIDDEN, "only the players of a game send messages in it");
    rc = send(tx, c->player_id, c->game_id, r->game.ply, c->text, c->json);
    if (rc == DB_CONFLICT)
        return games_refuse(r, GAMES_DAILY_LIMIT, "you have sent %d messages in this game "
                            "today (UTC), the most a day allows; more from 00:00 UTC",
                            GAMES_MESSAGES_PER_DAY);
    return rc;
}

void games_message_send(struct db_pool *pool, const char *player_id, const char *game_id,
                        const char *text, char **json, struct games_result *out)
{
    struct send_call c = { player_id, game_id, text, json };
    *json = NULL;
    games_run(pool, send_tx, &c, out);
    if (out->outcome != GAMES_OK) {
        free(*json);
        *json = NULL;
    }
}

void games_note_put(struct db_pool *pool, const char *player_id, const char *game_id,
                    const char *text, char updated_at[DB_TIME_SIZE], struct games_result *out)
{
    memset(out, 0, sizeof *out);
    out->db = db_note_put(pool, game_id, player_id, text, updated_at, &out->err);
    if (out->db == DB_NOT_FOUND)
        games_refuse(out, GAMES_NOT_YOURS, "no game with the id '%s' that you play", game_id);
    else if (out->db != DB_OK)
        out->outcome = GAMES_DB_ERROR;
}
