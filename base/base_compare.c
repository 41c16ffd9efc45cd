/*
 * base_compare.c — secrets compared in constant time: tokens, CSRF tokens,
 * signed-link digests.
 */
#include "base.h"

#include <openssl/crypto.h>
#include <string.h>

bool base_secret_equal(const char *a, const char *b)
{
    size_t len;
    if (a == NULL || b == NULL || a[0] == '\0')
        return false;
    len = strlen(a);
    /* The length of a secret is no secret; only its contents are. */
    if (len != strlen(b))
        return false;
    return CRYPTO_memcmp(a, b, len) == 0;
}
