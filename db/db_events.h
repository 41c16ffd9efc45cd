/*
 * db_events.h — the event log, its live feed and the waker; in db_events.c
 * and db_wake.c.  db.h includes it.
 */
#ifndef KORP_DB_EVENTS_H
#define KORP_DB_EVENTS_H

#include "db_pool.h"

/* The channel every event is NOTIFYed on after its commit (payload: the new
 * ids, comma-separated, or "*": every stream should read; db_wake.c). */
#define DB_EVENTS_CHANNEL "korp_events"

struct db_event_row {
    long long id;
    char type[32];
    char *payload;        /* JSON object text; owned by the array's owner */
};

/*
 * Up to `max` events after `after_id`, oldest first: the player's (all
 * their games and challenges, or only `game_id`'s when it is not NULL), or
 * with player_id NULL one game's as a spectator sees them.  *rows is
 * malloc'd (db_event_rows_free).
 */
enum db_status db_events_since(struct db_pool *pool, const char *player_id,
                               const char *game_id, long long after_id, int max,
                               struct db_event_row **rows, int *count, struct base_err *err);
void db_event_rows_free(struct db_event_row *rows, int count);

/* The newest event id a stream with this filter would show (0 when none):
 * where a stream without Last-Event-ID starts. */
enum db_status db_events_last(struct db_pool *pool, const char *player_id,
                              const char *game_id, long long *id, struct base_err *err);

/*
 * A thread that LISTENs on its own connection and calls on_event(arg, id,
 * player_id, game_id) for each event committed by any korpd, and
 * on_reconnect(arg) after its connection was lost and made again (events
 * may have been missed: streams should read again).
 */
struct db_listener;
typedef void (*db_event_fn)(void *arg, long long id, const char *player_id,
                            const char *game_id);
struct db_listener *db_listener_start(struct db_pool *pool, db_event_fn on_event,
                                      void (*on_reconnect)(void *arg), void *arg,
                                      struct base_err *err);
void db_listener_stop(struct db_listener *l);

/*
 * The waker (db_wake.c): after a transaction that wrote events commits,
 * their ids are NOTIFYed on DB_EVENTS_CHANNEL by this thread, on its own
 * connection, gathered over interval_ms (0: as fast as the NOTIFYs go),
 * with a NOTIFY on DB_DELIVERIES_CHANNEL when a delivery is due.  Without
 * one, a pool NOTIFYs on the committing connection right after COMMIT.
 * Stop it before the pool is freed; stopping sends what is gathered.
 */
struct db_waker;
struct db_waker *db_waker_start(struct db_pool *pool, int interval_ms, struct base_err *err);
void db_waker_stop(struct db_waker *waker);

/* Tests only (KORP_TEST_KILL_AFTER_COMMIT=1): the process kills itself
 * (SIGKILL) right after committing events, before waking anyone. */
void db_pool_test_kill_after_commit(struct db_pool *pool);

#endif
