/*
 * db_prune.c — keeping the tables that only grow in check: events and
 * finished notification deliveries past their retention go in batches, oldest first, each batch a statement of its own
 * (its row locks held only for that statement).
 */
#include "db_int.h"

#include <stdio.h>

static const enum db_stmt prune_stmt[] = {
    [DB_PRUNE_EVENTS] = DB_STMT_EVENTS_PRUNE,
    [DB_PRUNE_DELIVERIES] = DB_STMT_DELIVERIES_PRUNE,
};

enum db_status db_prune(struct db_pool *pool, enum db_prune_what what, int days, int batch,
                        long long *pruned, struct base_err *err)
{
    char d[16], n[16];
    const char *params[2] = { d, n };
    snprintf(d, sizeof d, "%d", days);
    snprintf(n, sizeof n, "%d", batch);
    return db_get_number(pool, prune_stmt[what], params, "pruned", false, pruned, err);
}

enum db_status db_events_pruned_through(struct db_pool *pool, long long *id,
                                        struct base_err *err)
{
    return db_get_number(pool, DB_STMT_EVENTS_PRUNED_THROUGH, NULL, "pruned_through", false,
                         id, err);
}
