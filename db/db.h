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

#include "base.h"
#include "rules.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
struct db_pool *db_pool_new(const struct db_pool_config *config, struct base_err *err);

/* Closes every connection and frees the pool.  NULL is a no-op.  No
 * connection may be in use. */
void db_pool_free(struct db_pool *pool);

/* What the pool has done since it was made (counters; for /metrics). */
struct db_pool_stats {
    unsigned long waits;             /* acquisitions that waited for a free connection */
    unsigned long wait_timeouts;     /* ... and gave up (DB_BUSY) */
    unsigned long connects;          /* connections opened (first time or again) */
    unsigned long connect_failures;
    unsigned long retries_conflict;  /* transactions run again after 40001/40P01 */
    unsigned long retries_broken;    /* ... after a connection broke before COMMIT */
    unsigned long errors;            /* calls that ended in an error, any kind */
};

/* Copies the pool's counters. */
void db_pool_stats(struct db_pool *pool, struct db_pool_stats *out);

/* One transaction in progress, handed to a db_run_tx callback. */
struct db_tx;

/*
 * The work of one transaction.  It may run more than once (db_run_tx
 * retries), so it must not keep state between runs: write results into
 * arg only on the run that returns DB_OK.
 */
typedef enum db_status (*db_tx_fn)(struct db_tx *tx, void *arg);

/*
 * For a transaction body that fails for a reason of its own (not the
 * database's): sets the error text db_run_tx reports and returns
 * DB_HARD_ERROR.
 */
