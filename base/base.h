/*
 * base.h — what every part of korpd shares and nothing chess-specific:
 * log lines, the clocks, and background workers with one start/stop/join
 * pattern.  Depends on libc and pthreads only.
 */
#ifndef KORP_BASE_H
#define KORP_BASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- Log lines -------------------------------------------------------- */

enum base_log_level { BASE_LOG_DEBUG = 0, BASE_LOG_INFO, BASE_LOG_WARN, BASE_LOG_ERROR };

/*
 * Writes one line to stderr: "<RFC 3339 UTC time> korpd <level>: <text>".
 * Thread-safe (one write per line).  Lines below the level set with
 * base_log_set_level are dropped; the default level is INFO.
 */
void base_log(enum base_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Sets the lowest level written. */
void base_log_set_level(enum base_log_level level);

/* ---- Clocks ----------------------------------------------------------- */

/* Milliseconds and microseconds of CLOCK_MONOTONIC: for deadlines and
 * durations. */
int64_t base_monotonic_ms(void);
int64_t base_monotonic_us(void);

/* ---- Identifiers and secrets ------------------------------------------- */

/* Letters and digits of base62, the alphabet of ids and tokens. */
#define BASE_ID_LEN 10
#define BASE_TOKEN_LEN 37          /* "korp_" and 32 base62 characters */
#define BASE_SHA256_HEX_LEN 64

/*
 * Fills out with len random base62 characters from the system's secure
 * generator and a NUL (out holds len + 1 bytes).  False if the generator
 * failed.  Ids are BASE_ID_LEN long (about 59 bits: not guessable).
 */
bool base_random_text(char *out, size_t len);

/* A new API token: "korp_" and 32 random base62 characters (190 bits). */
bool base_token_new(char out[BASE_TOKEN_LEN + 1]);

/* The SHA-256 of text as 64 lower-case hex digits and a NUL. */
void base_sha256_hex(const char *text, size_t len, char out[BASE_SHA256_HEX_LEN + 1]);

/* Formats a Unix time in seconds as RFC 3339 UTC ("2026-11-22T13:45:00Z"). */
void base_time_format(long long unix_seconds, char out[32]);

/* ---- Passwords (Argon2id) ---------------------------------------------- */

/* Room for an encoded hash with its parameters and salt. */
#define BASE_PASSWORD_HASH_SIZE 128

/* Hashes a password with a fresh salt into out ("$argon2id$v=19$m=…").
 * False if the random generator or libargon2 failed. */
bool base_password_hash(const char *password, char *out, size_t size);

/* Whether password matches an encoded hash (false for an empty hash). */
bool base_password_verify(const char *encoded, const char *password);

/* Whether two secrets (tokens) are equal, in time that does not depend on
 * where they differ. */
bool base_text_equal(const char *a, const char *b);

/* ---- Background workers ------------------------------------------------ */

struct base_worker;

/*
 * The body of a worker: runs until base_worker_stopping(w) is true.  It
 * waits with base_worker_sleep, never with sleep(), so that a stop request
 * wakes it at once.
 */
typedef void (*base_worker_fn)(struct base_worker *w, void *arg);

/*
 * Starts a thread running fn(w, arg) with every signal blocked (signals are
 * main's).  Returns NULL with a message in err if the thread cannot start.
 */
struct base_worker *base_worker_start(const char *name, base_worker_fn fn, void *arg,
                                      char *err, size_t errsize);

/* True once a stop was asked for; fn should return soon after. */
bool base_worker_stopping(struct base_worker *w);

/*
 * Waits up to ms milliseconds, or until base_worker_wake or a stop request.
 * Returns false when the worker should stop.
 */
bool base_worker_sleep(struct base_worker *w, int ms);

/* Ends the worker's current base_worker_sleep early (from any thread). */
void base_worker_wake(struct base_worker *w);

/* Asks the worker to stop, joins its thread and frees it.  NULL is a no-op. */
void base_worker_stop(struct base_worker *w);

#endif
