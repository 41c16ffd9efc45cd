/* test_env.h — what the integration tests need from their environment. */
#ifndef KORP_TEST_ENV_H
#define KORP_TEST_ENV_H

#include <stdio.h>
#include <stdlib.h>

/* ctest reports exit code 77 as skipped (SKIP_RETURN_CODE). */
#define TEST_SKIP 77

/* The throwaway database that scripts/test.sh starts. */
static inline const char *test_database_url(void)
{
    const char *url = getenv("KORP_TEST_DATABASE_URL");
    if (url == NULL || url[0] == '\0') {
        fprintf(stderr, "KORP_TEST_DATABASE_URL is not set: run the suite with "
                        "scripts/test.sh, which starts a throwaway PostgreSQL\n");
        exit(TEST_SKIP);
    }
    return url;
}

#endif
