/* db_int.h — what the files of db/ share (and the db tests use). */
#ifndef KORP_DB_INT_H
#define KORP_DB_INT_H

#include "db.h"

#include <libpq-fe.h>
#include <stddef.h>
#include <stdint.h>

struct db_migration {
    int version;
    const char *name;
    const char *sql;
};

/* Generated from db/migrations/NNN_name.sql, ending in a zero version. */
extern const struct db_migration db_migrations[];

/* db/functions.sql: applied after the migrations by db_migrate. */
extern const char db_functions_sql[];

/* Applies the given list (ending in a zero version), without
 * functions.sql; db_migrate applies db_migrations and it.  Tests pass a
 * list with a failing step. */
enum db_status db_migrate_list(struct db_pool *pool, const struct db_migration *list,
                               struct base_err *err);

/* ---- Prepared statements: one list (db_statements.def), prepared per
 * connection on first use. */

enum db_stmt {
#define STMT(NAME, name, sql) DB_STMT_##NAME,
#include "db_statements.def"
#undef STMT
    DB_STMT_COUNT
};

struct db_statement {
    const char *name;   /* what it is prepared under */
    const char *sql;
};

/* Indexed by enum db_stmt (db_statements.c). */
extern const struct db_statement db_statements[];

/* The number of parameters of a statement's text: its highest $n, or -1
 * when one of $1..$n is missing (or n is above 64).  db_pool_new counts
 * every statement's once and refuses to start on a -1. */
int db_statement_nparams(const char *sql);

/* ---- Connections ----------------------------------------------------- */

/* A pooled connection in use: what a transaction runs on. */
struct db_tx {
    struct db_pool *pool;
    int slot;
    PGconn *pg;
    unsigned char *prepared;   /* per statement: prepared on this connection */
    int statement_ms;          /* client-side deadline for each statement */
    bool broken;               /* the connection failed: drop it on release */
    bool timed_out;            /* ... by missing a statement's deadline */
    /* A transaction's BEGIN not sent yet: it goes with its first statement,
     * in one round trip (db_exec.c). */
    bool begin_pending;
    struct base_err *err;      /* the caller's: what went wrong */
    /* Ids of the events it wrote, comma-separated (db_wake.c): NOTIFYed
     * once it has committed. */
    char *wake;
    size_t wake_len, wake_cap;
    bool wake_everyone;        /* too many to keep: every stream reads */
};

/* Counts a retry or an error in the pool's stats (db_tx.c). */
enum db_counter { DB_COUNT_RETRY_CONFLICT, DB_COUNT_RETRY_BROKEN, DB_COUNT_ERROR };
void db_pool_count(struct db_pool *pool, enum db_counter counter);

/*
 * Takes a free connection, waiting at most the pool's timeout (DB_BUSY),
 * opening or re-opening it as needed (DB_UNREACHABLE on failure).
 */
enum db_status db_pool_acquire(struct db_pool *pool, struct db_tx *tx, struct base_err *err);

/* Gives the connection back: a transaction left open is rolled back, and a
 * broken or busy connection is closed (re-opened on next use). */
void db_pool_release(struct db_tx *tx);

/* The client-side deadline of each statement, in ms. */
int db_pool_statement_ms(const struct db_pool *pool);

/* A statement's number of parameters, counted by db_pool_new. */
int db_pool_nparams(const struct db_pool *pool, enum db_stmt id);

/* ---- Wake-ups after commit (db_wake.c) ---- */

/* Keeps ids ("1,2,3"; NULL: none) to NOTIFY once tx has committed. */
void db_tx_wake(struct db_tx *tx, const char *ids);
/* Runs a statement that writes events and answers their ids in a column
 * "ids" (comma-separated), and keeps them with db_tx_wake. */
enum db_status db_exec_events(struct db_tx *tx, enum db_stmt id, const char *const *params);
/* After a successful COMMIT (db_tx.c): hands tx's ids to the pool's waker,
 * or NOTIFYs them on tx's connection when the pool has none. */
void db_wake_committed(struct db_tx *tx);
/* The pool's waker (NULL: none), and whether KORP_TEST_KILL_AFTER_COMMIT
 * is set (db_pool.c). */
struct db_waker;
void db_pool_waker_set(struct db_pool *pool, struct db_waker *waker);
struct db_waker *db_pool_waker(struct db_pool *pool);
bool db_pool_test_kill(struct db_pool *pool);

/* Runs fn once on a connection without BEGIN/COMMIT (single statements). */
enum db_status db_run_once(struct db_pool *pool, db_tx_fn fn, void *arg, struct base_err *err);

/*
 * Runs a prepared statement with text parameters (NULL entries are SQL
 * NULL).  On DB_OK *res holds the result (caller PQclears; res may be NULL
 * to discard it).  On failure err (of the tx) says why.
 */
enum db_status db_exec(struct db_tx *tx, enum db_stmt id, const char *const *params,
                       PGresult **res);

/* Runs SQL text (several statements allowed when nparams is 0). */
enum db_status db_exec_sql(struct db_tx *tx, const char *sql, int nparams,
                           const char *const *params, PGresult **res);

/* A connection of one's own (db_pool_connect) with `setup` run on it (a
 * LISTEN, a SET); NULL when either fails, logged as `who`'s. */
PGconn *db_pool_connect_for(struct db_pool *pool, const char *who, const char *setup);

/* The same on a connection of one's own, outside the pool (a listener's,
 * the waker's), with the pool's deadline.  DB_UNREACHABLE: the connection
 * failed or missed the deadline, and must be closed. */
enum db_status db_exec_on(struct db_pool *pool, PGconn *pg, const char *sql, int nparams,
                          const char *const *params, PGresult **res, struct base_err *err);

