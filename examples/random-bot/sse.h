/*
 * sse.h — a parser for Server-Sent Events (the "text/event-stream" format
 * of the WHATWG HTML standard, section "Server-sent events").
 *
 * Feed it the bytes of a stream in pieces of any size; it calls back once
 * for every complete event.  It knows nothing of HTTP or of korp.
 */
#ifndef RANDOM_BOT_SSE_H
#define RANDOM_BOT_SSE_H

#include <stddef.h>

/* Longest line, and longest data of one event, the parser keeps; an event
 * with a longer one is dropped whole (its id still counts as received). */
#define SSE_LIMIT (1024 * 1024)

struct sse_parser;

/*
 * Called for each event: its type ("message" when the stream gave none),
 * its data (the data: lines joined by "\n", never NULL) and the last event
 * id received so far ("" when none).  The strings live until the callback
 * returns.
 */
typedef void (*sse_event_fn)(void *arg, const char *type, const char *data, const char *id);

/* A new parser that reports to on_event(arg, ...); NULL when out of memory.
 * Free it with sse_parser_free. */
struct sse_parser *sse_parser_new(sse_event_fn on_event, void *arg);

/* Frees the parser; NULL is a no-op. */
void sse_parser_free(struct sse_parser *p);

/*
 * Reads len more bytes of the stream.  Lines may end in CRLF, LF or CR, and
 * a CRLF may be split between two calls.  Returns 0, or -1 when out of
 * memory (the parser is then reset).
 */
int sse_parser_feed(struct sse_parser *p, const char *buf, size_t len);

/*
 * Starts over for a new connection: drops a half-read line or event, and
 * keeps the last event id, which a client sends back as Last-Event-ID.
 */
void sse_parser_reset(struct sse_parser *p);

/* The id of the last event dispatched (or set by an id: line followed by a
 * blank line); "" before any.  Valid until the next feed or reset. */
const char *sse_parser_last_id(const struct sse_parser *p);

/* The reconnection delay the server asked for with "retry:", in
 * milliseconds; -1 when it never did. */
long sse_parser_retry_ms(const struct sse_parser *p);

#endif
