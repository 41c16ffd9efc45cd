/*
 * base_email.c — the one check of an e-mail address, for sign-up, the
 * notification settings and the mail writer alike: a plain
 * local-part@host-name, the common subset of RFC 5321 and RFC 5322 that
 * every relay takes.
 */
#include "base.h"

#include <string.h>

#define LOCAL_MAX 64      /* RFC 5321 section 4.5.3.1.1 */
#define DOMAIN_MAX 253
#define LABEL_MAX 63
#define ADDRESS_MAX 254   /* a path of 256 with its angle brackets */

bool base_email_atext(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           (c != '\0' && strchr("!#$%&'*+-/=?^_`{|}~", c) != NULL);
}

bool base_email_dot_atom(const char *s, size_t n)
{
    if (n == 0 || s[0] == '.' || s[n - 1] == '.')
        return false;
    for (size_t i = 0; i < n; i++)
        if (s[i] == '.' ? s[i + 1] == '.' : !base_email_atext(s[i]))
            return false;
    return true;
}

bool base_email_host(const char *s, size_t n)
{
    size_t label = 0;
    if (n == 0 || n > DOMAIN_MAX)
        return false;
    for (size_t i = 0; i <= n; i++) {
        char c = i < n ? s[i] : '.';
        if (c == '.') {
            if (label == 0 || label > LABEL_MAX || s[i - 1] == '-' || s[i - label] == '-')
                return false;
            label = 0;
        } else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                   (c >= '0' && c <= '9') || c == '-') {
            label++;
        } else {
            return false;
        }
    }
    return true;
}

bool base_email_valid(const char *address)
{
    const char *at;
    size_t len;
    if (address == NULL || (len = strlen(address)) > ADDRESS_MAX)
        return false;
    at = strchr(address, '@');
    return at != NULL && (size_t)(at - address) <= LOCAL_MAX &&
           base_email_dot_atom(address, (size_t)(at - address)) &&
           base_email_host(at + 1, len - (size_t)(at - address) - 1);
}
