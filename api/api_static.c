/*
 * api_static.c — the web board's files (web/, embedded at build time):
 * GET / and the pages people open from links (/games/{id}, /settings, …)
 * answer web/index.html, which routes on its own path; /assets/<path> the
 * file itself.  Every answer has an ETag (a match is 304), a Cache-Control
 * and a strict Content-Security-Policy: the page loads nothing from other
 * origins and runs no inline script.
 *
 * With KORP_WEB_DIR set (api_config.web_dir), the files are read from that
 * folder on every request instead (for working on the page without
 * rebuilding korpd).
 */
#include "api_int.h"

#include "base.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define WEB_FILE_MAX (4 * 1024 * 1024)

static const struct {
    const char *extension;
    const char *type;
} content_types[] = {
    { ".html", "text/html; charset=utf-8" },
    { ".js", "text/javascript; charset=utf-8" },
    { ".mjs", "text/javascript; charset=utf-8" },
    { ".css", "text/css; charset=utf-8" },
    { ".svg", "image/svg+xml" },
    { ".png", "image/png" },
    { ".ico", "image/x-icon" },
    { ".json", "application/json" },
    { ".webmanifest", "application/manifest+json" },
    { ".txt", "text/plain; charset=utf-8" },
    { ".woff2", "font/woff2" },
};

static const char *content_type(const char *path)
{
    const char *dot = strrchr(path, '.');
    for (size_t i = 0; dot != NULL && i < sizeof content_types / sizeof *content_types; i++)
        if (strcmp(dot, content_types[i].extension) == 0)
            return content_types[i].type;
    return "application/octet-stream";
}

/* A path under web/ that names a file, not a way out of the folder. */
static bool path_safe(const char *path)
{
    if (path[0] == '\0' || path[0] == '/' || strlen(path) > 200)
        return false;
    for (const char *p = path; *p; p++) {
        char c = *p;
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-' || c == '.' || c == '/'))
            return false;
        if (c == '.' && (p == path || p[-1] == '/'))   /* no "..", no hidden files */
            return false;
    }
    return true;
}

/* The file's bytes: embedded, or read from KORP_WEB_DIR (malloc'd, *owned). */
static bool find(const char *dir, const char *path, const unsigned char **data,
                 size_t *size, char *etag, size_t etag_size, bool *owned)
{
    *owned = false;
    if (dir != NULL && dir[0] != '\0') {
        char file[512], hex[BASE_SHA256_HEX_LEN + 1];
        FILE *f;
        long n;
        unsigned char *bytes;
        struct stat st;
        snprintf(file, sizeof file, "%s/%s", dir, path);
        /* Not on disk: the embedded copy, if any (the web's translation
         * catalogs are generated into the build, not into web/). */
        if (stat(file, &st) != 0 || !S_ISREG(st.st_mode))
            goto embedded;
        if ((f = fopen(file, "rb")) == NULL)
            return false;
        if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || n > WEB_FILE_MAX ||
            fseek(f, 0, SEEK_SET) != 0 || (bytes = malloc((size_t)n + 1)) == NULL) {
            fclose(f);
            return false;
        }
        if (fread(bytes, 1, (size_t)n, f) != (size_t)n) {
            free(bytes);
            fclose(f);
            return false;
        }
        fclose(f);
        base_sha256_hex((const char *)bytes, (size_t)n, hex);
        snprintf(etag, etag_size, "\"%.16s\"", hex);
        *data = bytes;
        *size = (size_t)n;
        *owned = true;
        return true;
    }
embedded:
    for (const struct api_web_file *w = api_web_files; w->path != NULL; w++)
        if (strcmp(w->path, path) == 0) {
            *data = w->data;
            *size = w->size;
            snprintf(etag, etag_size, "%s", w->etag);
            return true;
        }
    return false;
}

static enum MHD_Result serve(struct api_request *req, const char *path, bool page)
{
    const unsigned char *data = NULL;
    size_t size = 0;
    char etag[40];
    bool owned = false;
    const char *match = MHD_lookup_connection_value(req->conn, MHD_HEADER_KIND,
                                                    MHD_HTTP_HEADER_IF_NONE_MATCH);
    struct MHD_Response *resp;
    unsigned status = MHD_HTTP_OK;

    if (!path_safe(path) ||
        !find(req->config->web_dir, path, &data, &size, etag, sizeof etag, &owned))
        return api_fail(req, API_PROBLEM_NOT_FOUND, "no file at %.200s", req->path);
    if (match != NULL && strstr(match, etag) != NULL) {
        status = MHD_HTTP_NOT_MODIFIED;
        resp = MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT);
    } else if (owned) {
        resp = MHD_create_response_from_buffer(size, (void *)data, MHD_RESPMEM_MUST_COPY);
    } else {
        resp = MHD_create_response_from_buffer(size, (void *)data, MHD_RESPMEM_PERSISTENT);
    }
    if (owned)
        free((void *)data);
    if (resp == NULL)
        return api_reply(req, status, NULL);
    MHD_add_response_header(resp, MHD_HTTP_HEADER_ETAG, etag);
    /* Checked again each time (cheap: a 304), so that a new korpd's page and
     * its assets never mix with a cached older one. */
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-cache");
    if (page)
        MHD_add_response_header(resp, "Vary", "Cookie");
    MHD_add_response_header(resp, "Content-Security-Policy", API_PAGE_CSP);
    MHD_add_response_header(resp, "Referrer-Policy", "same-origin");
    MHD_add_response_header(resp, "X-Frame-Options", "DENY");
    if (status == MHD_HTTP_OK)
        MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, content_type(path));
    return api_reply(req, status, resp);
}

enum MHD_Result api_web_page(struct api_request *req)
{
    return serve(req, "index.html", true);
}

enum MHD_Result api_web_asset(struct api_request *req)
{
    char path[API_PARAM_MAX + 16];
    snprintf(path, sizeof path, "assets/%s", req->params[0]);
    return serve(req, path, false);
}

/* Browsers ask for /favicon.ico whatever the page says: the page's icon. */
enum MHD_Result api_web_icon(struct api_request *req)
{
    return serve(req, "assets/favicon.svg", false);
}

enum MHD_Result api_web_root_file(struct api_request *req)
{
    return serve(req, req->path + 1, false);
}
