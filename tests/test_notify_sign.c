/*
 * test_notify_sign — webhook signatures (Standard Webhooks), base64, the
 * server's signed-link HMAC, the special-purpose address table, webhook URL
 * verdicts, and a real loopback transfer through the hardened libcurl
 * handle.  No internet: IP literals, and "localhost" as the only name.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "notify_int.h"
#include "notify_sign.h"

/* ---- Signatures ----------------------------------------------------------- */

/*
 * The published test vector of the Standard Webhooks reference libraries:
 * standard-webhooks/standard-webhooks, libraries/javascript/src/webhook.test.ts,
 * test "sign function works" (the other languages' tests use the same one).
 */
static const char spec_secret[] = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
static const char spec_msg_id[] = "msg_p5jXN8AQM9LWM0D4loKWxJek";
static const long long spec_timestamp = 1614265330;
static const char spec_payload[] = "{\"test\": 2432232314}";
static const char spec_signature[] = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=";

static void test_notify_sign_spec_vector(void **state)
{
    (void)state;
    char sig[NOTIFY_SIGNATURE_LEN + 1];
    assert_true(notify_sign(spec_secret, spec_msg_id, spec_timestamp, spec_payload,
                            strlen(spec_payload), sig, sizeof sig));
    assert_string_equal(sig, spec_signature);
    assert_int_equal(strlen(sig), NOTIFY_SIGNATURE_LEN);

    /* One byte more of body, or another second, is another signature. */
    assert_true(notify_sign(spec_secret, spec_msg_id, spec_timestamp + 1, spec_payload,
                            strlen(spec_payload), sig, sizeof sig));
    assert_string_not_equal(sig, spec_signature);
    assert_true(notify_sign(spec_secret, spec_msg_id, spec_timestamp, spec_payload,
                            strlen(spec_payload) - 1, sig, sizeof sig));
    assert_string_not_equal(sig, spec_signature);
}

static void test_notify_sign_rotation_header(void **state)
{
    (void)state;
    char fresh[NOTIFY_SECRET_LEN + 1];
    char fresh_sig[NOTIFY_SIGNATURE_LEN + 1];
    char header[2 * (NOTIFY_SIGNATURE_LEN + 1)];
    char expected[sizeof header];

    assert_true(notify_secret_new(fresh, sizeof fresh));
    assert_true(notify_sign(fresh, spec_msg_id, spec_timestamp, spec_payload,
                            strlen(spec_payload), fresh_sig, sizeof fresh_sig));
    const char *const secrets[] = {fresh, spec_secret};
    assert_true(notify_sign_all(secrets, 2, spec_msg_id, spec_timestamp, spec_payload,
                                strlen(spec_payload), header, sizeof header));
    snprintf(expected, sizeof expected, "%s %s", fresh_sig, spec_signature);
    assert_string_equal(header, expected);

    /* One signature alone is what notify_sign writes. */
    assert_true(notify_sign_all(secrets + 1, 1, spec_msg_id, spec_timestamp, spec_payload,
                                strlen(spec_payload), header, sizeof header));
    assert_string_equal(header, spec_signature);

    /* Too small for both, a bad secret among them, or none: refused, empty. */
    assert_false(notify_sign_all(secrets, 2, spec_msg_id, spec_timestamp, spec_payload,
                                 strlen(spec_payload), header, sizeof header - 1));
    assert_string_equal(header, "");
    const char *const one_bad[] = {spec_secret, "whsec_short"};
    assert_false(notify_sign_all(one_bad, 2, spec_msg_id, spec_timestamp, spec_payload,
                                 strlen(spec_payload), header, sizeof header));
    assert_string_equal(header, "");
    assert_false(notify_sign_all(secrets, 0, spec_msg_id, spec_timestamp, spec_payload,
                                 strlen(spec_payload), header, sizeof header));
}

