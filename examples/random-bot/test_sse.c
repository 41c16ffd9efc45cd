/*
 * test_sse.c — the event-stream parser against the standard's rules: line
 * ends, comments, multi-line data, ids, retry, and pieces of any size.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sse.h"

#define MAX_EVENTS 8

struct seen {
    int count;
    char type[MAX_EVENTS][64];
    char data[MAX_EVENTS][256];
    char id[MAX_EVENTS][64];
};

static void record(void *arg, const char *type, const char *data, const char *id)
{
    struct seen *s = arg;
    assert_true(s->count < MAX_EVENTS);
    snprintf(s->type[s->count], sizeof s->type[0], "%s", type);
    snprintf(s->data[s->count], sizeof s->data[0], "%s", data);
    snprintf(s->id[s->count], sizeof s->id[0], "%s", id);
    s->count++;
}

/* The i-th event seen has this type, data and id (NULL: any). */
static void assert_event(const struct seen *s, int i, const char *type, const char *data,
                         const char *id)
{
    assert_true(i < s->count);
    if (type != NULL)
        assert_string_equal(s->type[i], type);
    if (data != NULL)
        assert_string_equal(s->data[i], data);
    if (id != NULL)
        assert_string_equal(s->id[i], id);
}

/* Feeds text whole, then again byte by byte into a new parser: both must
 * see the same events.  Returns the first parser for more checks. */
static struct sse_parser *parse(const char *text, struct seen *seen)
{
    struct seen one_by_one;
    struct sse_parser *p = sse_parser_new(record, seen);
    struct sse_parser *q = sse_parser_new(record, &one_by_one);

    memset(seen, 0, sizeof *seen);
    memset(&one_by_one, 0, sizeof one_by_one);
    assert_non_null(p);
    assert_non_null(q);
    assert_int_equal(sse_parser_feed(p, text, strlen(text)), 0);
    for (size_t i = 0; text[i] != '\0'; i++)
        assert_int_equal(sse_parser_feed(q, text + i, 1), 0);
    assert_memory_equal(seen, &one_by_one, sizeof one_by_one);
    assert_string_equal(sse_parser_last_id(p), sse_parser_last_id(q));
    sse_parser_free(q);
    return p;
}

static void test_sse_crlf_split(void **state)
{
    struct seen s;
    struct sse_parser *p = sse_parser_new(record, &s);
    (void)state;
    memset(&s, 0, sizeof s);
    /* A CR at the end of one piece and its LF at the start of the next is one
     * line end, not a line end and a blank line. */
    assert_int_equal(sse_parser_feed(p, "data: x\r", 8), 0);
    assert_int_equal(sse_parser_feed(p, "\ndata: y\r", 9), 0);
    assert_int_equal(s.count, 0);
    assert_int_equal(sse_parser_feed(p, "\n", 1), 0);
    assert_int_equal(s.count, 0);
    /* A CR ends the blank line at once, without waiting for an LF. */
    assert_int_equal(sse_parser_feed(p, "\r", 1), 0);
    assert_int_equal(s.count, 1);
    assert_event(&s, 0, NULL, "x\ny", NULL);
    assert_int_equal(sse_parser_feed(p, "\ndata: z\n\n", 11), 0);
    assert_int_equal(s.count, 2);
    assert_event(&s, 1, NULL, "z", NULL);
    sse_parser_free(p);
}

/*
 * A stream and what the parser must see in it, fed whole and byte by byte:
 * the events (NULL: any), the last id and the retry when asked (NULL, 0:
 * not checked).  Each is a test of its own in main().
 */
struct sse_case {
    const char *text;
    int count;
    struct { const char *type, *data, *id; } events[3];
    const char *last_id;
    int retry_ms;
};

static const struct sse_case korpd_event = {
    .text = "id: 3986\nevent: move\ndata: {\"ply\": 1}\n\n: keep-alive\n\n",
    .count = 1, .events = { { "move", "{\"ply\": 1}", "3986" } },
    .last_id = "3986", .retry_ms = -1,
};

/* CRLF, CR alone and LF alone, mixed. */
static const struct sse_case line_ends = {
    .text = "event: a\r\ndata: 1\r\n\r\nevent: b\rdata: 2\r\revent: c\ndata: 3\n\r\n",
    .count = 3, .events = { { "a", "1", NULL }, { "b", "2", NULL }, { "c", "3", NULL } },
};

