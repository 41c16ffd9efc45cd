/*
 * base_log.c — log lines on stderr, one write(2) each so that lines from
 * several threads never interleave.
 */
#include "base.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static atomic_int lowest_level = BASE_LOG_INFO;

static const char *const level_names[] = { "debug", "info", "warning", "error" };

void base_log_set_level(enum base_log_level level)
{
    atomic_store(&lowest_level, (int)level);
}

bool base_log_wants(enum base_log_level level)
{
    return (int)level >= atomic_load(&lowest_level);
}

void base_log(enum base_log_level level, const char *fmt, ...)
{
    char line[2048];
    struct timespec ts;
    struct tm tm;
    size_t n;
    va_list ap;
    int len;

    if ((int)level < atomic_load(&lowest_level))
        return;
    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    n = strftime(line, sizeof line, "%Y-%m-%dT%H:%M:%SZ korpd ", &tm);
    n += (size_t)snprintf(line + n, sizeof line - n, "%s: ", level_names[level]);
    va_start(ap, fmt);
    len = vsnprintf(line + n, sizeof line - n - 1, fmt, ap);
    va_end(ap);
    if (len < 0)
        len = 0;
    n += (size_t)len < sizeof line - n - 1 ? (size_t)len : sizeof line - n - 2;
    line[n++] = '\n';
    if (write(STDERR_FILENO, line, n) < 0) {
        /* Nowhere left to report it. */
    }
}

int64_t base_monotonic_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t base_monotonic_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}