static void test_notify_sign_refuses_malformed_input(void **state)
{
    (void)state;
    char sig[NOTIFY_SIGNATURE_LEN + 1];
    char long_secret[128];
    unsigned char key[65] = {0};
    memcpy(long_secret, "whsec_", 6);
    base_base64_encode(key, sizeof key, long_secret + 6, sizeof long_secret - 6);

    static const char *const bad_secrets[] = {
        "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",          /* no whsec_ */
        "whsec_",                                     /* no key */
        "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaS",      /* not a multiple of 4 */
        "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLa!w",     /* not base64 */
        "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2La",         /* 21 bytes: under 24 */
        "whsec_ MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",    /* whitespace */
        NULL,
    };
    for (int i = 0; bad_secrets[i]; i++) {
        assert_false(notify_sign(bad_secrets[i], spec_msg_id, spec_timestamp, spec_payload,
                                 strlen(spec_payload), sig, sizeof sig));
        assert_string_equal(sig, "");
    }
    assert_false(notify_sign(long_secret, spec_msg_id, 1, "", 0, sig, sizeof sig));
    assert_false(notify_sign(NULL, spec_msg_id, 1, "", 0, sig, sizeof sig));

    /* The spec forbids '.' in the id: "a.1" and "a" + ".1." would collide. */
    assert_false(notify_sign(spec_secret, "msg.1", 1, "x", 1, sig, sizeof sig));
    assert_false(notify_sign(spec_secret, "", 1, "x", 1, sig, sizeof sig));
    assert_false(notify_sign(spec_secret, spec_msg_id, -1, "x", 1, sig, sizeof sig));
    assert_false(notify_sign(spec_secret, spec_msg_id, 1, "x", 1, sig, sizeof sig - 1));

    /* An empty body is a body. */
    assert_true(notify_sign(spec_secret, spec_msg_id, 1, "", 0, sig, sizeof sig));
}

static void test_notify_sign_secret_new(void **state)
{
    (void)state;
    char a[NOTIFY_SECRET_LEN + 1], b[NOTIFY_SECRET_LEN + 1];
    unsigned char key[64];
    size_t key_len = 0;

    assert_true(notify_secret_new(a, sizeof a));
    assert_true(notify_secret_new(b, sizeof b));
    assert_int_equal(strlen(a), NOTIFY_SECRET_LEN);
    assert_memory_equal(a, "whsec_", 6);
    assert_true(base_base64_decode(a + 6, key, sizeof key, &key_len));
    assert_int_equal(key_len, 32);
    assert_string_not_equal(a, b);
    assert_false(notify_secret_new(a, NOTIFY_SECRET_LEN));
}

/* ---- Base64 --------------------------------------------------------------- */

static void test_notify_sign_base64_rfc4648(void **state)
{
    (void)state;
    /* RFC 4648, section 10. */
    static const char *const vectors[][2] = {
        {"", ""},         {"f", "Zg=="},        {"fo", "Zm8="},     {"foo", "Zm9v"},
        {"foob", "Zm9vYg=="}, {"fooba", "Zm9vYmE="}, {"foobar", "Zm9vYmFy"}, {NULL, NULL},
    };
    for (int i = 0; vectors[i][0]; i++) {
        char text[16];
        unsigned char bytes[16];
        size_t len = 99;
        size_t n = strlen(vectors[i][0]);
        assert_int_equal(base_base64_encode(vectors[i][0], n, text, sizeof text),
                         strlen(vectors[i][1]));
        assert_string_equal(text, vectors[i][1]);
        assert_true(base_base64_decode(vectors[i][1], bytes, sizeof bytes, &len));
        assert_int_equal(len, n);
        assert_memory_equal(bytes, vectors[i][0], n);
    }
}

static void test_notify_sign_base64_round_trip(void **state)
{
    (void)state;
    for (size_t n = 0; n <= 70; n++) {
        unsigned char data[70], back[70];
        char text[BASE_BASE64_LEN(70) + 1];
        unsigned char openssl_text[sizeof text];
        size_t len = 0;
        assert_int_equal(RAND_bytes(data, sizeof data), 1);
        assert_int_equal(base_base64_encode(data, n, text, sizeof text),
                         BASE_BASE64_LEN(n));
        /* The same text as OpenSSL's encoder. */
        EVP_EncodeBlock(openssl_text, data, (int)n);
        assert_string_equal(text, (const char *)openssl_text);
        assert_true(base_base64_decode(text, back, sizeof back, &len));
        assert_int_equal(len, n);
        assert_memory_equal(back, data, n);
        /* One byte too little room, either way, is refused. */
        if (n > 0) {
            assert_int_equal(base_base64_encode(data, n, text, BASE_BASE64_LEN(n)), 0);
            assert_string_equal(text, "");
            assert_int_equal(base_base64_encode(data, n, text, sizeof text), BASE_BASE64_LEN(n));
            assert_false(base_base64_decode(text, back, n - 1, &len));
        }
    }
}

