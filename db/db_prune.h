/*
 * db_prune.h — pruning what only grows; in db_prune.c.  db.h includes it.
 */
#ifndef KORP_DB_PRUNE_H
#define KORP_DB_PRUNE_H

#include "db_pool.h"

enum db_prune_what { DB_PRUNE_EVENTS, DB_PRUNE_DELIVERIES };

/* Deletes at most `batch` rows older than `days` days, oldest first: events
 * no delivery names (noting the highest id gone), or deliveries delivered or
 * failed (with their attempts); *pruned says how many. */
enum db_status db_prune(struct db_pool *pool, enum db_prune_what what, int days, int batch,
                        long long *pruned, struct base_err *err);

/* The highest event id pruned (0: none): a stream resuming after an id below
 * it may have missed events that are gone. */
enum db_status db_events_pruned_through(struct db_pool *pool, long long *id,
                                        struct base_err *err);

#endif
