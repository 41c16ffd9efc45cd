/* db_bots.c — bot accounts: the flag on a player and its one way up. */
#include "db_int.h"

#include <stdio.h>
#include <string.h>

struct bot_row {
    bool bot;
};

static const struct db_col bot_cols[] = {
    DB_BOOL(struct bot_row, bot, "bot"), DB_COLS_END
};

DB_READER(bot_read, struct bot_row, bot_cols)

enum db_status db_bot_get(struct db_pool *pool, const char *player_id, bool *bot,
                          struct base_err *err)
{
    const char *params[1] = { player_id };
    struct bot_row row = { false };
    enum db_status st = db_get_row(pool, DB_STMT_BOT_GET, params, bot_read, &row, err);
    *bot = row.bot;
    return st;
}

enum db_status db_bot_upgrade(struct db_pool *pool, const char *player_id, bool *refused,
                              struct base_err *err)
{
    const char *params[1] = { player_id };
    long long upgraded = 0;
    enum db_status st = db_get_number(pool, DB_STMT_BOT_UPGRADE, params, "upgraded", true,
                                      &upgraded, err);
    *refused = st == DB_OK && upgraded == 0;
    return st;
}

struct reason_row {
    char reason[DB_REASON_SIZE];
};

static const struct db_col reason_cols[] = {
    DB_TEXT(struct reason_row, reason, "reason"), DB_COLS_END
};

DB_READER(reason_read, struct reason_row, reason_cols)

enum db_status db_challenge_set_decline_reason(struct db_tx *tx, const char *id,
                                               const char *reason)
{
    const char *params[2] = { id, reason };
    return db_exec(tx, DB_STMT_CHALLENGE_SET_DECLINE_REASON, params, NULL);
}

enum db_status db_challenge_decline_reason(struct db_pool *pool, const char *id,
                                           char reason[DB_REASON_SIZE], struct base_err *err)
{
    const char *params[1] = { id };
    struct reason_row row = { "" };
    enum db_status st = db_get_row(pool, DB_STMT_CHALLENGE_DECLINE_REASON, params, reason_read,
                                   &row, err);
    memcpy(reason, row.reason, DB_REASON_SIZE);
    return st;
}

static const struct db_col named_cols[] = {
    DB_TEXT(struct db_bot, id, "id"), DB_TEXT(struct db_bot, name, "name"), DB_COLS_END
};

DB_READER(named_read, struct db_bot, named_cols)

enum db_status db_player_by_name(struct db_pool *pool, const char *name, char id[BASE_ID_SIZE],
                                 char canonical[DB_NAME_SIZE], struct base_err *err)
{
    const char *params[1] = { name };
    struct db_bot row;
    enum db_status st = db_get_row(pool, DB_STMT_PLAYER_BY_NAME, params, named_read, &row, err);
    if (st == DB_OK) {
        memcpy(id, row.id, BASE_ID_SIZE);
        memcpy(canonical, row.name, DB_NAME_SIZE);
    }
    return st;
}

enum db_status db_bot_list(struct db_pool *pool, struct db_bot *out, int max, int *count,
                           struct base_err *err)
{
    char limit[16];
    const char *params[1] = { limit };
    snprintf(limit, sizeof limit, "%d", max);
    return db_get_rows(pool, DB_STMT_BOT_LIST, params, named_read, out, sizeof *out, max, count,
                       err);
}
