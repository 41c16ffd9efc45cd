/*
 * api_gate.h — the door in front of libmicrohttpd: korpd accepts each
 * connection itself and reads its first request head (without taking it
 * from the socket) before libmicrohttpd may, because libmicrohttpd 0.9.75
 * answers an invalid Content-Length itself, with its status line and
 * headers written twice.  The gate answers such a head once, as korpd
 * answers (an RFC 9457 problem), and closes.
 */
#ifndef KORP_API_GATE_H
#define KORP_API_GATE_H

#include "base.h"

#include <microhttpd.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

/* What the bytes at the start of a connection hold. */
enum api_head_verdict {
    API_HEAD_INCOMPLETE,   /* no whole request head yet */
    API_HEAD_PASS,         /* whole, and libmicrohttpd reads it right */
    API_HEAD_BAD_LENGTH,   /* a Content-Length that is no number of bytes: 400 */
    API_HEAD_HUGE_LENGTH   /* a Content-Length past 2^64 - 1 bytes: 413 */
};

/*
 * Judges the request heads at the start of buf (len bytes received so far),
 * as libmicrohttpd 0.9.75 will split them: lines end in CRLF or a bare LF,
 * a line starting with a space or tab continues the one before, empty lines
 * before a request line are skipped.  Every Content-Length of every whole
 * head is checked; pipelined heads are followed past Content-Length bodies
 * until one is not whole, or a head's body has no length korpd can follow
 * (Transfer-Encoding, several Content-Lengths: korpd's handler refuses or
 * reads those).  Pure: reads buf only.
 */
enum api_head_verdict api_head_scan(const char *buf, size_t len);

/* A Content-Length value (value[0..len), spaces and tabs before it
 * skipped) as libmicrohttpd reads it: API_HEAD_PASS for a number of bytes,
 * else API_HEAD_BAD_LENGTH or API_HEAD_HUGE_LENGTH. */
enum api_head_verdict api_head_length(const char *value, size_t len);

/* The most bytes api_head_refuse writes. */
#define API_HEAD_ANSWER_MOST 1024

/*
 * Answers a request refused for its Content-Length (verdict
 * API_HEAD_BAD_LENGTH: 400, API_HEAD_HUGE_LENGTH: 413) on fd, once, as
 * korpd answers refusals (an RFC 9457 problem, Connection: close, at most
 * API_HEAD_ANSWER_MOST bytes, sent at once), and shuts the socket's
 * sending side, so that nothing libmicrohttpd might still write follows it
 * (both sides, should the socket not take the whole answer).  Logs the
 * access line (method: "-" when unknown; since_us: when the request
 * began).  Returns the status.
 */
unsigned api_head_refuse(int fd, enum api_head_verdict verdict, const char *method,
                         int64_t since_us);

/* What the gate asks of the server (api_server.c). */
struct api_gate_hooks {
    /* Whether a connection from addr may open; *counted when it was
     * counted against its address (and must be released). */
    bool (*admit)(void *cls, const struct sockaddr *addr, bool *counted);
    void (*release)(void *cls, const struct sockaddr *addr);
    /* The gate answered a request itself: for the metrics. */
    void (*answered)(void *cls, unsigned status, long duration_us);
    void *cls;
};

struct api_gate;

/*
 * Starts the gate's thread on listen_fd (listening, taken over: the gate
 * closes it): connections admitted by hooks->admit wait in the gate until
 * their first request head is whole (at most head_seconds, then they are
 * closed without an answer, as a slow head is), and are then handed to
 * daemon (started with MHD_USE_NO_LISTEN_SOCKET) or answered and closed.
 * NULL with err set on failure (listen_fd is then closed).
 */
struct api_gate *api_gate_start(int listen_fd, struct MHD_Daemon *daemon, int head_seconds,
                                const struct api_gate_hooks *hooks, struct base_err *err);

/* Stops accepting: the thread ends, the listening socket and the
 * connections still waiting in the gate are closed.  Idempotent. */
void api_gate_stop(struct api_gate *gate);

/* Stops the gate and frees it; NULL is a no-op. */
void api_gate_free(struct api_gate *gate);

#endif
