/*
 * db_players.h — players, tokens, sessions and sign-in; in db_players.c and
 * db_sessions.c.  db.h includes it.
 */
#ifndef KORP_DB_PLAYERS_H
#define KORP_DB_PLAYERS_H

#include "db_pool.h"
#include "db_names.h"

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
 * found by name ignoring case and diacritics (its key).  DB_NOT_FOUND if none. */
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

/*
 * A player's name: 2-30 Latin letters (with the diacritics of Polish,
 * Hungarian and the other languages of Latin-1 and Latin Extended-A: Łucja,
 * Győző), digits, '_' or '-' (the schema's rule, migration 023).  A letter
 * sent decomposed (o and a combining mark) is composed: out is the name in
 * NFC, letters how many characters it has.  A letter of another script
 * (Cyrillic а for a) is DB_NAME_NOT_LATIN: no look-alike names.  Names are
 * unique ignoring case and diacritics (the database's korp_name_key).
 */
enum db_name_check {
    DB_NAME_OK = 0,
    DB_NAME_LENGTH,        /* not 2-30 characters */
    DB_NAME_CHARACTER,     /* punctuation, a space, a lone combining mark */
    DB_NAME_NOT_LATIN,     /* a letter (or sign) of another script */
};
enum db_name_check db_player_name_normalize(const char *name, char out[DB_NAME_SIZE],
                                            int *letters);

/* Whether db_player_name_normalize accepts the name. */
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

/* {"players": [{"id", "name"}]}: at most `limit` whose name starts with
 * `prefix` (letters, digits, '_' and '-'), case-insensitively, by name. */
enum db_status db_player_search(struct db_pool *pool, const char *prefix, int limit,
                                char **json, struct base_err *err);

#endif
