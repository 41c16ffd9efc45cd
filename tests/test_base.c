/*
 * test_base — base/'s toolkit: base64, UTF-8, the constant-time compare,
 * e-mail addresses, Bearer tokens and the growing text.  Expected values
 * come from the standards (RFC 4648, RFC 3629 with Markus Kuhn's UTF-8
 * decoder stress test, RFC 3696, RFC 5321/5322, RFC 6750/9110), written out
 * by hand here, never from our own output.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"

/* ---- Base64 ----------------------------------------------------------------- */

/* RFC 4648 section 10 (text) and section 9 (the bytes 14 fb 9c 03 d9 7e). */
static const struct {
    const char *bytes;
    size_t len;
    const char *text;
} base64_vectors[] = {
    { "", 0, "" },
    { "f", 1, "Zg==" },
    { "fo", 2, "Zm8=" },
    { "foo", 3, "Zm9v" },
    { "foob", 4, "Zm9vYg==" },
    { "fooba", 5, "Zm9vYmE=" },
    { "foobar", 6, "Zm9vYmFy" },
    { "\x14\xfb\x9c\x03\xd9\x7e", 6, "FPucA9l+" },
    { "\x14\xfb\x9c\x03\xd9", 5, "FPucA9k=" },
    { "\x14\xfb\x9c\x03", 4, "FPucAw==" },
    { NULL, 0, NULL },
};

static void test_base_base64_rfc4648_vectors(void **state)
{
    (void)state;
    for (int i = 0; base64_vectors[i].bytes != NULL; i++) {
        char text[32];
        unsigned char bytes[16];
        size_t n = base64_vectors[i].len, len = 99;
        assert_int_equal(BASE_BASE64_LEN(n), strlen(base64_vectors[i].text));
        assert_int_equal(base_base64_encode(base64_vectors[i].bytes, n, text, sizeof text),
                         strlen(base64_vectors[i].text));
        assert_string_equal(text, base64_vectors[i].text);
        assert_true(base_base64_decode(base64_vectors[i].text, bytes, sizeof bytes, &len));
        assert_int_equal(len, n);
        assert_memory_equal(bytes, base64_vectors[i].bytes, n);
    }
}

static void test_base_base64_sizes(void **state)
{
    (void)state;
    char text[9];
    unsigned char bytes[6];
    size_t len = 99;

    /* "Zm9vYmFy" and its NUL need 9 bytes. */
    assert_int_equal(base_base64_encode("foobar", 6, text, 8), 0);
    assert_string_equal(text, "");
    assert_int_equal(base_base64_encode("foobar", 6, text, 9), 8);
    assert_string_equal(text, "Zm9vYmFy");
    /* "foobar" needs 6 bytes, "fooba" 5 (the padding takes no room). */
    assert_false(base_base64_decode("Zm9vYmFy", bytes, 5, &len));
    assert_int_equal(len, 0);
    assert_true(base_base64_decode("Zm9vYmE=", bytes, 5, &len));
    assert_int_equal(len, 5);
    assert_memory_equal(bytes, "fooba", 5);
    assert_true(base_base64_decode("Zg==", bytes, 1, &len));
    assert_int_equal(len, 1);
    assert_int_equal(bytes[0], 'f');
}

static void test_base_base64_strict(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "Zg=", "Zg", "Z", "Z===", "====", "=Zg=", "Zg==Zg==", "Zm9v=", "Zm9v====",
        " Zg==", "Zg== ", "Zm9v\n", "Zm\r\n9v", "Zm 9v", "Zm9*", "Zm-_", "Zm9v\t",
        /* RFC 4648 section 3.5: the bits the padding leaves over must be 0
         * ('h' = 33 = 100001, '9' = 61 = 111101). */
        "Zh==", "Zm9=",
        NULL,
    };
    unsigned char out[16];
    for (int i = 0; bad[i] != NULL; i++) {
        size_t len = 99;
        if (base_base64_decode(bad[i], out, sizeof out, &len))
            fail_msg("accepted %s", bad[i]);
        assert_int_equal(len, 0);
    }
}

/* ---- UTF-8 ------------------------------------------------------------------ */

