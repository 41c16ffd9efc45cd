/*
 * sse.c — the event-stream parser: bytes in, events out.
 *
 * The stream is read line by line.  A line is a field ("name: value"), a
 * comment (it starts with ':'; korpd's ": keep-alive" is one) or blank; a
 * blank line ends an event.  The names that matter are event, data (joined
 * with "\n" when there are several), id and retry; others are ignored, as
 * the standard asks.
 */
#include "sse.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* A growable string, always NUL-terminated once it holds anything. */
struct text {
    char *s;
    size_t len, cap;
};

struct sse_parser {
    sse_event_fn on_event;
    void *arg;
    struct text line;       /* the line being read */
    struct text data;       /* the event's data lines, each followed by "\n" */
    struct text type;       /* the event's type; empty means "message" */
    struct text id;         /* the id the next event will carry */
    struct text last_id;    /* the id of the last event dispatched */
    long retry_ms;
    bool after_cr;          /* the last byte was CR: an LF next ends no new line */
    bool first_line;        /* a byte order mark may come first */
    bool line_too_long;     /* the line went past SSE_LIMIT and is being skipped */
    bool event_dropped;     /* the event had a line too long: it is not reported */
};

static int text_add(struct text *t, const char *s, size_t n)
{
    if (t->len + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 64;
        while (cap < t->len + n + 1)
            cap *= 2;
        char *bigger = realloc(t->s, cap);
        if (bigger == NULL)
            return -1;
        t->s = bigger;
        t->cap = cap;
    }
    memcpy(t->s + t->len, s, n);
    t->len += n;
    t->s[t->len] = '\0';
    return 0;
}

static int text_set(struct text *t, const char *s, size_t n)
{
    t->len = 0;
    return text_add(t, s, n);
}

/* The text as a C string ("" when it never held anything). */
static const char *text_str(const struct text *t)
{
    return t->len > 0 ? t->s : "";
}

struct sse_parser *sse_parser_new(sse_event_fn on_event, void *arg)
{
    struct sse_parser *p = calloc(1, sizeof *p);
    if (p == NULL)
        return NULL;
    p->on_event = on_event;
    p->arg = arg;
    p->retry_ms = -1;
    p->first_line = true;
    return p;
}

void sse_parser_free(struct sse_parser *p)
{
    if (p == NULL)
        return;
    free(p->line.s);
    free(p->data.s);
    free(p->type.s);
    free(p->id.s);
    free(p->last_id.s);
    free(p);
}

void sse_parser_reset(struct sse_parser *p)
{
    p->line.len = 0;
    p->data.len = 0;
    p->type.len = 0;
    /* An id read in a half-received event was never confirmed: forget it. */
    p->id.len = 0;
    if (p->last_id.len > 0 && text_set(&p->id, p->last_id.s, p->last_id.len) != 0)
        p->last_id.len = 0;     /* out of memory: resume from the start rather than lie */
    p->after_cr = false;
    p->first_line = true;
    p->line_too_long = false;
    p->event_dropped = false;
}

const char *sse_parser_last_id(const struct sse_parser *p)
{
    return text_str(&p->last_id);
}

long sse_parser_retry_ms(const struct sse_parser *p)
{
    return p->retry_ms;
}

/* A blank line: the event so far is complete. */
static int dispatch(struct sse_parser *p)
{
    int rc = text_set(&p->last_id, text_str(&p->id), p->id.len);

    if (rc == 0 && p->data.len > 0 && !p->event_dropped) {
        /* Every data line added a "\n"; the last one is not part of the data. */
        p->data.s[--p->data.len] = '\0';
        p->on_event(p->arg, p->type.len > 0 ? p->type.s : "message", p->data.s,
                    text_str(&p->last_id));
    }
    p->data.len = 0;
    p->type.len = 0;
    p->event_dropped = false;
    return rc;
}

static bool name_is(const char *name, size_t n, const char *want)
{
    return n == strlen(want) && memcmp(name, want, n) == 0;
}

static int field(struct sse_parser *p, const char *line, size_t n)
{
    const char *colon = memchr(line, ':', n);
    size_t name_len = colon != NULL ? (size_t)(colon - line) : n;
    const char *value = colon != NULL ? colon + 1 : line + n;
    size_t value_len = n - (size_t)(value - line);

    if (value_len > 0 && value[0] == ' ') {   /* one space after the colon is not data */
        value++;
        value_len--;
    }
    if (name_is(line, name_len, "event"))
        return text_set(&p->type, value, value_len);
    if (name_is(line, name_len, "data")) {
        if (p->data.len + value_len + 1 > SSE_LIMIT) {
            p->event_dropped = true;
            return 0;
        }
        if (text_add(&p->data, value, value_len) != 0)
            return -1;
        return text_add(&p->data, "\n", 1);
    }
    if (name_is(line, name_len, "id")) {
        if (memchr(value, '\0', value_len) != NULL)
            return 0;
        return text_set(&p->id, value, value_len);
    }
    if (name_is(line, name_len, "retry") && value_len > 0) {
        long ms = 0;
        for (size_t i = 0; i < value_len; i++) {
            if (value[i] < '0' || value[i] > '9')
                return 0;
            if (ms < 24L * 3600 * 1000)   /* past a day it no longer matters */
                ms = ms * 10 + (value[i] - '0');
        }
        p->retry_ms = ms;
    }
    return 0;
}

/* The line in p->line is complete. */
static int end_line(struct sse_parser *p)
{
    const char *line = text_str(&p->line);
    size_t n = p->line.len;
    int rc = 0;

    if (p->first_line) {
        p->first_line = false;
        if (n >= 3 && memcmp(line, "\xEF\xBB\xBF", 3) == 0) {
            line += 3;
            n -= 3;
        }
    }
    if (p->line_too_long)
        p->event_dropped = true;
    else if (n == 0)
        rc = dispatch(p);
    else if (line[0] != ':')      /* a comment line says nothing */
        rc = field(p, line, n);
    p->line.len = 0;
    p->line_too_long = false;
    return rc;
}

int sse_parser_feed(struct sse_parser *p, const char *buf, size_t len)
{
    size_t i = 0;

    while (i < len) {
        if (p->after_cr) {
            p->after_cr = false;
            if (buf[i] == '\n') {     /* the second half of a CRLF */
                i++;
                continue;
            }
        }
        size_t j = i;
        while (j < len && buf[j] != '\r' && buf[j] != '\n')
            j++;
        if (p->line_too_long || p->line.len + (j - i) > SSE_LIMIT)
            p->line_too_long = true;
        else if (text_add(&p->line, buf + i, j - i) != 0)
            goto oom;
        if (j == len)
            break;                    /* the line goes on in the next piece */
        p->after_cr = buf[j] == '\r';
        if (end_line(p) != 0)
            goto oom;
        i = j + 1;
    }
    return 0;
oom:
    sse_parser_reset(p);
    return -1;
}
