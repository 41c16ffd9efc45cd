/*
 * api_routes.c — the route table: method, path pattern, needs, handler.
 * A pattern segment "{name}" captures one path segment into req->params,
 * in order.  No match is 404; a path that matches under other methods
 * only is 405 with an Allow header.
 */
#include "api_int.h"

#include <stdio.h>
#include <string.h>

struct route {
    const char *method;
    const char *pattern;
    unsigned needs;          /* API_JSON_BODY … */
    api_handler handler;
};

static const struct route routes[] = {
    { "GET", "/healthz", 0, api_health },
    { "HEAD", "/healthz", 0, api_health },
    { NULL, NULL, 0, NULL },
};

/* Whether path matches pattern; fills params with the captures. */
static bool match(const char *pattern, const char *path,
                  char params[API_MAX_PARAMS][API_PARAM_MAX + 1])
{
    int captured = 0;
    while (*pattern != '\0' && *path != '\0') {
        if (*pattern == '{') {
            size_t len = strcspn(path, "/");
            const char *close = strchr(pattern, '}');
            if (close == NULL || len == 0 || len > API_PARAM_MAX || captured == API_MAX_PARAMS)
                return false;
            memcpy(params[captured], path, len);
            params[captured++][len] = '\0';
            pattern = close + 1;
            path += len;
        } else if (*pattern++ != *path++) {
            return false;
        }
    }
    return *pattern == '\0' && *path == '\0';
}

/* Appends a method to the Allow list unless it does not fit. */
static void allow_add(char *allow, size_t size, const char *method)
{
    size_t used = strlen(allow);
    size_t need = strlen(method) + (used ? 2 : 0);
    if (used + need + 1 > size)
        return;
    snprintf(allow + used, size - used, "%s%s", used ? ", " : "", method);
}

enum MHD_Result api_route(struct api_request *req)
{
    char allow[128] = "";
    char scratch[API_MAX_PARAMS][API_PARAM_MAX + 1];

    if (req->body_too_large)
        return api_fail(req, API_PROBLEM_BODY_TOO_LARGE,
                        "the request body is larger than %d KiB", API_BODY_LIMIT / 1024);
    for (const struct route *r = routes; r->pattern != NULL; r++) {
        if (!match(r->pattern, req->path, scratch))
            continue;
        if (strcmp(r->method, req->method) != 0) {
            allow_add(allow, sizeof allow, r->method);
            continue;
        }
        memcpy(req->params, scratch, sizeof scratch);
        if (r->needs & API_JSON_BODY) {
            enum MHD_Result replied;
            if (!api_body_parse(req, &replied))
                return replied;
        }
        return r->handler(req);
    }
    if (allow[0] == '\0')
        return api_fail(req, API_PROBLEM_NOT_FOUND, "no resource at %.200s", req->path);
    {
        char detail[256];
        unsigned status;
        struct MHD_Response *resp;
        snprintf(detail, sizeof detail, "%s is not allowed here; use %s", req->method, allow);
        resp = api_problem_response(API_PROBLEM_METHOD_NOT_ALLOWED, detail, &status);
        if (resp != NULL)
            MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, allow);
        return api_reply(req, status, resp);
    }
}
