/*
 * stream.c — GET /v1/events, kept open.
 *
 * One libcurl easy handle, driven by a multi handle: stream_run polls it for
 * a short while and returns, so the bot does its work between polls without
 * threads.  Bytes go to the SSE parser, which calls back once per event.
 *
 * When the connection ends (korpd restarted, a proxy cut it, nothing arrived
 * for idle_timeout seconds), the next attempt waits 0.5 s, then twice as
 * long after each attempt that brought nothing, up to max_backoff, with
 * some jitter so that many bots do not come back at the same instant; a
 * Retry-After or an SSE "retry:" from the server is respected.  Every
 * attempt sends Last-Event-ID when an event was received before, and korpd
 * replays what was missed.
 */
#include "stream.h"

#include "client.h"

#include <curl/curl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define FIRST_BACKOFF 0.5

struct stream {
    CURLM *multi;
    CURL *easy;
    struct curl_slist *headers;
    char *url, *auth;
    struct sse_parser *parser;
    struct stream_settings set;
    uint64_t rng;               /* for jitter */

    bool running;               /* a connection is open or being opened */
    bool open;                  /* its answer is 200 text/event-stream */
    bool is_sse;                /* its Content-Type says so */
    bool resumed;               /* it sent Last-Event-ID */
    bool got_bytes;             /* it brought something after the headers */
    bool fresh_start;           /* opened without Last-Event-ID; not yet taken */
    bool fatal;
    int failures;               /* attempts in a row that brought nothing */
    double next_attempt;        /* client_now() time */
    double last_byte;
    char problem[512];          /* the start of a refusal's body, for the log */
    size_t problem_len;
};

static double jitter(struct stream *s)
{
    /* xorshift64: plenty for spreading reconnections. */
    s->rng ^= s->rng << 13;
    s->rng ^= s->rng >> 7;
    s->rng ^= s->rng << 17;
    return (double)(s->rng >> 11) / (double)(1ULL << 53);
}

/* Whether the n bytes at s hold word, in any case. */
static bool mentions(const char *s, size_t n, const char *word)
{
    size_t w = strlen(word);
    for (size_t i = 0; i + w <= n; i++)
        if (strncasecmp(s + i, word, w) == 0)
            return true;
    return false;
}

static size_t on_header(char *line, size_t size, size_t count, void *arg)
{
    struct stream *s = arg;
    size_t n = size * count;
    static const char ct[] = "content-type:";

    if (n >= sizeof ct - 1 && strncasecmp(line, ct, sizeof ct - 1) == 0)
        s->is_sse = mentions(line + sizeof ct - 1, n - (sizeof ct - 1), "text/event-stream");
    if ((n == 2 && line[0] == '\r') || (n == 1 && line[0] == '\n')) {
        long status = 0;
        curl_easy_getinfo(s->easy, CURLINFO_RESPONSE_CODE, &status);
        if (status == 200 && s->is_sse) {
            s->open = true;
            s->fresh_start = !s->resumed;
            client_log("stream: open%s", s->resumed ? " (resuming)" : "");
        }
    }
    return n;
}

static size_t on_data(char *data, size_t size, size_t count, void *arg)
{
    struct stream *s = arg;
    size_t n = size * count;

    s->last_byte = client_now();
    if (!s->open) {
        /* A refusal: keep the start of its problem body for the log. */
        size_t room = sizeof s->problem - 1 - s->problem_len;
        size_t take = n < room ? n : room;
        memcpy(s->problem + s->problem_len, data, take);
        s->problem_len += take;
        s->problem[s->problem_len] = '\0';
        return n;
    }
    s->got_bytes = true;
    if (sse_parser_feed(s->parser, data, n) != 0) {
        client_log("stream: out of memory");
        return 0;       /* ends the transfer; the next attempt resumes */
    }
    return n;
}

struct stream *stream_new(const char *base_url, const char *token,
                          const struct stream_settings *settings, sse_event_fn on_event,
                          void *arg)
{
    struct stream *s = calloc(1, sizeof *s);
    size_t n;

    if (s == NULL)
        return NULL;
    s->set = *settings;
    s->rng = settings->seed != 0 ? settings->seed : 1;     /* xorshift never leaves 0 */
    s->multi = curl_multi_init();
    s->easy = curl_easy_init();
    s->parser = sse_parser_new(on_event, arg);
    n = strlen(base_url) + sizeof "/v1/events";
    s->url = malloc(n);
    n = strlen(token) + sizeof "Authorization: Bearer ";
    s->auth = malloc(n);
    if (s->multi == NULL || s->easy == NULL || s->parser == NULL || s->url == NULL ||
        s->auth == NULL) {
        stream_free(s);
        return NULL;
    }
    snprintf(s->url, strlen(base_url) + sizeof "/v1/events", "%s/v1/events", base_url);
    snprintf(s->auth, n, "Authorization: Bearer %s", token);
    return s;
}

void stream_free(struct stream *s)
{
    if (s == NULL)
        return;
    if (s->running)
        curl_multi_remove_handle(s->multi, s->easy);
    curl_easy_cleanup(s->easy);
    curl_multi_cleanup(s->multi);
    curl_slist_free_all(s->headers);
    sse_parser_free(s->parser);
    free(s->url);
    free(s->auth);
    free(s);
}