enum db_status db_tx_fail(struct db_tx *tx, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/*
 * Runs fn between BEGIN and COMMIT on a pooled connection.  Retries a
 * serialization failure or deadlock a bounded number of times, and runs
 * once more on a fresh connection when the connection broke before COMMIT
 * (the server restarted).  A break during COMMIT is DB_COMMIT_UNKNOWN.
 * On any failure the transaction is rolled back; err says why (libpq's own
 * words: log them, do not show them to clients).
 */
enum db_status db_run_tx(struct db_pool *pool, db_tx_fn fn, void *arg,
                         struct base_err *err);

/*
 * Checks that the database answers a query; on success *latency_ms holds
 * the round trip and *schema_version the newest applied migration.
 */
enum db_status db_ping(struct db_pool *pool, double *latency_ms,
                       int *schema_version, struct base_err *err);

/*
 * Applies the migrations not yet applied, in order, in one transaction
 * under an advisory lock (safe when several korpd start at once).  A
 * failing migration rolls back every one applied in this run.
 */
enum db_status db_migrate(struct db_pool *pool, struct base_err *err);

/* Number of migrations this build knows. */
int db_migration_count(void);

/* ---- The vocabulary of stored state (db_names.c) ---------------------------
 * Each kind of state is an enum here and text only where rows are read and
 * written and where JSON is written: each converts through one {enum, text}
 * table, so a misspelt state is a compile error, not a silent mismatch.
 * Results are enum rules_result (rules_result_text / rules_result_parse);
 * variants are const struct rules_variant * (db_variant_parse). */

enum db_game_status { DB_GAME_ACTIVE = 0, DB_GAME_FINISHED, DB_GAME_ABORTED };

/* How a finished game ended; DB_END_NONE while it has not. */
enum db_termination {
    DB_END_NONE = 0,
    DB_END_CHECKMATE,
    DB_END_STALEMATE,
    DB_END_INSUFFICIENT_MATERIAL,
    DB_END_THREEFOLD,
    DB_END_FIFTY_MOVE,
    DB_END_AGREEMENT,
    DB_END_RESIGNATION,
    DB_END_TIMEOUT,
    DB_END_ADJUDICATION,
    DB_END_FORFEIT                /* issue 19: a withdrawal from a tournament */
};

/* A side: whose draw offer stands (NONE: nobody's), which colour a
 * challenger asked for (RANDOM: drawn when accepted), a recipient's colour. */
enum db_color { DB_COLOR_NONE = 0, DB_COLOR_WHITE, DB_COLOR_BLACK, DB_COLOR_RANDOM };

enum db_challenge_status {
    DB_CHALLENGE_OPEN = 0,
    DB_CHALLENGE_ACCEPTED,
    DB_CHALLENGE_DECLINED,
    DB_CHALLENGE_CANCELLED
};

/* How a notification reaches a player. */
enum db_channel { DB_CHANNEL_EMAIL = 0, DB_CHANNEL_WEBHOOK, DB_CHANNEL_COUNT };

/* Text of each ("" for DB_END_NONE and DB_COLOR_NONE: stored as NULL, shown as null). */
const char *db_game_status_text(enum db_game_status status);
const char *db_termination_text(enum db_termination termination);
const char *db_color_text(enum db_color color);
const char *db_challenge_status_text(enum db_challenge_status status);
const char *db_channel_text(enum db_channel channel);

/* Each reads its own words exactly (NULL or "" reads as DB_END_NONE and
 * DB_COLOR_NONE where those exist); false for any other text. */
bool db_game_status_parse(const char *text, enum db_game_status *out);
bool db_termination_parse(const char *text, enum db_termination *out);
bool db_color_parse(const char *text, enum db_color *out);
bool db_challenge_status_parse(const char *text, enum db_challenge_status *out);
bool db_channel_parse(const char *text, enum db_channel *out);

/* The variant of exactly that name (lower case, as stored), or NULL. */
const struct rules_variant *db_variant_parse(const char *text);

/* A colour of the rules as a db_color, and back (WHITE for anything but BLACK). */
enum db_color db_color_of(enum rules_color color);
enum rules_color db_color_rules(enum db_color color);

/* How the rules' verdict on a position ends a game (DB_END_NONE: ongoing). */
enum db_termination db_termination_of(enum rules_status status);

/* ---- Players and tokens ------------------------------------------------ */

#define DB_NAME_SIZE 32    /* names are 2-30 characters */
#define DB_TIME_SIZE 24    /* "2026-11-22T13:45:00Z" */

struct db_player {
    char id[BASE_ID_SIZE];
    char name[DB_NAME_SIZE];
    char email[256];          /* "" when none */
    bool email_confirmed;     /* the address is confirmed (false when none) */
    bool arbiter;             /* role "arbiter", else "player" */
    char created_at[DB_TIME_SIZE];
    int played, won, drawn, lost;
    int quarter_points;       /* points × 4: a Glinski stalemate scores 3 or 1 */
};

/* Who a request's token belongs to. */
struct db_caller {
    char token_id[BASE_ID_SIZE + 2];  /* a session's: "s-<session id>" */
    char player_id[BASE_ID_SIZE];
    char name[DB_NAME_SIZE];
    bool arbiter;
    bool by_session;              /* signed in on the web board (a cookie) */
};

/* ---- People on the web board: passwords and sessions (db_sessions.c) ---- */

/* A player's name, id and password hash ("" when they have no password),
 * found by name case-insensitively.  DB_NOT_FOUND if none. */
enum db_status db_login_find(struct db_pool *pool, const char *name, char id[BASE_ID_SIZE],
                             char canonical_name[DB_NAME_SIZE], char *password_hash,
                             size_t hash_size, struct base_err *err);

/* Opens a session for the player: `cookie` is the cookie's value (only its
 * SHA-256 is stored), csrf the token the page sends back with changes.  It
 * lasts 30 days from its last use and at most max_days from now. */
enum db_status db_session_create(struct db_pool *pool, const char *player_id,
                                 const char *cookie, const char *csrf, int max_days,
                                 struct base_err *err);

/* The owner of a live session (noting its use), with its CSRF token in
 * csrf (64 bytes).  DB_NOT_FOUND for an unknown one, one idle for 30 days,
 * or one opened more than max_days ago (the absolute lifetime). */
enum db_status db_session_find(struct db_pool *pool, const char *cookie, int max_days,
                               struct db_caller *out, char *csrf, struct base_err *err);

/* A live session as its owner sees it. */
struct db_session_info {
    char id[BASE_ID_SIZE];
    char created_at[DB_TIME_SIZE], last_seen_at[DB_TIME_SIZE], expires_at[DB_TIME_SIZE];
};

/* The player's live sessions, oldest first: at most max into out. */
enum db_status db_session_list(struct db_pool *pool, const char *player_id, int max_days,
                               struct db_session_info *out, int max, int *count,
                               struct base_err *err);

/* Ends the player's sessions but keep_id's (NULL: all); *ended says how
 * many.  Every korpd ends the event streams they opened (korp_revocations). */
enum db_status db_sessions_end(struct db_pool *pool, const char *player_id, const char *keep_id,
                               int *ended, struct base_err *err);

/* Sets the player's password hash and, in the same transaction, ends their
 * sessions but keep_id's (NULL: all).  Tokens stay. */
enum db_status db_password_change(struct db_pool *pool, const char *player_id,
                                  const char *password_hash, const char *keep_id,
                                  struct base_err *err);

/* Counts a sign-up from address unless `limit` were made from there in the
 * last hour: *allowed, and when not, *wait_s until one more may be. */
enum db_status db_signup_count(struct db_pool *pool, const char *address, int limit,
                               bool *allowed, int *wait_s, struct base_err *err);

/* Whether a credential (a token's id, or "s-<session id>") is still live:
 * *live false once it was revoked, signed out or has expired. */
enum db_status db_credential_live(struct db_pool *pool, const char *credential, bool *live,
                                  struct base_err *err);

/* The channel a deleted token or session is NOTIFYed on (migration 005),
 * with "<player id> <credential>": a token's id, or "s-<session id>". */
#define DB_REVOCATIONS_CHANNEL "korp_revocations"

/* Called for each token or session that ended, by any korpd: credential is
 * as struct db_caller's token_id names it. */
typedef void (*db_revoked_fn)(void *arg, const char *player_id, const char *credential);

/* A thread that LISTENs on korp_revocations and calls on_revoked for each;
 * on_reconnect after its connection was made again (some may have been
 * missed).  Stopped by db_listener_stop. */
struct db_listener *db_revocations_start(struct db_pool *pool, db_revoked_fn on_revoked,
                                         void (*on_reconnect)(void *arg), void *arg,
                                         struct base_err *err);

/* Ends a session.  DB_NOT_FOUND when there was none. */
enum db_status db_session_delete(struct db_pool *pool, const char *cookie, struct base_err *err);

/* Whether a name is 2-30 letters, digits, '_' or '-' (the schema's rule). */
bool db_player_name_valid(const char *name);

/*
 * Creates a player (role arbiter if asked; with a password hash, or NULL)
 * and a first token.  `token` is
 * the token's text (the caller makes it; only its SHA-256 is stored).  An
 * email address not `email_confirmed` is owed a confirmation email in the
 * same transaction.  DB_CONFLICT when the name is taken, case-insensitively.
 */
enum db_status db_player_create(struct db_pool *pool, const char *name, const char *email,
                                bool email_confirmed, const char *password_hash, bool arbiter,
                                const char *token, struct db_player *out,
                                struct base_err *err);
/* The same, reading korp in `language` ("en", "pl", "hu"; NULL: English). */
enum db_status db_player_create_in(struct db_pool *pool, const char *name, const char *email,
                                   bool email_confirmed, const char *password_hash, bool arbiter,
                                   const char *token, const char *language,
                                   struct db_player *out, struct base_err *err);

/* A player with their record (finished games).  DB_NOT_FOUND if none. */
enum db_status db_player_get(struct db_pool *pool, const char *id, struct db_player *out,
                             struct base_err *err);

/* The owner of a token, noting its use.  DB_NOT_FOUND for an unknown or
 * revoked token. */
enum db_status db_caller_find(struct db_pool *pool, const char *token, struct db_caller *out,
                              struct base_err *err);

struct db_token {
    char id[BASE_ID_SIZE];
    char created_at[DB_TIME_SIZE];
    char last_used_at[DB_TIME_SIZE];   /* "" when never used */
};

/* Adds a token for the player; DB_CONFLICT when they hold `max` already
 * (live tokens: revoked ones are deleted). */
enum db_status db_token_create(struct db_pool *pool, const char *player_id, const char *token,
                               int max, struct db_token *out, struct base_err *err);

/* The player's tokens, oldest first: at most max into out, *count set. */
enum db_status db_token_list(struct db_pool *pool, const char *player_id, struct db_token *out,
                             int max, int *count, struct base_err *err);

/* Revokes one of the player's tokens at once.  DB_NOT_FOUND if not theirs. */
enum db_status db_token_revoke(struct db_pool *pool, const char *player_id,
                               const char *token_id, struct base_err *err);

/* ---- Clocks (issue 18) ------------------------------------------------- */

/* A challenge's or game's kind of clock: none (no time limit), days per
 * move, or a Fischer clock (a time bank with an increment, capped). */
enum db_clock_type { DB_CLOCK_NONE = 0, DB_CLOCK_PER_MOVE, DB_CLOCK_FISCHER };

/* "per_move", "fischer" ("" for none), and back. */
const char *db_clock_type_text(enum db_clock_type type);
bool db_clock_type_parse(const char *text, enum db_clock_type *out);

struct db_clock {
    enum db_clock_type type;
    int days;                                    /* PER_MOVE: days_per_move */
    int initial_days, increment_days, max_days;  /* FISCHER */
    bool leave_allowed;                          /* leave stops it (the default) */
};

/* ---- Challenges -------------------------------------------------------- */

struct db_challenge {
    char id[BASE_ID_SIZE];
    const struct rules_variant *variant;
    char challenger_id[BASE_ID_SIZE], challenger_name[DB_NAME_SIZE];
    char opponent_id[BASE_ID_SIZE], opponent_name[DB_NAME_SIZE];
    enum db_color color;      /* the challenger's: white, black or random */
    int days_per_move;        /* 0: no deadline */
    bool fifty_move_rule;
    struct db_clock clock;    /* days_per_move is clock.days for PER_MOVE */
    enum db_challenge_status status;
    char game_id[BASE_ID_SIZE]; /* "" until accepted */
    char created_at[DB_TIME_SIZE];
    bool rated;               /* its game changes ratings (issue 19) */
};

/* Why db_challenge_create refused a challenge (DB_CONFLICT). */
struct db_challenge_refusal {
    enum {
        DB_CHALLENGE_REFUSED_OPEN_MAX,   /* 10 challenges to anyone wait already */
        DB_CHALLENGE_REFUSED_DUPLICATE,  /* one to this opponent is open: existing_id */
        DB_CHALLENGE_REFUSED_DAILY_MAX   /* per_day made in 24 hours: retry_after s */
    } why;
    char existing_id[BASE_ID_SIZE];
    int retry_after;
};

/* Creates an open challenge (id made here), to one opponent or, with
 * opponent_id "", to anyone: DB_NOT_FOUND when the opponent does not
 * exist, DB_CONFLICT (why in *refused) when one challenge to that opponent
 * is open already, or the challenger has made per_day (0: no cap) in the
 * last 24 hours, or 10 to anyone wait. */
enum db_status db_challenge_create(struct db_pool *pool, struct db_challenge *c, int per_day,
                                   struct db_challenge_refusal *refused, struct base_err *err);

/* One challenge.  DB_NOT_FOUND if none. */
enum db_status db_challenge_get(struct db_pool *pool, const char *id, struct db_challenge *out,
                                struct base_err *err);

/* The open challenges a player received or sent, newest first. */
enum db_status db_challenge_list(struct db_pool *pool, const char *player_id,
                                 struct db_challenge *incoming, int max_in, int *count_in,
                                 struct db_challenge *outgoing, int max_out, int *count_out,
                                 struct base_err *err);

/* Locks a challenge for a state change.  DB_NOT_FOUND if none. */
enum db_status db_challenge_lock(struct db_tx *tx, const char *id, struct db_challenge *out);

/* Makes the player the opponent of an open challenge (locked), filling
 * c's opponent.  DB_CONFLICT when it has an opponent already. */
enum db_status db_challenge_take(struct db_tx *tx, struct db_challenge *c,
                                 const char *player_id);

/* Sets a challenge's status (and game id, "" or NULL for none). */
enum db_status db_challenge_set_status(struct db_tx *tx, const char *id,
                                       enum db_challenge_status status, const char *game_id);

/* ---- Games ------------------------------------------------------------- */

#define DB_FEN_SIZE 256

struct db_game {
    char id[BASE_ID_SIZE];
    const struct rules_variant *variant;
    char white_id[BASE_ID_SIZE], white_name[DB_NAME_SIZE];
    char black_id[BASE_ID_SIZE], black_name[DB_NAME_SIZE];
    char fen[DB_FEN_SIZE];
    int ply;
    enum db_game_status status;
    enum rules_result result;     /* RULES_RESULT_NONE ("*") while active */
    enum db_termination termination;
    char adjudication_reason[512];
    int days_per_move;            /* 0: no deadline */
    char deadline[DB_TIME_SIZE];  /* "" when none */
    enum db_color draw_offer;     /* NONE, WHITE or BLACK: who offers a draw */
    bool fifty_move_rule;
    int key_version;
    /* Repetition keys since the last irreversible move, the current
     * position's last.  Owned (db_game_clear frees). */
    uint64_t *keys;
    int key_count;
    char created_at[DB_TIME_SIZE];
    char updated_at[DB_TIME_SIZE];
    /* SAN of every move, space-separated; owned. */
    char *sans;
    /* A move to record with db_game_save: its SAN ("" for none) and the
     * repetition key of the position after it, appended to the stored
     * keys, or starting them again when reset_keys. */
    char move_san[32];
    uint64_t move_key;
    bool reset_keys;
    /* The move to record is a reply from conditional moves: its event says
     * "conditional": true (games_conditional.c). */
    bool move_conditional;
    /* Active with its deadline passed (the sweeper has not come yet). */
    bool overdue;
    /* Its clock, each side's whole seconds now (the side to move's counting
     * down), and the end of the leave stopping it ("" when running). */
    struct db_clock clock;
    long long remaining_white, remaining_black;
    char paused_until[DB_TIME_SIZE];
    /* db_game_list only: created_at in microseconds since 1970, with id
     * the keyset position of the game for the next page. */
    char created_us[24];
    /* Issue 19: whether it changes ratings, and once a rated game is over,
     * each side's rating after minus before (by colour: [0] White). */
    bool rated;
    bool has_rating_diff;
    double rating_diff[2];
    /* Issue 19: its round-robin tournament ("" for none) and, when made,
     * its round in the Berger tables. */
    char tournament_id[BASE_ID_SIZE];
    int tournament_round;
};

/* Frees what a db_game owns.  Safe on a zeroed or cleared game. */
void db_game_clear(struct db_game *g);

/* Creates a game from its first position (id made here, into g->id), from
 * the challenge accepted (or NULL). */
enum db_status db_game_insert(struct db_tx *tx, struct db_game *g, const char *challenge_id);

/* Locks a game row for a state change, with its repetition keys when
 * asked (claims) or without (a move appends its key in SQL).
 * DB_NOT_FOUND if none. */
enum db_status db_game_lock(struct db_tx *tx, const char *id, bool with_keys,
                            struct db_game *out);

/*
 * Saves a game's state: position, ply, status, result, termination,
 * adjudication reason, draw offer; with a move (move_san set), appends its
 * SAN and repetition key (or restarts the keys) and restarts the deadline
 * from days_per_move.  The deadline is cleared when the game is over.
 * Fills updated_at, deadline and sans back; clears move_san.
 */
enum db_status db_game_save(struct db_tx *tx, struct db_game *g);

/* Takes a game's deadline away (a game the sweeper cannot end waits for an
 * arbiter instead of stopping the sweep). */
enum db_status db_game_clear_deadline(struct db_tx *tx, const char *game_id);

/* Appends a move (the game row must be locked). */
enum db_status db_move_insert(struct db_tx *tx, const char *game_id, int ply, const char *san,
                              const char *uci, const char *fen);

/* The kinds of event, as the players' event stream names them. */
enum db_event {
    DB_EVENT_CHALLENGE = 0,       /* "challenge" */
    DB_EVENT_CHALLENGE_DECLINED,  /* "challenge_declined" */
    DB_EVENT_CHALLENGE_CANCELED,  /* "challenge_canceled" */
    DB_EVENT_GAME_START,          /* "game_start" */
    DB_EVENT_MOVE,                /* "move" */
    DB_EVENT_DRAW_OFFER,          /* "draw_offer": made, or declined (draw_offer null) */
    DB_EVENT_CLAIM,               /* "claim": an accepted draw claim */
    DB_EVENT_GAME_END,            /* "game_end" */
    DB_EVENT_MESSAGE,             /* "message": a player's message to the other */
    /* Issue 19. */
    DB_EVENT_ARBITER,             /* "arbiter": an arbiter's decision on a queue item */
    DB_EVENT_TOURNAMENT_START,    /* "tournament_start" */
    DB_EVENT_TOURNAMENT_END,      /* "tournament_end" */
    DB_EVENT_COUNT
};

/* The stream's name of a kind of event. */
const char *db_event_name(enum db_event event);

/* Records an event for both players of a game, with a snapshot of its
 * state (id, ply, fen, to_move, status, result, termination, draw offer);
 * `detail` is a JSON object text merged in (or NULL). */
enum db_status db_game_event(struct db_tx *tx, const char *game_id, enum db_event event,
                             const char *detail);

/* Records an event for the two players of a challenge. */
enum db_status db_challenge_event(struct db_tx *tx, const char *challenge_id,
                                  enum db_event event);

/* A game with its moves' SAN.  DB_NOT_FOUND if none. */
enum db_status db_game_get(struct db_pool *pool, const char *id, struct db_game *out,
                           struct base_err *err);

struct db_game_filter {
    const char *player_id;    /* NULL: any */
    const enum db_game_status *status;           /* NULL: any */
    const struct rules_variant *variant;         /* NULL: any */
    const char *after_us;     /* keyset cursor: created_us and id of the */
    const char *after_id;     /* last game of the previous page; NULL: first */
    int limit;
};

/* Games newest first, by keyset; out[max] each cleared by the caller
 * (db_game_clear).  *more is true when another page follows. */
enum db_status db_game_list(struct db_pool *pool, const struct db_game_filter *f,
                            struct db_game *out, int max, int *count, bool *more,
                            struct base_err *err);

struct db_move {
    int ply;
    char san[32];
    char uci[32];
    char fen[DB_FEN_SIZE];
    char at[DB_TIME_SIZE];
    bool conditional;             /* played from the mover's conditional moves */
};

/* All moves of a game in order, into a malloc'd array (*moves; caller
 * frees).  DB_NOT_FOUND if the game does not exist. */
enum db_status db_move_list(struct db_pool *pool, const char *game_id, struct db_move **moves,
                            int *count, struct base_err *err);

/* Ends up to `max` active games whose deadline has passed, each by the
 * callback in its own transaction (FOR UPDATE SKIP LOCKED), and returns
 * how many were ended in *ended. */
typedef enum db_status (*db_game_fn)(struct db_tx *tx, struct db_game *g, void *arg);
enum db_status db_games_overdue(struct db_pool *pool, int max, db_game_fn end, void *arg,
                                int *ended, struct base_err *err);

/* ---- The event log and its live feed --------------------------------------- */

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

/* ---- Notifications: preferences, webhooks and the outbox (db_notify.c) -- */

/* The channel notify workers LISTEN on: NOTIFYed (empty payload) by every
 * transaction that makes a delivery due. */
#define DB_DELIVERIES_CHANNEL "korp_deliveries"

/* The kinds of notification a player may choose (event types and the
 * deadline reminder), as korp_notification_types() lists them. */
#define DB_NOTIFICATION_TYPE_COUNT 13   /* 9, issue 18's message, issue 19's 3 */
extern const char *const db_notification_types[DB_NOTIFICATION_TYPE_COUNT];

/* A set of notification kinds: bit i stands for db_notification_types[i]. */
typedef unsigned db_notification_set;
#define DB_NOTIFICATION_ALL ((1u << DB_NOTIFICATION_TYPE_COUNT) - 1)

/* The kind of that name, or -1. */
int db_notification_type_index(const char *name);

/*
 * Preferences, webhooks and deliveries answer with the JSON object the API
 * shows, written by the database (the one place these objects are built);
 * *json is malloc'd (the caller frees).  DB_NOT_FOUND: no such row, or not
 * the player's.
 */

/* A change to a player's preferences: only what is marked set changes. */
struct db_settings_change {
    bool set_email;              /* email: an address, or NULL for none */
    const char *email;
    bool email_confirmed;        /* a new address counts as confirmed (no link mailed) */
    bool set_email_enabled, email_enabled;
    bool set_email_events;
    db_notification_set email_events;
    bool set_webhook_events;
    db_notification_set webhook_events;
    bool set_digest, digest;
    bool set_digest_hour;
    int digest_hour;             /* 0-23, UTC */
    bool set_reminder_hours;
    int reminder_hours;
    const char *language;        /* "en", "pl", "hu"; NULL: unchanged (issue 21) */
};

enum db_status db_settings_get(struct db_pool *pool, const char *player_id, char **json,
                               struct base_err *err);
enum db_status db_settings_put(struct db_pool *pool, const char *player_id,
                               const struct db_settings_change *change, char **json,
                               struct base_err *err);
/* korp's clock (the test clock included), in Unix seconds. */
enum db_status db_clock_now(struct db_pool *pool, long long *now, struct base_err *err);

/* A player's address ("" for none), whether it is confirmed, and korp's
 * clock.  DB_NOT_FOUND: no such player. */
enum db_status db_email_confirm_state(struct db_pool *pool, const char *player_id, char *email,
                                      size_t size, bool *confirmed, long long *now,
                                      struct base_err *err);

/* Confirms the player's address if it is still `email` and unconfirmed;
 * DB_NOT_FOUND otherwise. */
enum db_status db_email_confirm(struct db_pool *pool, const char *player_id, const char *email,
                                struct base_err *err);

/* Owes the player another confirmation email: DB_NOT_FOUND when there is
 * no unconfirmed address; *owed false when three went in 24 hours. */
enum db_status db_email_confirm_resend(struct db_pool *pool, const char *player_id, bool *owed,
                                       struct base_err *err);

/* Switches a player's email off (the unsubscribe link). */
enum db_status db_email_off(struct db_pool *pool, const char *player_id, struct base_err *err);

/* Registers a webhook (the answer shows its secret, this once); DB_CONFLICT
 * when the player has `max` already. */
enum db_status db_webhook_create(struct db_pool *pool, const char *id, const char *player_id,
                                 const char *url, db_notification_set events,
                                 const char *secret, int max, char **json, struct base_err *err);
/* {"webhooks": [...]}, oldest first. */
enum db_status db_webhook_list(struct db_pool *pool, const char *player_id, char **json,
                               struct base_err *err);
enum db_status db_webhook_get(struct db_pool *pool, const char *player_id, const char *id,
                              char **json, struct base_err *err);
enum db_status db_webhook_delete(struct db_pool *pool, const char *player_id, const char *id,
                                 struct base_err *err);
/* A new secret; the old one signs too for 24 hours.  {"id", "secret"}. */
enum db_status db_webhook_rotate(struct db_pool *pool, const char *player_id, const char *id,
                                 const char *secret, char **json, struct base_err *err);
/* Enables a webhook again (its failures forgotten). */
enum db_status db_webhook_enable(struct db_pool *pool, const char *player_id, const char *id,
                                 char **json, struct base_err *err);
/* {"deliveries": [...]}: at most `limit`, newest first, with their attempts. */
enum db_status db_delivery_list(struct db_pool *pool, const char *player_id,
                                const char *webhook_id, int limit, char **json, struct base_err *err);
/* Sends a delivery again now (not one that is being sent). */
enum db_status db_delivery_retry(struct db_pool *pool, const char *player_id,
                                 const char *webhook_id, long long delivery, char **json,
                                 struct base_err *err);

/* {"players": [{"id", "name"}]}: at most `limit` whose name starts with
 * `prefix` (letters, digits, '_' and '-'), case-insensitively, by name. */
enum db_status db_player_search(struct db_pool *pool, const char *prefix, int limit,
                                char **json, struct base_err *err);

/* Challenges open to anyone, newest first: at most max into out. */
enum db_status db_challenges_open(struct db_pool *pool, struct db_challenge *out, int max,
                                  int *count, struct base_err *err);

/* The server's own secret `name` (made from `fresh`, `len` bytes, by the
 * first process to ask; the same for every process after that) into out. */
enum db_status db_server_secret(struct db_pool *pool, const char *name,
                                const unsigned char *fresh, size_t len, unsigned char *out,
                                struct base_err *err);

/* A delivery claimed by a worker, with what sending it needs. */
struct db_delivery {
    long long id;
    enum db_channel channel;
    char type[24];                 /* a notification type, "digest" or "webhook_disabled" */
    char *payload;                 /* JSON object text; owned */
    int attempt;                   /* this attempt's number, from 1 */
    long long created_unix, now_unix;
    char player_id[BASE_ID_SIZE], player_name[DB_NAME_SIZE];
    char email[256];               /* "" when none */
    bool email_enabled;
    bool email_confirmed;          /* the address is confirmed */
    char challenge_status[16];     /* the payload's challenge's status, "" when none */
    char webhook_id[BASE_ID_SIZE];
    char url[2049];
    char secret[128], previous_secret[128];   /* previous: "" unless rotated < 24 h ago */
    bool webhook_enabled;
    double failing_seconds;        /* how long the endpoint has failed; < 0: it has not */
    char opponent_name[DB_NAME_SIZE];
    char deadline[DB_TIME_SIZE];   /* the game's, "" when none */
    char my_color[8];              /* the recipient's in the game, "" when none */
    char language[8];              /* the recipient's: "en", "pl", "hu" (issue 21) */
};

/* Frees what a claimed delivery owns. */
void db_deliveries_free(struct db_delivery *d, int count);

/*
 * Claims up to max due deliveries of one channel (FOR UPDATE SKIP LOCKED:
 * workers in any process share the work), each leased for lease_s seconds:
 * one not finished by then is due again.  Webhooks whose endpoint is
 * failing come after the others.  *out is malloc'd (db_deliveries_free).
 */
enum db_status db_deliveries_claim(struct db_pool *pool, int max, double lease_s,
                                   enum db_channel channel, struct db_delivery **out, int *count,
                                   struct base_err *err);

/* Gives a claimed delivery back unsent: its claim does not count as an
 * attempt, and it is due again after delay_s.  Nothing happens if the
 * claim no longer holds it. */
enum db_status db_delivery_defer(struct db_pool *pool, const struct db_delivery *d,
                                 double delay_s, struct base_err *err);

/* Extends a claimed delivery's lease by lease_s from now; *ours is false
 * when another worker has taken it over meanwhile (do not send it). */
enum db_status db_delivery_extend(struct db_pool *pool, const struct db_delivery *d,
                                  double lease_s, bool *ours, struct base_err *err);

/* How an attempt ended. */
enum db_delivery_outcome {
    DB_DELIVERED,       /* done */
    DB_RETRY,           /* try again after retry_s */
    DB_FAILED,          /* this delivery is given up */
    DB_ENDPOINT_GONE    /* given up, and its webhook disabled (reason) */
};

struct db_attempt {
    int status_code;          /* HTTP or SMTP code; 0: none */
    double latency_ms;
    const char *error;        /* NULL when none */
    enum db_delivery_outcome outcome;
    double retry_s;           /* DB_RETRY */
    const char *reason;       /* DB_ENDPOINT_GONE: why, for the owner */
};

/* Records an attempt and its outcome (one transaction).  Disabling an
 * endpoint fails its other owed deliveries and, when the owner takes
 * email, owes them a "webhook_disabled" message. */
enum db_status db_delivery_finish(struct db_pool *pool, const struct db_delivery *d,
                                  const struct db_attempt *a, struct base_err *err);

/* Earliest time a pending delivery of the channel falls due, in seconds
 * from now (may be negative); *any false when nothing is pending. */
enum db_status db_deliveries_next(struct db_pool *pool, enum db_channel channel,
                                  double *seconds, bool *any, struct base_err *err);

/* Sends the deadline reminders due (an event "deadline_near" for the player
 * to move, once per ply), at most max; *sent says how many. */
enum db_status db_reminders_send(struct db_pool *pool, int max, int *sent, struct base_err *err);

/* Deletes up to 1000 deliveries finished more than 30 days ago (with their
 * attempts) and up to 1000 expired sessions; *deleted says how many. */
enum db_status db_records_prune(struct db_pool *pool, int *deleted, struct base_err *err);

/* Owes each player whose digest hour has come today a "digest" email
 * listing the games where it is their move; *owed says how many. */
enum db_status db_digests_owe(struct db_pool *pool, int *owed, struct base_err *err);

/*
 * A thread that LISTENs on `channel` on its own connection and calls
 * wake(arg) for each notification, and after (re)connecting (what was
 * NOTIFYed meanwhile was not heard).
 */
struct db_listener *db_wakeup_start(struct db_pool *pool, const char *channel,
                                    void (*wake)(void *arg), void *arg, struct base_err *err);

/* ---- The clock and idempotency ---------------------------------------- */

/* Moves the one clock forward to `offset_seconds` past the database's own;
 * *now gets the new time. */
enum db_status db_clock_set(struct db_pool *pool, long long offset_seconds,
                            char now[DB_TIME_SIZE], struct base_err *err);

/* What claiming an idempotency key found. */
enum db_idempotency {
    DB_KEY_NEW = 0,       /* first use: the request runs, its answer is stored */
    DB_KEY_ANSWERED,      /* used before for this request: its answer is given */
    DB_KEY_OTHER_REQUEST  /* used before for another method or path */
};

/*
 * Claims (token, key) for a request, inside its transaction.  A request
 * with the same key running at once waits here until the first commits.
 * On DB_KEY_ANSWERED, *status and *body (malloc'd; caller frees) are the
 * first answer.
 */
enum db_status db_idempotency_claim(struct db_tx *tx, const char *token_id, const char *key,
                                    const char *method, const char *path,
                                    enum db_idempotency *found, int *status, char **body);

/* Deletes up to 1000 answers older than 24 hours; *deleted says how many. */
enum db_status db_idempotency_prune(struct db_pool *pool, int *deleted, struct base_err *err);

/* Stores the answer of a request that claimed its key (same transaction). */
enum db_status db_idempotency_store(struct db_tx *tx, const char *token_id, const char *key,
                                    int status, const char *body);

/* ---- Conditional moves, notes and messages (issue 18) ------------------
 * db_conditional.c and db_messages.c.  The tx functions run inside the
 * caller's transaction, which holds the game row. */

/* A player's conditional moves in a game: the plies played when they were
 * set, and their lines (UCI, a line per row, moves separated by spaces;
 * malloc'd).  DB_NOT_FOUND when none. */
enum db_status db_conditional_get(struct db_tx *tx, const char *game_id, const char *player_id,
                                  int *ply, char **lines);
/* Sets (replaces) them. */
enum db_status db_conditional_put(struct db_tx *tx, const char *game_id, const char *player_id,
                                  int ply, const char *lines);
/* Removes the player's (NULL: every player's in the game). */
enum db_status db_conditional_delete(struct db_tx *tx, const char *game_id,
                                     const char *player_id);
/* Marks the move at ply as a reply from conditional moves. */
enum db_status db_move_mark_conditional(struct db_tx *tx, const char *game_id, int ply);
/* Drops the notifications owed to the player for the move event of the
 * game at ply written in this transaction (a conditional reply followed
 * it: that one tells them). */
enum db_status db_move_notice_drop(struct db_tx *tx, const char *game_id, const char *player_id,
                                   int ply);

/* The player's note on a game (*text malloc'd, NULL when they wrote none;
 * updated_at "" then).  DB_NOT_FOUND when they do not play the game. */
enum db_status db_note_get(struct db_pool *pool, const char *game_id, const char *player_id,
                           char **text, char updated_at[DB_TIME_SIZE], struct base_err *err);
/* Sets it.  DB_NOT_FOUND when they do not play the game. */
enum db_status db_note_put(struct db_pool *pool, const char *game_id, const char *player_id,
                           const char *text, char updated_at[DB_TIME_SIZE], struct base_err *err);
/* Stores a message at ply (the game locked), unless the sender has sent
 * daily_max in this game today (UTC): DB_CONFLICT.  *json is the message
 * as the API shows it (malloc'd). */
enum db_status db_message_insert(struct db_tx *tx, const char *game_id, const char *player_id,
                                 int ply, const char *text, int daily_max, char **json);
/* Messages the player sent in the game today (UTC), and seconds until the
 * next UTC day. */
enum db_status db_message_count(struct db_pool *pool, const char *game_id, const char *player_id,
                                int *count, int *wait_s, struct base_err *err);
/* {"messages": [...]} of a game, oldest first (*json malloc'd). */
enum db_status db_message_list(struct db_pool *pool, const char *game_id, char **json,
                               struct base_err *err);
/* ---- Clocks and leave (issue 18) ---------------------------------------- */

/* Adds seconds to the time of the side to move of a locked game with a
 * clock (its deadline later to match); a game without one is unchanged. */
enum db_status db_game_give_time(struct db_tx *tx, const char *game_id, long long seconds);

/* A booking of leave: [start, end) (RFC 3339), its days counted. */
struct db_leave {
    char id[BASE_ID_SIZE];
    char start[DB_TIME_SIZE], end[DB_TIME_SIZE];
    int days;
};

/* One calendar year a booking touches: its days there, the days used there. */
struct db_leave_year {
    int year, days, used;
};

/* Where a booking stands now. */
enum db_leave_state { DB_LEAVE_AHEAD = 0, DB_LEAVE_RUNNING, DB_LEAVE_ENDED };

/* Locks the player's bookings (their row); *ahead: days from today (UTC,
 * korpd's clock) to start_day ("YYYY-MM-DD", or NULL). */
enum db_status db_leave_lock_player(struct db_tx *tx, const char *player_id,
                                    const char *start_day, int *ahead);

/* Whether days from start_day overlap a booking of the player's. */
enum db_status db_leave_overlaps(struct db_tx *tx, const char *player_id, const char *start_day,
                                 int days, bool *overlaps);

/* The years days from start_day touch, in order (at most max). */
enum db_status db_leave_years(struct db_tx *tx, const char *player_id, const char *start_day,
                              int days, struct db_leave_year *out, int max, int *count);

/* Books days from start_day (from now when it is today); out gets it. */
enum db_status db_leave_insert(struct db_tx *tx, const char *player_id, const char *start_day,
                               int days, struct db_leave *out);

/* Sets again the deadlines of the player's active games that leave stops. */
enum db_status db_leave_games_deadline(struct db_tx *tx, const char *player_id);

/* Locks one of the player's bookings.  DB_NOT_FOUND if not theirs. */
enum db_status db_leave_lock(struct db_tx *tx, const char *id, const char *player_id,
                             enum db_leave_state *state);

/* Deletes a booking; ends one at the end of today (UTC), its later days given back. */
enum db_status db_leave_delete(struct db_tx *tx, const char *id);
enum db_status db_leave_end_today(struct db_tx *tx, const char *id);

/* The player's bookings with days in this year or later (at most max, in
 * order), and the days used this year. */
enum db_status db_leave_list(struct db_pool *pool, const char *player_id, struct db_leave *out,
                             int max, int *count, int *used, struct base_err *err);

/* The end of the player's leave in force, "" when none. */
enum db_status db_leave_until(struct db_pool *pool, const char *player_id,
                              char until[DB_TIME_SIZE], struct base_err *err);
/* ---- Ratings (issue 19) ------------------------------------------------- */

/* A player's Glicko-2 rating in a variant, as stored. */
struct db_rating {
    const struct rules_variant *variant;
    double rating, rd, volatility;
    int games;                 /* rated games played */
    double idle_days;          /* db_rating_lock: days since the last rated
                                  game, or -1 for none */
};

/* Locks the player's rating in v for a game's ending (made at `start`'s
 * values if they have none yet) and reads it into out. */
enum db_status db_rating_lock(struct db_tx *tx, const char *player_id,
                              const struct rules_variant *v, const struct db_rating *start,
                              struct db_rating *out);

/* Saves the player's rating after game_id (one more game, rated now) and
 * appends it to their history. */
enum db_status db_rating_record(struct db_tx *tx, const char *player_id,
                                const struct rules_variant *v, const char *game_id,
                                const struct db_rating *after);

/* Stores a rated game's rating changes (after minus before) by colour. */
enum db_status db_game_rating_diff_set(struct db_tx *tx, const char *game_id, double white,
                                       double black);

/* The player's stored ratings (variants where they have played rated). */
enum db_status db_player_ratings(struct db_pool *pool, const char *player_id,
                                 struct db_rating *out, int max, int *count,
                                 struct base_err *err);

/* One point of a rating history. */
struct db_rating_point {
    char game_id[BASE_ID_SIZE];
    char at[DB_TIME_SIZE];
    double rating, rd;
};

/* The player's newest `max` ratings in v after rated games, oldest first. */
enum db_status db_rating_history(struct db_pool *pool, const char *player_id,
                                 const struct rules_variant *v, struct db_rating_point *out,
                                 int max, int *count, struct base_err *err);

/* One row of a leaderboard. */
struct db_leader {
    char id[BASE_ID_SIZE];
    char name[DB_NAME_SIZE];
    double rating, rd;
    int games;
};

/* Players rated in v with RD at most max_rd, highest rating first. */
enum db_status db_leaderboard(struct db_pool *pool, const struct rules_variant *v,
                              double max_rd, struct db_leader *out, int max, int *count,
                              struct base_err *err);

/* Games finished, and games lost on time, in the last 90 days. */
struct db_player_stats {
    int finished_90d, timeouts_90d;
};

enum db_status db_player_stats_get(struct db_pool *pool, const char *player_id,
                                   struct db_player_stats *out, struct base_err *err);

/* ---- The arbiter's queue (issue 19) -------------------------------------- */

enum db_queue_kind {
    DB_QUEUE_PERPETUAL = 0,       /* "perpetual": a perpetual-check claim */
    DB_QUEUE_REQUEST,             /* "request": a player asks for an arbiter */
    DB_QUEUE_TOURNAMENT_END       /* "tournament-end": still going at the end */
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
    char *details;
};

void db_queue_item_clear(struct db_queue_item *q);

/* Adds an open item (id made here) about a game, from a player or NULL;
 * details_json is an object, to which `text` (if not NULL) is added. */
enum db_status db_queue_add(struct db_tx *tx, enum db_queue_kind kind, const char *game_id,
                            const char *player_id, const char *details_json,
                            const char *text, char id[BASE_ID_SIZE]);

/* The open items, oldest first (db_queue_item_clear each). */
enum db_status db_queue_list(struct db_pool *pool, struct db_queue_item *out, int max,
                             int *count, struct base_err *err);

/* Locks one item.  DB_NOT_FOUND if none. */
enum db_status db_queue_lock(struct db_tx *tx, const char *id, struct db_queue_item *out);

/* Dismisses an open item with the arbiter's reason; detail gets the JSON of
 * the `arbiter` event owed to the game's players. */
enum db_status db_queue_dismiss(struct db_tx *tx, const char *id, const char *reason,
                                char *detail, size_t size);

/* Resolves the game's open items (its adjudication, with that reason);
 * *count says how many, detail the `arbiter` event's JSON. */
enum db_status db_queue_resolve_game(struct db_tx *tx, const char *game_id, const char *reason,
                                     int *count, char *detail, size_t size);

/* ---- Round-robin tournaments (issue 19) --------------------------------- */

enum db_tournament_status {
    DB_TOURNAMENT_OPEN = 0,       /* "open": players may join */
    DB_TOURNAMENT_ACTIVE,         /* "active": its games are being played */
    DB_TOURNAMENT_FINISHED,       /* "finished": its last game has ended */
    DB_TOURNAMENT_CANCELED        /* "canceled": too few players at starts_at */
};

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
    struct db_clock game_clock;   /* its games' clock (issue 19), leave_allowed too */
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

/* Creates a tournament (id made here), status open. */
enum db_status db_tournament_insert(struct db_pool *pool, struct db_tournament *t,
                                    struct base_err *err);

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

/* ---- Pruning what only grows (issue 22, db_prune.c) */

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
/* ---- Engine analysis (issue 23, db_analysis.c) ---------------------------- */

struct db_active_position {
    char game_id[BASE_ID_SIZE];
    const struct rules_variant *variant;
    char fen[DB_FEN_SIZE];
};

/* Up to max of the player's active games in variant whose FEN's first
 * field (the board, with Korpalski's reserves) is `board`: the candidates
 * for "this is the position of a game they are playing". */
enum db_status db_active_positions(struct db_pool *pool, const char *player_id,
                                   const struct rules_variant *variant, const char *board,
                                   struct db_active_position *out, int max, int *count,
                                   struct base_err *err);

#endif
