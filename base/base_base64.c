/*
 * base_base64.c — base64 (RFC 4648 section 4) by OpenSSL's EVP_EncodeBlock
 * and EVP_DecodeBlock.  EVP_DecodeBlock is lax (it skips surrounding
 * whitespace and keeps padding bytes in its count), so the decoder checks
 * the text itself first and then takes only the bytes the text carries.
 */
#include "base.h"

#include <openssl/evp.h>
#include <string.h>

static const char alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

size_t base_base64_encode(const void *data, size_t len, char *out, size_t size)
{
    size_t n = BASE_BASE64_LEN(len);
    if (size == 0)
        return 0;
    out[0] = '\0';
    if (n + 1 > size || len > (size_t)1 << 30)
        return 0;
    /* Writes n characters and a NUL. */
    EVP_EncodeBlock((unsigned char *)out, data, (int)len);
    return n;
}

/* The value of one base64 letter, or -1 ('=' and NUL included). */
static int value(char c)
{
    const char *hit = c != '\0' ? strchr(alphabet, c) : NULL;
    return hit != NULL ? (int)(hit - alphabet) : -1;
}

/*
 * How many '=' end text (0, 1 or 2), or -1 if text is not canonical
 * base64: a length that is not a multiple of 4, a character outside the
 * alphabet, '=' anywhere but at the end, or padding that leaves bits set.
 */
static int padding(const char *text, size_t len)
{
    int pad = 0;
    if (len % 4 != 0)
        return -1;
    if (len > 0 && text[len - 1] == '=')
        pad = text[len - 2] == '=' ? 2 : 1;
    for (size_t i = 0; i < len - (size_t)pad; i++)
        if (value(text[i]) < 0)
            return -1;
    /* The last letter before the padding carries 4 (pad 2) or 2 (pad 1)
     * bits beyond the data; a canonical encoder leaves them zero. */
    if (pad == 2 && (value(text[len - 3]) & 0x0F) != 0)
        return -1;
    if (pad == 1 && (value(text[len - 2]) & 0x03) != 0)
        return -1;
    return pad;
}

bool base_base64_decode(const char *text, unsigned char *out, size_t size, size_t *len)
{
    size_t text_len = strlen(text), whole, bytes;
    int pad;
    unsigned char last[3];

    *len = 0;
    if (text_len > (size_t)1 << 30 || (pad = padding(text, text_len)) < 0)
        return false;
    if (text_len == 0)
        return true;
    bytes = text_len / 4 * 3 - (size_t)pad;
    if (bytes > size)
        return false;
    /* All groups but the last straight into out; the last one, which
     * EVP_DecodeBlock writes as 3 bytes padding or not, through last[]. */
    whole = text_len - 4;
    if (whole > 0 &&
        EVP_DecodeBlock(out, (const unsigned char *)text, (int)whole) != (int)(whole / 4 * 3))
        return false;
    if (EVP_DecodeBlock(last, (const unsigned char *)text + whole, 4) != 3)
        return false;
    memcpy(out + whole / 4 * 3, last, 3 - (size_t)pad);
    *len = bytes;
    return true;
}