static void start(struct stream *s)
{
    const char *last = sse_parser_last_id(s->parser);
    char resume[96];

    /* korpd's ids are numbers; anything else would not be sent back. */
    s->resumed = last[0] != '\0' && strlen(last) < 64 && strchr(last, '\n') == NULL &&
                 strchr(last, '\r') == NULL;
    snprintf(resume, sizeof resume, "Last-Event-ID: %s", s->resumed ? last : "");
    sse_parser_reset(s->parser);
    curl_slist_free_all(s->headers);
    s->headers = curl_slist_append(NULL, s->auth);
    s->headers = curl_slist_append(s->headers, "Accept: text/event-stream");
    if (s->resumed)
        s->headers = curl_slist_append(s->headers, resume);
    curl_easy_reset(s->easy);
    curl_easy_setopt(s->easy, CURLOPT_URL, s->url);
    curl_easy_setopt(s->easy, CURLOPT_HTTPHEADER, s->headers);
    curl_easy_setopt(s->easy, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(s->easy, CURLOPT_HEADERDATA, s);
    curl_easy_setopt(s->easy, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(s->easy, CURLOPT_WRITEDATA, s);
    curl_easy_setopt(s->easy, CURLOPT_CONNECTTIMEOUT, 10L);
    curl_easy_setopt(s->easy, CURLOPT_NOSIGNAL, 1L);
    /* No overall timeout: the stream is meant to last.  Silence is caught
     * by idle_timeout instead, and TCP keepalives notice a vanished peer. */
    curl_easy_setopt(s->easy, CURLOPT_TCP_KEEPALIVE, 1L);
    s->open = s->is_sse = s->got_bytes = false;
    s->problem_len = 0;
    s->problem[0] = '\0';
    s->last_byte = client_now();
    if (curl_multi_add_handle(s->multi, s->easy) != CURLM_OK) {
        client_log("stream: cannot start a transfer");
        s->next_attempt = client_now() + s->set.max_backoff;
        return;
    }
    s->running = true;
    if (s->resumed)
        client_log("stream: connecting to %s with %s", s->url, resume);
    else
        client_log("stream: connecting to %s", s->url);
}

/* The connection ended (why says how); plans the next one. */
static void stop(struct stream *s, const char *why, long retry_after)
{
    double base = FIRST_BACKOFF, delay;
    long sse_retry = sse_parser_retry_ms(s->parser);

    curl_multi_remove_handle(s->multi, s->easy);
    s->running = false;
    if (s->fatal)
        return;
    if (sse_retry >= 0)
        base = (double)sse_retry / 1000.0;
    s->failures = s->got_bytes ? 0 : s->failures + 1;
    delay = base;
    for (int i = 0; i < s->failures && delay < s->set.max_backoff; i++)
        delay *= 2;
    if (delay > s->set.max_backoff)
        delay = s->set.max_backoff;
    delay *= 0.75 + 0.5 * jitter(s);
    if (retry_after > 0 && (double)retry_after > delay)
        delay = (double)retry_after;
    s->next_attempt = client_now() + delay;
    client_log("stream: %s; reconnecting in %.1f s", why, delay);
}

static void finished(struct stream *s, CURLcode res)
{
    long status = 0;
    curl_off_t retry_after = -1;
    char why[CURL_ERROR_SIZE + 600];

    curl_easy_getinfo(s->easy, CURLINFO_RESPONSE_CODE, &status);
    curl_easy_getinfo(s->easy, CURLINFO_RETRY_AFTER, &retry_after);
    if (res != CURLE_OK)
        snprintf(why, sizeof why, "connection lost (%s)", curl_easy_strerror(res));
    else if (s->open)
        snprintf(why, sizeof why, "korpd ended the stream");
    else
        snprintf(why, sizeof why, "refused: HTTP %ld %s", status, s->problem);
    /* A client error will not go away by trying again (429 will). */
    if (res == CURLE_OK && !s->open && status >= 400 && status < 500 && status != 429) {
        client_log("stream: %s; giving up", why);
        s->fatal = true;
    }
    stop(s, why, (long)retry_after);
}

enum stream_status stream_run(struct stream *s, int timeout_ms)
{
    struct CURLMsg *msg;
    int running = 0, left = 0;

    if (s->fatal)
        return STREAM_FATAL;
    if (!s->running && client_now() >= s->next_attempt)
        start(s);
    if (!s->running) {
        double wait = s->next_attempt - client_now();
        client_sleep(wait < timeout_ms / 1000.0 ? wait : timeout_ms / 1000.0);
        return STREAM_OK;
    }
    curl_multi_perform(s->multi, &running);
    curl_multi_poll(s->multi, NULL, 0, timeout_ms, NULL);
    curl_multi_perform(s->multi, &running);
    while ((msg = curl_multi_info_read(s->multi, &left)) != NULL)
        if (msg->msg == CURLMSG_DONE && msg->easy_handle == s->easy)
            finished(s, msg->data.result);
    if (s->running && client_now() - s->last_byte > s->set.idle_timeout) {
        char why[64];
        snprintf(why, sizeof why, "nothing for %.0f s", s->set.idle_timeout);
        stop(s, why, -1);
    }
    return s->fatal ? STREAM_FATAL : STREAM_OK;
}

bool stream_take_fresh_start(struct stream *s)
{
    bool fresh = s->fresh_start;
    s->fresh_start = false;
    return fresh;
}
