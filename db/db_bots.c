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

enum db_status db_bot_list(struct db_pool *pool, int within_ms, struct db_bot *out, int max,
                           int *count, struct base_err *err)
{
    char limit[16], within[16];
    const char *params[2] = { limit, within };
    snprintf(limit, sizeof limit, "%d", max);
    snprintf(within, sizeof within, "%d", within_ms);
    return db_get_rows(pool, DB_STMT_BOT_LIST, params, named_read, out, sizeof *out, max, count,
                       err);
}

struct online_row {
    bool online;
};

static const struct db_col online_cols[] = {
    DB_BOOL(struct online_row, online, "online"), DB_COLS_END
};

DB_READER(online_read, struct online_row, online_cols)

enum db_status db_bot_online(struct db_pool *pool, const char *player_id, int within_ms,
                             bool *online, struct base_err *err)
{
    char within[16];
    const char *params[2] = { player_id, within };
    struct online_row row = { false };
    enum db_status st;
    snprintf(within, sizeof within, "%d", within_ms);
    st = db_get_row(pool, DB_STMT_BOT_ONLINE, params, online_read, &row, err);
    *online = row.online;
    return st;
}

struct seen_row {
    char seen[DB_STAMP_SIZE];
};

static const struct db_col seen_cols[] = {
    DB_TEXT(struct seen_row, seen, "seen"), DB_COLS_END
};

DB_READER(seen_read, struct seen_row, seen_cols)

enum db_status db_bot_seen(struct db_pool *pool, const char *player_id,
                           char stamp[DB_STAMP_SIZE], struct base_err *err)
{
    const char *params[1] = { player_id };
    struct seen_row row = { "" };
    enum db_status st = db_get_row(pool, DB_STMT_BOT_SEEN, params, seen_read, &row, err);
    memcpy(stamp, row.seen, DB_STAMP_SIZE);
    return st;
}

enum db_status db_bot_gone(struct db_pool *pool, const char *player_id, const char *stamp,
                           struct base_err *err)
{
    const char *params[2] = { player_id, stamp };
    long long cleared = 0;
    return db_get_number(pool, DB_STMT_BOT_GONE, params, "cleared", false, &cleared, err);
}
