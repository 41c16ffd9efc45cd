/*
 * base_random.c — random ids and tokens (OpenSSL's CSPRNG), token hashes,
 * and the time format of the API.
 */
#include "base.h"

#include <openssl/evp.h>
#include <openssl/rand.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static const char alphabet[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

bool base_random_text(char *out, size_t len)
{
    size_t i = 0;
    while (i < len) {
        unsigned char bytes[64];
        if (RAND_bytes(bytes, sizeof bytes) != 1)
            return false;
        /* Rejection sampling: 248 = 4 * 62 keeps every letter equally likely. */
        for (size_t k = 0; k < sizeof bytes && i < len; k++)
            if (bytes[k] < 248)
                out[i++] = alphabet[bytes[k] % 62];
    }
    out[len] = '\0';
    return true;
}

bool base_token_new(char out[BASE_TOKEN_LEN + 1])
{
    memcpy(out, "korp_", 5);
    return base_random_text(out + 5, BASE_TOKEN_LEN - 5);
}

void base_sha256_hex(const char *text, size_t len, char out[BASE_SHA256_HEX_LEN + 1])
{
    unsigned char digest[32];
    unsigned int n = 0;
    EVP_Digest(text, len, digest, &n, EVP_sha256(), NULL);
    for (unsigned i = 0; i < 32; i++)
        snprintf(out + 2 * i, 3, "%02x", digest[i]);
}

void base_time_format(long long unix_seconds, char out[32])
{
    time_t t = (time_t)unix_seconds;
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}