static void test_notify_sign_base64_strict(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "Zg=", "Zg", "Z===", "====", "=Zg=", "Zg==Zg==", "Zm9v\n", "Zm9*", "Zm 9v", "Zm-_",
        NULL,
    };
    unsigned char out[16];
    size_t len = 0;
    for (int i = 0; bad[i]; i++)
        assert_false(base_base64_decode(bad[i], out, sizeof out, &len));
}

/* ---- Signed links --------------------------------------------------------- */

static void test_notify_sign_hmac_hex(void **state)
{
    (void)state;
    char mac[65], again[65];
    /* RFC 4231, test case 2. */
    notify_hmac_hex("Jefe", 4, "what do ya want for nothing?", mac);
    assert_string_equal(mac, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");

    notify_hmac_hex("Jefe", 4, "what do ya want for nothing!", again);
    assert_true(base_secret_equal(mac, mac));
    assert_false(base_secret_equal(mac, again));
    assert_false(base_secret_equal(mac, "5bdcc146"));
    assert_false(base_secret_equal("", ""));
    assert_true(base_secret_equal("00ff", "00ff"));
    assert_false(base_secret_equal("00ff", "00fe"));
}

/* ---- The address table ---------------------------------------------------- */

struct addr_case {
    const char *text;
    bool is_public;
};

/* Each range's first and last address, and the neighbours just outside. */
static const struct addr_case addr_cases[] = {
    {"0.0.0.0", false},          {"0.255.255.255", false},    {"1.0.0.0", true},
    {"9.255.255.255", true},     {"10.0.0.0", false},         {"10.255.255.255", false},
    {"11.0.0.0", true},
    {"100.63.255.255", true},    {"100.64.0.0", false},       {"100.127.255.255", false},
    {"100.128.0.0", true},
    {"126.255.255.255", true},   {"127.0.0.0", false},        {"127.255.255.255", false},
    {"128.0.0.0", true},
    {"169.253.255.255", true},   {"169.254.0.0", false},      {"169.254.255.255", false},
    {"169.255.0.0", true},
    {"172.15.255.255", true},    {"172.16.0.0", false},       {"172.31.255.255", false},
    {"172.32.0.0", true},
    {"191.255.255.255", true},   {"192.0.0.0", false},        {"192.0.0.255", false},
    {"192.0.1.0", true},
    {"192.0.1.255", true},       {"192.0.2.0", false},        {"192.0.2.255", false},
    {"192.0.3.0", true},
    {"192.88.98.255", true},     {"192.88.99.0", false},      {"192.88.99.255", false},
    {"192.88.100.0", true},
    {"192.167.255.255", true},   {"192.168.0.0", false},      {"192.168.255.255", false},
    {"192.169.0.0", true},
    {"198.17.255.255", true},    {"198.18.0.0", false},       {"198.19.255.255", false},
    {"198.20.0.0", true},
    {"198.51.99.255", true},     {"198.51.100.0", false},     {"198.51.100.255", false},
    {"198.51.101.0", true},
    {"203.0.112.255", true},     {"203.0.113.0", false},      {"203.0.113.255", false},
    {"203.0.114.0", true},
    {"223.255.255.255", true},   {"224.0.0.0", false},        {"239.255.255.255", false},
    {"240.0.0.0", false},        {"255.255.255.254", false},  {"255.255.255.255", false},
    {"1.1.1.1", true},           {"8.8.8.8", true},           {"169.254.169.254", false},

    {"::", false},               {"::1", false},              {"::2", false},
    {"::ffff:ffff", false},      {"::1:0:0", false},
    {"::fffe:ffff:ffff", false},  {"::ffff:0.0.0.0", false},   {"::ffff:127.0.0.1", false},
    {"::ffff:10.0.0.1", false},  {"::ffff:255.255.255.255", false},
    {"::ffff:1.1.1.1", true},    {"::1:0:0:0", false},
    {"64:ff9a:ffff:ffff:ffff:ffff:ffff:ffff", false},
    {"64:ff9b::", false},        {"64:ff9b::7f00:1", false},  {"64:ff9b::a00:1", false},
    {"64:ff9b::101:101", true},  {"64:ff9b::ffff:ffff", false},
    {"64:ff9b::1:0:0", false},
    {"64:ff9b:1::", false},      {"64:ff9b:1:ffff:ffff:ffff:ffff:ffff", false},
    {"64:ff9b:2::", false},
    {"ff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", false},
    {"100::", false},            {"100::ffff:ffff:ffff:ffff", false},
    {"100:0:0:1::", false},
    {"2000:ffff:ffff:ffff:ffff:ffff:ffff:ffff", true},
    {"2001::", false},           {"2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff", false},
    {"2001:200::", true},
    {"2001:db7:ffff:ffff:ffff:ffff:ffff:ffff", true},
    {"2001:db8::", false},       {"2001:db8:ffff:ffff:ffff:ffff:ffff:ffff", false},
    {"2001:db9::", true},
    {"2001:ffff:ffff:ffff:ffff:ffff:ffff:ffff", true},
    {"2002::", false},           {"2002:7f00:1::", false},    {"2002:a00:1::", false},
    {"2002:c0a8:101::1", false}, {"2002:101:101::", true},
    {"2002:101:101:ffff:ffff:ffff:ffff:ffff", true},
    {"2003::", true},
    {"3ffe:ffff:ffff:ffff:ffff:ffff:ffff:ffff", true},
    {"3fff::", false},           {"3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff", false},
    {"3fff:1000::", true},
    {"5eff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", false},
    {"5f00::", false},           {"5f00:ffff:ffff:ffff:ffff:ffff:ffff:ffff", false},
    {"5f01::", false},
    {"fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", false},
    {"fc00::", false},           {"fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", false},
    {"fe00::", false},
    {"fe7f:ffff:ffff:ffff:ffff:ffff:ffff:ffff", false},
    {"fe80::", false},           {"febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff", false},
    {"fec0::", false},           {"feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", false},
    {"ff00::", false},           {"ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", false},
    {"2606:4700:4700::1111", true}, {"2a00:1450:4001::1", true},
    /* The edges of 2000::/3 (RFC 4291's global unicast, IANA's allocations):
     * nothing outside it, and inside it ORCHIDv2 (2001:20::/28, part of
     * 2001::/23) is refused. */
    {"1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", false}, {"2000::", true},
    {"3fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", true},  {"4000::", false},
    {"2001:20::1", false},      {"2c0f:f248::1", true},
    {"1::", false},             {"8000::1", false},         {"e000::", false},
    {NULL, false},
};

static void test_notify_sign_addr_table(void **state)
{
    (void)state;
    for (const struct addr_case *c = addr_cases; c->text; c++) {
        struct sockaddr_storage ss;
        memset(&ss, 0, sizeof ss);
        if (strchr(c->text, ':')) {
            struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;
            sin6->sin6_family = AF_INET6;
            assert_int_equal(inet_pton(AF_INET6, c->text, &sin6->sin6_addr), 1);
        } else {
            struct sockaddr_in *sin = (struct sockaddr_in *)&ss;
            sin->sin_family = AF_INET;
            assert_int_equal(inet_pton(AF_INET, c->text, &sin->sin_addr), 1);
        }
        if (notify_addr_public((struct sockaddr *)&ss) != c->is_public)
            fail_msg("%s should be %s", c->text, c->is_public ? "public" : "refused");
    }
    struct sockaddr unix_family = {.sa_family = AF_UNIX};
    assert_false(notify_addr_public(&unix_family));
    assert_false(notify_addr_public(NULL));
}

/* ---- URL verdicts --------------------------------------------------------- */

struct url_case {
    const char *url;
    bool allow_private;
    enum notify_url_verdict verdict;
    const char *err_part;   /* a piece of the message; "" when OK */
};

static const struct url_case url_cases[] = {
    {"http://127.0.0.1/", false, NOTIFY_URL_PRIVATE,
     "127.0.0.1 is a loopback address: webhooks cannot reach private networks "
     "(set KORP_WEBHOOK_ALLOW_PRIVATE=1 for a private deployment)"},
    {"http://10.0.0.1/", false, NOTIFY_URL_PRIVATE, "10.0.0.1 is a private-use address"},
    {"http://[::1]/", false, NOTIFY_URL_PRIVATE, "::1 is a loopback address"},
    {"http://169.254.169.254/", false, NOTIFY_URL_PRIVATE, "169.254.169.254 is a link-local"},
    {"http://localhost/", false, NOTIFY_URL_PRIVATE, "localhost resolves to "},
    {"http://0x7f000001/", false, NOTIFY_URL_PRIVATE, "127.0.0.1 is a loopback"},
    {"http://[::ffff:192.168.1.1]/", false, NOTIFY_URL_PRIVATE, "private-use"},
    {"http://[2002:7f00:1::]/", false, NOTIFY_URL_PRIVATE,
     "2002:7f00:1:: (which carries 127.0.0.1) is a loopback address"},
    {"http://[64:ff9b::a00:1]/", false, NOTIFY_URL_PRIVATE,
     "64:ff9b::a00:1 (which carries 10.0.0.1) is a private-use address"},
    {"http://[fd12:3456::1]:8080/", false, NOTIFY_URL_PRIVATE, "unique local"},
    {"ftp://example.org/", false, NOTIFY_URL_BAD_URL, "must use http or https, not ftp"},
    {"gopher://1.1.1.1/", false, NOTIFY_URL_BAD_URL, "must use http or https"},
    {"example.org/hook", false, NOTIFY_URL_BAD_URL, "must use http or https"},
    {"http://user:pw@1.1.1.1/", false, NOTIFY_URL_BAD_URL, "user name or password"},
    {"http://:pw@1.1.1.1/", false, NOTIFY_URL_BAD_URL, "user name or password"},
    {"http:///nohost", false, NOTIFY_URL_BAD_URL, "has no host"},
    {"http:/1.1.1.1/", false, NOTIFY_URL_BAD_URL, "has no host"},
    {"http://1.1.1.1:0/", false, NOTIFY_URL_BAD_URL, "port 0 is not allowed"},
    {"http://1.1.1.1:22/", false, NOTIFY_URL_BAD_URL,
     "port 22 is not allowed: use 80, 443 or a port from 1024 to 65535"},
    {"https://1.1.1.1:25/", false, NOTIFY_URL_BAD_URL, "port 25 is not allowed"},
    {"http://1.1.1.1:1023/", false, NOTIFY_URL_BAD_URL, "port 1023 is not allowed"},
    {"http://127.0.0.1:6379/", true, NOTIFY_URL_OK, ""},
    {"http://127.0.0.1:5432/", true, NOTIFY_URL_OK, ""},
    {"http://127.0.0.1:110/", true, NOTIFY_URL_BAD_URL, "port 110 is not allowed"},
    {"http://1.1.1.1:1024/", false, NOTIFY_URL_OK, ""},
    {"http://1.1.1.1:65535/", false, NOTIFY_URL_OK, ""},
    {"http://1.1.1.1:80/", false, NOTIFY_URL_OK, ""},
    {"https://1.1.1.1:443/", false, NOTIFY_URL_OK, ""},
    {"http://[4000::1]/", false, NOTIFY_URL_PRIVATE, "outside IPv6 global unicast (2000::/3)"},
    {"http://[2001:db8::1]:8080/", false, NOTIFY_URL_PRIVATE, "a documentation address"},
    {"http://1.1.1.1:65536/", false, NOTIFY_URL_BAD_URL, "not valid"},
    {"http://ex ample.org/", false, NOTIFY_URL_BAD_URL, "not valid"},
    {"", false, NOTIFY_URL_BAD_URL, "empty"},
    {"https://1.1.1.1:8443/hook", false, NOTIFY_URL_OK, ""},
    {"HTTPS://1.1.1.1/hook?x=1", false, NOTIFY_URL_OK, ""},
    {"https://[2606:4700:4700::1111]/hook", false, NOTIFY_URL_OK, ""},
    {"http://127.0.0.1/", true, NOTIFY_URL_OK, ""},
    {"http://localhost:8080/hook", true, NOTIFY_URL_OK, ""},
    {"ftp://127.0.0.1/", true, NOTIFY_URL_BAD_URL, "http or https"},
    {NULL, false, NOTIFY_URL_OK, NULL},
};

static void test_notify_sign_url_verdicts(void **state)
{
    (void)state;
    for (const struct url_case *c = url_cases; c->url; c++) {
        struct base_err err = { "unset" };
        enum notify_url_verdict v = notify_url_check(c->url, c->allow_private, &err);
        if (v != c->verdict || !strstr(err.text, c->err_part))
            fail_msg("%s (private %s): verdict %d, want %d; message \"%s\"", c->url,
                     c->allow_private ? "allowed" : "refused", v, c->verdict, err.text);
        if (v == NOTIFY_URL_OK)
            assert_string_equal(err.text, "");
    }

    /* Longer than 2048 characters. */
    char long_url[2100];
    memset(long_url, 'a', sizeof long_url - 1);
    long_url[sizeof long_url - 1] = '\0';
    memcpy(long_url, "https://1.1.1.1/", 16);
    struct base_err err = { "" };
    assert_int_equal(notify_url_check(long_url, false, &err), NOTIFY_URL_BAD_URL);
    assert_non_null(strstr(err.text, "limit is 2048"));
    long_url[NOTIFY_URL_MAX] = '\0';
    assert_int_equal(notify_url_check(long_url, false, &err), NOTIFY_URL_OK);
}

static void test_notify_sign_url_pin(void **state)
{
    (void)state;
    struct notify_pin pin;
    struct base_err err = { "" };

    assert_true(notify_url_pin("https://1.1.1.1:8443/hook", false, &pin, &err));
    assert_string_equal(pin.host, "1.1.1.1");
    assert_int_equal(pin.port, 8443);
    assert_string_equal(pin.address, "1.1.1.1");
    assert_string_equal(pin.resolve, "");     /* a literal: libcurl does no DNS */

    assert_true(notify_url_pin("http://[::1]/", true, &pin, &err));
    assert_string_equal(pin.host, "::1");
    assert_int_equal(pin.port, 80);
    assert_string_equal(pin.address, "::1");

    assert_true(notify_url_pin("http://localhost:8080/x", true, &pin, &err));
    assert_string_equal(pin.host, "localhost");
    assert_int_equal(pin.port, 8080);
    if (strcmp(pin.address, "127.0.0.1") == 0)
        assert_string_equal(pin.resolve, "localhost:8080:127.0.0.1");
    else if (strcmp(pin.address, "::1") == 0)
        assert_string_equal(pin.resolve, "localhost:8080:[::1]");
    else
        fail_msg("localhost pinned to %s", pin.address);

    assert_false(notify_url_pin("http://localhost:8080/x", false, &pin, &err));
    assert_non_null(strstr(err.text, "loopback address"));
    assert_string_equal(pin.resolve, "");
    assert_false(notify_url_pin("ftp://1.1.1.1/", false, &pin, &err));
    assert_non_null(strstr(err.text, "http or https"));
}

/* ---- A real transfer on loopback ---------------------------------------- */

/* A one-thread HTTP server on 127.0.0.1: "/redirect" answers 302, any other
 * path 200 "ok". */
struct test_server {
    int fd;
    int port;
    atomic_int accepted;
    atomic_bool stop;
    pthread_t thread;
};

static void serve_one(int conn)
{
    char request[2048];
    size_t used = 0;
    struct pollfd p = {.fd = conn, .events = POLLIN};
    while (used < sizeof request - 1 && poll(&p, 1, 2000) == 1) {
        ssize_t n = read(conn, request + used, sizeof request - 1 - used);
        if (n <= 0)
            break;
        used += (size_t)n;
        request[used] = '\0';
        if (strstr(request, "\r\n\r\n"))
            break;
    }
    request[used] = '\0';
    const char *answer = strncmp(request, "GET /redirect ", 14) == 0
        ? "HTTP/1.1 302 Found\r\nLocation: http://127.0.0.1:1/elsewhere\r\n"
          "Content-Length: 0\r\nConnection: close\r\n\r\n"
        : "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok";
    size_t len = strlen(answer), sent = 0;
    while (sent < len) {
        ssize_t n = write(conn, answer + sent, len - sent);
        if (n <= 0)
            break;
        sent += (size_t)n;
    }
}

static void *server_main(void *arg)
{
    struct test_server *s = arg;
    while (!atomic_load(&s->stop)) {
        struct pollfd p = {.fd = s->fd, .events = POLLIN};
        if (poll(&p, 1, 100) != 1)
            continue;
        int conn = accept(s->fd, NULL, NULL);
        if (conn < 0)
            continue;
        atomic_fetch_add(&s->accepted, 1);
        serve_one(conn);
        close(conn);
    }
    return NULL;
}

static void server_start(struct test_server *s)
{
    struct sockaddr_in sin = {.sin_family = AF_INET, .sin_port = 0};
    socklen_t len = sizeof sin;
    sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    s->fd = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(s->fd >= 0);
    assert_int_equal(bind(s->fd, (struct sockaddr *)&sin, sizeof sin), 0);
    assert_int_equal(listen(s->fd, 8), 0);
    assert_int_equal(getsockname(s->fd, (struct sockaddr *)&sin, &len), 0);
    s->port = ntohs(sin.sin_port);
    atomic_init(&s->accepted, 0);
    atomic_init(&s->stop, false);
    assert_int_equal(pthread_create(&s->thread, NULL, server_main, s), 0);
}

static void server_stop(struct test_server *s)
{
    atomic_store(&s->stop, true);
    pthread_join(s->thread, NULL);
    close(s->fd);
}

static size_t discard_body(char *data, size_t size, size_t n, void *arg)
{
    (void)data;
    (void)arg;
    return size * n;
}

/* One GET through a hardened handle; the HTTP status goes to *status. */
static CURLcode fetch(const char *url, const struct notify_pin *pin, bool allow_private,
                      long *status)
{
    CURLcode rc = CURLE_FAILED_INIT;
    struct curl_slist *resolve = NULL;
    CURL *curl = curl_easy_init();
    *status = 0;
    if (!curl)
        goto done;
    curl_easy_setopt(curl, CURLOPT_URL, url);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, 5000L);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, discard_body);
    if (!notify_curl_harden(curl, pin, allow_private, &resolve))
        goto done;
    rc = curl_easy_perform(curl);
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, status);
done:
    curl_easy_cleanup(curl);
    curl_slist_free_all(resolve);
    return rc;
}