/* One space after the colon goes, a second stays; "data" alone is an empty
 * line of data. */
static const struct sse_case multi_line_data = {
    .text = "data: one\ndata:two\ndata:  three\ndata\ndata:\n\n",
    .count = 1, .events = { { "message", "one\ntwo\n three\n\n", NULL } },
};

static const struct sse_case comments_and_unknown_fields = {
    .text = ": hello\n:\nfoo: bar\ndata: x\n: inside\n\n: keep-alive\n\n: keep-alive\n\n",
    .count = 1, .events = { { NULL, "x", NULL } },
};

/* An event without data is not reported, but its id counts; the type does
 * not carry over to the next event; the id does; "id" alone clears it. */
static const struct sse_case id_and_empty_events = {
    .text = "id: 7\nevent: move\n\ndata: a\n\nid: 9\ndata: b\n\nid\n\n",
    .count = 2, .events = { { "message", NULL, "7" }, { NULL, NULL, "9" } },
    .last_id = "",
};

static const struct sse_case retry = {
    .text = "retry: 2500\nretry: soon\n\n", .count = 0, .retry_ms = 2500,
};

static const struct sse_case bom = {
    .text = "\xEF\xBB\xBF" "data: x\n\n", .count = 1, .events = { { NULL, "x", NULL } },
};

static void test_sse_case(void **state)
{
    const struct sse_case *c = *state;
    struct seen s;
    struct sse_parser *p = parse(c->text, &s);
    assert_int_equal(s.count, c->count);
    for (int i = 0; i < c->count; i++)
        assert_event(&s, i, c->events[i].type, c->events[i].data, c->events[i].id);
    if (c->last_id != NULL)
        assert_string_equal(sse_parser_last_id(p), c->last_id);
    if (c->retry_ms != 0)
        assert_int_equal(sse_parser_retry_ms(p), c->retry_ms);
    sse_parser_free(p);
}

static void test_sse_reset_drops_half_event(void **state)
{
    struct seen s;
    struct sse_parser *p = sse_parser_new(record, &s);
    const char *first = "id: 5\ndata: a\n\nid: 6\nevent: move\ndata: half";
    const char *second = "data: b\n\n";
    (void)state;
    memset(&s, 0, sizeof s);
    assert_int_equal(sse_parser_feed(p, first, strlen(first)), 0);
    assert_int_equal(s.count, 1);
    /* The connection dropped mid-event: resume from 5, not 6. */
    sse_parser_reset(p);
    assert_string_equal(sse_parser_last_id(p), "5");
    assert_int_equal(sse_parser_feed(p, second, strlen(second)), 0);
    assert_int_equal(s.count, 2);
    assert_event(&s, 1, "message", "b", "5");
    sse_parser_free(p);
}

static void test_sse_long_line_dropped(void **state)
{
    struct seen s;
    struct sse_parser *p = sse_parser_new(record, &s);
    size_t n = SSE_LIMIT + 100;
    char *big = malloc(n);
    (void)state;
    assert_non_null(big);
    memset(&s, 0, sizeof s);
    memset(big, 'x', n);
    memcpy(big, "data: ", 6);
    assert_int_equal(sse_parser_feed(p, "id: 1\n", 6), 0);
    assert_int_equal(sse_parser_feed(p, big, n), 0);
    assert_int_equal(sse_parser_feed(p, "\n\nid: 2\ndata: ok\n\n", 18), 0);
    /* The oversized event is dropped whole; the parser goes on. */
    assert_int_equal(s.count, 1);
    assert_event(&s, 0, NULL, "ok", "2");
    free(big);
    sse_parser_free(p);
}

int main(void)
{
#define CASE(name) { "test_sse_" #name, test_sse_case, NULL, NULL, (void *)&name }
    const struct CMUnitTest tests[] = {
        CASE(korpd_event),
        CASE(line_ends),
        cmocka_unit_test(test_sse_crlf_split),
        CASE(multi_line_data),
        CASE(comments_and_unknown_fields),
        CASE(id_and_empty_events),
        CASE(retry),
        CASE(bom),
        cmocka_unit_test(test_sse_reset_drops_half_event),
        cmocka_unit_test(test_sse_long_line_dropped),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
