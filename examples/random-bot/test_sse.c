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

static void test_sse_korpd_event(void **state)
{
    struct seen s;
    (void)state;
    struct sse_parser *p = parse("id: 3986\nevent: move\ndata: {\"ply\": 1}\n\n"
                                 ": keep-alive\n\n", &s);
    assert_int_equal(s.count, 1);
    assert_string_equal(s.type[0], "move");
    assert_string_equal(s.data[0], "{\"ply\": 1}");
    assert_string_equal(s.id[0], "3986");
    assert_string_equal(sse_parser_last_id(p), "3986");
    assert_int_equal(sse_parser_retry_ms(p), -1);
    sse_parser_free(p);
}

static void test_sse_line_ends(void **state)
{
    struct seen s;
    (void)state;
    /* CRLF, CR alone and LF alone, mixed. */
    struct sse_parser *p = parse("event: a\r\ndata: 1\r\n\r\nevent: b\rdata: 2\r\r"
                                 "event: c\ndata: 3\n\r\n", &s);
    assert_int_equal(s.count, 3);
    assert_string_equal(s.type[0], "a");
    assert_string_equal(s.data[0], "1");
    assert_string_equal(s.type[1], "b");
    assert_string_equal(s.data[1], "2");
    assert_string_equal(s.type[2], "c");
    assert_string_equal(s.data[2], "3");
    sse_parser_free(p);
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
    assert_string_equal(s.data[0], "x\ny");
    assert_int_equal(sse_parser_feed(p, "\ndata: z\n\n", 11), 0);
    assert_int_equal(s.count, 2);
    assert_string_equal(s.data[1], "z");
    sse_parser_free(p);
}

static void test_sse_multi_line_data(void **state)
{
    struct seen s;
    (void)state;
    struct sse_parser *p = parse("data: one\ndata:two\ndata:  three\ndata\ndata:\n\n", &s);
    assert_int_equal(s.count, 1);
    assert_string_equal(s.type[0], "message");
    /* One space after the colon goes, a second stays; "data" alone is an
     * empty line of data. */
    assert_string_equal(s.data[0], "one\ntwo\n three\n\n");
    sse_parser_free(p);
}

static void test_sse_comments_and_unknown_fields(void **state)
{
    struct seen s;
    (void)state;
    struct sse_parser *p = parse(": hello\n:\nfoo: bar\ndata: x\n: inside\n\n"
                                 ": keep-alive\n\n: keep-alive\n\n", &s);
    assert_int_equal(s.count, 1);
    assert_string_equal(s.data[0], "x");
    sse_parser_free(p);
}

static void test_sse_id_and_empty_events(void **state)
{
    struct seen s;
    (void)state;
    /* An event without data is not reported, but its id counts; the type
     * does not carry over to the next event; the id does. */
    struct sse_parser *p = parse("id: 7\nevent: move\n\ndata: a\n\nid: 9\ndata: b\n\n"
                                 "id\n\n", &s);
    assert_int_equal(s.count, 2);
    assert_string_equal(s.type[0], "message");
    assert_string_equal(s.id[0], "7");
    assert_string_equal(s.id[1], "9");
    assert_string_equal(sse_parser_last_id(p), "");    /* "id" alone clears it */
    sse_parser_free(p);
}

static void test_sse_retry(void **state)
{
    struct seen s;
    (void)state;
    struct sse_parser *p = parse("retry: 2500\nretry: soon\n\n", &s);
    assert_int_equal(s.count, 0);
    assert_int_equal(sse_parser_retry_ms(p), 2500);
    sse_parser_free(p);
}

static void test_sse_bom(void **state)
{
    struct seen s;
    (void)state;
    struct sse_parser *p = parse("\xEF\xBB\xBF" "data: x\n\n", &s);
    assert_int_equal(s.count, 1);
    assert_string_equal(s.data[0], "x");
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
    assert_string_equal(s.type[1], "message");
    assert_string_equal(s.data[1], "b");
    assert_string_equal(s.id[1], "5");
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
    assert_string_equal(s.data[0], "ok");
    assert_string_equal(s.id[0], "2");
    free(big);
    sse_parser_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sse_korpd_event),
        cmocka_unit_test(test_sse_line_ends),
        cmocka_unit_test(test_sse_crlf_split),
        cmocka_unit_test(test_sse_multi_line_data),
        cmocka_unit_test(test_sse_comments_and_unknown_fields),
        cmocka_unit_test(test_sse_id_and_empty_events),
        cmocka_unit_test(test_sse_retry),
        cmocka_unit_test(test_sse_bom),
        cmocka_unit_test(test_sse_reset_drops_half_event),
        cmocka_unit_test(test_sse_long_line_dropped),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