static void test_notify_sign_loopback_transfer(void **state)
{
    (void)state;
    struct test_server server;
    char url[NOTIFY_HOST_MAX + 64];
    long status = 0;
    server_start(&server);

    /* A name pinned to 127.0.0.1 as a resolver might answer: refused at the
     * socket, before any byte leaves, unless private addresses are allowed. */
    struct notify_pin pin;
    memset(&pin, 0, sizeof pin);
    snprintf(pin.host, sizeof pin.host, "webhook.korp-test.invalid");
    pin.port = server.port;
    snprintf(pin.address, sizeof pin.address, "127.0.0.1");
    snprintf(pin.resolve, sizeof pin.resolve, "%s:%d:%s", pin.host, pin.port, pin.address);
    snprintf(url, sizeof url, "http://%s:%d/hook", pin.host, server.port);

    assert_int_equal(fetch(url, &pin, false, &status), CURLE_COULDNT_CONNECT);
    assert_int_equal(atomic_load(&server.accepted), 0);

    /* An IP literal needs no pin: the socket callback still refuses it. */
    snprintf(url, sizeof url, "http://127.0.0.1:%d/hook", server.port);
    assert_int_equal(fetch(url, NULL, false, &status), CURLE_COULDNT_CONNECT);
    assert_int_equal(atomic_load(&server.accepted), 0);

    /* Allowed: the pinned name reaches the listener without any DNS. */
    snprintf(url, sizeof url, "http://%s:%d/hook", pin.host, server.port);
    assert_int_equal(fetch(url, &pin, true, &status), CURLE_OK);
    assert_int_equal(status, 200);
    assert_int_equal(atomic_load(&server.accepted), 1);

    /* A pin made by notify_url_pin for the literal works the same. */
    struct notify_pin literal;
    struct base_err err = { "" };
    snprintf(url, sizeof url, "http://127.0.0.1:%d/hook", server.port);
    assert_true(notify_url_pin(url, true, &literal, &err));
    assert_int_equal(fetch(url, &literal, true, &status), CURLE_OK);
    assert_int_equal(status, 200);
    assert_int_equal(atomic_load(&server.accepted), 2);

    /* Redirects are not followed: the 302 is the answer. */
    snprintf(url, sizeof url, "http://127.0.0.1:%d/redirect", server.port);
    assert_int_equal(fetch(url, NULL, true, &status), CURLE_OK);
    assert_int_equal(status, 302);
    assert_int_equal(atomic_load(&server.accepted), 3);

    server_stop(&server);
}

