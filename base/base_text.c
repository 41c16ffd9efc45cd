/*
 * base_text.c — a text that grows as it is appended to (struct base_text in
 * base.h): a mail's words and its RFC 5322 message.
 */
#include "base.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void base_text_add(struct base_text *t, const char *s, size_t n)
{
    if (t->failed)
        return;
    if (t->len + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 1024;
        while (cap < t->len + n + 1)
            cap *= 2;
        char *grown = realloc(t->buf, cap);
        if (grown == NULL) {
            t->failed = true;
            return;
        }
        t->buf = grown;
        t->cap = cap;
    }
    memcpy(t->buf + t->len, s, n);
    t->len += n;
    t->buf[t->len] = '\0';
}

void base_text_str(struct base_text *t, const char *s)
{
    base_text_add(t, s, strlen(s));
}

void base_text_put(struct base_text *t, const char *fmt, ...)
{
    char small[256], *piece = small;
    va_list ap, again;
    va_start(ap, fmt);
    va_copy(again, ap);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    /* Most pieces fit on the stack; a longer one is formatted again. */
    if (n >= (int)sizeof small && (piece = malloc((size_t)n + 1)) != NULL)
        vsnprintf(piece, (size_t)n + 1, fmt, again);
    va_end(again);
    va_end(ap);
    if (n < 0 || piece == NULL)
        t->failed = true;
    else
        base_text_add(t, piece, (size_t)n);
    if (piece != small)
        free(piece);
}

char *base_text_take(struct base_text *t)
{
    char *out = t->failed ? NULL : t->buf;
    if (out == NULL)
        free(t->buf);
    *t = (struct base_text){ 0 };
    return out;
}
