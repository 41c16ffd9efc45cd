/*
 * db.h — korp's PostgreSQL layer: a connection pool, the schema migrations
 * and the queries the server runs.  Only this module speaks SQL.
 *
 * Every wait on the database has a deadline: for a free connection, for a
 * new connection, and for each statement's answer.  A request never blocks
 * forever on a hung server; it gets DB_BUSY or DB_UNREACHABLE instead.
 */
#ifndef KORP_DB_H
#define KORP_DB_H

#include <stdbool.h>
#include <stddef.h>

enum db_status {
    DB_OK = 0,
    DB_NOT_FOUND,       /* no such row */
    DB_CONFLICT,        /* a unique key or the current state forbids it */
    DB_SERIALIZATION,   /* serialization failure or deadlock (db_run_tx retries) */
    DB_BUSY,            /* no connection came free in time, or a lock or
                           statement timeout: worth trying again soon */
    DB_UNREACHABLE,     /* no working connection to the server */
    DB_COMMIT_UNKNOWN,  /* the connection broke during COMMIT: the change
                           may or may not have been made */
    DB_HARD_ERROR       /* the server refused the statement */
};

/* Short English words for a status ("unreachable"), for logs and tests. */
const char *db_status_text(enum db_status status);

struct db_pool_config {
    const char *url;         /* libpq connection URI or conninfo string */
    int size;                /* connections, 1 or more */
    int timeout_ms;          /* longest wait for a free connection, and the
                                default statement_timeout; 0: 5000 */
};

struct db_pool;

/*
 * Makes a pool.  Connections open lazily, with korpd's defaults placed
 * under the user's settings: any key in the URL wins over ours, and a
 * `-c name=value` in its `options` wins over our statement_timeout,
 * lock_timeout and idle_in_transaction_session_timeout.  Returns NULL with
 * a message in err for an unreadable URL, a size below 1, or no memory.
 */
struct db_pool *db_pool_new(const struct db_pool_config *config, char *err, size_t errsize);

/* Closes every connection and frees the pool.  NULL is a no-op.  No
 * connection may be in use. */
void db_pool_free(struct db_pool *pool);

/* One transaction in progress, handed to a db_run_tx callback. */
struct db_tx;

/*
 * The work of one transaction.  It may run more than once (db_run_tx
 * retries), so it must not keep state between runs: write results into
 * arg only on the run that returns DB_OK.
 */
typedef enum db_status (*db_tx_fn)(struct db_tx *tx, void *arg);

/*
 * Runs fn between BEGIN and COMMIT on a pooled connection.  Retries a
 * serialization failure or deadlock a bounded number of times, and runs
 * once more on a fresh connection when the connection broke before COMMIT
 * (the server restarted).  A break during COMMIT is DB_COMMIT_UNKNOWN.
 * On any failure the transaction is rolled back; err says why (libpq's own
 * words: log them, do not show them to clients).
 */
enum db_status db_run_tx(struct db_pool *pool, db_tx_fn fn, void *arg,
                         char *err, size_t errsize);

/*
 * Checks that the database answers a query; on success *latency_ms holds
 * the round trip and *schema_version the newest applied migration.
 */
enum db_status db_ping(struct db_pool *pool, double *latency_ms,
                       int *schema_version, char *err, size_t errsize);

/*
 * Applies the migrations not yet applied, in order, in one transaction
 * under an advisory lock (safe when several korpd start at once).  A
 * failing migration rolls back every one applied in this run.
 */
enum db_status db_migrate(struct db_pool *pool, char *err, size_t errsize);

/* Number of migrations this build knows. */
int db_migration_count(void);

/* ---- Players and tokens ------------------------------------------------ */

#define DB_ID_SIZE 16      /* ids are 10 characters */
#define DB_NAME_SIZE 32    /* names are 2-30 characters */
#define DB_TIME_SIZE 24    /* "2026-11-22T13:45:00Z" */

struct db_player {
    char id[DB_ID_SIZE];
    char name[DB_NAME_SIZE];
    char email[256];          /* "" when none */
    bool arbiter;             /* role "arbiter", else "player" */
    char created_at[DB_TIME_SIZE];
    int played, won, drawn, lost;
    int quarter_points;       /* points × 4: a Glinski stalemate scores 3 or 1 */
};

/* Who a request's token belongs to. */
struct db_caller {
    char token_id[DB_ID_SIZE];
    char player_id[DB_ID_SIZE];
    char name[DB_NAME_SIZE];
    bool arbiter;
};

/*
 * Creates a player (role arbiter if asked) and a first token.  `token` is
 * the token's text (the caller makes it; only its SHA-256 is stored).
 * DB_CONFLICT when the name is taken, case-insensitively.
 */
enum db_status db_player_create(struct db_pool *pool, const char *name, const char *email,
                                bool arbiter, const char *token, struct db_player *out,
                                char *err, size_t errsize);

/* A player with their record (finished games).  DB_NOT_FOUND if none. */
enum db_status db_player_get(struct db_pool *pool, const char *id, struct db_player *out,
                             char *err, size_t errsize);

/* The owner of a token, noting its use.  DB_NOT_FOUND for an unknown or
 * revoked token. */
enum db_status db_caller_find(struct db_pool *pool, const char *token, struct db_caller *out,
                              char *err, size_t errsize);

struct db_token {
    char id[DB_ID_SIZE];
    char created_at[DB_TIME_SIZE];
    char last_used_at[DB_TIME_SIZE];   /* "" when never used */
};

/* Adds a token for the player. */
enum db_status db_token_create(struct db_pool *pool, const char *player_id, const char *token,
                               struct db_token *out, char *err, size_t errsize);

/* The player's tokens, oldest first: at most max into out, *count set. */
enum db_status db_token_list(struct db_pool *pool, const char *player_id, struct db_token *out,
                             int max, int *count, char *err, size_t errsize);

/* Revokes one of the player's tokens at once.  DB_NOT_FOUND if not theirs. */
enum db_status db_token_revoke(struct db_pool *pool, const char *player_id,
                               const char *token_id, char *err, size_t errsize);

#endif
