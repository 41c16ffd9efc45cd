/*
 * db_tournaments.h — round-robin tournaments; in db_tournaments.c.  db.h
 * includes it.
 */
#ifndef KORP_DB_TOURNAMENTS_H
#define KORP_DB_TOURNAMENTS_H

#include "db_clock.h"
#include "db_kinds.h"

enum db_tournament_status {
    DB_TOURNAMENT_OPEN = 0,       /* "open": players may join */
    DB_TOURNAMENT_ACTIVE,         /* "active": its games are being played */
    DB_TOURNAMENT_FINISHED,       /* "finished": its last game has ended */
    DB_TOURNAMENT_CANCELLED       /* "cancelled": too few players at starts_at */
};
/* The older spelling of the constant. */
#define DB_TOURNAMENT_CANCELED DB_TOURNAMENT_CANCELLED

/* The status's word, and back (the older "canceled" reads as cancelled). */
const char *db_tournament_status_text(enum db_tournament_status status);
bool db_tournament_status_parse(const char *text, enum db_tournament_status *out);

struct db_tournament {
    char id[BASE_ID_SIZE];
    char name[128];
    const struct rules_variant *variant;
    char director_id[BASE_ID_SIZE], director_name[DB_NAME_SIZE];
    enum db_tournament_status status;
    int days_per_move;            /* 0: none */
    char clock[256];              /* the clock asked for, as JSON; "" for none */
    bool rated, double_round, leave_allowed;
    bool engines_allowed;         /* its games' players may have an engine analyse them */
    struct db_clock game_clock;   /* its games' clock, leave_allowed too */
    int max_players;
    bool has_min_rating, has_max_rating, has_max_timeout;
    double min_rating, max_rating;
    int max_timeout_percent;
    char starts_at[DB_TIME_SIZE], ends_at[DB_TIME_SIZE];   /* "" for none */
    char created_at[DB_TIME_SIZE];
    int player_count;
    char created_us[24];          /* list keyset, as for games */
};

struct db_tournament_player {
    char id[BASE_ID_SIZE];
    char name[DB_NAME_SIZE];
    int number;                   /* by lot at the start; 0 before */
    bool withdrawn;
};

/* A tournament's game as its crosstable needs it. */
struct db_tournament_game {
    char id[BASE_ID_SIZE];
    char white_id[BASE_ID_SIZE], black_id[BASE_ID_SIZE];
    enum db_game_status status;
    enum rules_result result;
    int round;
};

/* Creates a tournament (id made here), status open, and reads it back. */
enum db_status db_tournament_insert(struct db_tx *tx, struct db_tournament *t);

/* A director's tournaments of the last 24 hours, and in how many seconds
 * the oldest of them leaves that window.  Until the transaction ends no
 * other transaction creates one of theirs (it takes a lock of the
 * director's tournaments first). */
struct db_tournament_guard {
    int last_day;
    int wait;
};
enum db_status db_tournament_guard(struct db_tx *tx, const char *director_id,
                                   struct db_tournament_guard *out);

/* One tournament, or locked for a change.  DB_NOT_FOUND if none. */
enum db_status db_tournament_get(struct db_pool *pool, const char *id, struct db_tournament *out,
                                 struct base_err *err);
enum db_status db_tournament_lock(struct db_tx *tx, const char *id, struct db_tournament *out);

/* Its players (numbered ones by number, then by joining). */
enum db_status db_tournament_players(struct db_pool *pool, const char *id,
                                     struct db_tournament_player *out, int max, int *count,
                                     struct base_err *err);
enum db_status db_tournament_players_tx(struct db_tx *tx, const char *id,
                                        struct db_tournament_player *out, int max, int *count);

/* Its games, by round. */
enum db_status db_tournament_games(struct db_pool *pool, const char *id,
                                   struct db_tournament_game *out, int max, int *count,
                                   struct base_err *err);

/* A tournament game as its PGN needs it: the game (names, status,
 * result, termination, days per move, created_at, the moves' SAN; the
 * rest zero), its round and board, and each side's rating when it began
 * (by colour: [0] White; has_rating false when not known). */
struct db_tournament_record {
    struct db_game game;
    int round, board;
    bool has_rating[2];
    double rating[2];
};

/* Its games by round: db_game_clear each one's game. */
enum db_status db_tournament_records(struct db_pool *pool, const char *id,
                                     struct db_tournament_record *out, int max, int *count,
                                     struct base_err *err);

/* A digest of what its PGN is written from (name, games, moves, results),
 * which changes when the PGN does: DB_NOT_FOUND for no such tournament. */
enum db_status db_tournament_pgn_version(struct db_pool *pool, const char *id,
                                         char *version, size_t size, struct base_err *err);

/* Keeps a new tournament game's board in its round, and its players'
 * ratings in its variant as the ratings it began with (`start` for a
 * player without one yet). */
enum db_status db_tournament_game_start(struct db_tx *tx, const char *game_id, int board,
                                        double start);

/* Adds a player; DB_CONFLICT when they are in it already. */
enum db_status db_tournament_join(struct db_tx *tx, const char *id, const char *player_id);
/* Takes a player out before the start, or marks them withdrawn after it;
 * DB_NOT_FOUND when they are not in it. */
enum db_status db_tournament_leave(struct db_tx *tx, const char *id, const char *player_id,
                                   bool after_start);
enum db_status db_tournament_number(struct db_tx *tx, const char *id, const char *player_id,
                                    int number);
enum db_status db_tournament_set_status(struct db_tx *tx, const char *id,
                                        enum db_tournament_status status);

/* The ids of the player's games still going in the tournament (up to max). */
enum db_status db_tournament_open_games(struct db_tx *tx, const char *id, const char *player_id,
                                        char (*out)[BASE_ID_SIZE], int max, int *count);

/* Makes a game unrated (a forfeit). */
enum db_status db_game_unrate(struct db_tx *tx, const char *game_id);

/* Tells every player of the tournament (tournament_start, tournament_end). */
enum db_status db_tournament_event(struct db_tx *tx, const char *id, enum db_event event);

/* The oldest open tournament whose starts_at has passed, locked (skipping
 * ones another process holds); or the oldest active one whose ends_at has
 * passed and not been handled.  DB_NOT_FOUND when none. */
enum db_status db_tournament_due_start(struct db_tx *tx, struct db_tournament *out);
enum db_status db_tournament_due_end(struct db_tx *tx, struct db_tournament *out);
/* Puts the tournament's games still going on the arbiter's queue, once. */
enum db_status db_tournament_end_queue(struct db_tx *tx, const char *id);

/* Tournaments, newest first, by status (NULL: any), after a keyset
 * position (after_us/after_id; NULL: the first page); *more says whether
 * another page follows. */
enum db_status db_tournament_list(struct db_pool *pool, const enum db_tournament_status *status,
                                  const char *after_us, const char *after_id,
                                  struct db_tournament *out, int max, int *count, bool *more,
                                  struct base_err *err);

#endif
