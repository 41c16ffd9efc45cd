/*
 * base_bearer.c — the token of an "Authorization: Bearer <token>" header
 * (RFC 6750 section 2.1; the scheme is case-insensitive, RFC 9110 section
 * 11.1).
 */
#include "base.h"

#include <string.h>
#include <strings.h>

const char *base_bearer_token(const char *authorization)
{
    static const char scheme[] = "Bearer";
    const char *token;
    if (authorization == NULL || strncasecmp(authorization, scheme, sizeof scheme - 1) != 0 ||
        authorization[sizeof scheme - 1] != ' ')
        return NULL;
    token = authorization + sizeof scheme - 1;
    while (*token == ' ')
        token++;
    if (token[0] == '\0' || strchr(token, ' ') != NULL)
        return NULL;
    return token;
}