/* ---- Short causes --------------------------------------------------------- */

/* Runs a GET to url (loopback) with a timeout of ms; the cause korp records. */
static const char *cause_of(const char *url, long ms)
{
    CURL *curl = curl_easy_init();
    long os_errno = 0;
    assert_non_null(curl);
    curl_easy_setopt(curl, CURLOPT_URL, url);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, ms);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    CURLcode rc = curl_easy_perform(curl);
    curl_easy_getinfo(curl, CURLINFO_OS_ERRNO, &os_errno);
    curl_easy_cleanup(curl);
    assert_int_not_equal(rc, CURLE_OK);
    return notify_failure_cause(rc, os_errno);
}

static void test_notify_sign_failure_causes(void **state)
{
    (void)state;
    struct sockaddr_in sin = {.sin_family = AF_INET};
    socklen_t len = sizeof sin;
    char url[64];
    int closed = socket(AF_INET, SOCK_STREAM, 0), hole = socket(AF_INET, SOCK_STREAM, 0);

    /* A port bound and not listening refuses; a listener that never accepts
     * (its backlog holds the connection) never answers. */
    inet_pton(AF_INET, "127.0.0.1", &sin.sin_addr);
    assert_int_equal(bind(closed, (struct sockaddr *)&sin, sizeof sin), 0);
    assert_int_equal(getsockname(closed, (struct sockaddr *)&sin, &len), 0);
    snprintf(url, sizeof url, "http://127.0.0.1:%d/", ntohs(sin.sin_port));
    assert_string_equal(cause_of(url, 5000), "refused");

    sin.sin_port = 0;
    assert_int_equal(bind(hole, (struct sockaddr *)&sin, sizeof sin), 0);
    assert_int_equal(listen(hole, 8), 0);
    len = sizeof sin;
    assert_int_equal(getsockname(hole, (struct sockaddr *)&sin, &len), 0);
    snprintf(url, sizeof url, "http://127.0.0.1:%d/", ntohs(sin.sin_port));
    assert_string_equal(cause_of(url, 300), "timeout");
    close(closed);
    close(hole);

    /* The words of the issue for the other kinds. */
    assert_string_equal(notify_failure_cause(CURLE_COULDNT_CONNECT, 0), "connect");
    assert_string_equal(notify_failure_cause(CURLE_COULDNT_RESOLVE_HOST, 0), "dns");
    assert_string_equal(notify_failure_cause(CURLE_PEER_FAILED_VERIFICATION, 0), "tls");
    assert_string_equal(notify_failure_cause(CURLE_SSL_CONNECT_ERROR, 0), "tls");
    assert_string_equal(notify_failure_cause(CURLE_UNSUPPORTED_PROTOCOL, 0), "transfer");

    /* A pin that fails says why in a word too, never with the address. */
    struct notify_pin pin;
    struct base_err err = { "" };
    assert_false(notify_url_pin("http://10.0.0.1:8080/", false, &pin, &err));
    assert_string_equal(notify_pin_cause(pin.verdict), "address not allowed");
    assert_false(notify_url_pin("http://1.1.1.1:22/", false, &pin, &err));
    assert_string_equal(notify_pin_cause(pin.verdict), "bad url");
}

