/*
 * api_etag.c — conditional reads of a game: the
 * entity tag of each game resource, If-None-Match (RFC 9110 §13.1.2) and
 * the 304 that answers it.
 *
 * A game's tag is the SHA-256 of its stored version (one more at each
 * change of what its API object shows: db/migration 022), the time of its
 * last change and the end of the leave stopping it, which starts and ends
 * with time alone: the object is never built for it, and a 304 costs the
 * row's read.  The running side's remaining time is a countdown clients
 * derive from `deadline`, so the tag is weak.  Every other game resource
 * (its PGN, legal moves, analysis) is a function of what that object
 * shows, so theirs derive from it.
 */
#include "api_int.h"

#include "base.h"
#include "games.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Game resources are public and change: caches keep them but ask first. */
#define GAME_CACHE_CONTROL "no-cache"
/* 128 bits of the hash are plenty to tell two states apart. */
#define TAG_HEX 32

static void tag_of(const char *kind, const char *text, size_t len, bool weak,
                   char out[API_ETAG_SIZE])
{
    char hex[BASE_SHA256_HEX_LEN + 1];
    size_t klen = strlen(kind);
    char *all = malloc(klen + 1 + len);
    if (all == NULL) {
        out[0] = '\0';
        return;
    }
    memcpy(all, kind, klen);
    all[klen] = '\n';
    memcpy(all + klen + 1, text, len);
    base_sha256_hex(all, klen + 1 + len, hex);
    free(all);
    snprintf(out, API_ETAG_SIZE, "%s\"%.*s\"", weak ? "W/" : "", TAG_HEX, hex);
}

void api_etag_game(const struct db_game *g, char out[API_ETAG_SIZE])
{
    char text[BASE_ID_SIZE + 3 * DB_TIME_SIZE + 64];
    int n = snprintf(text, sizeof text, "%s\n%lld\n%s\n%s", g->id, g->version, g->updated_at,
                     g->paused_until);
    if (n < 0 || (size_t)n >= sizeof text)
        out[0] = '\0';
    else
        tag_of("game", text, (size_t)n, true, out);
}

void api_etag_derived(const char *kind, const char *game_tag, const char *variant,
                      char out[API_ETAG_SIZE])
{
    char text[API_ETAG_SIZE + 512];
    int n = snprintf(text, sizeof text, "%s\n%s", game_tag, variant ? variant : "");
    if (n < 0 || (size_t)n >= sizeof text || game_tag[0] == '\0') {
        out[0] = '\0';
        return;
    }
    tag_of(kind, text, (size_t)n, false, out);
}

void api_etag_text(const char *kind, const char *text, char out[API_ETAG_SIZE])
{
    tag_of(kind, text, strlen(text), false, out);
}

/* Whether the quoted part of a listed tag (quotes included, len bytes) is
 * that of ours, whatever either's W/. */
static bool same_opaque(const char *listed, size_t len, const char *ours)
{
    if (strncmp(ours, "W/", 2) == 0)
        ours += 2;
    return strlen(ours) == len && memcmp(listed, ours, len) == 0;
}

bool api_etag_matches(struct api_request *req, const char *etag)
{
    const char *p = MHD_lookup_connection_value(req->conn, MHD_HEADER_KIND,
                                                MHD_HTTP_HEADER_IF_NONE_MATCH);
    if (p == NULL || etag[0] == '\0')
        return false;
    /* "*" (any current representation), or a list of entity tags compared
     * the weak way (RFC 9110 §13.1.2): W/ ignored on both sides. */
    for (;;) {
        const char *end;
        while (*p == ' ' || *p == '\t' || *p == ',')
            p++;
        if (*p == '\0')
            return false;
        if (*p == '*')
            return true;
        if (strncmp(p, "W/", 2) == 0)
            p += 2;
        if (*p != '"' || (end = strchr(p + 1, '"')) == NULL)
            return false;  /* not an entity tag: the rest cannot be read */
        if (same_opaque(p, (size_t)(end + 1 - p), etag))
            return true;
        p = end + 1;
    }
}

static void add_validators(struct MHD_Response *resp, const char *etag, const char *cache)
{
    if (etag[0] != '\0')
        MHD_add_response_header(resp, MHD_HTTP_HEADER_ETAG, etag);
    MHD_del_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, cache ? cache : GAME_CACHE_CONTROL);
}

enum MHD_Result api_reply_not_modified(struct api_request *req, const char *etag,
                                       const char *cache)
{
    struct MHD_Response *resp = MHD_create_response_from_buffer(0, (void *)"",
                                                                MHD_RESPMEM_PERSISTENT);
    if (resp != NULL)
        add_validators(resp, etag, cache);
    return api_reply(req, MHD_HTTP_NOT_MODIFIED, resp);
}

enum MHD_Result api_reply_tagged(struct api_request *req, char *body, const char *content_type,
                                 const char *etag, const char *cache)
{
    struct MHD_Response *resp;
    if (body == NULL)
        return api_fail_oom(req);
    resp = MHD_create_response_from_buffer(strlen(body), body, MHD_RESPMEM_MUST_FREE);
    if (resp == NULL) {
        free(body);
        return api_fail_oom(req);
    }
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, content_type);
    add_validators(resp, etag, cache);
    return api_reply(req, MHD_HTTP_OK, resp);
}

enum MHD_Result api_reply_json_tagged(struct api_request *req, cJSON *json, const char *etag)
{
    char *text = json ? cJSON_PrintUnformatted(json) : NULL;
    cJSON_Delete(json);
    return api_reply_tagged(req, text, "application/json", etag, NULL);
}
