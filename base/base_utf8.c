/*
 * base_utf8.c — UTF-8 as RFC 3629 defines it, checked in one place: request
 * bodies, problem details, mail headers and bodies; and which free texts
 * (names, titles, messages) are fit to be shown to people.
 */
#include "base.h"

#include <stdio.h>
#include <string.h>

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

/* A code point from a character base_utf8_char_len measured as len bytes. */
static unsigned long code_point(const unsigned char *s, size_t len)
{
    static const unsigned char lead_bits[5] = { 0, 0x7F, 0x1F, 0x0F, 0x07 };
    unsigned long cp = s[0] & lead_bits[len];
    for (size_t i = 1; i < len; i++)
        cp = (cp << 6) | (s[i] & 0x3F);
    return cp;
}

struct cp_range {
    unsigned long first, last;
};

/* Bidirectional embeddings, overrides and isolates: they make a text show
 * in another order than it is stored (Unicode TR 9). */
static const struct cp_range bidi_controls[] = {
    { 0x202A, 0x202E }, { 0x2066, 0x2069 }, { 0, 0 },
};

/* What shows nothing: White_Space and Default_Ignorable_Code_Point of the
 * Unicode Character Database, and the blanks that look like them (the
 * Braille blank, the Hangul fillers). */
static const struct cp_range invisible[] = {
    { 0x0009, 0x000D }, { 0x0020, 0x0020 }, { 0x0085, 0x0085 }, { 0x00A0, 0x00A0 },
    { 0x00AD, 0x00AD }, { 0x034F, 0x034F }, { 0x061C, 0x061C }, { 0x115F, 0x1160 },
    { 0x1680, 0x1680 }, { 0x17B4, 0x17B5 }, { 0x180B, 0x180F }, { 0x2000, 0x200F },
    { 0x2028, 0x202F }, { 0x205F, 0x206F }, { 0x2800, 0x2800 }, { 0x3000, 0x3000 },
    { 0x3164, 0x3164 }, { 0xFE00, 0xFE0F }, { 0xFEFF, 0xFEFF }, { 0xFFA0, 0xFFA0 },
    { 0xFFF0, 0xFFF8 }, { 0x1BCA0, 0x1BCA3 }, { 0x1D173, 0x1D17A }, { 0xE0000, 0xE0FFF },
    { 0, 0 },
};

static bool in_ranges(const struct cp_range *r, unsigned long cp)
{
    for (; r->last != 0; r++)
        if (cp >= r->first && cp <= r->last)
            return true;
    return false;
}

bool base_text_fit(const char *text, enum base_text_kind kind, size_t *chars, char *why,
                   size_t size)
{
    const unsigned char *s = (const unsigned char *)text;
    size_t n = strlen(text), i = 0;
    bool seen = false;   /* something visible */

    *chars = 0;
    while (i < n) {
        size_t len = base_utf8_char_len(s + i, n - i);
        if (len == 0) {
            snprintf(why, size, "the text is not valid UTF-8 at byte %zu", i);
            return false;
        }
        unsigned long cp = code_point(s + i, len);
        if ((cp < 0x20 && !(cp == '\n' && kind == BASE_TEXT_LINES)) || cp == 0x7F) {
            snprintf(why, size, "the text holds a control character (byte %zu)%s", i,
                     kind == BASE_TEXT_LINES ? "; only the newline is allowed" : "");
            return false;
        }
        if (cp >= 0x80 && cp <= 0x9F) {
            snprintf(why, size, "the text holds a control character (byte %zu)", i);
            return false;
        }
        if (in_ranges(bidi_controls, cp)) {
            snprintf(why, size, "the text holds a bidirectional control character (U+%04lX at "
                     "byte %zu), which would show it in another order than it is written",
                     cp, i);
            return false;
        }
        seen = seen || !in_ranges(invisible, cp);
        i += len;
        ++*chars;
    }
    if (n > 0 && !seen) {
        snprintf(why, size, "the text holds nothing visible: only spaces or invisible "
                 "characters");
        return false;
    }
    return true;
}
