/* db_bots.c — bot accounts: the flag on a player and its one way up. */
#include "db_int.h"

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
