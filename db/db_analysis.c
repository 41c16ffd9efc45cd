/*
 * db_analysis.c — what engine analysis asks of the database:
 * the positions of a player's games in play, so that POST /v1/analyse can
 * refuse them however they are named.
 */
#include "db_int.h"

#include <stdio.h>

static void position_read(void *out, const struct db_row *row)
{
    struct db_active_position *p = out;
    db_row_text(row, "id", p->game_id, sizeof p->game_id);
    p->variant = db_variant_parse(db_row_value(row, "variant"));
    db_row_text(row, "fen", p->fen, sizeof p->fen);
}

enum db_status db_active_positions(struct db_pool *pool, const char *player_id,
                                   const struct rules_variant *variant, const char *board,
                                   struct db_active_position *out, int max, int *count,
                                   struct base_err *err)
{
    char limit[16];
    const char *params[4] = { player_id, variant->name, board, limit };
    snprintf(limit, sizeof limit, "%d", max);
    return db_get_rows(pool, DB_STMT_ACTIVE_POSITIONS, params, position_read, out, sizeof *out,
                       max, count, err);
}