static void test_notify_sign_open_socket(void **state)
{
    (void)state;
    bool yes = true, no = false;
    struct curl_sockaddr a;
    memset(&a, 0, sizeof a);
    a.family = AF_INET;
    a.socktype = SOCK_STREAM;
    a.protocol = IPPROTO_TCP;
    a.addrlen = sizeof(struct sockaddr_in);
    struct sockaddr_in sin = {.sin_family = AF_INET, .sin_port = htons(80)};
    inet_pton(AF_INET, "10.1.2.3", &sin.sin_addr);
    memcpy(&a.addr, &sin, sizeof sin);

    assert_true(notify_open_socket(NULL, CURLSOCKTYPE_IPCXN, &a) == CURL_SOCKET_BAD);
    assert_true(notify_open_socket(&no, CURLSOCKTYPE_IPCXN, &a) == CURL_SOCKET_BAD);
    curl_socket_t fd = notify_open_socket(&yes, CURLSOCKTYPE_IPCXN, &a);
    assert_true(fd != CURL_SOCKET_BAD);
    close(fd);

    inet_pton(AF_INET, "1.1.1.1", &sin.sin_addr);
    memcpy(&a.addr, &sin, sizeof sin);
    fd = notify_open_socket(NULL, CURLSOCKTYPE_IPCXN, &a);
    assert_true(fd != CURL_SOCKET_BAD);
    close(fd);
    assert_true(notify_open_socket(&yes, CURLSOCKTYPE_ACCEPT, &a) == CURL_SOCKET_BAD);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_notify_sign_spec_vector),
        cmocka_unit_test(test_notify_sign_rotation_header),
        cmocka_unit_test(test_notify_sign_refuses_malformed_input),
        cmocka_unit_test(test_notify_sign_secret_new),
        cmocka_unit_test(test_notify_sign_base64_rfc4648),
        cmocka_unit_test(test_notify_sign_base64_round_trip),
        cmocka_unit_test(test_notify_sign_base64_strict),
        cmocka_unit_test(test_notify_sign_hmac_hex),
        cmocka_unit_test(test_notify_sign_addr_table),
        cmocka_unit_test(test_notify_sign_url_verdicts),
        cmocka_unit_test(test_notify_sign_url_pin),
        cmocka_unit_test(test_notify_sign_open_socket),
        cmocka_unit_test(test_notify_sign_failure_causes),
        cmocka_unit_test(test_notify_sign_loopback_transfer),
    };
    curl_global_init(CURL_GLOBAL_DEFAULT);
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    curl_global_cleanup();
    return failed;
}
