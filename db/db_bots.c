/* db_bots.c — bot accounts: the flag on a player and its one way up. */
#include "db_int.h"

#include <stdio.h>
#include <string.h>

struct bot_row {
    bool bot, online;
};

static const struct db_col bot_cols[] = {
    DB_BOOL(struct bot_row, bot, "bot"), DB_BOOL(struct bot_row, online, "online"), DB_COLS_END
};

DB_READER(bot_read, struct bot_row, bot_cols)

/* The player's row of BOT_GET, seen within the last within_ms. */
static enum db_status bot_row_get(struct db_pool *pool, const char *player_id, int within_ms,
                                  struct bot_row *row, struct base_err *err)
{
    char within[16];
    const char *params[2] = { player_id, within };
    snprintf(within, sizeof within, "%d", within_ms);
    *row = (struct bot_row){ false, false };
    return db_get_row(pool, DB_STMT_BOT_GET, params, bot_read, row, err);
}

enum db_status db_bot_get(struct db_pool *pool, const char *player_id, bool *bot,
                          struct base_err *err)
{
    struct bot_row row;
    enum db_status st = bot_row_get(pool, player_id, 0, &row, err);
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

/* One short text, in the column "word": a reason to decline, a stamp. */
struct word_row {
    char word[DB_STAMP_SIZE];
};

static const struct db_col word_cols[] = {
    DB_TEXT(struct word_row, word, "word"), DB_COLS_END
};

DB_READER(word_read, struct word_row, word_cols)

/* The word of the one row statement id answers, cut to size bytes. */
static enum db_status word_get(struct db_pool *pool, enum db_stmt id, const char *const *params,
                               char *out, size_t size, struct base_err *err)
{
    struct word_row row = { "" };
    enum db_status st = db_get_row(pool, id, params, word_read, &row, err);
    snprintf(out, size, "%s", row.word);
    return st;
}

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
    return word_get(pool, DB_STMT_CHALLENGE_DECLINE_REASON, params, reason, DB_REASON_SIZE,
                    err);
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

enum db_status db_bot_online(struct db_pool *pool, const char *player_id, int within_ms,
                             bool *online, struct base_err *err)
{
    struct bot_row row;
    enum db_status st = bot_row_get(pool, player_id, within_ms, &row, err);
    *online = row.online;
    return st;
}

enum db_status db_bot_seen(struct db_pool *pool, const char *player_id,
                           char stamp[DB_STAMP_SIZE], struct base_err *err)
{
    const char *params[1] = { player_id };
    return word_get(pool, DB_STMT_BOT_SEEN, params, stamp, DB_STAMP_SIZE, err);
}

enum db_status db_bot_gone(struct db_pool *pool, const char *player_id, const char *stamp,
                           struct base_err *err)
{
    const char *params[2] = { player_id, stamp };
    long long cleared = 0;
    return db_get_number(pool, DB_STMT_BOT_GONE, params, "cleared", false, &cleared, err);
}
