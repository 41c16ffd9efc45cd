/*
 * db_arbiter.h — the arbiter's queue; in db_arbiter.c.  db.h includes it.
 */
#ifndef KORP_DB_ARBITER_H
#define KORP_DB_ARBITER_H

#include "db_pool.h"
#include "db_names.h"

enum db_queue_kind {
    DB_QUEUE_PERPETUAL = 0,       /* "perpetual": a perpetual-check claim */
    DB_QUEUE_REQUEST,             /* "request": a player asks for an arbiter */
    DB_QUEUE_TOURNAMENT_END,      /* "tournament-end": still going at the end */
    DB_QUEUE_FAIRPLAY_REVIEW      /* "fairplay-review": a player's figures passed the
                                   * fair-play thresholds */
};

const char *db_queue_kind_text(enum db_queue_kind kind);
bool db_queue_kind_parse(const char *text, enum db_queue_kind *out);

/* One item of the queue; details is its JSON object (owned). */
struct db_queue_item {
    char id[BASE_ID_SIZE];
    enum db_queue_kind kind;
    char game_id[BASE_ID_SIZE];
    char created_at[DB_TIME_SIZE];
    bool open;
    char player_id[BASE_ID_SIZE]; /* db_queue_lock only: whom it is about ("" none) */
    char *details;
    char created_us[24];          /* db_queue_list only: the keyset, as for games */
};

void db_queue_item_clear(struct db_queue_item *q);

/* Adds an open item (id made here) about a game, from a player or NULL;
 * details_json is an object, to which `text` (if not NULL) is added. */
enum db_status db_queue_add(struct db_tx *tx, enum db_queue_kind kind, const char *game_id,
                            const char *player_id, const char *details_json,
                            const char *text, char id[BASE_ID_SIZE]);

/* The open items, oldest first, after a keyset position (after_us and
 * after_id of the last item of the page before; NULL: the first page),
 * max of them into out, which has room for max + 1; *more says whether
 * another page follows (db_queue_item_clear each). */
enum db_status db_queue_list(struct db_pool *pool, const char *after_us, const char *after_id,
                             struct db_queue_item *out, int max, int *count, bool *more,
                             struct base_err *err);

/* What stands in the way of a player's new request for an arbiter: their
 * open request about the game ("" when none), their requests of the last
 * 24 hours, and in how many seconds the oldest of them leaves that window.
 * Until the transaction ends no other transaction adds a request of
 * theirs (it takes a lock of the player's requests first). */
struct db_queue_request_guard {
    char open_id[BASE_ID_SIZE];
    int last_day;
    int wait;
};
enum db_status db_queue_request_guard(struct db_tx *tx, const char *player_id,
                                      const char *game_id, struct db_queue_request_guard *out);

/* Locks one item.  DB_NOT_FOUND if none. */
enum db_status db_queue_lock(struct db_tx *tx, const char *id, struct db_queue_item *out);

/* Dismisses an open item with the arbiter's reason; detail gets the JSON of
 * the `arbiter` event owed to the game's players. */
enum db_status db_queue_dismiss(struct db_tx *tx, const char *id, const char *reason,
                                char *detail, size_t size);

/* Resolves one open item by an arbiter's action (not a ruling on its game). */
enum db_status db_queue_resolve(struct db_tx *tx, const char *id, const char *reason);

/* An entry of the arbiters' log: who did what (action: "warn", "close",
 * "dismiss"), about whom and which item (NULL: none), why, what the
 * player is shown (NULL: nothing) and what it did (a JSON object, or NULL). */
struct db_arbiter_entry {
    const char *arbiter_id, *action, *player_id, *item_id, *reason, *message, *details;
};

/* Adds an entry to the arbiters' log (its id made here). */
enum db_status db_arbiter_log_add(struct db_tx *tx, const struct db_arbiter_entry *e,
                                  char id[BASE_ID_SIZE]);

/* Closes (close) or reopens a player's account for rated play, their row
 * locked, unless it is so already; *before says whether it was closed.
 * DB_NOT_FOUND: no such player. */
enum db_status db_player_rated_close(struct db_tx *tx, const char *player_id, bool close,
                                     bool *before);

/* What a closure ends for a player, at most max of each, oldest id first:
 * their active rated games, their open rated challenges (locked), the
 * rated tournaments they are entered in (locked; started: under way). */
enum db_rated_kind { DB_RATED_GAMES = 0, DB_RATED_CHALLENGES, DB_RATED_TOURNAMENTS };
enum db_status db_player_rated(struct db_tx *tx, enum db_rated_kind kind, const char *player_id,
                               char (*ids)[BASE_ID_SIZE], bool *started, int max, int *count);

/* The names of those of the count players (ids) closed for rated play,
 * comma-separated into names ("" when none), their rows locked in one
 * order for the rest of the transaction. */
enum db_status db_rated_play_closed(struct db_tx *tx, const char *const *ids, int count,
                                    char *names, size_t size);

/* Resolves the game's open items (its adjudication, with that reason);
 * *count says how many, detail the `arbiter` event's JSON. */
enum db_status db_queue_resolve_game(struct db_tx *tx, const char *game_id, const char *reason,
                                     int *count, char *detail, size_t size);

#endif
