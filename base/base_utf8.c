/*
 * base_utf8.c — UTF-8 as RFC 3629 defines it, checked in one place: request
 * bodies, problem details, mail headers and bodies.
 */
#include "base.h"

size_t base_utf8_char_len(const unsigned char *s, size_t n)
{
    size_t len;
    unsigned char low = 0x80, high = 0xBF;   /* the range of the second byte */

    if (n == 0)
        return 0;
    if (s[0] < 0x80)
        return 1;
    if (s[0] >= 0xC2 && s[0] <= 0xDF)
        len = 2;
    else if (s[0] >= 0xE0 && s[0] <= 0xEF)
        len = 3;
    else if (s[0] >= 0xF0 && s[0] <= 0xF4)
        len = 4;
    else
        return 0;   /* a continuation byte, 0xC0/0xC1 (always overlong), or > 0xF4 */
    /* RFC 3629 section 4: these leads narrow what may follow, ruling out
     * overlong forms, surrogates and code points above U+10FFFF. */
    if (s[0] == 0xE0)
        low = 0xA0;
    else if (s[0] == 0xED)
        high = 0x9F;
    else if (s[0] == 0xF0)
        low = 0x90;
    else if (s[0] == 0xF4)
        high = 0x8F;
    if (n < 2 || s[1] < low || s[1] > high)
        return 0;
    for (size_t i = 2; i < len; i++)
        if (i >= n || (s[i] & 0xC0) != 0x80)
            return 0;
    return len;
}

long base_utf8_invalid_at(const unsigned char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        size_t len = base_utf8_char_len(s + i, n - i);
        if (len == 0)
            return (long)i;
        i += len;
    }
    return -1;
}
