/*
 * notify_text.c — the growing text notify/'s mail writers append to (see
 * notify_text.h).
 */
#include "notify_text.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void notify_text_add(struct notify_text *t, const char *s, size_t n)
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

void notify_text_str(struct notify_text *t, const char *s)
{
    notify_text_add(t, s, strlen(s));
}

void notify_text_put(struct notify_text *t, const char *fmt, ...)
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
        notify_text_add(t, piece, (size_t)n);
    if (piece != small)
        free(piece);
}

char *notify_text_take(struct notify_text *t)
{
    char *out = t->failed ? NULL : t->buf;
    if (out == NULL)
        free(t->buf);
    *t = (struct notify_text){ 0 };
    return out;
}
