/*
 * client.h — calls to korpd's JSON API over libcurl, with the retries a
 * polite client makes: after a dropped connection, a 429 (waiting as long as
 * Retry-After says) and a 5xx.  Also the bot's log.
 */
#ifndef RANDOM_BOT_CLIENT_H
#define RANDOM_BOT_CLIENT_H

#include <cjson/cJSON.h>
#include <stdbool.h>

struct client;

/* What an HTTP call brought back. */
struct client_reply {
    long status;        /* the HTTP status; 0 when korpd never answered */
    cJSON *json;        /* the body when it is JSON, else NULL; owned by the reply */
};

/*
 * A client of korpd at base_url (such as "http://127.0.0.1:8080") that
 * sends token (may be NULL) as "Authorization: Bearer".  NULL when out of
 * memory.  curl_global_init must have been called.
 */
struct client *client_new(const char *base_url, const char *token);

/* Frees the client; NULL is a no-op. */
void client_free(struct client *c);

/* The base URL, without a trailing slash. */
const char *client_base(const struct client *c);

/* The token given to client_new, or NULL. */
const char *client_token(const struct client *c);

/*
 * Sends method ("GET" or "POST") to the base URL + path, with body (a JSON
 * value, or NULL for none) and, when key is not NULL, the header
 * "Idempotency-Key: key".  Retries a few times, with growing waits, when the
 * connection fails or korpd answers 429 or 5xx; the same key goes with each
 * retry, so a move is never played twice.  Fills *out (clear it with
 * client_reply_clear).  Returns true when korpd gave a final answer (any
 * status but 429 and 5xx), false when it gave up.
 */
bool client_call(struct client *c, const char *method, const char *path, const cJSON *body,
                 const char *key, struct client_reply *out);

/* Frees what a reply holds; the reply may be used again. */
void client_reply_clear(struct client_reply *r);

/* The string member name of the reply's JSON object, or "" when absent. */
const char *client_json_string(const cJSON *json, const char *name);

/* Writes one line to stderr: a UTC time, "random-bot:" and the message. */
void client_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Seconds on a clock that only goes forward (for waits and timeouts). */
double client_now(void);

/* Sleeps for the given seconds (fractions allowed). */
void client_sleep(double seconds);

#endif
