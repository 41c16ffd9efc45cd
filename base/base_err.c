/* base_err.c — the one error context (base.h). */
#include "base.h"

#include <stdarg.h>
#include <stdio.h>

void base_err_set(struct base_err *e, const char *fmt, ...)
{
    va_list ap;
    if (e == NULL)
        return;
    va_start(ap, fmt);
    vsnprintf(e->text, sizeof e->text, fmt, ap);
    va_end(ap);
}
