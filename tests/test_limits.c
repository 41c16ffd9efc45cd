/*
 * test_limits.c — the rate-limit table (api/api_limits.c): a key's bucket
 * empties as its requests come and refills at the rate, and no other key,
 * however many, can give it back its requests (two tokens sharing a slot
 * of the old fixed table once reset each other).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>

#include "api_int.h"

/* A rate so slow that no bucket refills during a test: 1 request an hour. */
#define SLOW (1.0 / 3600)

static void test_limits_a_bucket_empties(void **state)
{
    struct api_limits *l = api_limits_new(SLOW, 3);
    int retry = 0;
    (void)state;
    assert_non_null(l);
    for (int i = 0; i < 3; i++)
        assert_true(api_limits_take(l, "t:one", &retry));
    assert_false(api_limits_take(l, "t:one", &retry));
    /* One request at 1/3600 a second: it comes back in an hour. */
    assert_in_range(retry, 3590, 3601);
    /* Another key has a bucket of its own. */
    assert_true(api_limits_take(l, "t:two", &retry));
    api_limits_free(l);
}

static void test_limits_no_key_resets_another(void **state)
{
    struct api_limits *l = api_limits_new(SLOW, 2);
    char key[32];
    int retry = 0;
    (void)state;
    assert_true(api_limits_take(l, "t:victim", &retry));
    assert_true(api_limits_take(l, "t:victim", &retry));
    assert_false(api_limits_take(l, "t:victim", &retry));
    /* 20 000 other keys, each using its bucket: in the old table of 4 096
     * slots some of them shared the victim's slot and refilled it. */
    for (int i = 0; i < 20000; i++) {
        snprintf(key, sizeof key, "t:other%d", i);
        assert_true(api_limits_take(l, key, &retry));
    }
    assert_false(api_limits_take(l, "t:victim", &retry));
    /* And every other key still has exactly what it did not use. */
    assert_true(api_limits_take(l, "t:other7", &retry));
    assert_false(api_limits_take(l, "t:other7", &retry));
    api_limits_free(l);
}

static void test_limits_rate_zero_never_limits(void **state)
{
    struct api_limits *l = api_limits_new(0, 1);
    int retry = 0;
    (void)state;
    for (int i = 0; i < 1000; i++)
        assert_true(api_limits_take(l, "t:any", &retry));
    api_limits_free(l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_limits_a_bucket_empties),
        cmocka_unit_test(test_limits_no_key_resets_another),
        cmocka_unit_test(test_limits_rate_zero_never_limits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