/* v as decimal text in buf, for a statement's parameter; returns buf. */
#define DB_NUMBER_SIZE 24
const char *db_number(char buf[DB_NUMBER_SIZE], long long v);

/* A zeroed array of one element per row of res (one at least), or NULL
 * after db_tx_fail ("out of memory"). */
void *db_rows_new(struct db_tx *tx, const PGresult *res, size_t size);

/* One row of a result, read by column name (db_row.c). */
struct db_row {
    const PGresult *res;
    int row;
};

/* The column's text, or NULL for SQL NULL (or a name the result lacks). */
const char *db_row_value(const struct db_row *r, const char *name);
/* Its text into dst ("" for NULL); as a number (0 for NULL); 't' as true. */
void db_row_text(const struct db_row *r, const char *name, char *dst, size_t size);
int db_row_int(const struct db_row *r, const char *name);
long long db_row_long(const struct db_row *r, const char *name);
double db_row_double(const struct db_row *r, const char *name);
bool db_row_bool(const struct db_row *r, const char *name);
bool db_row_is_null(const struct db_row *r, const char *name);

/* Fills out (a struct the reader knows) from one row. */
typedef void (*db_read_fn)(void *out, const struct db_row *row);

/* A row read by a table: each column into a member of the struct read
 * into, by its kind (ending in DB_COLS_END). */
enum db_col_kind { DB_COL_END = 0, DB_COL_TEXT, DB_COL_INT, DB_COL_LONG, DB_COL_DOUBLE,
                   DB_COL_BOOL };
struct db_col {
    enum db_col_kind kind;
    const char *name;           /* the result's column */
    size_t offset, size;        /* the member's */
};
/* A column into `member` of `type`; the member's C type must match the
 * kind (a compile error otherwise). */
#define DB_COL(kind, ctype, type, member, name)                                      \
    { DB_COL_##kind, name, _Generic(((type *)0)->member, ctype: offsetof(type, member)), \
      sizeof ((type *)0)->member }
#define DB_TEXT(type, member, name) DB_COL(TEXT, char *, type, member, name)
#define DB_INT(type, member, name) DB_COL(INT, int, type, member, name)
#define DB_LONG(type, member, name) DB_COL(LONG, long long, type, member, name)
#define DB_DOUBLE(type, member, name) DB_COL(DOUBLE, double, type, member, name)
#define DB_BOOL(type, member, name) DB_COL(BOOL, bool, type, member, name)
#define DB_COLS_END { DB_COL_END, NULL, 0, 0 }

/* Zeroes out (size bytes), then reads each column of cols into it. */
void db_row_read(const struct db_row *r, const struct db_col *cols, void *out, size_t size);
/* Defines the db_read_fn `name` that reads a `type` by the table `cols`. */
#define DB_READER(name, type, cols)                                                  \
    static void name(void *out, const struct db_row *row)                            \
    {                                                                                \
        db_row_read(row, cols, out, sizeof(type));                                   \
    }

/* Runs a statement that answers at most one row and reads it into out;
 * DB_NOT_FOUND when it answers none. */
enum db_status db_exec_row(struct db_tx *tx, enum db_stmt id, const char *const *params,
                           db_read_fn read, void *out);

/* The same on a pooled connection, outside a transaction of the caller's. */
enum db_status db_get_row(struct db_pool *pool, enum db_stmt id, const char *const *params,
                          db_read_fn read, void *out, struct base_err *err);

/* Runs a statement on a pooled connection and reads up to max of its rows
 * into the array out (elements of size bytes); *count says how many. */
enum db_status db_get_rows(struct db_pool *pool, enum db_stmt id, const char *const *params,
                           db_read_fn read, void *out, size_t size, int max, int *count,
                           struct base_err *err);

/* Runs a statement (as a transaction of its own when `writes`) and reads
 * the whole number in `column` of its first row (0 when it answers none). */
enum db_status db_get_number(struct db_pool *pool, enum db_stmt id, const char *const *params,
                             const char *column, bool writes, long long *out,
                             struct base_err *err);

/* Reads the game columns of GAME_COLUMNS (db_statements.c): out is a struct db_game. */
void db_game_read(void *out, const struct db_row *row);

/* Reads a challenge's or game's clock settings: Fischer when
 * clock_initial_days is set, else per move when days_per_move > 0. */
void db_clock_read(const struct db_row *r, int days_per_move, struct db_clock *c);

/* "start end start end …" (a game's `pauses` column) into a malloc'd
 * array; false when out of memory. */
bool db_pauses_parse(const char *text, struct db_pause **out, int *count);

/* Each side's time now and the end of the pause in force, from the
 * stored clock and the time of the read (db_clock.c). */
void db_game_clock_now(struct db_game *g);

/* Charges the turn that a save ends (a move, or the end of an active
 * game): the mover's running time, then the increment (Fischer, capped) or
 * the per-move days again; the next turn starts now, with its deadline
 * (deadline_unix, 0 when none).  False when the save charges nothing (no
 * clock, a game not active when read, or no move and no end). */
bool db_game_clock_charge(struct db_game *g, bool moved, long long *deadline_unix);

/* Opens a new connection with the pool's settings (for LISTEN), or NULL
 * with a message. */
PGconn *db_pool_connect(struct db_pool *pool, struct base_err *err);

/* Makes a new random id into id (BASE_ID_SIZE); false if the generator failed. */
bool db_new_id(char *id);

/* Copies libpq's message for conn without its trailing newline. */
void db_error_copy(PGconn *conn, const PGresult *res, struct base_err *err);

#endif
