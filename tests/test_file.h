/* test_file.h — reading the tests' data files (cmocka). */
#ifndef KORP_TEST_FILE_H
#define KORP_TEST_FILE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

/* Whether a test program got its `want` arguments (argc == want + 1);
 * if not, says how to call it ("usage: NAME ARGS") on stderr. */
static inline bool test_args_ok(int argc, int want, const char *usage)
{
    if (argc == want + 1)
        return true;
    fprintf(stderr, "usage: %s\n", usage);
    return false;
}

/* The whole of DIR/NAME (NAME may hold a folder: "glinski/FoolsMate.pgn"),
 * NUL-terminated; its length into *len.  malloc'd: the caller frees it.  A
 * file that cannot be read fails the test. */
static inline char *test_file_read(const char *dir, const char *name, size_t *len)
{
    char path[1024];
    size_t cap = 1 << 16, n = 0, got;
    char *buf = malloc(cap);
    FILE *f = NULL;

    if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path)
        fail_msg("path too long: %s/%s", dir, name);
    if (buf == NULL || (f = fopen(path, "rb")) == NULL)
        fail_msg("cannot read %s", path);
    while ((got = fread(buf + n, 1, cap - 1 - n, f)) > 0) {
        n += got;
        if (n == cap - 1 && (buf = realloc(buf, cap *= 2)) == NULL)
            fail_msg("%s: out of memory", path);
    }
    if (ferror(f))
        fail_msg("cannot read %s", path);
    fclose(f);
    buf[n] = '\0';
    *len = n;
    return buf;
}

#endif