/* Valid: Kuhn's test 1 ("kosme" in Greek) and the boundaries of his 2.x. */
static const char *const utf8_good[] = {
    "\xce\xba\xe1\xbd\xb9\xcf\x83\xce\xbc\xce\xb5",   /* κόσμε */
    "\x7f",                                           /* U+007F */
    "\xc2\x80", "\xdf\xbf",                           /* U+0080, U+07FF */
    "\xe0\xa0\x80", "\xef\xbf\xbf",                   /* U+0800, U+FFFF */
    "\xf0\x90\x80\x80", "\xf4\x8f\xbf\xbf",           /* U+10000, U+10FFFF */
    "\xed\x9f\xbf", "\xee\x80\x80", "\xef\xbf\xbd",   /* U+D7FF, U+E000, U+FFFD */
    "plain ASCII",
    "",
    NULL,
};

/* Invalid, each with the offset of its first bad byte. */
static const struct {
    const char *s;
    long at;
} utf8_bad[] = {
    { "\x80", 0 }, { "\xbf", 0 }, { "ab\x80\xbf", 2 },         /* lone continuations */
    { "\xc0\xaf", 0 }, { "\xe0\x80\xaf", 0 },                   /* overlong '/' */
    { "\xf0\x80\x80\xaf", 0 },
    { "\xc1\xbf", 0 }, { "\xe0\x9f\xbf", 0 }, { "\xf0\x8f\xbf\xbf", 0 }, /* largest overlongs */
    { "\xc0\x80", 0 },                                          /* overlong NUL */
    { "\xed\xa0\x80", 0 }, { "\xed\xad\xbf", 0 }, { "\xed\xbf\xbf", 0 }, /* surrogates */
    { "\xed\xa0\x80\xed\xb0\x80", 0 },                          /* a surrogate pair */
    { "\xf4\x90\x80\x80", 0 }, { "\xf5\x80\x80\x80", 0 },       /* above U+10FFFF */
    { "\xf7\xbf\xbf\xbf", 0 }, { "\xf8\x88\x80\x80\x80", 0 }, { "\xfc\x84\x80\x80\x80\x80", 0 },
    { "\xfe", 0 }, { "\xff", 0 },
    { "x\xc2", 1 }, { "xy\xe0\xa0", 2 }, { "\xf0\x90\x80", 0 }, /* cut short by the end */
    { "\xc2\x41", 0 }, { "\xe2\x82\x41", 0 }, { "\xf0\x90\x80\x41", 0 }, /* ... by ASCII */
    { "\xce\xba\xed\xa0\x80", 2 },
    { NULL, 0 },
};

static void test_base_utf8_valid(void **state)
{
    (void)state;
    for (int i = 0; utf8_good[i] != NULL; i++) {
        const unsigned char *s = (const unsigned char *)utf8_good[i];
        if (base_utf8_invalid_at(s, strlen(utf8_good[i])) != -1)
            fail_msg("refused valid text %d", i);
    }
    /* The length of each character. */
    assert_int_equal(base_utf8_char_len((const unsigned char *)"A", 1), 1);
    assert_int_equal(base_utf8_char_len((const unsigned char *)"\xc3\xa9", 2), 2);
    assert_int_equal(base_utf8_char_len((const unsigned char *)"\xe2\x82\xac", 3), 3);
    assert_int_equal(base_utf8_char_len((const unsigned char *)"\xf0\x9f\x98\x80", 4), 4);
    /* A NUL is a character when it is inside n. */
    assert_int_equal(base_utf8_invalid_at((const unsigned char *)"a\0b", 3), -1);
}

static void test_base_utf8_invalid(void **state)
{
    (void)state;
    for (int i = 0; utf8_bad[i].s != NULL; i++) {
        const unsigned char *s = (const unsigned char *)utf8_bad[i].s;
        long at = base_utf8_invalid_at(s, strlen(utf8_bad[i].s));
        if (at != utf8_bad[i].at)
            fail_msg("case %d: first bad byte %ld, expected %ld", i, at, utf8_bad[i].at);
        assert_int_equal(base_utf8_char_len(s + at, strlen(utf8_bad[i].s) - (size_t)at), 0);
    }
    /* The euro sign U+20AC cut by n, not by its bytes. */
    assert_int_equal(base_utf8_char_len((const unsigned char *)"\xe2\x82\xac", 2), 0);
    assert_int_equal(base_utf8_invalid_at((const unsigned char *)"\xe2\x82\xac", 2), 0);
    assert_int_equal(base_utf8_char_len((const unsigned char *)"", 0), 0);
    /* A NUL ends a character early. */
    assert_int_equal(base_utf8_char_len((const unsigned char *)"\xe2\0\xac", 3), 0);
}

