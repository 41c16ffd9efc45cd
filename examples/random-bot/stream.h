/*
 * stream.h — the player's event stream, GET /v1/events, kept open: read
 * with a libcurl multi handle (so the bot can wait on it and still do other
 * work), parsed by sse.h, reconnected with Last-Event-ID after any drop,
 * with a growing, bounded wait between attempts.
 */
#ifndef RANDOM_BOT_STREAM_H
#define RANDOM_BOT_STREAM_H

#include "sse.h"

#include <stdbool.h>
#include <stdint.h>

struct stream_settings {
    double idle_timeout;    /* seconds without a byte (not even a keep-alive) before
                             * the connection counts as dead */
    double max_backoff;     /* longest wait between two attempts, in seconds */
    uint64_t seed;          /* of the jitter of those waits */
};

enum stream_status {
    STREAM_OK,
    STREAM_FATAL,           /* korpd refused the stream (a bad token or URL): stop */
};

struct stream;

/*
 * A stream of the events of the player whose token is given, from korpd at
 * base_url.  Each event goes to on_event(arg, type, data, id) from inside
 * stream_run: it should only take note, not call korpd.  Nothing is sent
 * before the first stream_run.  NULL when out of memory.
 */
struct stream *stream_new(const char *base_url, const char *token,
                          const struct stream_settings *settings, sse_event_fn on_event,
                          void *arg);

/* Closes the connection and frees the stream; NULL is a no-op. */
void stream_free(struct stream *s);

/*
 * Connects when a connection is due, then waits up to timeout_ms for bytes
 * and reads them, handing each complete event to on_event.  Notices a
 * dropped or silent connection and plans the next attempt.
 */
enum stream_status stream_run(struct stream *s, int timeout_ms);

/*
 * True (once) after a connection opened without Last-Event-ID: korpd then
 * sends only what happens from now on, so the caller must look up what is
 * already waiting (open challenges, games in progress).
 */
bool stream_take_fresh_start(struct stream *s);

#endif
