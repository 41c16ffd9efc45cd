/*
 * base.h — what every part of korpd shares and nothing chess-specific:
 * log lines, the clocks, ids and secrets, a growing text, UTF-8, base64,
 * e-mail addresses and Bearer tokens checked once, and background workers
 * with one start/stop/join pattern.  Depends on libc, pthreads, OpenSSL's
 * libcrypto and libargon2.
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
/* Whether lines of this level are written (to spare making one that is not). */
bool base_log_wants(enum base_log_level level);

/* ---- Errors ----------------------------------------------------------- */

/*
 * What went wrong, in words for the log (never shown to a client as it
 * is): one context handed down a chain of calls, filled by the call that
 * failed.  Start it as { "" }.
 */
struct base_err {
    char text[512];
};

/* Sets e's words (e may be NULL: nothing is kept). */
void base_err_set(struct base_err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- Clocks ----------------------------------------------------------- */

/* Milliseconds and microseconds of CLOCK_MONOTONIC: for deadlines and
 * durations. */
int64_t base_monotonic_ms(void);
int64_t base_monotonic_us(void);

/* ---- Identifiers and secrets ------------------------------------------- */

/* Letters and digits of base62, the alphabet of ids and tokens.  An id is
 * BASE_ID_LEN characters; BASE_ID_SIZE is the buffer that holds one and its
 * NUL, with room for a short prefix (a session's token id is "s-<id>"). */
#define BASE_ID_LEN 10
#define BASE_ID_SIZE 16
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

/* ---- Comparing secrets (base_compare.c) -------------------------------- */

/*
 * Whether two secrets (tokens, digests) are equal, in time that does not
 * depend on where they differ (OpenSSL's CRYPTO_memcmp).  A secret's length
 * is no secret.  False if either is NULL or empty: an empty secret never
 * matches.
 */
bool base_secret_equal(const char *a, const char *b);

/* ---- Growing text (base_text.c) ------------------------------------------ */

/*
 * A text that grows as it is appended to.  It starts as { 0 }.  Appending
 * never fails loudly: when memory runs out the text is marked failed,
 * everything after is dropped, and base_text_take hands out NULL, so a
 * writer checks once at the end.  buf is NUL-terminated once anything was
 * appended.
 */
struct base_text {
    char *buf;    /* malloc'd, or NULL while empty */
    size_t len;   /* bytes in buf, without the NUL */
    size_t cap;
    bool failed;  /* out of memory: everything after is dropped */
};

/* Appends n bytes of s. */
void base_text_add(struct base_text *t, const char *s, size_t n);

/* Appends the string s. */
void base_text_str(struct base_text *t, const char *s);

/* Appends what printf would write for fmt. */
void base_text_put(struct base_text *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Hands the text over (malloc'd, the caller frees), or NULL if it failed
 * (the buffer freed) or nothing was appended, and empties t. */
char *base_text_take(struct base_text *t);

/* ---- UTF-8 (base_utf8.c) ----------------------------------------------- */

/*
 * The length (1 to 4) of the UTF-8 character at the start of s[0..n), or 0
 * if the bytes there are not one by RFC 3629: a stray continuation byte,
 * an overlong form, a surrogate (U+D800..U+DFFF), a code point above
 * U+10FFFF, or a sequence cut short by the end (n) or by a byte that does
 * not continue it (a NUL included).  0 for n == 0.
 */
size_t base_utf8_char_len(const unsigned char *s, size_t n);

/* The offset of the first byte of s[0..n) that breaks UTF-8, or -1 if all
 * of it is valid. */
long base_utf8_invalid_at(const unsigned char *s, size_t n);

/* What a free text may hold besides what everyone can see (base_text_fit). */
enum base_text_kind {
    BASE_TEXT_LINE = 0,     /* one line: a name, a title */
    BASE_TEXT_LINES         /* newlines allowed: a message */
};

/*
 * Whether text (NUL-terminated) is fit to be shown to people, in a page,
 * a mail's header or body: valid UTF-8; no C0 or C1 control character nor
 * DEL (but the newline in BASE_TEXT_LINES); no bidirectional embedding,
 * override or isolate (U+202A..U+202E, U+2066..U+2069), which would show
 * the text in another order than it is stored; and, unless it is empty,
 * something visible: not only white space and default-ignorable code points
 * (zero-width characters, fillers, variation selectors).  An empty text
 * passes: callers bound lengths.  *chars is set to the number of code
 * points read.  False with why (size bytes) saying what is wrong and at
 * which byte.
 */
bool base_text_fit(const char *text, enum base_text_kind kind, size_t *chars, char *why,
                   size_t size);

/* ---- Base64 (base_base64.c; RFC 4648, standard alphabet, padded) ------- */

/* The length of the base64 text of n bytes, without the NUL. */
#define BASE_BASE64_LEN(n) (((n) + 2) / 3 * 4)

/*
 * Writes the base64 of len bytes and a NUL to out (size bytes).  Returns
 * the text's length, or 0 with out empty if it does not fit (0 is also the
 * length for len 0).
 */
size_t base_base64_encode(const void *data, size_t len, char *out, size_t size);

/*
 * Decodes base64 text into out (size bytes) and sets *len.  Strict, so that
 * each byte string has exactly one accepted text: the length is a multiple
 * of 4, '=' only as one or two final padding characters, the bits the
 * padding leaves over are zero (RFC 4648 section 3.5), no whitespace or
 * other characters.  False, with *len 0, if the text is malformed or does
 * not fit.
 */
bool base_base64_decode(const char *text, unsigned char *out, size_t size, size_t *len);

/* ---- E-mail addresses (base_email.c) ------------------------------------- */

/* RFC 5322 atext: a letter, digit or one of !#$%&'*+-/=?^_`{|}~. */
bool base_email_atext(char c);

/* Whether s[0..n) is an RFC 5322 dot-atom-text: atext runs joined by
 * single dots, not starting or ending with a dot. */
bool base_email_dot_atom(const char *s, size_t n);

/* Whether s[0..n) is a host name: labels of 1 to 63 letters, digits and
 * hyphens (not first or last) joined by dots, at most 253 in all. */
bool base_email_host(const char *s, size_t n);

/*
 * Whether address is a plain mailbox korpd sends to: a dot-atom local part
 * of at most 64 characters, '@', and a host name (letters, digits and inner
 * hyphens in labels of at most 63, at most 253 in all); at most 254
 * characters.  No quoting, comments, spaces, angle brackets or address
 * literals, and so ASCII only.
 */
bool base_email_valid(const char *address);

/* ---- HTTP Bearer tokens (base_bearer.c) ----------------------------------- */

/*
 * The token of an Authorization header value "Bearer <token>" (RFC 6750
 * section 2.1): the scheme in any case, one or more spaces, then the token,
 * which runs to the end and holds no space.  A pointer into authorization,
 * or NULL for NULL, another scheme, or a missing or empty token.
 */
const char *base_bearer_token(const char *authorization);

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
                                      struct base_err *err);

/* True once a stop was asked for; fn should return soon after. */
bool base_worker_stopping(struct base_worker *w);

/*
 * Waits up to ms milliseconds, or until base_worker_wake or a stop request.
 * Returns false when the worker should stop.
 */
bool base_worker_sleep(struct base_worker *w, int ms);

/* Ends the worker's current base_worker_sleep early (from any thread). */
void base_worker_wake(struct base_worker *w);

/* Asks the worker to stop without waiting: a group of workers is asked
 * first and then stopped one by one, so that they wind down together.
 * NULL is a no-op. */
void base_worker_ask_stop(struct base_worker *w);

/* Asks the worker to stop, joins its thread and frees it.  NULL is a no-op. */
void base_worker_stop(struct base_worker *w);

/* Stops n workers that may wake one another: asks them all, joins them
 * all, and only then frees them (and sets each pointer NULL). */
void base_worker_stop_all(struct base_worker **ws, int n);

#endif
