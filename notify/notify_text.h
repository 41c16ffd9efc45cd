/*
 * notify_text.h — a growing text, internal to notify/: the mail's words
 * (notify_mail_text.c) and its RFC 5322 message (notify_mail_message.c)
 * are both written into one.
 *
 * A text starts as { 0 }.  Appending never fails loudly: when memory runs
 * out the text is marked failed, everything after is dropped, and
 * notify_text_take hands out NULL, so a writer checks once at the end.
 * buf is always NUL-terminated once anything was appended.
 */
#ifndef KORP_NOTIFY_TEXT_H
#define KORP_NOTIFY_TEXT_H

#include <stdbool.h>
#include <stddef.h>

struct notify_text {
    char *buf;    /* malloc'd, or NULL while empty */
    size_t len;   /* bytes in buf, without the NUL */
    size_t cap;
    bool failed;  /* out of memory: everything after is dropped */
};

/* Appends n bytes of s. */
void notify_text_add(struct notify_text *t, const char *s, size_t n);

/* Appends the string s. */
void notify_text_str(struct notify_text *t, const char *s);

/* Appends what printf would write for fmt. */
void notify_text_put(struct notify_text *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/*
 * Hands the text over (malloc'd, the caller frees), or NULL if it failed
 * (the buffer freed), and empties t.
 */
char *notify_text_take(struct notify_text *t);

#endif
