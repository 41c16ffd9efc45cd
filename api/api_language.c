/*
 * api_language.c — which of korp's languages ("en", "pl", "hu")
 * a request asks for: a player's stored preference is checked here, and a
 * new account takes its first one from the browser's Accept-Language.
 */
#include "api_int.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const languages[] = { "en", "pl", "hu", NULL };

const char *api_language_known(const char *code)
{
    for (int i = 0; code != NULL && languages[i] != NULL; i++)
        if (strcmp(code, languages[i]) == 0)
            return languages[i];
    return NULL;
}

/*
 * The language of ours the Accept-Language header prefers ("pl-PL,
 * pl;q=0.9, en;q=0.8" → "pl"), or NULL when it names none of them.  Each
 * item is a tag with an optional ";q=" weight; the first of the highest
 * weight wins, and a tag counts by its primary subtag.
 */
const char *api_language_accepted(struct api_request *req)
{
    const char *header = MHD_lookup_connection_value(req->conn, MHD_HEADER_KIND,
                                                     MHD_HTTP_HEADER_ACCEPT_LANGUAGE);
    const char *best = NULL;
    double best_q = 0.0;

    for (const char *p = header; p != NULL && *p;) {
        size_t item = strcspn(p, ",");
        size_t tag = strcspn(p, ",;");
        while (tag > 0 && (*p == ' ' || *p == '\t')) {
            p++;
            item--;
            tag--;
        }
        double q = 1.0;
        const char *weight = memchr(p, ';', item);
        if (weight != NULL) {
            const char *eq = strstr(weight, "q=");
            if (eq != NULL && eq < p + item)
                q = strtod(eq + 2, NULL);
        }
        for (int i = 0; languages[i] != NULL; i++) {
            size_t n = strlen(languages[i]);
            if (tag >= n && strncasecmp(p, languages[i], n) == 0 &&
                (tag == n || p[n] == '-' || p[n] == ' ' || p[n] == ';') && q > best_q) {
                best = languages[i];
                best_q = q;
            }
        }
        p += item;
        if (*p == ',')
            p++;
    }
    return best;
}