/* ---- Constant-time compare --------------------------------------------- */

static void test_base_secret_equal(void **state)
{
    (void)state;
    const char *token = "korp_0123456789abcdefghijABCDEFGHIJkl";
    char copy[64];
    snprintf(copy, sizeof copy, "%s", token);
    assert_true(base_secret_equal(token, copy));
    assert_true(base_secret_equal("x", "x"));
    copy[strlen(copy) - 1] = 'm';                      /* differs at the end */
    assert_false(base_secret_equal(token, copy));
    assert_false(base_secret_equal("korp_a", "Korp_a"));   /* ... at the start */
    assert_false(base_secret_equal("abc", "abcd"));        /* a prefix */
    assert_false(base_secret_equal("abcd", "abc"));
    assert_false(base_secret_equal("abc", ""));
    assert_false(base_secret_equal("", "abc"));
    /* Length 0: an empty secret never matches, not even itself. */
    assert_false(base_secret_equal("", ""));
    assert_false(base_secret_equal(NULL, "abc"));
    assert_false(base_secret_equal("abc", NULL));
}

/* ---- E-mail addresses ------------------------------------------------------- */

static void test_base_email_good(void **state)
{
    (void)state;
    char longest_local[80], long_label[80];
    static const char *const good[] = {
        "anna@example.org", "a.b+c@d.example", "x@localhost", "o'brien@example.ie",
        "A@B.C", "user@mail-1.example.co.uk", "1234@123.example",
        /* RFC 3696 section 3 */
        "customer/department=shipping@example.com", "$A12345@example.com",
        "!def!xyz%abc@example.com", "_somename@example.com",
        NULL,
    };
    for (int i = 0; good[i] != NULL; i++)
        if (!base_email_valid(good[i]))
            fail_msg("refused %s", good[i]);
    /* 64 characters of local part and a label of 63 are the limits. */
    snprintf(longest_local, sizeof longest_local, "%.64s@example.org",
             "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
    assert_true(base_email_valid(longest_local));
    snprintf(long_label, sizeof long_label, "a@%.63s.org",
             "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb");
    assert_true(base_email_valid(long_label));
}

static void test_base_email_bad(void **state)
{
    (void)state;
    char s[400];
    static const char *const bad[] = {
        "", "nope", "@example.org", "anna@", "a@b@example.org", "Abc.example.com",
        ".abc@example.org", "abc.@example.org", "a..b@example.org", "a b@example.org",
        "\"quoted\"@example.org", "a\"b@c.org", "a(comment)@example.org", "<a@b.org>",
        "a@b.org, c@d.org", "a@b.org;x", "a@b.org\n", "\t@x.org", "a\\b@example.org",
        "a@[192.0.2.1]", "a@-example.org", "a@example-.org", "a@exa_mple.org",
        "a@b..org", "a@.b.org", "a@b.org.", "a@b.org ", "zo\xc3\xab@example.org",
        "anna@ex\xc3\xa4mple.org",
        NULL,
    };
    for (int i = 0; bad[i] != NULL; i++)
        if (base_email_valid(bad[i]))
            fail_msg("accepted %s", bad[i]);
    assert_false(base_email_valid(NULL));
    /* 65 characters of local part, a label of 64, a host of 254. */
    memset(s, 'a', 65);
    snprintf(s + 65, sizeof s - 65, "@example.org");
    assert_false(base_email_valid(s));
    memset(s, 'b', 64);
    snprintf(s + 64, sizeof s - 64, ".org");
    assert_false(base_email_host(s, strlen(s)));
    /* "b" and 126 times ".b": 253 characters, the most; one more is over. */
    s[0] = 'b';
    for (int i = 0; i < 126; i++)
        memcpy(s + 1 + 2 * i, ".b", 2);
    s[253] = '\0';
    assert_true(base_email_host(s, 253));
    memmove(s + 1, s, 254);
    assert_int_equal(strlen(s), 254);
    assert_false(base_email_host(s, 254));
}

/* ---- Bearer tokens ---------------------------------------------------------- */

static void test_base_bearer_token(void **state)
{
    (void)state;
    static const char *const schemes[] = { "Bearer abc", "bearer abc", "BEARER abc",
                                           "bEaReR abc", NULL };
    for (int i = 0; schemes[i] != NULL; i++) {
        const char *t = base_bearer_token(schemes[i]);
        assert_non_null(t);
        assert_string_equal(t, "abc");
        assert_ptr_equal(t, schemes[i] + 7);   /* a pointer into the header */
    }
    assert_string_equal(base_bearer_token("Bearer   korp_xyz"), "korp_xyz");
    assert_string_equal(base_bearer_token("Bearer a.b-c_d~e+f/g=="), "a.b-c_d~e+f/g==");

    static const char *const refused[] = {
        "", "Bearer", "Bearer ", "Bearer    ", "Bearerabc", "Bearer\tabc",
        "Basic dXNlcjpwYXNz", "Token abc", "Digest abc", "abc", " Bearer abc",
        "Bearer abc def", "Bearer abc, Bearer def", "Bearer abc ", "Bear abc",
        NULL,
    };
    for (int i = 0; refused[i] != NULL; i++)
        if (base_bearer_token(refused[i]) != NULL)
            fail_msg("took a token from '%s'", refused[i]);
    assert_null(base_bearer_token(NULL));
}

/* ---- Growing text ----------------------------------------------------------- */

static void test_base_text_grows(void **state)
{
    (void)state;
    struct base_text t = { 0 };
    char expected[5000], *out;
    size_t n = 0;

    base_text_str(&t, "Hello");
    base_text_add(&t, ", world!!!", 7);
    base_text_put(&t, " %d+%d=%s", 2, 2, "4");
    assert_false(t.failed);
    assert_string_equal(t.buf, "Hello, world 2+2=4");
    assert_int_equal(t.len, 18);

    /* Past the first allocation, and one piece longer than put's stack. */
    n = (size_t)snprintf(expected, sizeof expected, "Hello, world 2+2=4");
    for (int i = 0; i < 300; i++) {
        base_text_put(&t, "%03d,", i);
        n += (size_t)snprintf(expected + n, sizeof expected - n, "%03d,", i);
    }
    memset(expected + n, 'z', 1000);
    expected[n + 1000] = '\0';
    base_text_put(&t, "%s", expected + n);
    n += 1000;
    out = base_text_take(&t);
    assert_non_null(out);
    assert_int_equal(strlen(out), n);
    assert_string_equal(out, expected);
    assert_null(t.buf);
    assert_int_equal(t.len, 0);
    free(out);
}

static void test_base_text_failed(void **state)
{
    (void)state;
    struct base_text t = { 0 };
    base_text_str(&t, "something");
    t.failed = true;   /* as if memory had run out */
    base_text_str(&t, " more");
    assert_int_equal(t.len, 9);
    assert_null(base_text_take(&t));
    assert_null(t.buf);
    assert_false(t.failed);
}

/* Workers that wake one another as they stop, as notify's senders do: each,
 * once asked to stop, wakes the next in the ring.  base_worker_stop_all
 * frees none before all have ended (under the sanitizer, a wake of a freed
 * worker fails the test). */
#define RING 4
static struct base_worker *ring[RING];
static int ring_ended;

static void ring_member(struct base_worker *w, void *arg)
{
    int i = (int)(intptr_t)arg;
    while (base_worker_sleep(w, 60000))
        continue;
    for (int k = 0; k < 100; k++)
        base_worker_wake(ring[(i + 1) % RING]);
    __atomic_add_fetch(&ring_ended, 1, __ATOMIC_SEQ_CST);
}

static void test_base_worker_stop_all(void **state)
{
    (void)state;
    struct base_err err = { "" };
    for (int i = 0; i < RING; i++)
        assert_non_null(ring[i] = base_worker_start("ring", ring_member, (void *)(intptr_t)i,
                                                    &err));
    base_worker_stop_all(ring, RING);
    assert_int_equal(ring_ended, RING);
    for (int i = 0; i < RING; i++)
        assert_null(ring[i]);
    base_worker_stop_all(ring, RING);   /* NULLs: nothing to do */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_base_base64_rfc4648_vectors),
        cmocka_unit_test(test_base_base64_sizes),
        cmocka_unit_test(test_base_base64_strict),
        cmocka_unit_test(test_base_utf8_valid),
        cmocka_unit_test(test_base_utf8_invalid),
        cmocka_unit_test(test_base_secret_equal),
        cmocka_unit_test(test_base_email_good),
        cmocka_unit_test(test_base_email_bad),
        cmocka_unit_test(test_base_bearer_token),
        cmocka_unit_test(test_base_text_grows),
        cmocka_unit_test(test_base_text_failed),
        cmocka_unit_test(test_base_worker_stop_all),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
