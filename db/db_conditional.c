/*
 * db_conditional.c — a player's conditional moves in a game:
 * read, replaced and removed inside the transaction that holds the game
 * row, and the marks a reply played from them leaves.
 */
#include "db_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum db_status db_conditional_get(struct db_tx *tx, const char *game_id, const char *player_id,
                                  int *ply, char **lines)
{
    const char *params[2] = { game_id, player_id };
    PGresult *res = NULL;
    enum db_status rc = db_exec(tx, DB_STMT_CONDITIONAL_GET, params, &res);

    *lines = NULL;
    *ply = -1;
    if (rc == DB_OK && PQntuples(res) == 0)
        rc = DB_NOT_FOUND;
    if (rc == DB_OK) {
        const struct db_row r = { res, 0 };
        const char *text = db_row_value(&r, "lines");
        *ply = db_row_int(&r, "ply");
        *lines = strdup(text != NULL ? text : "");
        if (*lines == NULL)
            rc = db_tx_fail(tx, "out of memory");
    }
    PQclear(res);
    return rc;
}

enum db_status db_conditional_put(struct db_tx *tx, const char *game_id, const char *player_id,
                                  int ply, const char *lines)
{
    char n[DB_NUMBER_SIZE];
    const char *params[4] = { game_id, player_id, db_number(n, ply), lines };
    return db_exec(tx, DB_STMT_CONDITIONAL_PUT, params, NULL);
}

enum db_status db_conditional_delete(struct db_tx *tx, const char *game_id,
                                     const char *player_id)
{
    const char *params[2] = { game_id, player_id };
    return db_exec(tx, DB_STMT_CONDITIONAL_DELETE, params, NULL);
}

enum db_status db_move_mark_conditional(struct db_tx *tx, const char *game_id, int ply)
{
    char n[DB_NUMBER_SIZE];
    const char *params[2] = { game_id, db_number(n, ply) };
    return db_exec(tx, DB_STMT_MOVE_MARK_CONDITIONAL, params, NULL);
}

enum db_status db_move_notice_drop(struct db_tx *tx, const char *game_id, const char *player_id,
                                   int ply)
{
    char n[DB_NUMBER_SIZE];
    const char *params[3] = { game_id, player_id, db_number(n, ply) };
    return db_exec(tx, DB_STMT_MOVE_NOTICE_DROP, params, NULL);
}
